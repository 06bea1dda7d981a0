"""The chapter views: every value a Part I chapter's prose glues is produced by its view."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from compsem.setcomp import report, study
from compsem.setcomp import data as ds
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
    ch = report.OverlapChapter(run, measures=["cos", "ned"], grid_size=11, n_boot=20, seed=0)
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
    run = study.run("difference", ["m", "offset"], sample_cap=12, embed_fn=fake_embed,
                             filter_encoders=["m"], filter_threshold=0.9)
    ch = report.DifferenceChapter(run, measures=["cos", "ned"], grid_size=11, n_boot=20, seed=0,
                                    eps_range={"d1": [-1, 1], "d2": [-1, 1], "d3": [-1, 1]})
    ch.sizes(), ch.scores(), ch.ned_paper(), ch.ned_ours(), ch.cells(), ch.eps_modes(), ch.c4(), ch.c5(), ch.baselines()
    assert glued_names("12_setcomp_difference.ipynb") <= set(ch.values)
    assert set(ch.c4_tab["mode"]) == {"explicit", "fixed"}
    # the "offset" model shares a large mean: our NED departs from (1 − cos)/2 there, not for zero-mean "m"
    assert ch.values["ned_ours_gap_model"] == "offset"


def test_union_view_produces_every_glued_value():
    run = study.run("union", ["m"], sample_cap=12, embed_fn=fake_embed)
    ch = report.UnionChapter(run, n_boot=20, seed=0)
    ch.c6_geometry(), ch.between_figure(), ch.norm_figure(), ch.norms(), ch.c6()
    assert glued_names("13_setcomp_union.ipynb") <= set(ch.values)
    assert set(ch.c6_tab["model"]) == {"m", "random", "m (shuffled U)"}


def test_ranking_sentence_by_hand():
    tab = pd.DataFrame({"pct": [40.0, 35.0, 20.0], "low": [38.0, 33.0, 18.0], "high": [42.0, 39.0, 22.0]},
                       index=["a", "b", "c"])
    # a [38, 42] and b [33, 39] overlap: the two are indistinguishable; c [18, 22] lies below both
    assert str(ranking_sentence(tab, what="(T,T) share")) == (
        "`a` has the highest (T,T) share (40.0% [38.0, 42.0]), but its interval overlaps that of `b`: "
        "the two are indistinguishable at this sample size.")
    # lowest: c clears both
    assert str(ranking_sentence(tab, what="share meeting C4", higher=False)) == (
        "`c` has the lowest share meeting C4 (20.0% [18.0, 22.0]), its interval clear of every other model's.")
    # a model whose every sample gives 0 % (a zero-width interval) is left out and named, not ranked lowest
    tab.loc["bow"] = [0.0, 0.0, 0.0]
    assert str(ranking_sentence(tab, what="share meeting C4", higher=False)) == (
        "`c` has the lowest share meeting C4 (20.0% [18.0, 22.0]), its interval clear of every other model's. "
        "`bow` is left out of the ranking: every item gives exactly 0.")
    # with constant=False (normalised encoders at a constant 100 %), the constant row is ranked
    tab.loc["bow"] = [100.0, 100.0, 100.0]
    assert str(ranking_sentence(tab, what="x", constant=False)).startswith("`bow` has the highest x (100.0% ")
