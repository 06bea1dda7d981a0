"""The statistics every page reports, numbers only: bootstrap intervals, paired resamples, exact
tests, and the cluster bootstrap. The sentences that put their outcomes into words are
:mod:`compsem.sentences`.

One resampling and one paired test serve every page: every bootstrap draws its items by
:func:`shared_resamples` (a function of the number of items, ``n_boot`` and ``seed`` only, so two
models scored on the same items get the same resamples), and every paired decision, from per-item
values (:func:`paired_comparison`) or from a study's replicates (:func:`separation`, the leaders'
sentences), is :func:`paired_verdict`: a percentile interval of the replicates' differences,
"higher" / "lower" when it excludes zero, "equivalent" only by two one-sided tests within a stated
margin, "undefined" (never a p-value) when the difference cannot vary. A table of counts with an
expected count below :data:`SMALL_EXPECTED` is tested exactly (:func:`exact_table_p`). Items that
share a group (Part I's samples of one quintuple) are resampled together (:func:`group_bootstrap`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln
from scipy.stats import binomtest

from .errors import CompsemError, DataError
from .measures import DegenerateGeometryWarning

__all__ = [
    "BootstrapResult",
    "nan_report",
    "bootstrap",
    "paired_bootstrap",
    "paired_interval",
    "shared_resamples",
    "mean_replicates",
    "Separation",
    "separation",
    "UNDEFINED",
    "exact_binomial_p",
    "SMALL_EXPECTED",
    "exact_table_p",
    "sign_test",
    "Verdict",
    "outcomes_against_chance",
    "paired_comparison",
    "paired_verdict",
    "group_resamples",
    "group_bootstrap",
]


class BootstrapResult(NamedTuple):
    """A statistic with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    n: int  # finite values used
    n_nan: int  # NaN values dropped


def nan_report(values, what: str = "values", *, warn: bool = True) -> dict:
    """Count NaNs in ``values``; warn once when there are any.

    Returns ``{"n": total, "n_nan": count, "share_nan": fraction}``.
    """
    arr = np.asarray(values, dtype=np.float64)
    n_nan = int(np.isnan(arr).sum())
    if n_nan and warn:
        warnings.warn(
            f"{what}: {n_nan} of {arr.size} are NaN (undefined) and left out", DegenerateGeometryWarning, stacklevel=2
        )
    return {"n": int(arr.size), "n_nan": n_nan, "share_nan": n_nan / arr.size if arr.size else float("nan")}


def bootstrap(
    values,
    statistic: Callable[[np.ndarray], float] = np.mean,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    warn: bool = True,
) -> BootstrapResult:
    """Percentile bootstrap of ``statistic`` over the finite entries of ``values`` (1-D).

    Resamples ``n`` values with replacement ``n_boot`` times (:func:`shared_resamples`: the draws
    of every bootstrap here) and returns the ``(1 − level)/2`` and ``(1 + level)/2`` quantiles of the statistic. NaNs
    are dropped and counted. With no finite value the result is all NaN.
    """
    arr = np.asarray(values, dtype=np.float64).ravel()
    rep = nan_report(arr, "bootstrap input", warn=warn)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return BootstrapResult(float("nan"), float("nan"), float("nan"), 0, rep["n_nan"])
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    stats = _replicates(arr, shared_resamples(arr.size, n_boot=n_boot, seed=seed), statistic)
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return BootstrapResult(float(statistic(arr)), float(lo), float(hi), int(arr.size), rep["n_nan"])


