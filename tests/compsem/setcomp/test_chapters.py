"""The chapter views: every value a Part I chapter's prose glues is produced by its view."""

import hashlib

import numpy as np
import pytest

from compsem.setcomp import chapters, study
from compsem.setcomp.chapters import ranking_sentence
from tests.helpers import glued_names


def fake_embed(texts, model):
    """Deterministic vectors per text (a hash-seeded Gaussian), different per model."""
    out = []
    for t in texts:
        rng = np.random.default_rng(int(hashlib.sha256(f"{model}|{t}".encode()).hexdigest()[:8], 16))
        out.append(rng.normal(size=8) + (3.0 if model == "offset" else 0.0))
    return np.array(out)


@pytest.fixture(scope="module")
def overlap():
    run = study.run("overlap", ["m", "offset"], sample_cap=12, embed_fn=fake_embed)
    ch = chapters.OverlapChapter(run, measures=["cos", "ned"], grid_size=11, n_boot=20, seed=0)
    ch.margins(), ch.cells(), ch.cells("ned"), ch.summary_figure(), ch.eps_modes(), ch.baselines(), ch.c2()
    return ch


def test_overlap_view_produces_every_glued_value(overlap):
    assert glued_names("11_setcomp_overlap.ipynb") <= set(overlap.values)
    assert overlap.values["n_overlap"] == 12 and overlap.values["first_model"] == "m"


def test_overlap_cells_rows_sum_to_100_and_eps_modes_has_three_columns(overlap):
    c = overlap.cells_tab
    assert np.allclose(c.groupby(["model", "measure"])["pct"].sum(), 100)
    assert list(overlap.eps_modes().columns) == ["pooled", "per-model", "fixed"]
    assert list(overlap.eps_modes(extra=[{"d1": [-1, 1], "d2": [-1, 1]}]).columns)[-1] == "explicit"


def test_difference_view_produces_every_glued_value():
    run = study.run(
        "difference", ["m", "offset"], sample_cap=12, embed_fn=fake_embed, filter_encoders=["m"], filter_threshold=0.9
    )
    ch = chapters.DifferenceChapter(
        run,
        measures=["cos", "ned"],
        grid_size=11,
        n_boot=20,
        seed=0,
        eps_range={"d1": [-1, 1], "d2": [-1, 1], "d3": [-1, 1]},
    )
    ch.sizes(), ch.scores(), ch.ned_paper(), ch.ned_ours(), ch.cells(), ch.eps_modes(), ch.c4(), ch.c5(), ch.baselines()
    assert glued_names("12_setcomp_difference.ipynb") <= set(ch.values)
    assert set(ch.c4_tab["mode"]) == {"explicit", "fixed"}
    # C4 − C3 per sample on the same samples: its mean is the C4 share minus the (T,T) share of the same mode
    cells = ch.claim_cells()
    assert set(cells["mode"]) == {"explicit", "fixed"}
    tt = cells[cells["cell"] == "TT"].set_index(["subset", "mode", "measure", "model"])["pct"]
    c4 = ch.c4_tab.set_index(["subset", "mode", "measure", "model"])
    assert np.allclose(c4["minus_c3"], c4["pct"] - tt.loc[c4.index])
    assert (c4["minus_c3_low"] <= c4["minus_c3"]).all() and (c4["minus_c3"] <= c4["minus_c3_high"]).all()
    # the "offset" model shares a large mean: our NED departs from (1 − cos)/2 there, not for zero-mean "m"
    assert ch.values["ned_ours_gap_model"] == "offset"


def test_union_view_produces_every_glued_value():
    run = study.run("union", ["m"], sample_cap=12, embed_fn=fake_embed)
    ch = chapters.UnionChapter(run, n_boot=20, seed=0)
    ch.c6_geometry(), ch.between_figure(), ch.norm_figure(), ch.norms(), ch.c6()
    assert glued_names("13_setcomp_union.ipynb") <= set(ch.values)
    assert set(ch.c6_tab["model"]) == {"m", "random", "m (shuffled U)"}


