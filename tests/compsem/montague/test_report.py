"""Tests of compsem.montague.report: the glued values, the synthesis headlines, try-it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from compsem.montague.report import _gap_boot
from tests.compsem.montague.toy import small_vocab
from tests.helpers.fake_encoders import seeded_embed_fn


def bag_of_words(texts, model):
    """Binary word vectors over a fixed word list: "red dog" is as far from "red" as from "dog"
    (cos = 1/sqrt 2 for both), and d(a n1, a n2) = 1/2 for every adjective: every comparison ties."""
    vocab = sorted({w for t in texts for w in t.split()})
    X = np.zeros((len(texts), len(vocab)), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            X[i, vocab.index(w)] = 1.0
    return X


def toy_run(embed_fn, models=("toy",)):
    return mt.study.run(list(models), vocab=small_vocab(), embed_fn=embed_fn, progress=False)


def test_gap_bootstrap_on_known_groups():
    lo, hi, n = _gap_boot(np.array([1.0, 1.0, 1.0, np.nan]), np.array([0.0, 0.0]), 200, 0)
    assert (lo, hi, n) == (1.0, 1.0, 5)
    lo, hi, _ = _gap_boot(np.array([0.0, 1.0]), np.array([0.5]), 500, 0)
    assert lo < 0 < hi


def test_cell_finds_one_value_or_nan():
    tab = pd.DataFrame({"model": ["a", "a", "b"], "test": ["x", "y", "x"], "perm_p": [0.1, 0.2, 0.3]})
    assert mt.report.cell(tab, "perm_p", model="a", test="y") == 0.2
    assert mt.report.cell(tab, "perm_p", model="b", test="x") == 0.3
    assert math.isnan(mt.report.cell(tab, "perm_p", model="c", test="x"))


def test_relation_follows_the_reading():
    assert mt.report.relation("nonsub", "official") == "d(p, a) < d(p, n)"
    assert mt.report.relation("nonsub", "equations") == "d(p, a) ≤ d(p, n)"
    with pytest.raises(ValueError, match="unknown test"):
        mt.report.relation("single")


def test_shown_has_no_negative_zero():
    df = pd.DataFrame({"x": [-0.00001, 0.12344], "name": ["a", "b"]})
    out = mt.report.shown(df, 4)
    assert str(out.x.iloc[0]) == "0.0" and out.x.iloc[1] == 0.1234 and list(out.name) == ["a", "b"]


def test_headlines_pair_is_the_chapter_cell_and_all_tie_rows_are_degenerate(monkeypatch):
    runs = {}

    def fake_run(models, **kw):
        fn = bag_of_words if models == ["bow-toy"] else seeded_embed_fn(dim=6)
        runs[models[0]] = mt.study.run(
            models, vocab=small_vocab(), embed_fn=fn, readings=kw["readings"], progress=False
        )
        return runs[models[0]]

    monkeypatch.setattr(mt.report, "run", fake_run)
    rows = {(r["model"], r["criterion"]): r for m in ["toy", "bow-toy"] for r in mt.report.headlines([m], n_boot=50)}
    # PAIR is the (S-I, NS-Pr) cell of the chapter's pair table, interval included
    cell = mt.tables.pair_table(runs["toy"].main["toy"], n_boot=50).set_index(["type1", "type2"]).loc[("S-I", "NS-Pr")]
    pair = rows[("toy", "PAIR")]
    assert (pair["value"], pair["low"], pair["high"]) == (cell.consistency, cell.ci_low, cell.ci_high)
    assert pair["degenerate"] == "" and pair["ties"] == 0.0
    # NSGAP is the chapter's pooled gap
    ns = mt.tables.an_table(runs["toy"].main["toy"], "nonsub", n_boot=0)
    gap = mt.tables.class_gap(ns, ["toy"])["gap (non-sub − sub)"].iloc[0]
    assert rows[("toy", "NSGAP")]["value"] == pytest.approx(gap)
    # a bag of words ties every comparison: PAIR 0 and NSGAP 0 under "<", both flagged
    for key in ["PAIR", "NSGAP"]:
        r = rows[("bow-toy", key)]
        assert r["value"] == 0.0 and r["ties"] == 1.0 and r["degenerate"] == "every comparison is a tie"
    assert rows[("bow-toy", "AAN")]["degenerate"] == ""
    # the replicates pair across models: the same draws, so a model against itself differs by exactly 0, and
    # the bag of words (every comparison a tie: 0 under "<") has replicates of 0 on every draw
    for key in ["AAN", "PAIR", "NSGAP"]:
        assert rows[("toy", key)]["replicates"].shape == rows[("bow-toy", key)]["replicates"].shape == (50,)
    assert (rows[("bow-toy", "PAIR")]["replicates"] == 0).all()
    again = {r["criterion"]: r for r in mt.report.headlines(["toy"], n_boot=50)}
    for key in ["AAN", "PAIR", "NSGAP"]:
        np.testing.assert_array_equal(again[key]["replicates"], rows[("toy", key)]["replicates"])
    # NSGAP's replicates centre on the gap: their mean lies within the bootstrap interval
    gap = rows[("toy", "NSGAP")]
    assert gap["low"] <= float(np.nanmean(gap["replicates"])) <= gap["high"]


def test_values_of_each_chapter_view_on_a_toy_run():
    run = toy_run(seeded_embed_fn(dim=6))
    v30 = mt.report.values(mt.report.phrases(run))
    # 10 adjectives, 4 nouns: 40 AN, 10 * 9 * 4 AAN, 90 sub-phrases
    assert (v30["n_adj"], v30["n_noun"], v30["n_an"], v30["n_aan"], v30["n_aa"]) == (10, 4, 40, 360, 90)
    assert v30["n_phrases"] == 400 and v30["geo_first_model"] == "toy"
    d = run.main["toy"].an_distances
    assert v30["geo_pa_mean"] == pytest.approx(d["phrase_adj"].mean())
    v31 = mt.report.values(mt.report.single(run, n_boot=10, n_perm=20))
    assert v31["an_min_value"] == v31["an_max_value"] == pytest.approx(np.nanmean(run.main["toy"].single_an))
    # one model: the sentence ranks nobody
    share = np.nanmean(run.main["toy"].single_an)
    assert v31["an_low_sentence"] == f"`toy` ({share:.3f}) is the only model that can be ranked here."
    assert math.isnan(v31["an_ref_maxabs"]) and math.isnan(v31["perm_p_an_ref"])  # "toy" is no paper model
    assert v31["n_models"] == 1 and v31["n_perm_used"] == 20
    v33 = mt.report.values(mt.report.nonsub(run, n_boot=10, n_perm=20))
    assert v33["ns_n_models"] == 1 and v33["ns_degenerate"] == "none" and v33["ns_relation"] == "d(p, a) < d(p, n)"
    with pytest.raises(TypeError, match="chapter view"):
        mt.report.values({"a": 1})


def test_nonsub_values_leave_all_tie_models_out_of_the_count():
    run = mt.study.run(
        ["toy", "bow-toy"],
        vocab=small_vocab(),
        progress=False,
        embed_fn=lambda texts, m: bag_of_words(texts, m) if m == "bow-toy" else seeded_embed_fn(6)(texts, m),
    )
    view = mt.report.nonsub(run, n_boot=10, n_perm=20)
    vals = mt.report.values(view)
    assert view.degenerate == ["bow-toy"] and vals["ns_degenerate"] == "bow-toy"
    assert vals["ns_n_models"] == 1 and vals["ns_n_degenerate"] == 1
    d = view.direction
    assert d.loc["bow-toy", "tie rate"] == 1.0 and d.loc["bow-toy", "every comparison ties"] == "yes"
    assert d.loc["toy", "tie rate"] == 0.0 and d.loc["toy", "every comparison ties"] == "no"


def test_try_it_pair_share_by_hand(monkeypatch):
    # 2-d vectors: "red dog"/"red law" 10 degrees apart, "fake dog"/"fake law" 90 degrees apart
    ang = {"red": 0, "fake": 180, "dog": 60, "law": 120, "red dog": 30, "red law": 40, "fake dog": 100, "fake law": 190}
    vec = {k: [math.cos(math.radians(a)), math.sin(math.radians(a))] for k, a in ang.items()}
    monkeypatch.setattr(
        mt.report, "embed_texts", lambda texts, m, trust_remote_code=False: np.array([vec[t] for t in texts])
    )
    out = mt.report.try_it(["red", "fake"], ["dog", "law"], ["toy"])
    pair = out[out.test.str.startswith("pair test")].set_index("phrase").verdict
    # d(red dog, red law) < d(fake dog, fake law) for both orders of the nouns
    assert pair["red vs fake"] == "100 %" and pair["fake vs red"] == "0 %"
    nonsub = out[out.test.str.startswith("closer")].set_index("phrase").verdict
    # "red dog" at 30 degrees: 30 from red, 30 from dog -> a tie, which fails under "<"; the row says
    # it is a tie (it said "fails", and "holds" under the equations, as if the model had decided)
    assert nonsub["red dog"] == "tied (a tie fails under <)"
    assert nonsub["fake dog"] == "fails"  # 100 degrees: 80 from fake, 40 from dog -> closer to the noun
    assert (
        mt.report.try_it(["red"], ["dog"], ["toy"], reading="equations")
        .set_index("test")
        .verdict["closer to adjective than noun (Eq. 7)"]
        == "tied (a tie holds under ≤)"
    )


def test_versus_leader_matches_the_exact_two_sample_permutation_p():
    # A = three 1s, B = three 0s: of the C(6, 3) = 20 relabellings only the real one and its mirror
    # separate the means by 1, so the exact two-sided p is 2/20 = 0.1; C equals A's scores exactly,
    # so every relabelling of A and C gives a difference of 0: the test cannot vary (undefined)
    scores = pd.DataFrame({"category": list("AAABBBCCC"), "score": [1, 1, 1, 0, 0, 0, 1, 1, 1]})
    vs = mt.tables.versus_leader(scores, n_perm=20_000, seed=1).set_index("category")
    assert set(vs.leader) == {"A"} and list(vs.index) == ["B", "C"] and set(vs.m) == {2}
    assert vs.loc["B", "difference"] == 1.0 and vs.loc["B", "p"] == pytest.approx(0.1, abs=0.01)
    assert vs.loc["B", "p_corrected"] == pytest.approx(2 * vs.loc["B", "p"])  # Bonferroni over 2
    assert vs.loc["B", "outcome"] == "no evidence of a difference"  # 0.2 is not below 0.05
    assert vs.loc["C", "outcome"] == "undefined" and np.isnan(vs.loc["C", "p_corrected"])
    # eight against eight: the exact p is 2 / C(16, 8) = 1.6e-4, so with one comparison it is "above"
    eight = pd.DataFrame({"category": ["A"] * 8 + ["B"] * 8, "score": [1.0] * 8 + [0.0] * 8})
    one = mt.tables.versus_leader(eight, n_perm=10_000).iloc[0]
    assert one.m == 1 and one.p < 0.001 and one.outcome == "above"
    assert mt.tables.versus_leader(eight[eight.category == "A"]).empty  # one class: nothing to compare


def test_classes_are_ordered_by_a_permutation_test_against_the_leader():
    # S-I around 0.9 and far from NS-Pr around 0.2 (6 against 6: exact p = 2/924); NS-Pl spans 0.3-0.95
    scores = pd.DataFrame(
        {
            "category": ["S-I"] * 6 + ["NS-Pr"] * 6 + ["NS-Pl"] * 6,
            "score": [0.9, 0.92, 0.88, 0.9, 0.91, 0.89, 0.2, 0.22, 0.18, 0.2, 0.21, 0.19]
            + [0.3, 0.95, 0.95, 0.5, 0.9, 0.6],
        }
    )
    s = mt.report.class_order_sentence(scores, what="mean score", n_boot=200, n_perm=5000)
    assert s.startswith("`S-I` has the highest mean score (0.90 [")
    assert "two-sample permutation test over adjectives (unpaired by design" in s
    assert "Bonferroni over the 2 comparisons" in s
    assert "its mean lies above that of `NS-Pr` (difference 0.70, corrected p = 0.00" in s
    assert "no evidence of a difference from `NS-Pl` (difference 0.20" in s
    assert "overlap" not in s  # an overlap of two intervals is no test
    assert "The intervals of `NS-Pl` contain 0.5." in s
    # contradicting data: NS-Pr given S-I's scores shifted by 0.01 -> no evidence of a difference
    same = scores.copy()
    same.loc[same.category == "NS-Pr", "score"] = [0.89, 0.91, 0.87, 0.89, 0.9, 0.88]
    s = mt.report.class_order_sentence(same, what="mean score", n_boot=200, n_perm=5000)
    assert "its mean lies above" not in s and "no evidence of a difference from `NS-Pr` (difference 0.01" in s
    two = scores[scores.category != "NS-Pl"]
    s = mt.report.class_order_sentence(two, what="mean score", n_boot=200, n_perm=5000)
    assert "Against the other class, a two-sample" in s and "Bonferroni" not in s and "corrected" not in s
    assert "its mean lies above that of `NS-Pr` (difference 0.70, p = 0.00" in s
    assert "No class's interval contains 0.5." in s


def test_the_papers_cells_keep_their_printed_digits():
    # Table 8 prints DPR's NS-Pr cell as 0.5595: shown at four decimals it must not read 0.5600
    paper8 = mt.report.paper_table(8)
    want = float(paper8[(paper8.model == "DPR") & (paper8.category == "NS-Pr")].value.iloc[0])
    assert want == 0.5595
    html = mt.report.styled(mt.report.by_class(paper8, value="value"), 4).to_html()
    assert "0.5595" in html and "0.5600" not in html


def test_a_stand_in_model_is_named_with_its_largest_gaps_to_the_papers_row():
    from compsem.montague.report import stand_in_sentence

    c = pd.DataFrame(
        {
            "model": ["sbert-mini"] * 2 + ["glove-50d"] * 3,
            "category": ["A", "S-I", "A", "S-I", "S-NI"],
            "ours": [0.9, 0.1, 0.75, 1 / 3, 0.5],
            "paper": [0.5, 0.6, 0.2777, 0.6060, 0.49],
            "paper_model": ["MiniLM"] * 2 + ["GloVe"] * 3,
        }
    )
    c["difference"] = c.ours - c.paper
    # the reference model is left out however far it is; glove-50d's gaps: A 0.4723, S-I 0.2727, S-NI 0.01
    assert stand_in_sentence(c, "sbert-mini") == (
        "`glove-50d`, a stand-in for the paper's GloVe, is furthest from "
        "the paper's row in A: 0.750 against 0.2777; S-I: 0.333 against 0.6060."
    )
    assert stand_in_sentence(c[c.model == "sbert-mini"], "sbert-mini") == ""


def test_the_aan_count_leaves_an_undefined_test_out_and_names_it():
    # issue 35's example 5: bow's AAN row is marked undefined, so it is not counted among the models
    run = mt.study.run(
        ["toy", "bow-toy"],
        vocab=small_vocab(),
        progress=False,
        embed_fn=lambda texts, m: bag_of_words(texts, m) if m == "bow-toy" else seeded_embed_fn(6)(texts, m),
    )
    view = mt.report.single(run, n_boot=10, n_perm=20)
    aan = view.tests[view.tests.test == "single_AAN"].set_index("model")
    assert aan.loc["bow-toy", "note"].startswith("undefined")  # every bag-of-words AAN comparison ties
    assert aan.loc["toy", "perm_p"] > 0.05  # the toy's classes do not differ at 5 %
    assert mt.report.values(view)["aan_sig_count"] == "0 of 1 model with a defined test (bow-toy left out)"


def test_an_undefined_permutation_test_reports_no_p_value():
    import pandas as pd

    from compsem.montague.report import permutation_words

    tests = pd.DataFrame(
        {
            "model": ["m", "m"],
            "test": ["single_AN", "single_AAN"],
            "perm_p": [1.0, 0.10559],
            "note": ["undefined: one outcome never occurs", None],
        }
    )
    # the table marks AN undefined: its stored p of 1.0 is never printed
    assert permutation_words(tests, "m", "single_AN", "AN") == (
        "is undefined on AN phrases (one outcome never occurs), so it gives no p-value"
    )
    assert permutation_words(tests, "m", "single_AAN", "AAN") == "gives p = 0.106 on AAN phrases"
    # contradicting data: the AN test defined (no note) gives its p-value; a tiny one prints as "< 0.001"
    tests.loc[0, ["perm_p", "note"]] = [0.0004, None]
    assert permutation_words(tests, "m", "single_AN", "AN") == "gives p < 0.001 on AN phrases"
    assert permutation_words(tests, "other", "single_AN", "AN") == "was not run on AN phrases"


def test_a_permutation_p_that_cannot_vary_is_undefined_in_words_never_a_number():
    from compsem.montague.report import _p_text

    assert _p_text(0.0041) == "p = 0.004" and _p_text(0.0002) == "p < 0.001"
    assert _p_text(float("nan")) == "no p-value (the test is undefined: its outcome cannot vary)"
    # every adjective scores the same: the permutation test is undefined, so its words carry no p
    v = mt.data.Vocabulary(["a", "b", "c", "d"], ["S-I", "S-I", "A", "A"], ["x"])
    perm = mt.tables.permutation_test(np.ones(4), v.category_index, n_perm=20)
    assert _p_text(perm["p_value"]).startswith("no p-value")


def test_the_direction_sentence_follows_each_gaps_interval():
    from compsem.montague.report import direction_sentence

    above = direction_sentence({"m1": (0.1, 0.01, 0.2), "m2": (0.05, -0.1, 0.3)})
    assert "2 models" in above and "1 has a gap" in above and "0 have one below zero" in above
    assert "and 1 has one that includes zero" in above
    assert above.endswith("(gap [95 % interval]: m1 0.100 [0.010, 0.200]; m2 0.050 [-0.100, 0.300]).")
    below = direction_sentence({"m1": (-0.1, -0.3, -0.01), "m2": (-0.1, -0.2, -0.05)})  # contradicting data
    assert "0 have a gap" in below and "2 have one below zero" in below and "0 have one that includes zero" in below
    zero = direction_sentence({"m1": (0.0, -0.1, 0.1), "m2": (0.0, -0.2, 0.05), "m3": (0.1, -0.01, 0.2)})
    assert "the intervals of all 3 include zero" in zero and "m3 0.100 [-0.010, 0.200]" in zero
    assert direction_sentence({}).startswith("No model")


def test_class_sizes_are_counted_from_the_vocabulary():
    from types import SimpleNamespace

    from compsem.montague.report import _class_sizes

    vocab = SimpleNamespace(categories=("S-I", "S-I", "A", "S-NI", "S-NI", "S-NI"), n_noun=4)
    sizes = _class_sizes(vocab)
    assert sizes["n_class_S_I"] == 2 and sizes["n_class_S_NI"] == 3 and sizes["n_class_A"] == 1
    assert sizes["n_class_NS_Pl"] == 0
    assert sizes["n_an_class_A"] == 4 and sizes["n_noun_pairs"] == 6  # 1 adjective x 4 nouns; 4 * 3 / 2


def test_the_count_of_significant_models_is_corrected_for_the_number_of_tests():
    from compsem.montague.report import significant_count

    # 3 tests at family-wise 5 %: each at 0.05 / 3 = 0.0167, so p = 0.025 no longer counts
    assert significant_count({"a": 0.025, "b": 0.5, "c": 0.6}) == (
        "none of the 3 models (each test at 0.0167, a Bonferroni correction for 3 tests)"
    )
    assert significant_count({"a": 0.01, "b": 0.5, "c": 0.6}).startswith("1 of 3 models")
    assert significant_count({"a": 0.04}, ["bow"]) == "1 of 1 model with a defined test (bow left out)"