# ---------------------------------------------------------------------------------------------
# paired comparisons: estimates on the same items
# ---------------------------------------------------------------------------------------------
def paired_bootstrap(
    values: dict[str, Sequence[float]],
    statistic: Callable[[np.ndarray], float] = np.mean,
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Replicates of ``statistic`` for every name of ``values`` (per-item values of one length,
    item i of every name measured on the same item), each replicate drawing the *same* items for
    every name (:func:`shared_resamples` of the ``n`` items left): the differences
    of two names' replicates are a paired bootstrap of the difference of their statistics
    (:func:`paired_interval`). An item with a NaN under any name is left out for all of them."""
    arrs = {k: np.asarray(v, dtype=float).ravel() for k, v in values.items()}
    sizes = {a.size for a in arrs.values()}
    if len(sizes) > 1:
        raise ValueError(f"paired values must have one length per item, got lengths {sorted(sizes)}")
    if not arrs:
        return {}
    keep = np.all([np.isfinite(a) for a in arrs.values()], axis=0)
    idx = shared_resamples(int(keep.sum()), n_boot=n_boot, seed=seed)
    return {k: _replicates(a[keep], idx, statistic) for k, a in arrs.items()}


def _replicates(values: np.ndarray, draws: np.ndarray, statistic: Callable[[np.ndarray], float]) -> np.ndarray:
    """``statistic`` of ``values`` (finite, one per item) on each row of ``draws``."""
    if statistic is np.mean:
        return mean_replicates(values, draws)
    return np.array([statistic(values[i]) for i in draws])


def paired_interval(replicates_a, replicates_b, *, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the difference a − b from replicates drawn on the same resamples
    (:func:`paired_bootstrap`, or a study's own, such as
    :func:`compsem.csts.metrics.pair_bootstrap_replicates` with one seed); replicates undefined
    in either are dropped; NaN bounds when none is left."""
    d = np.asarray(replicates_a, dtype=float) - np.asarray(replicates_b, dtype=float)
    d = d[np.isfinite(d)]
    if not d.size:
        return float("nan"), float("nan")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    lo, hi = np.quantile(d, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------
# shared resamples: replicates that pair across models (the synthesis' separation test)
# ---------------------------------------------------------------------------------------------
def shared_resamples(n: int, *, n_boot: int = 1000, seed: int = 0, strata=None) -> np.ndarray:
    """Bootstrap indices ``(n_boot, n)`` into ``n`` items that depend only on ``n``, ``n_boot``,
    ``seed`` (and ``strata``), never on the values: every model scored on the same items gets the
    *same* resamples, so the differences of two models' replicates (:func:`mean_replicates`) are
    a paired bootstrap of the difference (:func:`paired_interval`).

    ``strata`` (length ``n``): draw within each stratum (in sorted order of the strata), keeping
    each stratum's size; the columns of the result are grouped by stratum. Without it:
    ``numpy.random.default_rng(seed).integers(0, n, (n_boot, n))``, the draws of
    :func:`bootstrap` and :func:`paired_bootstrap`.
    """
    if n < 0 or n_boot < 1:
        raise ValueError(f"shared_resamples needs n >= 0 and n_boot >= 1, got n={n}, n_boot={n_boot}")
    rng = np.random.default_rng(seed)
    if strata is None:
        return rng.integers(0, n, size=(n_boot, n))
    strata = np.asarray(strata)
    if strata.shape != (n,):
        raise ValueError(f"strata must have one entry per item ({n}), got shape {strata.shape}")
    parts = []
    for s in np.unique(strata):
        members = np.flatnonzero(strata == s)
        parts.append(members[rng.integers(0, members.size, size=(n_boot, members.size))])
    return np.concatenate(parts, axis=1) if parts else np.empty((n_boot, 0), dtype=int)


def mean_replicates(values, draws: np.ndarray, *, scale: float = 1.0) -> np.ndarray:
    """``scale`` × the mean of the finite ``values`` (one per item) drawn by each row of ``draws``
    (:func:`shared_resamples`), shape ``(n_boot,)``; a replicate that draws no finite value is NaN.
    An item undefined for one model keeps its place, so the resamples stay shared."""
    v = np.asarray(values, dtype=float).ravel()
    x = v[draws]
    ok = np.isfinite(x)
    k = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return scale * np.where(k > 0, np.where(ok, x, 0.0).sum(axis=1) / k, np.nan)


class Separation(NamedTuple):
    """A paired comparison of a model with a control on the same items (:func:`separation`)."""

    difference: float  # model − control (the estimates)
    low: float  # paired percentile interval of the difference
    high: float
    outcome: str  # "higher", "lower", "no evidence of a difference" or "undefined"


def separation(
    value: float, control_value: float, replicates, control_replicates, *, level: float = 0.95
) -> Separation:
    """Does a model separate from a control scored on the same items? The difference of the two
    estimates with the paired percentile interval of the replicates' differences (both drawn on
    the same resamples: :func:`shared_resamples`), decided by :func:`paired_verdict` at
    ``alpha = 1 − level``: ``"higher"`` / ``"lower"`` when the interval lies wholly above / below
    zero, ``"no evidence of a difference"`` when it contains zero, ``"undefined"`` without
    replicates or an estimate, or when every replicate gives the same value for both (the test
    cannot vary)."""
    d = float(value) - float(control_value)
    nan = float("nan")
    if replicates is None or control_replicates is None or not np.isfinite(d):
        return Separation(d, nan, nan, UNDEFINED)
    a, b = np.asarray(replicates, dtype=float), np.asarray(control_replicates, dtype=float)
    if a.shape != b.shape or a.size == 0:
        return Separation(d, nan, nan, UNDEFINED)
    v = paired_verdict(a - b, estimate=d, alpha=1 - level)
    return Separation(d, v.low, v.high, v.words)


# ---------------------------------------------------------------------------------------------
# tests a referee accepts: exact tests against chance, paired comparisons, equivalence (TOST)
# ---------------------------------------------------------------------------------------------
#: the word of a test whose outcome cannot vary (no item, every item a tie): never a p-value
UNDEFINED = "undefined"


def exact_binomial_p(k: int, n: int, p0: float = 0.5) -> float:
    """Two-sided exact binomial p-value of ``k`` successes in ``n`` trials under success
    probability ``p0`` (``scipy.stats.binomtest``: the outcomes at most as likely as ``k``);
    NaN (undefined) when ``n`` is 0. For ``p0 = ½`` this is the sign test
    ``min(1, 2·P[X ≤ min(k, n − k)])``."""
    k, n = int(k), int(n)
    if n < 0 or not 0 <= k <= max(n, 0):
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if not 0 < p0 < 1:
        raise ValueError(f"p0 must lie in (0, 1), got {p0}")
    return float("nan") if n == 0 else float(binomtest(k, n, p0).pvalue)


#: the expected count below which a test of a table of counts is exact, not χ²
SMALL_EXPECTED = 5.0

#: the most tables :func:`exact_table_p` enumerates
MAX_TABLES = 2_000_000


def exact_table_p(table) -> float:
    """Exact conditional test of independence of an r × 2 table of counts (Fisher's exact test
    for 2 × 2, its Freeman–Halton extension for more rows): with the row and column sums fixed,
    the probability of every table at most as likely as the observed one (relative tolerance
    1e-7, as :func:`scipy.stats.fisher_exact`). Rows with no count are dropped; NaN (undefined)
    when a column is empty or fewer than two rows are left (the outcome cannot vary). Enumerates
    the tables (at most :data:`MAX_TABLES`, else a CompsemError)."""
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[1] != 2 or (t < 0).any() or (t != np.round(t)).any():
        raise DataError(f"need an r × 2 table of counts, got {t.tolist()}")
    t = t[t.sum(axis=1) > 0].astype(int)
    if len(t) < 2 or (t.sum(axis=0) == 0).any():
        return float("nan")
    col = int(np.argmin(t.sum(axis=0)))  # enumerate the smaller column's counts
    rows, c = t.sum(axis=1), int(t[:, col].sum())
    order = np.argsort(rows)  # the largest row last: its count is what the others leave
    rows, observed = rows[order], t[order, col]
    ranges = [np.arange(min(r, c) + 1) for r in rows[:-1]]
    if np.prod([float(len(x)) for x in ranges]) > MAX_TABLES:
        raise CompsemError(f"exact_table_p: too many tables to enumerate for {t.tolist()}; use a χ² test")
    grid = np.stack([g.ravel() for g in np.meshgrid(*ranges, indexing="ij")], axis=1)
    last = c - grid.sum(axis=1)
    ok = (last >= 0) & (last <= rows[-1])
    a = np.concatenate([grid[ok], last[ok, None]], axis=1)

    def log_p(x):  # log of prod C(r_i, a_i), the common C(N, c) left out
        return (gammaln(rows + 1) - gammaln(x + 1) - gammaln(rows - x + 1)).sum(axis=-1)

    lp, lp0 = log_p(a), log_p(observed)
    total = np.exp(lp - lp.max())
    return float(min(1.0, total[lp <= lp0 + np.log1p(1e-7)].sum() / total.sum()))


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test of ``wins`` against ``losses`` (ties dropped beforehand): the
    binomial p-value of ``wins`` in ``wins + losses`` trials at ½; NaN (undefined) when every
    item was a tie."""
    return exact_binomial_p(wins, int(wins) + int(losses), 0.5)


class Verdict(NamedTuple):
    """A test's outcome: the estimate and its interval, the p-value (NaN when not computed or
    undefined), the items used, and the words it allows: ``"above"``, ``"below"``, ``"higher"``,
    ``"lower"``, ``"equivalent"``, ``"no evidence of a difference"`` or ``"undefined"`` (then
    ``reason`` says why)."""

    estimate: float
    low: float
    high: float
    p: float
    n: int
    words: str
    reason: str = ""


def outcomes_against_chance(
    outcomes, *, alpha: float = 0.05, n_boot: int = 1000, seed: int = 0, scale: float = 1.0
) -> Verdict:
    """Per-item outcomes 1 (win), 0 (loss) or ½ (tie) against chance ½ by the exact sign test
    (:func:`sign_test`; ties and NaN dropped from the test, ties count ½ in the estimate).
    ``words``: ``"above"`` / ``"below"`` (chance) when p < ``alpha``, else ``"no evidence of a
    difference"``; ``"undefined"`` when no item is untied. The estimate (× ``scale``) carries a
    percentile bootstrap interval over the items (:func:`bootstrap`)."""
    x = np.asarray(outcomes, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size and not np.isin(x, (0.0, 0.5, 1.0)).all():
        raise ValueError("outcomes must be 1 (win), 0 (loss) or 0.5 (tie)")
    wins, losses = int((x == 1).sum()), int((x == 0).sum())
    r = (
        bootstrap(x, n_boot=n_boot, seed=seed, warn=False)
        if n_boot
        else BootstrapResult(float(x.mean()) if x.size else float("nan"), float("nan"), float("nan"), int(x.size), 0)
    )
    est, lo, hi = (scale * v for v in (r.estimate, r.low, r.high))
    if wins + losses == 0:
        why = "no item" if not x.size else "every item is a tie"
        return Verdict(est, lo, hi, float("nan"), int(x.size), UNDEFINED, why)
    p = sign_test(wins, losses)
    words = ("above" if wins > losses else "below") if p < alpha else "no evidence of a difference"
    return Verdict(est, lo, hi, p, int(x.size), words)


def paired_comparison(
    a, b, *, margin: float | None = None, alpha: float = 0.05, n_boot: int = 1000, seed: int = 0, scale: float = 1.0
) -> Verdict:
    """Mean of ``a`` minus mean of ``b``, measured on the same items (item i of both), by a
    paired bootstrap of the per-item difference (the items drawn by :func:`shared_resamples`, the
    test :func:`paired_verdict`; an item undefined in either is left out). ``words``: ``"higher"`` / ``"lower"`` (a than b)
    when the ``1 − alpha`` paired interval excludes 0; with a ``margin`` (in the units of
    ``scale`` × the values), ``"equivalent"`` when the ``1 − 2·alpha`` interval lies inside
    ``(−margin, margin)`` (two one-sided tests, TOST); else ``"no evidence of a difference"``;
    ``"undefined"`` when no item is left or every item's difference is 0 (the bootstrap cannot
    vary). The interval returned is the ``1 − alpha`` one."""
    a, b = (np.asarray(v, dtype=float).ravel() for v in (a, b))
    if a.size != b.size:
        raise ValueError(f"paired values must have one length per item, got {a.size} and {b.size}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must lie in (0, 0.5), got {alpha}")
    d = scale * (a - b)
    d = d[np.isfinite(d)]
    nan = float("nan")
    if not d.size:
        return Verdict(nan, nan, nan, nan, 0, UNDEFINED, "no item with both values")
    if not np.any(d != 0):
        return Verdict(0.0, nan, nan, nan, int(d.size), UNDEFINED, "every item gives both the same value")
    reps = mean_replicates(d, shared_resamples(d.size, n_boot=n_boot, seed=seed))
    return paired_verdict(reps, estimate=float(d.mean()), n=int(d.size), alpha=alpha, margin=margin)


def paired_verdict(
    differences, *, estimate: float, n: int = 0, alpha: float = 0.05, margin: float | None = None
) -> Verdict:
    """The paired test itself, on bootstrap replicates of a difference a − b drawn on the same
    resamples for a and b (:func:`shared_resamples`; replicates undefined are dropped): the
    percentile interval at ``1 − alpha``; ``"higher"`` / ``"lower"`` when it excludes 0; with a
    ``margin``, ``"equivalent"`` when the ``1 − 2·alpha`` interval lies inside ``(−margin,
    margin)`` (two one-sided tests, TOST); else ``"no evidence of a difference"``;
    ``"undefined"`` (NaN interval) when no replicate is left or every replicate is exactly 0
    (the test cannot vary). ``estimate`` and ``n`` (the items) are carried into the
    :class:`Verdict`. Used by :func:`paired_comparison` (per-item values) and :func:`separation`
    (a study's replicates)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    reps = np.asarray(differences, dtype=float).ravel()
    reps = reps[np.isfinite(reps)]
    nan = float("nan")
    if not reps.size:
        return Verdict(estimate, nan, nan, nan, n, UNDEFINED, "no paired replicate")
    if not np.any(reps != 0):
        return Verdict(estimate, nan, nan, nan, n, UNDEFINED, "every resample gives both the same value")
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    if lo > 0 or hi < 0:
        words = "higher" if lo > 0 else "lower"
    elif (
        margin is not None
        and margin > 0
        and -margin < np.quantile(reps, alpha)
        and np.quantile(reps, 1 - alpha) < margin
    ):  # TOST at alpha
        words = "equivalent"
    else:
        words = "no evidence of a difference"
    return Verdict(estimate, float(lo), float(hi), nan, n, words)


# ---------------------------------------------------------------------------------------------
# cluster bootstrap: items that share a group (Part I's samples of one quintuple) are resampled together
# ---------------------------------------------------------------------------------------------


def group_resamples(groups, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Cluster bootstrap weights, shape ``(n_boot, n)`` for ``n`` items: each replicate draws the
    ``G`` distinct groups of ``groups`` (one label per item, in sorted order of the labels) with
    replacement (``numpy.random.default_rng(seed).integers(0, G, (n_boot, G))``) and gives every
    item the number of times its group was drawn. The weights depend only on the groups, never
    on the values: models scored on the same items get the same resamples, so weighted means of
    two models' values are paired. A weighted mean over a row is the mean over the drawn groups'
    items, expanded."""
    g = np.asarray(groups).ravel()
    if n_boot < 1:
        raise ValueError(f"group_resamples needs n_boot >= 1, got {n_boot}")
    labels, member = np.unique(g, return_inverse=True)
    if not labels.size:
        return np.zeros((n_boot, 0))
    draws = np.random.default_rng(seed).integers(0, labels.size, size=(n_boot, labels.size))
    counts = np.stack([np.bincount(row, minlength=labels.size) for row in draws])
    return counts[:, member].astype(float)


def group_bootstrap(values, groups, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> BootstrapResult:
    """Mean of the finite ``values`` with a percentile cluster-bootstrap interval: the groups are
    resampled (:func:`group_resamples`), never the items one by one, so items of one group that
    depend on each other do not narrow the interval. NaN values are dropped and counted; with no
    finite value the result is all NaN; a replicate that draws no finite value is left out."""
    v = np.asarray(values, dtype=float).ravel()
    if np.asarray(groups).ravel().shape != v.shape:
        raise ValueError(f"groups must have one label per value ({v.size}), got {np.asarray(groups).size}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    ok = np.isfinite(v)
    nan = float("nan")
    if not ok.any():
        return BootstrapResult(nan, nan, nan, 0, int((~ok).sum()))
    w = group_resamples(groups, n_boot=n_boot, seed=seed) * ok
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = (w * np.where(ok, v, 0.0)).sum(axis=1) / total
    reps = reps[total > 0]
    lo, hi = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
    return BootstrapResult(float(v[ok].mean()), float(lo), float(hi), int(ok.sum()), int((~ok).sum()))