def test_ranking_sentence_pairs_the_samples():
    # per-sample shares of 8 samples; a - b is 1 on 5 samples, 0 on 3: every paired resample's
    # mean lies in [0, 1], and the lead (62.5 points) is clear of zero
    a = np.array([1, 1, 1, 1, 0, 1, 1, 1.0])
    b = np.array([0, 0, 1, 0, 0, 0, 1, 0.0])
    text = str(ranking_sentence({"a": a, "b": b}, what="(T,T) share", n_boot=200))
    assert text.startswith(
        "`a` has the highest (T,T) share (87.5 %); on the same 8 samples its lead over `b` has a "
        "paired interval above zero (62.5 ["
    )
    # c differs from a on one sample: unpaired intervals would overlap just as much, and the words say no evidence
    c = a.copy()
    c[0] = 0.0
    text = str(ranking_sentence({"a": a, "c": c}, what="(T,T) share", n_boot=200))
    assert "no evidence of a difference" in text and "indistinguishable" not in text
    # contradicting data: b's samples raised to a's and past them on one sample, and b leads (by too little)
    b_up = np.array([1, 1, 1, 1, 1, 1, 1, 0.5])
    text = str(ranking_sentence({"a": a, "b": b_up}, what="(T,T) share", n_boot=200))
    assert text.startswith("`b` has the highest (T,T) share (93.8 %) on the same 8 samples, but")
    # lowest: b; a model whose every sample gives 0 is left out and named, not ranked lowest
    text = str(ranking_sentence({"a": a, "b": b, "z": np.zeros(8)}, what="share meeting C4", higher=False, n_boot=200))
    assert text.startswith("`b` has the lowest share meeting C4 (25.0 %)")
    assert text.endswith("`z` is left out of the ranking: every item gives exactly 0.")
    # the bag-of-words control is never ranked, even where it would lead: it is shown beside
    text = str(
        ranking_sentence(
            {"a": a, "b": b, "bow": np.array([0, 0, 0, 0, 0, 0, 0, 0.5])},
            what="share meeting C4",
            higher=False,
            n_boot=200,
        )
    )
    assert text.startswith("`b` has the lowest share meeting C4 (25.0 %)")
    assert text.endswith("`bow` (6.2 %) is a control, shown beside the models and not ranked.")
    # with constant=False (normalised encoders at a constant 100 %), the constant row is ranked
    text = str(ranking_sentence({"a": a, "z": np.ones(8)}, what="x", constant=False, n_boot=200))
    assert text.startswith("`z` has the highest x (100.0 %)")


def test_a_model_comparable_by_construction_is_left_out_of_the_paired_comparisons():
    from compsem.setcomp.chapters import fixed_ratio_models

    # n's norm ratios are all 1 (a normalised encoder): comparable on every sample by construction;
    # m's vary; w's are all 1.3, the same on every sample but not at the bound, so it stays; NaN is ignored
    ratios = {"m": np.array([1.0, 1.5, 0.9, 2.0]), "n": np.array([1.0, 1.0, np.nan, 1.0]), "w": np.full(4, 1.3)}
    fixed = fixed_ratio_models(ratios)
    assert list(fixed) == ["n"]
    # m comparable on 2 of 4 samples (50 %), g on 3 of 4; n's 100 % is out of the paired comparisons, named
    within = {"m": np.array([1, 0, 1, 0.0]), "g": np.array([1, 1, 1, 0.0]), "n": np.ones(4)}
    text = str(ranking_sentence(within, what="share", higher=False, constant=False, n_boot=200, excluded=fixed))
    assert text.startswith("`m` has the lowest share (50.0 %)")
    assert "`n` (" not in text and "from `n`" not in text
    assert text.endswith(
        "`n` is left out of the ranking: its norm ratio lies within 1e-06 of 1 on every sample (measured: the "
        "largest deviation is 0.0e+00), so its share is 100 % on these samples and a paired comparison with it "
        "tests nothing."
    )
    # a ratio a hair from 1 (an encoder that is only approximately unit length) says what was measured
    near = fixed_ratio_models({"u": np.array([1.0, 1 + 4e-7, 1 - 2e-7])})
    assert "the largest deviation is 4.0e-07" in near["u"] and "by construction" not in near["u"]
    # contradicting data: n's ratios vary, so nothing is fixed and n is compared like any model
    assert fixed_ratio_models({"n": np.array([1.0, 1.2])}) == {}
    text = str(ranking_sentence(within, what="share", higher=False, constant=False, n_boot=200))
    assert "left out" not in text and "`n` (" in text


