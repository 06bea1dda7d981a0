"""compsem.sentences: the words of a statistical result (leaders, intervals against a reference,
tests against chance, left-out rows and controls), on made-up inputs with sentences written by hand."""

import numpy as np
import pandas as pd
import pytest

from compsem.sentences import (
    against_reference,
    chance_sentence,
    degenerate_reason,
    join_names,
    leader,
    leader_sentence,
    paired_leader,
    paired_leader_sentence,
    paired_ranking_sentence,
    paired_words,
    versus_reference,
)
from compsem.stats import Verdict


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


def test_degenerate_reasons():
    assert degenerate_reason(0.0, 0.0, 0.0, ties=1.0) == "every comparison is a tie"
    assert degenerate_reason(0.0, 0.0, 0.0, reference=0.0) == "every item gives exactly 0, the no-effect value"
    assert degenerate_reason(0.3, 0.3, 0.3, reference=0.0) == ""  # zero width away from the reference: fine
    assert degenerate_reason(0.0, -0.1, 0.1, reference=0.0) == ""  # an honest zero with spread: fine
    assert degenerate_reason(0.5, 0.4, 0.6, ties=0.99) == ""
    assert degenerate_reason(float("nan"), 0, 0) == "undefined (no finite value)"
    assert degenerate_reason(0.5, 0.4, 0.6, flagged="all zero") == "all zero"
    # constant=True: any zero-width interval is a constant row, wherever it sits
    assert degenerate_reason(0.3, 0.3, 0.3, constant=True) == "every item gives exactly 0.3"
    assert degenerate_reason(0.3, 0.2, 0.3, constant=True) == ""


def test_join_names():
    assert join_names([]) == "" and join_names(["a"]) == "`a`"
    assert join_names(["a", "b"]) == "`a` and `b`" and join_names(["a", "b", "c"]) == "`a`, `b` and `c`"


def test_leader_separated_overlapping_and_excluded():
    names = ["a", "b", "c"]
    # a 0.8 [0.7, 0.9]; b 0.6 [0.5, 0.65] lies wholly below a's low 0.7; c 0.75 [0.68, 0.8] overlaps
    r = leader([0.8, 0.6, 0.75], [0.7, 0.5, 0.68], [0.9, 0.65, 0.8], names)
    assert r.name == "a" and r.tied_with == ["c"]
    # touching intervals (b's high = a's low) count as overlapping
    assert leader([0.8, 0.6], [0.7, 0.5], [0.9, 0.7], ["a", "b"]).tied_with == ["b"]
    # lowest wins when higher=False; c excluded though it is lowest
    r = leader([0.8, 0.6, 0.1], [0.7, 0.5, 0.1], [0.9, 0.65, 0.1], names, higher=False, excluded={"c": "ties"})
    assert r.name == "b" and r.tied_with == [] and r.excluded == {"c": "ties"}
    with pytest.raises(ValueError, match="differ in length"):
        leader([1, 2], [1], [2, 3], ["a", "b"])
    with pytest.raises(ValueError, match="no model left"):
        leader([1.0], [0.5], [1.5], ["a"], excluded={"a": "ties"})


def test_leader_sentence_words():
    s = leader_sentence([0.8, 0.6], [0.7, 0.5], [0.9, 0.65], ["a", "b"], what="score")
    assert s == "`a` has the highest score (0.80 [0.70, 0.90]), its interval clear of every other model's."
    s = leader_sentence(
        [80.8, 80.7, 10.0],
        [78.0, 78.5, 5.0],
        [83.0, 82.9, 15.0],
        ["use", "bow", "glove"],
        what="mean",
        digits=1,
        unit=" %",
    )
    assert s == (
        "`use` has the highest mean (80.8 % [78.0, 83.0]), but its interval overlaps that of `bow`: "
        "no evidence of a difference from these unpaired intervals (2 comparisons with the leader)."
    )
    s = leader_sentence(
        [0.0, 0.2, 0.1],
        [0.0, 0.1, 0.05],
        [0.0, 0.3, 0.25],
        ["bow", "a", "b"],
        what="gap",
        excluded={"bow": "every comparison is a tie"},
    )
    assert s == (
        "`a` has the highest gap (0.20 [0.10, 0.30]), but its interval overlaps that of `b`: no evidence "
        "of a difference from these unpaired intervals. `bow` is left out of the ranking: every comparison is a tie."
    )
    assert (
        leader_sentence([0.3], [0.2], [0.4], ["a"], what="x")
        == "`a` (0.30 [0.20, 0.40]) is the only model that can be ranked here."
    )
    assert (
        leader_sentence(
            [0.0, 1.0],
            [0.0, 1.0],
            [0.0, 1.0],
            ["a", "b"],
            what="x",
            excluded={"a": "every item gives exactly 0", "b": "every item gives exactly 1"},
        )
        == "No model can be ranked here: `a`: every item gives exactly 0. `b`: every item gives exactly 1."
    )
    s = leader_sentence(
        [60.0, 50.0],
        [55.0, 45.0],
        [65.0, 54.0],
        ["bi/mse", "cross/mse"],
        what="test Spearman",
        digits=1,
        noun="configuration",
    )
    assert s == (
        "`bi/mse` has the highest test Spearman (60.0 [55.0, 65.0]), its interval clear of every other configuration's."
    )


