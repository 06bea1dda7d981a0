"""Bootstrap intervals, NaN accounting, paired resamples and exact tests, against slow loops and
hand-worked cases (the sentences that word them: test_sentences.py)."""

import itertools

import numpy as np
import pytest

from compsem.errors import CompsemError
from compsem.measures import DegenerateGeometryWarning
from compsem.stats import (
    bootstrap,
    exact_binomial_p,
    exact_table_p,
    group_bootstrap,
    group_resamples,
    mean_replicates,
    nan_report,
    outcomes_against_chance,
    paired_bootstrap,
    paired_comparison,
    paired_interval,
    paired_verdict,
    separation,
    shared_resamples,
    sign_test,
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


def test_level_is_checked_and_the_interval_holds_the_mean():
    with pytest.raises(ValueError, match="level"):
        bootstrap([1.0, 2.0], level=1.5)
    r = bootstrap([0.0, 1.0] * 20, n_boot=300, seed=0)
    assert r.low < 0.5 < r.high


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

    reps = paired_bootstrap({"a": [1.0, np.nan, 3.0], "b": [1.0, 2.0, 5.0]}, n_boot=50, seed=0)
    # only items 0 and 2 remain, for both
    draws = np.random.default_rng(0).integers(0, 2, size=(50, 2))
    assert reps["a"] == pytest.approx(np.array([1.0, 3.0])[draws].mean(axis=1))
    assert reps["b"] == pytest.approx(np.array([1.0, 5.0])[draws].mean(axis=1))
    with pytest.raises(ValueError, match="one length per item"):
        paired_bootstrap({"a": [1.0], "b": [1.0, 2.0]})


# ------------------------------------------------------------------ shared resamples (the synthesis' paired test)
def test_shared_resamples_depend_only_on_the_number_of_items_and_the_seed():

    a, b = shared_resamples(4, n_boot=3, seed=1), shared_resamples(4, n_boot=3, seed=1)
    assert a.shape == (3, 4) and (a == b).all()
    assert (a == np.random.default_rng(1).integers(0, 4, size=(3, 4))).all()  # bootstrap's own draws
    # strata: items 0, 2 in stratum "x", 1, 3 in "y": the first two columns draw from {0, 2}, the last two from {1, 3}
    s = shared_resamples(4, n_boot=50, seed=0, strata=["x", "y", "x", "y"])
    assert set(s[:, :2].ravel()) <= {0, 2} and set(s[:, 2:].ravel()) <= {1, 3}
    with pytest.raises(ValueError, match="one entry per item"):
        shared_resamples(4, strata=["x"])


def test_mean_replicates_keep_an_undefined_item_in_place():

    draws = np.array([[0, 1, 2], [2, 2, 2], [1, 1, 0]])
    # values 1, NaN, 0: row 0 means (1 + 0) / 2, row 1 all item 2 → 0, row 2 only item 0 is finite → 1
    assert mean_replicates([1.0, np.nan, 0.0], draws, scale=100).tolist() == [50.0, 0.0, 100.0]
    assert np.isnan(mean_replicates([np.nan, np.nan, np.nan], draws)).all()


def test_separation_reads_the_paired_interval_of_the_difference():

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


# ----------------------------------------------------------------------------- cluster bootstrap


def test_group_resamples_draw_whole_groups():

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

    r = group_bootstrap([1.0, np.nan, 3.0, 3.0], ["a", "a", "b", "b"], n_boot=200)
    assert (r.estimate, r.n, r.n_nan) == (pytest.approx(7 / 3), 3, 1)
    assert np.isnan(group_bootstrap([np.nan], ["a"]).estimate)
    with pytest.raises(ValueError, match="one label per value"):
        group_bootstrap([1.0, 2.0], ["a"])


# --- the one paired test: paired_verdict, behind paired_comparison and separation -----------
def _every_resample_mean(d):
    """Slow oracle: the mean of every one of the n**n resamples of the n items of d."""

    return np.array([np.mean([d[i] for i in idx]) for idx in itertools.product(range(len(d)), repeat=len(d))])


def test_paired_verdict_on_every_resample_of_three_items_by_hand():

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