def test_a_ranking_resamples_quintuples_not_their_samples():
    import numpy as np

    from compsem.setcomp.chapters import ranking_sentence

    # 4 quintuples of 6 samples each, identical within a quintuple: a − b per quintuple is 30, 35, 25, −20 points
    a = np.repeat([0.8, 0.8, 0.8, 0.3], 6)
    b = np.repeat([0.5, 0.45, 0.55, 0.5], 6)
    groups = np.repeat(["q1", "q2", "q3", "q4"], 6)
    # resampling the 24 samples as if independent: the lead looks clear
    naive = str(ranking_sentence({"a": a, "b": b}, what="share", n_boot=2000))
    assert "on the same 24 samples its lead over `b` has a paired interval above zero (17.5 [" in naive
    # resampling the 4 quintuples: all four draw the −20 quintuple 3 or 4 times with P = 5.1 % > 2.5 %, so the
    # interval reaches below zero (mean of the drawn quintuples ≤ −6.25)
    clustered = str(ranking_sentence({"a": a, "b": b}, what="share", n_boot=2000, groups=groups))
    assert "on the same 4 quintuples" in clustered and "(17.5 [-" in clustered
    assert "the paired interval includes zero: no evidence of a difference" in clustered


def test_a_ranking_on_the_pooled_range_says_so_and_adds_the_eps_zero_ranking(overlap):
    text = str(overlap.values["c1_tt_sentence"])
    assert "This ranking is of the pooled ε grid average, whose range the other models of the run set" in text
    assert text.count("has the highest share of samples in (T,T)") == 2  # the pooled ranking and the ε = 0 one
    # contradicting data: a range that does not depend on the panel (ε = 0) -> one ranking, no caveat
    fixed = chapters.ranking_by_mode(
        overlap.emb, "overlap", "cos", mode="fixed", what="share", size=11, n_boot=20, groups=overlap.g
    )
    assert "pooled" not in str(fixed) and str(fixed).count("has the highest share") <= 1


def test_the_claims_cells_hold_both_eps_modes_and_the_paired_leads(overlap):
    t = overlap.claim_cells()
    assert set(t["mode"]) == {"pooled", "fixed"}
    assert np.allclose(t.groupby(["model", "measure", "mode"])["pct"].sum(), 100)
    tt = t[(t["cell"] == "TT") & (t["measure"] == "cos")].set_index(["mode", "model"])
    # two models: each one's lead over the other is the other's with the sign turned
    for mode in ("pooled", "fixed"):
        assert tt.loc[(mode, "m"), "lead_over"] == "offset" and tt.loc[(mode, "offset"), "lead_over"] == "m"
        assert tt.loc[(mode, "m"), "lead"] == pytest.approx(-tt.loc[(mode, "offset"), "lead"])
    # the lead at ε = 0 is the difference of the two (T,T) shares on the same samples
    assert tt.loc[("fixed", "m"), "lead"] == pytest.approx(
        tt.loc[("fixed", "m"), "pct"] - tt.loc[("fixed", "offset"), "pct"]
    )
    assert t[t["cell"] != "TT"]["lead"].isna().all()


def test_the_paper_panel_is_counted_from_its_file():
    import pandas as pd

    from compsem.reference import paper_models
    from compsem.setcomp.chapters import paper_panel_sentence

    rows = pd.DataFrame(
        [
            # name, hub id, spec, same weights
            ("P", "org/p", "p-local", True),
            ("Q", "org/q", "hf:org/q", True),
            ("Q", "org/q", "st:org/q", True),  # a second way to run Q: still one model
            ("R", "", "oa:r", True),  # an API only
            ("S", "", "s-local", False),  # not the paper's weights
        ],
        columns=["paper_name", "hub_id", "spec", "same_model"],
    ).assign(kind="encoder")
    s = paper_panel_sentence(rows, ["p-local", "s-local"])
    assert s == (
        "Of the paper's 4 encoders, 2 have the very weights the paper used on the hub and 1 (R) is served only by "
        "a web API (`data/reference/paper_models/setcomp.csv`); of these only P runs offline here, the other 2 "
        "need a download or the API."
    )
    assert "P (once installed: an optional model)" in paper_panel_sentence(rows, ["p-local"], ["p-local"])
    # contradicting data: no spec of the panel -> none runs offline
    assert paper_panel_sentence(rows, []).endswith("; none of them runs offline here.")
    # the book's file: SBERT-mini and SBERT-L are the paper's weights and run offline, GPT3 only by its API
    book = paper_panel_sentence(paper_models("setcomp"), ["sbert-mini", "sbert-l", "use"], ["sbert-l"])
    assert "1 (GPT3) is served only by a web API" in book
    assert "only SBERT-mini and SBERT-L (once installed: an optional model) run offline" in book


