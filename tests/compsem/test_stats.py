"""Bootstrap intervals and NaN accounting, against a slow loop and hand-worked cases."""

import numpy as np
import pytest

from compsem.measures import DegenerateGeometryWarning
from compsem.stats import bootstrap, bootstrap_ci, nan_report


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
