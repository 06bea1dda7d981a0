"""Bootstrap intervals, NaN accounting and comparison words, against a slow loop and hand-worked cases."""

import numpy as np
import pytest

from compsem.measures import DegenerateGeometryWarning
from compsem.stats import (
    bootstrap,
    bootstrap_ci,
    degenerate_reason,
    join_names,
    leader,
    leader_sentence,
    nan_report,
    versus_reference,
)


def test_constant_values_have_a_zero_width_interval():
    r = bootstrap(np.full(7, 2.5), n_boot=50)
    assert (r.estimate, r.low, r.high, r.n, r.n_nan) == (2.5, 2.5, 2.5, 7, 0)


def test_matches_a_slow_loop_with_the_same_draws():
    x = np.array([0.0, 1.0, 1.0, 3.0, 5.0, 8.0])
    r = bootstrap(x, n_boot=200, seed=3)
    rng = np.random.default_rng(3)
    idx = rng.integers(0, x.size, size=(200, x.size))
    means = [sum(x[i] for i in row) / x.size for row in idx]
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert r.estimate == pytest.approx(3.0)
    assert (r.low, r.high) == (pytest.approx(lo), pytest.approx(hi))
    # another statistic goes through the same draws
    med = bootstrap(x, np.median, n_boot=200, seed=3)
    assert med.estimate == 2.0
    assert med.low == pytest.approx(np.quantile([np.median(x[row]) for row in idx], 0.025))


def test_nans_are_dropped_counted_and_warned():
    with pytest.warns(DegenerateGeometryWarning, match="2 of 5"):
        r = bootstrap([1.0, np.nan, 3.0, np.nan, 5.0], n_boot=20)
    assert (r.estimate, r.n, r.n_nan) == (3.0, 3, 2)
    r = bootstrap([np.nan, np.nan], n_boot=20, warn=False)
    assert np.isnan(r.estimate) and r.n == 0 and r.n_nan == 2
    assert nan_report(np.array([1.0, np.nan]), warn=False) == {"n": 2, "n_nan": 1, "share_nan": 0.5}


def test_level_is_checked_and_ci_is_low_high():
    with pytest.raises(ValueError, match="level"):
        bootstrap([1.0, 2.0], level=1.5)
    lo, hi = bootstrap_ci([0.0, 1.0] * 20, n_boot=300, seed=0)
    assert lo < 0.5 < hi


# ---- words for comparisons (expected sentences written by hand) ---------------------------------


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


# ---- paired comparisons ----------------------------------------------------------------------
def _oracle_paired(a, b, *, n_boot, seed, level=0.95):
    """The slow obvious way: draw items with the seeded generator, one replicate at a time, and
    take the difference of the two means on the same draw."""

    a, b = list(a), list(b)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(a), size=(n_boot, len(a)))
    diffs = []
    for row in draws:
        ma = sum(a[i] for i in row) / len(row)
        mb = sum(b[i] for i in row) / len(row)
        diffs.append(ma - mb)
    diffs.sort()
    return float(np.quantile(diffs, (1 - level) / 2)), float(np.quantile(diffs, (1 + level) / 2))


def test_paired_bootstrap_matches_a_slow_oracle():
    from compsem.stats import paired_bootstrap, paired_interval

    rng = np.random.default_rng(5)
    a = rng.normal(size=40)
    b = a + rng.normal(0.3, 0.1, size=40)  # b is a plus a small, steady shift
    reps = paired_bootstrap({"a": a, "b": b}, n_boot=300, seed=7)
    lo, hi = paired_interval(reps["b"], reps["a"])
    assert (lo, hi) == pytest.approx(_oracle_paired(b, a, n_boot=300, seed=7))
    # pairing removes the items' own spread: the paired interval of the shift excludes zero and is far
    # narrower than the two unpaired intervals, which overlap
    assert lo > 0
    ua, ub = bootstrap(a, n_boot=300, seed=7), bootstrap(b, n_boot=300, seed=8)
    assert ua.high > ub.low and hi - lo < (ua.high - ua.low) / 3


def test_paired_bootstrap_drops_an_item_nan_under_any_name():
    from compsem.stats import paired_bootstrap

    reps = paired_bootstrap({"a": [1.0, np.nan, 3.0], "b": [1.0, 2.0, 5.0]}, n_boot=50, seed=0)
    # only items 0 and 2 remain, for both
    draws = np.random.default_rng(0).integers(0, 2, size=(50, 2))
    assert reps["a"] == pytest.approx(np.array([1.0, 3.0])[draws].mean(axis=1))
    assert reps["b"] == pytest.approx(np.array([1.0, 5.0])[draws].mean(axis=1))
    with pytest.raises(ValueError, match="one length per item"):
        paired_bootstrap({"a": [1.0], "b": [1.0, 2.0]})


