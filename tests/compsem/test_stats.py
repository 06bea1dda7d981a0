"""Bootstrap intervals, NaN accounting and comparison words, against a slow loop and hand-worked cases."""

import numpy as np
import pytest

from compsem.measures import DegenerateGeometryWarning
from compsem.stats import (bootstrap, bootstrap_ci, degenerate_reason, join_names, leader, leader_sentence, nan_report,
                           versus_reference)


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
    assert degenerate_reason(0.3, 0.3, 0.3, reference=0.0) == ""          # zero width away from the reference: fine
    assert degenerate_reason(0.0, -0.1, 0.1, reference=0.0) == ""         # an honest zero with spread: fine
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
    s = leader_sentence([80.8, 80.7, 10.0], [78.0, 78.5, 5.0], [83.0, 82.9, 15.0], ["use", "bow", "glove"],
                        what="mean", digits=1, unit=" %")
    assert s == ("`use` has the highest mean (80.8 % [78.0, 83.0]), but its interval overlaps that of `bow`: "
                 "the two are indistinguishable at this sample size.")
    s = leader_sentence([0.0, 0.2, 0.1], [0.0, 0.1, 0.05], [0.0, 0.3, 0.25], ["bow", "a", "b"], what="gap",
                        excluded={"bow": "every comparison is a tie"})
    assert s == ("`a` has the highest gap (0.20 [0.10, 0.30]), but its interval overlaps that of `b`: the two are "
                 "indistinguishable at this sample size. `bow` is left out of the ranking: every comparison is a tie.")
    assert leader_sentence([0.3], [0.2], [0.4], ["a"], what="x") == "`a` (0.30 [0.20, 0.40]) is the only model that can be ranked here."
    assert leader_sentence([0.0, 1.0], [0.0, 1.0], [0.0, 1.0], ["a", "b"], what="x",
                           excluded={"a": "every item gives exactly 0", "b": "every item gives exactly 1"}) == \
        "No model can be ranked here: `a`: every item gives exactly 0. `b`: every item gives exactly 1."
    s = leader_sentence([60.0, 50.0], [55.0, 45.0], [65.0, 54.0], ["bi/mse", "cross/mse"], what="test Spearman",
                        digits=1, noun="configuration")
    assert s == ("`bi/mse` has the highest test Spearman (60.0 [55.0, 65.0]), its interval clear of every other "
                 "configuration's.")


def test_versus_reference():
    assert versus_reference(32.7, 47.9, 50) == "significantly below"     # sbert-mini's C-STS interval
    assert versus_reference(45, 58, 50) == "indistinguishable"
    assert versus_reference(50, 60, 50) == "indistinguishable"          # touching the reference: not excluded
    assert versus_reference(55, 65, 50) == "above"
    assert versus_reference(0.1, 0.2, 0.5, higher=False) == "below"
    assert versus_reference(0.6, 0.7, 0.5, higher=False) == "significantly above"
    assert versus_reference(float("nan"), 1, 0) == "undefined"


def test_leader_sentence_can_find_the_degenerate_rows_itself():
    vals, lows, highs = [0.5, 0.9, float("nan")], [0.4, 0.9, float("nan")], [0.6, 0.9, float("nan")]
    # b: zero-width interval (every item the same), c: undefined
    s = leader_sentence(vals, lows, highs, ["a", "b", "c"], what="share", exclude_degenerate=True, constant=True)
    assert s == ("`a` (0.50 [0.40, 0.60]) is the only model that can be ranked here. `b` is left out of the ranking: "
                 "every item gives exactly 0.9. `c` is left out of the ranking: undefined (no finite value).")
    # without constant, b is ranked (and leads); a reason given by the caller wins
    s = leader_sentence(vals, lows, highs, ["a", "b", "c"], what="share", exclude_degenerate=True,
                        excluded={"c": "not run"})
    assert s == ("`b` has the highest share (0.90 [0.90, 0.90]), its interval clear of every other model's. "
                 "`c` is left out of the ranking: not run.")


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
    b = a + rng.normal(0.3, 0.1, size=40)           # b is a plus a small, steady shift
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
    reps = {"a": np.array([2.0, 3.0, 4.0, 5.0]), "b": np.array([1.0, 2.0, 3.5, 3.5]),
            "c": np.array([3.0, 2.0, 5.0, 4.0])}
    s = paired_leader_sentence([3.5, 2.5, 3.4], reps, ["a", "b", "c"], what="score", digits=1, noun="config",
                               items="pairs", level=0.5)
    # a − c replicates: -1, 1, -1, 1 → 50 % interval [-1, 1]: includes zero
    assert s == ("`a` has the highest score (3.5), but its lead over `c` (0.1 [-1.0, 1.0]) has a paired 50 % "
                 "interval that includes zero: the two are indistinguishable on these pairs.")
    s = paired_leader_sentence([3.5, 2.5], reps, ["a", "b"], what="score", digits=1, noun="config",
                               items="pairs", level=0.5)
    # a − b replicates: 1, 1, 0.5, 1.5 → 50 % interval [0.875, 1.125]
    assert s == ("`a` has the highest score (3.5); on the same pairs its lead over every other config has a paired "
                 "50 % interval above zero (the smallest: 1.0 [0.9, 1.1] over `b`).")
    # lower is better: c leads, and its lead over a is c − a reversed
    s = paired_leader_sentence([3.5, 3.4], {"a": reps["a"], "c": reps["c"]}, ["a", "c"], what="loss", higher=False,
                               digits=1, items="pairs", level=0.5)
    assert s.startswith("`c` has the lowest loss (3.4), but its lead over `a` (0.1 [-1.0, 1.0])")


# ------------------------------------------------------------------ shared resamples (the synthesis' paired test)
def test_shared_resamples_depend_only_on_the_number_of_items_and_the_seed():
    from compsem.stats import shared_resamples

    a, b = shared_resamples(4, n_boot=3, seed=1), shared_resamples(4, n_boot=3, seed=1)
    assert a.shape == (3, 4) and (a == b).all()
    assert (a == np.random.default_rng(1).integers(0, 4, size=(3, 4))).all()     # bootstrap's own draws
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
    assert separation(0.6, 0.5, 0.6 + 0.01 * off, 0.5 + 0 * off).outcome == "higher"      # [0.081, 0.119]
    assert separation(0.4, 0.5, 0.4 + 0 * off, 0.5 + 0 * off).outcome == "lower"
    assert separation(0.6, 0.5, None, off).outcome == "undefined"
    assert separation(0.6, 0.5, off, off[:3]).outcome == "undefined"
