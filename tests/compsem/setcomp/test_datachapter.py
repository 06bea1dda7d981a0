"""compsem/setcomp/datachapter.py: chapter 10's view, on a filter of known cosines."""

import numpy as np
import pytest

from compsem.setcomp import data as ds
from compsem.setcomp import study
from compsem.setcomp.datachapter import DataChapter
from tests.helpers import glued_names


def test_data_view_counts_both_filter_rules():
    # run_data embeds through the cache; build its result by hand from a filter of known cosines
    q = ds.load_source("embedded", cap=12)
    cpc = {"m": np.linspace(0, 1, 12)}
    ccn = {"m": np.linspace(1, 0, 12)}
    rep = ds.filter_masks(cpc, ccn, threshold=0.5)
    tables = ds.build_operator_tables(q, difference_mask=rep.difference_mask)
    ch = DataChapter(study.DataRun(["m"], q, rep, tables, {"m": rep}), filter_threshold=0.5)
    ch.lengths(), ch.sizes(), ch.by_encoder(), ch.dedup()
    rules = ch.filter_rules()
    # cos(prev,curr) < 0.5 for the first 6 quintuples, cos(curr,next) < 0.5 for the last 6: no quintuple passes both
    assert rules["passing units (ours)"].tolist() == [0, 12]
    assert rules["difference samples (ours)"].tolist() == [0, 36]
    assert rules["passing units implied by the paper's 79,824"].tolist() == [13304, 26608]
    assert glued_names("10_setcomp_data.ipynb") <= set(ch.values)
    # the paper's union count beside two union samples per overlap sample: 2 x 37,292 = 74,584 = 74,582 + 2
    assert (ch.values["paper_union_expected"], ch.values["paper_union"], ch.values["paper_union_short"]) == (
        74584,
        74582,
        2,
    )


def test_fusion_lengths_over_their_sources_by_hand():
    q = ds.load_source("embedded", cap=2).copy()
    q["s_prev"], q["s_curr"], q["s_next"] = ["a b", "a b c"], ["c d", "d"], ["e f g h", "e"]
    q["s1"], q["s2"] = ["x y", "x"], ["z", "y z"]
    rep = ds.filter_masks({"m": np.zeros(2)}, {"m": np.zeros(2)}, threshold=0.5)
    ch = DataChapter(study.DataRun(["m"], q, rep, ds.build_operator_tables(q), {"m": rep}), filter_threshold=0.5)
    stats = ch.lengths()
    # s1 / (prev + curr): 2/4, 1/4; s2 / (curr + next): 1/6, 2/2
    ratios = [0.5, 0.25, 1 / 6, 1.0]
    assert ch.values["ratio_mean"] == pytest.approx(np.mean(ratios))
    assert stats.loc["S1 (fusion of S_prev and S_curr), words", "mean"] == 1.5
    assert stats.loc["fusion length / sources' length", "max"] == 1.0
    # S_prev has 2 and 3 words: mean 2.5, s.d. 0.7071 -> 0.71 (the second decimal is real, not a padded 0.70)
    assert stats.loc["S_prev (sentence before), words", "s.d."] == 0.71