def test_paired_leader_sentence_by_hand():
    from compsem.stats import paired_leader_sentence

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


# ------------------------------------------------------------------ shared resamples (the synthesis' paired test)
def test_shared_resamples_depend_only_on_the_number_of_items_and_the_seed():
    from compsem.stats import shared_resamples

    a, b = shared_resamples(4, n_boot=3, seed=1), shared_resamples(4, n_boot=3, seed=1)
    assert a.shape == (3, 4) and (a == b).all()
    assert (a == np.random.default_rng(1).integers(0, 4, size=(3, 4))).all()  # bootstrap's own draws
    # strata: items 0, 2 in stratum "x", 1, 3 in "y": the first two columns draw from {0, 2}, the last two from {1, 3}
    s = shared_resamples(4, n_boot=50, seed=0, strata=["x", "y", "x", "y"])
    assert set(s[:, :2].ravel()) <= {0, 2} and set(s[:, 2:].ravel()) <= {1, 3}
    with pytest.raises(ValueError, match="one entry per item"):
        shared_resamples(4, strata=["x"])


def test_mean_replicates_keep_an_undefined_item_in_place():
    from compsem.stats import mean_replicates

    draws = np.array([[0, 1, 2], [2, 2, 2], [1, 1, 0]])
    # values 1, NaN, 0: row 0 means (1 + 0) / 2, row 1 all item 2 → 0, row 2 only item 0 is finite → 1
    assert mean_replicates([1.0, np.nan, 0.0], draws, scale=100).tolist() == [50.0, 0.0, 100.0]
    assert np.isnan(mean_replicates([np.nan, np.nan, np.nan], draws)).all()


def test_separation_reads_the_paired_interval_of_the_difference():
    from compsem.stats import separation

    off = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    # a − b = 0.1 + 0.1 × off (sorted 0.1 − 0.2 … 0.1 + 0.2): linear quantiles 0.1 ∓ 1.9 × 0.1 = [-0.09, 0.29]
    s = separation(0.6, 0.5, 0.6 + 0.1 * off, 0.5 + 0.0 * off)
    assert s.difference == pytest.approx(0.1) and (s.low, s.high) == pytest.approx((-0.09, 0.29))
    assert s.outcome == "no evidence of a difference"
    assert separation(0.6, 0.5, 0.6 + 0.01 * off, 0.5 + 0 * off).outcome == "higher"  # [0.081, 0.119]
    assert separation(0.4, 0.5, 0.4 + 0 * off, 0.5 + 0 * off).outcome == "lower"
    assert separation(0.6, 0.5, None, off).outcome == "undefined"
    assert separation(0.6, 0.5, off, off[:3]).outcome == "undefined"


# --- exact tests, paired comparisons, equivalence: worked by hand ---------------------------
from compsem.stats import (  # noqa: E402
    chance_sentence,
    exact_binomial_p,
    outcomes_against_chance,
    paired_comparison,
    paired_ranking_sentence,
    sign_test,
)


def test_sign_test_by_hand():
    # 9 wins, 1 loss: P[X <= 1] for Bin(10, 1/2) = 11/1024; two-sided 22/1024
    assert sign_test(9, 1) == pytest.approx(22 / 1024)
    assert sign_test(1, 9) == pytest.approx(22 / 1024)
    assert sign_test(5, 5) == 1.0
    assert np.isnan(sign_test(0, 0))  # every item a tie: undefined, no p-value
    # 3 of 3 at p0 = 1/2: 2 * (1/8)
    assert exact_binomial_p(3, 3) == pytest.approx(0.25)
    with pytest.raises(ValueError):
        exact_binomial_p(4, 3)


def test_outcomes_against_chance_words_follow_the_data():
    below = outcomes_against_chance([0] * 9 + [1] + [0.5] * 4, n_boot=100)
    assert (below.words, below.n) == ("below", 14) and below.p == pytest.approx(22 / 1024)
    assert below.estimate == pytest.approx((1 + 2) / 14)  # ties count one half in the estimate
    above = outcomes_against_chance([1] * 9 + [0], n_boot=100)
    assert above.words == "above"
    flat = outcomes_against_chance([1, 0, 1, 0, 0.5], n_boot=100)
    assert flat.words == "no evidence of a difference" and flat.p == 1.0
    ties = outcomes_against_chance([0.5, 0.5, 0.5], n_boot=100)
    assert ties.words == "undefined" and np.isnan(ties.p) and ties.reason == "every item is a tie"
    with pytest.raises(ValueError):
        outcomes_against_chance([0.3])


