"""Small statistics helpers: bootstrap confidence intervals and NaN accounting."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .measures import DegenerateGeometryWarning

__all__ = ["bootstrap", "bootstrap_ci", "BootstrapResult", "nan_report"]


class BootstrapResult(NamedTuple):
    """A statistic with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    n: int        # finite values used
    n_nan: int    # NaN values dropped


def nan_report(values, what: str = "values", *, warn: bool = True) -> dict:
    """Count NaNs in ``values``; warn once when there are any.

    Returns ``{"n": total, "n_nan": count, "share_nan": fraction}``.
    """
    arr = np.asarray(values, dtype=np.float64)
    n_nan = int(np.isnan(arr).sum())
    if n_nan and warn:
        warnings.warn(f"{what}: {n_nan} of {arr.size} are NaN (undefined) and left out",
                      DegenerateGeometryWarning, stacklevel=2)
    return {"n": int(arr.size), "n_nan": n_nan, "share_nan": n_nan / arr.size if arr.size else float("nan")}


def bootstrap(values, statistic: Callable[[np.ndarray], float] = np.mean, *, n_boot: int = 1000, seed: int = 0,
              level: float = 0.95, warn: bool = True) -> BootstrapResult:
    """Percentile bootstrap of ``statistic`` over the finite entries of ``values`` (1-D).

    Resamples ``n`` values with replacement ``n_boot`` times (``numpy.random.default_rng(seed)``)
    and returns the ``(1 − level)/2`` and ``(1 + level)/2`` quantiles of the statistic. NaNs
    are dropped and counted. With no finite value the result is all NaN.
    """
    arr = np.asarray(values, dtype=np.float64).ravel()
    rep = nan_report(arr, "bootstrap input", warn=warn)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return BootstrapResult(float("nan"), float("nan"), float("nan"), 0, rep["n_nan"])
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(n_boot, arr.size))
    if statistic is np.mean:
        stats = arr[idx].mean(axis=1)
    else:
        stats = np.array([statistic(arr[i]) for i in idx])
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return BootstrapResult(float(statistic(arr)), float(lo), float(hi), int(arr.size), rep["n_nan"])


def bootstrap_ci(values, statistic: Callable[[np.ndarray], float] = np.mean, *, n_boot: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """``(low, high)`` of :func:`bootstrap`."""
    r = bootstrap(values, statistic, n_boot=n_boot, seed=seed, level=level)
    return r.low, r.high
