"""Part IV's report: the values the chapters glue, recomputed independently on a small pool,
the paper tables, the headline and the try-it table."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.ssm import report
from compsem.ssm.data import load_pool, load_study
from compsem.ssm.lexical import LexicalCoverage
from compsem.ssm.metrics import distances, rsa
from compsem.ssm.study import REFERENCE, Scored, run, score_all


def test_pool_values_by_hand(small_pool):
    pool, R_ref, cats = load_study(small_pool)
    summary, values = report.pool_summary(pool, cats), report.values("pool", pool, cats)
    # 3 clusters of 1 premise + 2 rewrites + 3 inferences = 18 sentences; the paper judged 702 + 3,153 pairs
    # and its pool (data/reference/ssm_pool.csv) has 401 sentences in 50 clusters, 3,855 judged pairs in all
    assert values == {
        "ssm_n_sentences": 18,
        "ssm_n_clusters": 3,
        "ssm_n_pairs": 324,
        "ssm_paper_extra_pairs": 3153,
        "ssm_paper_n_sentences": 401,
        "ssm_paper_n_clusters": 50,
        "ssm_paper_n_judged": 3855,
        "ssm_synonymous_range": "exactly 2",  # every cluster of conftest's pool has 2 rewrites
        "ssm_inferential_range": "exactly 3",
    }
    mine = summary.set_index("quantity")["this book"]
    assert mine["judged premise-hypothesis pairs (both directions)"] == 30 and mine["premises"] == 3
    dist, shares = report.judgement_distribution(R_ref, cats), report.values("judgements", R_ref, cats)
    assert shares == {"ssm_share_inf_rev_zero": 100.0, "ssm_share_syn_one": 100.0}  # see conftest's judgements
    assert dist.loc["inferential_reversed", 0.0] == 9 and dist.loc["synonymous", 1.0] == 6
    members = report.cluster_members(pool, R_ref, 2)
    assert members.role.tolist() == ["premise"] + ["synonymous"] * 2 + ["inferential"] * 3
    assert members["R(p, h)"].iloc[1:].tolist() == [1.0] * 5 and members["R(h, p)"].iloc[3:].tolist() == [0.0] * 3
    with pytest.raises(ValueError, match="no cluster 9"):
        report.cluster_members(pool, R_ref, 9)
    table, words = report.cluster_table(pool), report.values("clusters", pool)
    assert table.n_sentences.tolist() == [6, 6, 6]
    assert words["ssm_mean_words"] == pytest.approx(np.mean([len(t.split()) for t in pool.texts]))
    assert report.pair_counts(cats).loc["irrelevant", "ordered pairs"] == 18 * 18 - 3 * 36


def test_chapter_values_match_a_direct_computation(small_pool):
    r = run(["lexical", "bow"], pool_source=small_pool, progress=False)
    tab, wide = report.ssm_metrics(r, n_boot=20)
    values = report.values("ssm", tab)
    D_ref = distances(r.R_ref)
    direct = {
        name: rsa(distances(r.scored[name].R, symmetric=r.scored[name].symmetric)["rel"], D_ref["rel"])
        for name in ("lexical", "bow")
    }
    best = max(direct, key=direct.get)
    assert values["ssm_best_rsa_name"] == best and values["ssm_best_rsa"] == pytest.approx(direct[best])
    assert values["ssm_n_dis"] == 1 and values["ssm_paper_human_ch"] == pytest.approx(10.73)
    assert np.isnan(wide.loc["bow", "rsa_dis"]) and wide.index[0] == REFERENCE
    acc, table2 = report.accuracy(r, n_boot=0)
    av = report.values("accuracy", r, acc)
    bow = acc[acc.scorer == "bow"].set_index("category").accuracy
    assert av["ssm_sym_infsum_min"] == pytest.approx(bow["inferential"] + bow["inferential_reversed"])
    assert av["ssm_paper_simcse_inf"] == pytest.approx(0.686)
    (_means, table), mv = report.mean_scores(r), report.values("mean_scores", r)
    lex = r.scored["lexical"].R
    gap = lex[r.cats == "inferential"].mean() - lex[r.cats == "inferential_reversed"].mean()
    assert mv["ssm_first_scorer"] == "lexical" and mv["ssm_first_dir_gap"] == pytest.approx(gap)
    # the irrelevant-pairs sentence ranks the scorers but never the bag-of-words control, named beside
    irr = {n: np.nanmean(r.scored[n].R[r.cats == "irrelevant"]) for n in ("lexical", "bow")}
    assert str(mv["ssm_irrelevant_sentence"]) == (
        f"No model can be ranked here: only controls are left. `lexical` "
        f"({irr['lexical']:.2f}) and `bow` ({irr['bow']:.2f}) are controls, "
        "shown beside the models and not ranked."
    )
    # without intervals the control stays out of the ranking too
    flat = str(report.values("mean_scores", r, n_boot=0)["ssm_irrelevant_sentence"])
    assert flat.startswith("No model can be ranked here: `lexical`: a control") and "`bow`: a control" in flat
    assert list(table.columns) == [REFERENCE, "lexical", "bow"]


def test_paper_tables_have_the_papers_rows():
    t2, t3 = report.paper_table("table2_accuracy"), report.paper_table("table3_ssm")
    assert len(t2) == len(t3) == 21  # 18 BERT-family models, SimCSE, ChatGPT, humans
    assert t3.set_index(["model", "dataset"]).loc[("DeBERTa base", "MNLI"), "rsa_rel"] == pytest.approx(0.79)


def test_try_it_by_hand():
    texts = ["the red cat sleeps", "a cat sleeps", "the dog barks loudly"]
    out = report.try_it(texts[0], texts[1:], ["bow"])
    assert list(out.columns) == ["model", "matrix", "row", "column", "value"]
    wide = {
        (m, k): g.pivot(index="row", columns="column", values="value").loc[["P", "H1", "H2"], ["P", "H1", "H2"]]
        for (m, k), g in out.groupby(["model", "matrix"])
    }
    R = wide[("lexical", "R")].to_numpy()
    np.testing.assert_allclose(R, LexicalCoverage().score(texts))
    # {red, cat, sleep}, {cat, sleep}, {dog, bark, loudly}: P covers all of H1, H1 covers 2 of P's 3 words
    assert R[0, 1] == pytest.approx(1.0) and R[1, 0] == pytest.approx(2 / 3) and R[0, 2] == 0.0
    assert sorted(k for m, k in wide if m == "lexical") == ["D_dis", "D_rel", "R"]
    assert sorted(k for m, k in wide if m == "bow") == ["D_rel", "R"]
    np.testing.assert_allclose(wide[("lexical", "D_rel")].to_numpy(), 1 - (R + R.T) / 2)
    with pytest.raises(ValueError, match="unknown Part IV view 'poool'; choose from pool"):
        report.values("poool")


def test_headline_is_the_rsa_of_the_relatedness_space():
    (row,) = report.headlines(["bow"], n_boot=20)
    pool, R_ref, _ = load_study()
    assert row["model"] == "bow" and row["n"] == len(load_pool())
    assert row["low"] <= row["value"] <= row["high"]
    R = score_all(pool, ["bow"], progress=False)["bow"].R
    assert row["value"] == pytest.approx(rsa(distances(R, symmetric=True)["rel"], distances(R_ref)["rel"]))


def test_a_model_that_maps_to_a_paper_row_stands_beside_it(small_pool):
    r = run(["lexical", "bow"], pool_source=small_pool, progress=False)
    tab, _ = report.ssm_metrics(r, n_boot=0)
    acc, _ = report.accuracy(r, n_boot=0)
    assert report.beside_paper(r, tab, acc).empty  # neither maps to a model of the paper
    # the same matrices under the spec of the paper's "BERT base, MNLI" row, with predicted labels
    spec = "nli:textattack/bert-base-uncased-MNLI#entailment=1"
    lex = r.scored["lexical"]
    r.specs, r.scored = [spec], {spec: Scored(spec, lex.R, False, "x", lex.R > 0.4)}
    tab, _ = report.ssm_metrics(r, n_boot=0)
    acc, _ = report.accuracy(r, n_boot=0)
    both = report.beside_paper(r, tab, acc).set_index("source")
    assert both.loc["paper", "paper row"] == "BERT base MNLI" and not both.loc["paper", "same weights"]
    assert both.loc["paper", "rsa_rel"] == pytest.approx(0.76) and both.loc["paper", "synonymous"] == pytest.approx(
        0.733
    )
    ours = tab[(tab.space == "rel") & (tab.scorer == spec)].iloc[0]
    assert both.loc["this book", "rsa_rel"] == pytest.approx(ours.rsa)
    assert both.loc["this book", "accuracy rule"] == "predicted label"
    by_label = acc.set_index("category").accuracy_label
    assert both.loc["this book", "inferential"] == pytest.approx(by_label["inferential"])


def test_the_synthesis_headline_is_chapter_42s_rsa_cell():
    # one source per number: the synthesis's RSA is the relatedness row chapter 42 saves (ssm_metrics)
    from compsem.ssm import report as rep
    from compsem.ssm import study as st

    (row,) = rep.headlines(["bow"], n_boot=50, seed=2)
    tab, _ = rep.ssm_metrics(st.run(["bow"], progress=False), n_boot=50, seed=2)
    cell = tab[(tab.scorer == "bow") & (tab.space == "rel")].iloc[0]
    assert (row["value"], row["low"], row["high"]) == pytest.approx((cell.rsa, cell.rsa_low, cell.rsa_high))
    # its replicates are the chapter's own cluster draws: their percentile interval is the row's
    assert np.percentile(row["replicates"], [2.5, 97.5]) == pytest.approx([row["low"], row["high"]])


def test_the_models_table_says_symmetric_in_words():
    t = report.models_table(run(["bow"], progress=False))
    assert set(t["symmetric"]) <= {"yes", "no"} and t.set_index("scorer").loc["bow", "symmetric"] == "yes"


def test_lowest_text_names_the_lowest_scorer_from_the_values():
    import pandas as pd

    from compsem.ssm.report import lowest_text

    assert lowest_text(pd.Series({"a": 0.5, "b": 0.25})) == "lowest point value 0.25, `b`"
    assert lowest_text(pd.Series({"a": 0.125, "b": 0.25}), digits=3) == "lowest point value 0.125, `a`"  # words follow
    assert "`a` and `b`" in lowest_text(pd.Series({"a": 0.2, "b": 0.2}))


def test_nli_rows_count_the_rows_that_name_a_training_set():
    import pandas as pd

    from compsem.ssm.report import nli_rows

    assert nli_rows(pd.DataFrame({"dataset": ["ANLI", "MNLI", "", None]})) == 2  # SimCSE/ChatGPT rows name none
    assert nli_rows(pd.DataFrame({"dataset": ["ANLI", "MNLI", "SNLI"]})) == 3


def test_controls_are_compared_with_every_model_by_a_paired_test():
    from compsem.ssm.report import controls_sentence

    # replicates move together (shared resamples) and differ by a fixed gap: each paired
    # difference is that gap exactly, so the interval is [gap, gap] at any level
    shared = np.linspace(-0.05, 0.05, 101)
    values = {"a": 0.43, "b": 0.41, "lexical": 0.55, "bow": 0.50}
    reps = {k: v + shared for k, v in values.items()}
    s = controls_sentence(values, reps, ["lexical", "bow"], items="sentence clusters")
    assert s.startswith("Both controls (`lexical` and `bow`) lie above every model")
    assert "4 paired comparisons" in s and "each interval at 98.75 % by Bonferroni" in s
    assert "the closest to zero: `a` − `bow` -0.07 [-0.07, -0.07]" in s
    # contradicting data: model a above both controls -> the words name each outcome, no "lie above every model"
    up = {**values, "a": 0.60}
    s = controls_sentence(up, {k: v + shared for k, v in up.items()}, ["lexical", "bow"], items="sentence clusters")
    assert "lie above every model" not in s
    assert "2 below zero (the control higher): `b` − `lexical` -0.14" in s
    assert "2 above zero (the model higher): `a` − `lexical` 0.05" in s
    # a model that moves independently of the control: its difference includes zero
    noisy = dict(reps, b=values["b"] + shared[::-1] * 10)
    s = controls_sentence(values, noisy, ["bow"], items="clusters")
    assert "including zero (no evidence of a difference): `b` − `bow`" in s
    assert controls_sentence(values, reps, []) == ""


def test_ch_sentence_compares_each_models_point_value_with_the_reference():
    import pandas as pd

    ch = pd.Series({"a": 22.0, "b": 5.5, "ctl": 13.0})
    got = report.ch_sentence(ch, 5.0, ["ctl"])
    assert got.startswith("Every model's CH lies above the reference's: `a` (22.00) and `b` (5.50)")
    assert "the controls `ctl` (13.00) are shown beside them and not ranked" in got and "not a test" in got
    # contradicting data: the reference above one model, then above both; the words change
    got = report.ch_sentence(ch, 6.0, ["ctl"])
    assert got.startswith("The CH of `a` (22.00) lies above the reference's; that of `b` (5.50) does not")
    assert report.ch_sentence(ch, 30.0, ["ctl"]).startswith("No model's CH lies above the reference's: `a` (22.00)")


def test_lead_digits_print_the_leaders_paired_bounds_with_their_sign():
    import pandas as pd

    # the leader a against b: replicate differences 0.004 .. 0.03 (the lower bound prints "0.00" at 2 decimals)
    diffs = np.linspace(0.004, 0.03, 1001)
    reps = {"a": 0.5 + diffs, "b": np.full(1001, 0.5), "ctl": np.full(1001, 0.9)}
    values = pd.Series({"a": 0.52, "b": 0.5, "ctl": 0.9})
    assert report.lead_digits(values, reps, ["ctl"]) == 3  # the control (highest) is not the leader
    # contradicting data: a clear lead prints at the floor
    reps["a"] = 0.5 + np.linspace(0.02, 0.05, 1001)
    assert report.lead_digits(values, reps, ["ctl"]) == 2
    assert report.lead_digits(values, reps, ["ctl", "b"]) == 2  # one model left: nothing to compare


def test_role_range_follows_the_pool(tmp_path, monkeypatch):
    from tests.compsem.ssm import conftest

    # contradicting data: one cluster with a third rewrite and a fourth inference; the words change
    prem, syns, infs = conftest.CLUSTERS[0]
    bigger = (prem, [*syns, "a dog is running in the park ."], [*infs, "something runs ."])
    monkeypatch.setattr(conftest, "CLUSTERS", [bigger, *conftest.CLUSTERS[1:]])
    pool, _, _ = load_study(conftest.write_pool(tmp_path))
    assert report.role_range(pool, "synonymous") == "2 to 3"
    assert report.role_range(pool, "inferential") == "3 to 4"
    assert report.role_range(pool, "nonsense") == "exactly 0"