def test_versus_reference():
    assert versus_reference(32.7, 47.9, 50) == "significantly below"  # sbert-mini's C-STS interval
    assert versus_reference(45, 58, 50) == "indistinguishable"
    assert versus_reference(50, 60, 50) == "indistinguishable"  # touching the reference: not excluded
    assert versus_reference(55, 65, 50) == "above"
    assert versus_reference(0.1, 0.2, 0.5, higher=False) == "below"
    assert versus_reference(0.6, 0.7, 0.5, higher=False) == "significantly above"
    assert versus_reference(float("nan"), 1, 0) == "undefined"


def test_leader_sentence_can_find_the_degenerate_rows_itself():
    vals, lows, highs = [0.5, 0.9, float("nan")], [0.4, 0.9, float("nan")], [0.6, 0.9, float("nan")]
    # b: zero-width interval (every item the same), c: undefined
    s = leader_sentence(vals, lows, highs, ["a", "b", "c"], what="share", exclude_degenerate=True, constant=True)
    assert s == (
        "`a` (0.50 [0.40, 0.60]) is the only model that can be ranked here. `b` is left out of the ranking: "
        "every item gives exactly 0.9. `c` is left out of the ranking: undefined (no finite value)."
    )
    # without constant, b is ranked (and leads); a reason given by the caller wins
    s = leader_sentence(
        vals, lows, highs, ["a", "b", "c"], what="share", exclude_degenerate=True, excluded={"c": "not run"}
    )
    assert s == (
        "`b` has the highest share (0.90 [0.90, 0.90]), its interval clear of every other model's. "
        "`c` is left out of the ranking: not run."
    )


def test_paired_leader_sentence_by_hand():

    # replicates made by hand: a − b always in [0.5, 1.5]; a − c spans zero
    reps = {
        "a": np.array([2.0, 3.0, 4.0, 5.0]),
        "b": np.array([1.0, 2.0, 3.5, 3.5]),
        "c": np.array([3.0, 2.0, 5.0, 4.0]),
    }
    s = paired_leader_sentence(
        [3.5, 2.5, 3.4], reps, ["a", "b", "c"], what="score", digits=1, noun="config", items="pairs", level=0.5
    )
    # two comparisons: each at 1 − 0.5/2 = 75 % (Bonferroni); a − c replicates: -1, 1, -1, 1 → [-1, 1]: includes zero
    assert s == (
        "`a` has the highest score (3.5), but its lead over `c` (0.1 [-1.0, 1.0]) has a paired 75 % "
        "interval that includes zero: no evidence of a difference on these pairs (2 paired comparisons, each "
        "interval at 75 % by Bonferroni so that all 2 hold together at 50 %)."
    )
    # with a - b a constant 1 the interval has no width: undefined, not "no evidence"
    s = paired_leader_sentence(
        [3.5, 2.5], {"a": reps["a"], "b": reps["a"] - 1}, ["a", "b"], what="score", digits=1, level=0.5
    )
    assert s.endswith("over `b`).")
    s = paired_leader_sentence([3.5, 3.5], {"a": reps["a"], "b": reps["a"]}, ["a", "b"], what="score", digits=1)
    assert s == (
        "`a` has the highest score (3.5), but its lead over `b` is undefined: every resample gives the "
        "same difference (0.0), so the paired test cannot vary."
    )
    s = paired_leader_sentence(
        [3.5, 2.5], reps, ["a", "b"], what="score", digits=1, noun="config", items="pairs", level=0.5
    )
    # a − b replicates: 1, 1, 0.5, 1.5 → 50 % interval [0.875, 1.125]
    assert s == (
        "`a` has the highest score (3.5); on the same pairs its lead over every other config has a paired "
        "50 % interval above zero (the smallest: 1.0 [0.9, 1.1] over `b`)."
    )
    # the lowest: c − a = 3.4 − 3.5 = −0.1, replicates 1, −1, 1, −1 → [-1, 1]; worded as a difference, no "lead"
    s = paired_leader_sentence(
        [3.5, 3.4],
        {"a": reps["a"], "c": reps["c"]},
        ["a", "c"],
        what="loss",
        higher=False,
        digits=1,
        items="pairs",
        level=0.5,
    )
    assert s.startswith("`c` has the lowest loss (3.4), but its difference from `a` (-0.1 [-1.0, 1.0])")
    # the lowest clear of the others: b − a replicates −1, −1, −0.5, −1.5 → 50 % interval [-1.125, -0.875]
    s = paired_leader_sentence(
        [3.5, 2.5], reps, ["a", "b"], what="loss", higher=False, digits=1, noun="config", items="pairs", level=0.5
    )
    assert s == (
        "`b` has the lowest loss (2.5); on the same pairs it falls below every other config by a difference whose "
        "paired 50 % interval lies below zero (the closest: -1.0 [-1.1, -0.9] from `a`)."
    )
    assert "lead" not in s
    # the highest where higher is not better (lead=False): the same numbers, worded as exceeding, no "lead"
    s = paired_leader_sentence(
        [3.5, 2.5], reps, ["a", "b"], what="error", digits=1, noun="config", items="pairs", level=0.5, lead=False
    )
    assert s == (
        "`a` has the highest error (3.5); on the same pairs it exceeds every other config by a difference whose "
        "paired 50 % interval lies above zero (the smallest: 1.0 [0.9, 1.1] over `b`)."
    )
    s = paired_leader_sentence(
        [3.5, 3.4], {"a": reps["a"], "c": reps["c"]}, ["a", "c"], what="error", digits=1, level=0.5, lead=False
    )
    assert s.startswith("`a` has the highest error (3.5), but its difference from `c` (0.1 [-1.0, 1.0])")