def test_paired_comparison_pairs_the_items_and_needs_a_margin_for_sameness():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = a - 1.0  # every item one higher: the difference cannot vary
    r = paired_comparison(a, b, n_boot=200)
    assert (r.estimate, r.low, r.high, r.words) == (1.0, 1.0, 1.0, "higher")
    # unpaired the two would overlap widely; paired, the constant shift is clear
    same = paired_comparison(a, a, n_boot=200)
    assert same.words == "undefined" and same.reason == "every item gives both the same value"
    noisy = paired_comparison([1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1], n_boot=500, seed=1)
    assert noisy.estimate == 0.0 and noisy.words == "no evidence of a difference"
    # the per-item differences are +-0.01: within a margin of 0.1 by TOST, with no margin only "no evidence"
    d = np.array([0.01, -0.01] * 10)
    assert paired_comparison(d, np.zeros(20), margin=0.1, n_boot=500).words == "equivalent"
    assert paired_comparison(d, np.zeros(20), n_boot=500).words == "no evidence of a difference"
    assert paired_comparison(d, np.zeros(20), margin=0.001, n_boot=500).words == "no evidence of a difference"
    assert paired_comparison([np.nan], [1.0]).words == "undefined"
    with pytest.raises(ValueError):
        paired_comparison([1, 2], [1])


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
    from compsem.stats import Verdict, paired_words

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
    from compsem.stats import paired_leader_sentence

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
    from compsem.stats import paired_leader_sentence

    reps = {"a": np.array([1.0, 1.02, 1.03, 0.999]), "b": np.array([1.0, 1.0, 1.0, 1.0])}
    s = paired_leader_sentence([1.01, 1.0], reps, ["a", "b"], what="score", digits=2)
    assert "-0.00" not in s and "[0.00, 0.03]" in s


# ----------------------------------------------------------------------------- cluster bootstrap


def test_group_resamples_draw_whole_groups():
    from compsem.stats import group_resamples

    groups = ["q2", "q1", "q1", "q2", "q3", "q3"]
    w = group_resamples(groups, n_boot=50, seed=4)
    assert w.shape == (50, 6)
    # the two items of a group always carry the same weight, and every replicate draws 3 groups
    assert (w[:, 1] == w[:, 2]).all() and (w[:, 0] == w[:, 3]).all() and (w[:, 4] == w[:, 5]).all()
    assert (w[:, [1, 0, 4]].sum(axis=1) == 3).all()
    # the oracle: the seeded draws of groups (labels sorted: q1, q2, q3), counted per group
    draws = np.random.default_rng(4).integers(0, 3, size=(50, 3))
    assert w[:, 1].tolist() == [(d == 0).sum() for d in draws]
    assert w[:, 0].tolist() == [(d == 1).sum() for d in draws]


def test_a_group_bootstrap_is_wider_than_resampling_dependent_items():
    from compsem.stats import bootstrap, group_bootstrap

    # 10 groups of 6 identical items (perfectly dependent): the effective sample size is 10, not 60
    per_group = np.arange(10, dtype=float)
    values, groups = np.repeat(per_group, 6), np.repeat(np.arange(10), 6)
    clustered = group_bootstrap(values, groups, n_boot=2000, seed=0)
    naive = bootstrap(values, n_boot=2000, seed=0, warn=False)
    assert clustered.estimate == pytest.approx(4.5) and clustered.n == 60
    # the group bootstrap equals the bootstrap of the 10 group means (same spread), about sqrt(6) wider than naive
    of_means = bootstrap(per_group, n_boot=2000, seed=1, warn=False)
    width = clustered.high - clustered.low
    assert width == pytest.approx(of_means.high - of_means.low, rel=0.15)
    assert width > 2 * (naive.high - naive.low)
    # contradicting data: one item per group gives the ordinary bootstrap's spread
    single = group_bootstrap(per_group, np.arange(10), n_boot=2000, seed=0)
    assert single.high - single.low == pytest.approx(of_means.high - of_means.low, rel=0.15)


def test_a_group_bootstrap_drops_nan_and_rejects_bad_groups():
    from compsem.stats import group_bootstrap

    r = group_bootstrap([1.0, np.nan, 3.0, 3.0], ["a", "a", "b", "b"], n_boot=200)
    assert (r.estimate, r.n, r.n_nan) == (pytest.approx(7 / 3), 3, 1)
    assert np.isnan(group_bootstrap([np.nan], ["a"]).estimate)
    with pytest.raises(ValueError, match="one label per value"):
        group_bootstrap([1.0, 2.0], ["a"])


