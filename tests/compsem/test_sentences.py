"""compsem.sentences: the two placing sentences, on made-up tables worked out by hand."""

import numpy as np
import pandas as pd

from compsem.sentences import against_reference, paired_leader


def _rows(**models):
    return pd.DataFrame(
        [{"model": m, "value": v, "low": lo, "high": hi} for m, (v, lo, hi) in models.items()]
    ).set_index("model")


def test_each_model_against_a_reference_with_plural_agreement():
    kw = dict(
        reference=50.0,
        what="the accuracy",
        level="50 %, the coin-flip level",
        level_name="chance",
        digits=1,
        unit=" %",
        wrong_side=("it is wrong", "they are wrong"),
    )
    # a [45, 58] contains 50; b [55, 65] above; c [30, 40] and d [20, 45] below (wrong side)
    text = against_reference(_rows(a=(52, 45, 58), b=(60, 55, 65), c=(35, 30, 40), d=(30, 20, 45)), **kw)
    assert text == (
        "For 1 of the 4 models the accuracy has an interval that contains 50 %, the coin-flip level. "
        "`c` (35.0 % [30.0, 40.0]) and `d` (30.0 % [20.0, 45.0]) lie significantly below chance: they are "
        "wrong. `b` lies above chance (60.0 % [55.0, 65.0])."
    )
    assert (
        against_reference(_rows(a=(52, 45, 58)), **kw)
        == "For every model the accuracy has an interval that contains 50 %, the coin-flip level."
    )
    assert against_reference(_rows(c=(35, 30, 40)), **kw) == (
        "For the one model, the accuracy has an interval that excludes 50 %, the coin-flip level. `c` lies "
        "significantly below chance (35.0 % [30.0, 40.0]): it is wrong."
    )
    # lower is better: below the reference is the good side, said without the wrong-side clause
    assert against_reference(
        _rows(c=(35, 30, 40), b=(60, 55, 65)), **{**kw, "wrong_side": ("w", "ws")}, higher=False
    ).endswith(
        "`b` lies significantly above chance (60.0 % [55.0, 65.0]): w. `c` lies below chance (35.0 % [30.0, 40.0])."
    )
    nan = float("nan")
    assert against_reference(_rows(a=(52, nan, nan), b=(60, 55, 65)), **kw).endswith("`a` has no interval.")


def test_the_paired_leader_pairs_the_items():
    # a beats b on every one of 50 items by exactly 1: every paired replicate of the difference is 1
    a = np.arange(50, dtype=float) + 1
    b = np.arange(50, dtype=float)
    text = paired_leader({"a": a, "b": b}, what="mean score", digits=1, items="triples", n_boot=200)
    assert text == (
        "`a` has the highest mean score (25.5); on the same triples its lead over every other model has a "
        "paired 95 % interval above zero (the smallest: 1.0 [1.0, 1.0] over `b`)."
    )
    # shares as percentages: scale 100; the same scores for both: the paired test cannot vary: undefined
    same = paired_leader({"a": [0, 1, 1, 0], "b": [0, 1, 1, 0]}, what="share", scale=100, unit=" %", digits=1)
    assert same == (
        "`a` has the highest share (50.0 %), but its lead over `b` is undefined: every resample gives the "
        "same difference (0.0), so the paired test cannot vary."
    )
    differ = paired_leader({"a": [0, 1, 1, 0], "b": [1, 0, 1, 0]}, what="share", scale=100, unit=" %", digits=1)
    assert differ.endswith("has a paired 95 % interval that includes zero: no evidence of a difference on these items.")