def test_paired_ranking_sentence_by_hand():
    a = np.array([1, 1, 1, 1, 0, 1, 1, 1.0])
    b = np.array([0, 0, 1, 0, 0, 0, 1, 0.0])
    # a - b per item: 1 on 5 items, 0 on 3; every resample's mean lies in [0, 1]; mean 62.5 %
    text = paired_ranking_sentence({"a": a, "b": b}, what="share", scale=100, unit=" %", n_boot=500)
    assert text.startswith(
        "`a` has the highest share (87.5 %); on the same 8 items its lead over `b` has a paired "
        "interval above zero (62.5 ["
    )
    assert text.endswith("; one paired comparison, a 95 % interval).")
    c = a.copy()
    c[0] = 0.0  # differs from a on one item: no evidence of a difference
    text = paired_ranking_sentence(
        {"a": a, "b": b, "c": c, "z": np.zeros(8)}, what="share", scale=100, unit=" %", n_boot=500
    )
    assert "its lead over `b` has a paired interval above zero, but for its lead over `c` (12.5 [0.0, " in text
    assert "no evidence of a difference (2 paired comparisons, each interval at 97.5 % by Bonferroni" in text
    assert text.endswith("`z` is left out of the ranking: every item gives exactly 0.")
    assert "indistinguishable" not in text
    # contradicting data: b now leads, and the words follow
    flipped = paired_ranking_sentence({"a": b, "b": a}, what="share", scale=100, unit=" %", n_boot=500)
    assert flipped.startswith("`b` has the highest share (87.5 %)")
    low = paired_ranking_sentence({"a": a, "b": b}, what="share", higher=False, scale=100, unit=" %", n_boot=500)
    # the lowest falls below: b − a = −62.5 %, its paired interval below zero (a − b's [0, 100] negated)
    assert low.startswith(
        "`b` has the lowest share (25.0 %); on the same 8 items it falls below `a` by a difference whose paired "
        "interval lies below zero (-62.5 [-"
    )
    assert "lead" not in low
    low3 = paired_ranking_sentence(
        {"a": a, "b": b, "c": c}, what="share", higher=False, scale=100, unit=" %", n_boot=500
    )
    # b below a (−62.5) and c (−50.0): both clear; the closest is c, the one with the smaller gap
    assert low3.startswith(
        "`b` has the lowest share (25.0 %); on the same 8 items it falls below every other model by a difference "
        "whose paired interval lies below zero (the closest: -50.0 [-"
    )
    assert "] from `c`; 2 paired comparisons" in low3
    assert (
        paired_ranking_sentence({"z": np.zeros(3)}, what="share")
        == "No model can be ranked here: `z` is left out of the ranking: every item gives exactly 0."
    )