def test_the_floor_over_the_models_leaves_the_controls_out():
    from compsem.setcomp.chapters import floor_words

    # the book's C2 shares: bow (a control) is the lowest, but the floor of the models is glove-50d's
    shares = {"sbert-mini": 99.2, "use": 98.4, "glove-50d": 97.6, "bow": 92.8}
    assert floor_words(shares) == (
        "at least 97.6 % for every model of the run, `glove-50d` the lowest; the control `bow`: 92.8 %"
    )
    # contradicting data: a model below the control sets the floor, and the control is still given apart
    assert floor_words({**shares, "use": 90.0}).startswith("at least 90.0 % for every model of the run, `use` the")
    assert floor_words({"m": 50.0, "bow": 40.0}) == "`m` is the only model of the run; the control `bow`: 40.0 %"
    # two models at the floor are both named
    assert floor_words({"a": 100.0, "b": 99.6, "c": 99.6}).endswith("`b` and `c` the lowest")


def test_a_criterion_that_random_vectors_meet_as_often_ranks_no_model():
    from compsem.setcomp.chapters import control_gate

    # C4 at ε = 0 in the book: every sample meets it, for every model and for random vectors
    ones = np.ones(12)
    samples = {"a": ones, "b": ones, "bow": ones, "random": ones}
    ok, text = control_gate(samples, "random", what="C4's score", control_words="random vectors", n_boot=200)
    assert not ok
    assert text == (
        "On the same 12 samples, `a` and `b` meet it exactly as often as random vectors on every one of them "
        "(100.0 %, as the control; the paired test is undefined). It does not separate these models from random "
        "vectors, so no model is ranked on C4's score."
    )
    assert "`bow`" not in text  # a control is no model to be separated
    # contradicting data: random vectors meet it on 3 of the 12 samples, the models on all: every paired
    # interval (each model − random = 75 points, its resamples at least 25) lies above zero, and ranking may follow
    rnd = np.array([1, 0, 0, 0] * 3, dtype=float)
    ok, text = control_gate({**samples, "random": rnd}, "random", what="C4's score", control_words="random vectors")
    assert ok and text.startswith("On the same 12 samples every model meets it more often than random vectors")
    assert "2 paired comparisons" in text
    # one model no better than random: not ranked, and only that model is named
    ok, text = control_gate({**samples, "b": rnd, "random": rnd}, "random", what="x", control_words="random vectors")
    assert not ok and "`b` meets it exactly as often as random vectors on every one of them (25.0 %" in text
    assert "`a`" not in text and "It does not separate this model from random vectors" in text
    # b above random on one sample of 12 only (8.3 points): its interval reaches zero, no evidence of a difference
    b = rnd.copy()
    b[1] = 1.0
    ok, text = control_gate({**samples, "b": b, "random": rnd}, "random", what="x", control_words="random vectors")
    assert not ok and "`b` meets it with no evidence of a difference from random vectors (`b` 8.3 points [0.0, " in text


def test_a_ranking_of_one_model_is_no_ranking():
    from compsem.setcomp.chapters import norm_ranking_sentence

    within = {"n": np.ones(4), "g": np.array([1, 1, 1, 0.0]), "bow": np.ones(4)}
    text = str(norm_ranking_sentence(within, {"n": "its ratio is fixed"}, n_boot=200))
    assert text == (
        "No ranking: only `g` has norm ratios that vary (75.0 %). `n` is left out: its ratio is fixed. "
        "`bow` (100.0 %) is a control, shown beside the models and not ranked."
    )
    # contradicting data: n's ratios vary too, so two models are left and the paired ranking speaks
    text = str(norm_ranking_sentence({**within, "n": np.array([1, 0, 0, 0.0])}, {}, n_boot=200))
    assert text.startswith("`n` has the lowest share of comparable pairs (25.0 %)") and "No ranking" not in text