# --- the one paired test: paired_verdict, behind paired_comparison and separation -----------
def _every_resample_mean(d):
    """Slow oracle: the mean of every one of the n**n resamples of the n items of d."""
    import itertools

    return np.array([np.mean([d[i] for i in idx]) for idx in itertools.product(range(len(d)), repeat=len(d))])


def test_paired_verdict_on_every_resample_of_three_items_by_hand():
    from compsem.stats import paired_verdict

    reps = _every_resample_mean([0.0, 0.0, 3.0])
    # the mean is the count k of the third item drawn: k = 0, 1, 2, 3 in 8, 12, 6, 1 of the 27 resamples
    assert sorted(reps.tolist()) == [0.0] * 8 + [1.0] * 12 + [2.0] * 6 + [3.0]
    # 95 %: positions 0.025 × 26 = 0.65 (between two 0s) and 0.975 × 26 = 25.35 (2 + 0.35 × (3 − 2))
    v = paired_verdict(reps, estimate=1.0, n=3)
    assert (v.low, v.high) == pytest.approx((0.0, 2.35)) and v.words == "no evidence of a difference"
    assert np.isnan(v.p)  # a bootstrap interval, never a p-value
    # 30 %: positions 0.35 × 26 = 9.1 and 0.65 × 26 = 16.9, both among the 1s: the interval clears 0
    assert paired_verdict(reps, estimate=1.0, alpha=0.7).words == "higher"
    assert paired_verdict(-reps, estimate=-1.0, alpha=0.7).words == "lower"
    # TOST: the 90 % interval is [0, 2] (positions 1.3 and 24.7): inside ±2.5, not inside ±2
    assert paired_verdict(reps, estimate=1.0, margin=2.5).words == "equivalent"
    assert paired_verdict(reps, estimate=1.0, margin=2.0).words == "no evidence of a difference"
    # a test that cannot vary: undefined, with no interval
    flat = paired_verdict(np.zeros(27), estimate=0.0)
    assert flat.words == "undefined" and np.isnan(flat.low) and flat.reason
    assert paired_verdict([np.nan, np.nan], estimate=0.0).words == "undefined"


def test_paired_comparison_and_separation_are_one_test():
    from compsem.stats import mean_replicates, separation, shared_resamples

    rng = np.random.default_rng(11)
    a = (rng.random(30) < 0.7).astype(float)
    b = (rng.random(30) < 0.4).astype(float)
    draws = shared_resamples(30, n_boot=400, seed=3)
    sep = separation(a.mean(), b.mean(), mean_replicates(a, draws), mean_replicates(b, draws))
    cmp = paired_comparison(a, b, n_boot=400, seed=3)
    assert sep.difference == pytest.approx(cmp.estimate)
    assert (sep.low, sep.high) == pytest.approx((cmp.low, cmp.high))
    assert sep.outcome == cmp.words
    # a model that equals its control on every resample: the test cannot vary, so it is undefined
    same = mean_replicates(a, draws)
    assert separation(a.mean(), a.mean(), same, same).outcome == "undefined"


def test_exact_table_p_by_hand():
    from compsem.errors import CompsemError
    from compsem.stats import exact_table_p

    # rows 2, 2, column sums 2, 2: the tables with a = 0, 1, 2 in the first cell have probabilities
    # C(2, a) C(2, 2 − a) / C(4, 2) = 1/6, 4/6, 1/6; the observed a = 2 and the equally likely a = 0: 1/3
    assert exact_table_p([[2, 0], [0, 2]]) == pytest.approx(1 / 3)
    # three rows 2, 1, 1 and a first column of 2: (2,0,0) 1, (1,1,0) 2, (1,0,1) 2, (0,1,1) 1 of C(4, 2) = 6;
    # the observed (2,0,0) and (0,1,1) are the least likely: 2/6
    assert exact_table_p([[2, 0], [0, 1], [0, 1]]) == pytest.approx(1 / 3)
    # a row with no count takes no part; the outcome cannot vary with an empty column or one row left
    assert exact_table_p([[2, 0], [0, 0], [0, 2]]) == pytest.approx(1 / 3)
    assert np.isnan(exact_table_p([[0, 3], [0, 2]])) and np.isnan(exact_table_p([[5, 1], [0, 0]]))
    with pytest.raises(CompsemError, match="r × 2 table"):
        exact_table_p([[1.5, 2], [1, 1]])


def test_paired_leader_sentence_names_a_lead_that_cannot_vary_as_undefined_beside_a_tie():
    from compsem.stats import paired_leader_sentence

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