def test_chance_sentence_by_hand():
    text = chance_sentence({"a": [0] * 9 + [1], "b": [1, 0, 0.5]}, what="the pair accuracy", items="pairs", n_boot=100)
    # a: 1 win in 10, p = 22/1024 = 0.0215 < 0.025 (two tests: Bonferroni); b: p = 1
    assert text.startswith("The pair accuracy lies below chance (50 %) for `a` (10.0 % [")
    assert ", p = 0.021); it shows no evidence of a difference from chance (50 %) for `b` (50.0 % [" in text
    assert text.endswith(": exact sign tests over the untied pairs, 2 tests, each at α = 0.025 (Bonferroni).")
    # with five tests the same a is no longer below chance at 0.01 each
    five = chance_sentence({k: [0] * 9 + [1] for k in "abcde"}, what="the pair accuracy", n_boot=100)
    assert five.startswith("The pair accuracy shows no evidence of a difference from chance (50 %) for all 5: `a`")
    assert "undefined" in chance_sentence({"t": [0.5, 0.5]}, what="x", n_boot=10)


def test_paired_words_by_hand():

    v = Verdict(12.0, 4.0, 20.0, float("nan"), 20, "higher")
    assert paired_words(v, "the real O meets C1", "a shuffled O", "samples", shares=(30.0, 18.0)) == (
        "on the same 20 samples, the real O meets C1 more often than a shuffled O (30.0 % against 18.0 %; paired "
        "difference 12.0 points [4.0, 20.0])."
    )
    none = v._replace(low=-2.0, words="no evidence of a difference")
    assert "with no evidence of a difference from a shuffled O (paired" in paired_words(none, "x", "a shuffled O")
    same = v._replace(estimate=0.5, low=-1.0, high=2.0, words="equivalent")
    assert "as often as y within ±5 points (two one-sided tests)" in paired_words(same, "x", "y", margin=5)
    flat = Verdict(
        0.0, float("nan"), float("nan"), float("nan"), 4, "undefined", "every item gives both the same value"
    )
    assert paired_words(flat, "x", "y", "samples") == (
        "on the same 4 samples, x exactly as often as y on every sample (the paired test is undefined)."
    )


def test_a_control_is_never_ranked():

    a = np.array([1, 1, 1, 1, 0, 1, 1, 1.0])
    b = np.array([0, 0, 1, 0, 0, 0, 1, 0.0])
    # bow scores highest, but it is a control: the ranking is a's, and bow is named beside it
    text = paired_ranking_sentence(
        {"a": a, "b": b, "bow": np.ones(8)}, what="share", scale=100, unit=" %", n_boot=200, controls=["bow"]
    )
    assert text.startswith("`a` has the highest share (87.5 %); on the same 8 items its lead over `b`")
    assert text.endswith(" `bow` (100.0 %) is a control, shown beside the models and not ranked.")
    reps = {"a": np.array([2.0, 3.0]), "b": np.array([1.0, 2.0]), "bow": np.array([9.0, 9.0])}
    s = paired_leader_sentence([2.5, 1.5, 9.0], reps, ["a", "b", "bow"], what="score", digits=1, controls=["bow"])
    assert s.startswith("`a` has the highest score (2.5)") and s.endswith(
        "`bow` (9.0) is a control, shown beside the models and not ranked."
    )


def test_a_bound_that_rounds_to_zero_prints_without_its_sign():

    reps = {"a": np.array([1.0, 1.02, 1.03, 0.999]), "b": np.array([1.0, 1.0, 1.0, 1.0])}
    s = paired_leader_sentence([1.01, 1.0], reps, ["a", "b"], what="score", digits=2)
    assert "-0.00" not in s and "[0.00, 0.03]" in s


def test_paired_leader_sentence_names_a_lead_that_cannot_vary_as_undefined_beside_a_tie():

    a = np.array([2.0, 3.0, 4.0, 5.0])
    # a − b is 0 on every replicate (undefined); a − c is -1, 1, -1, 1 (includes zero at any level)
    reps = {"a": a, "b": a.copy(), "c": a + np.array([1.0, -1.0, 1.0, -1.0])}
    s = paired_leader_sentence([3.5, 3.5, 3.5], reps, ["a", "b", "c"], what="score", digits=1, level=0.5)
    assert s == (
        "`a` has the highest score (3.5), but its lead over `c` (0.0 [-1.0, 1.0]) has a paired 75 % interval that "
        "includes zero: no evidence of a difference on these items; its lead over `b` is undefined: every resample "
        "gives the same difference (0.0), so the paired test cannot vary (2 paired comparisons, each interval at "
        "75 % by Bonferroni so that all 2 hold together at 50 %)."
    )
