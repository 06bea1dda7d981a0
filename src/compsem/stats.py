"""Small statistics helpers: bootstrap confidence intervals, NaN accounting, and the words a
page may use to compare estimates (:func:`leader`, :func:`leader_sentence`, :func:`versus_reference`).

A page says "best", "closest" or "largest" only when the leader's interval clears every other
model's (or, for estimates on the same items, when the paired interval of each difference excludes
zero: :func:`paired_bootstrap`, :func:`paired_leader_sentence`); where intervals overlap it says "indistinguishable from …"; a degenerate row (every
comparison a tie, every item exactly at the no-effect value) is left out of every ranking and
named (:func:`degenerate_reason`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from .measures import DegenerateGeometryWarning

__all__ = ["bootstrap", "bootstrap_ci", "BootstrapResult", "nan_report", "degenerate_reason", "Leader", "leader",
           "leader_sentence", "versus_reference", "join_names", "paired_bootstrap", "paired_interval",
           "paired_leader_sentence", "shared_resamples", "mean_replicates", "Separation", "separation"]


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


# ---------------------------------------------------------------------------------------------
# words for comparisons
# ---------------------------------------------------------------------------------------------
def degenerate_reason(value: float, low: float, high: float, *, reference: float = float("nan"),
                      ties: float = float("nan"), flagged: str = "", constant: bool = False) -> str:
    """Why an estimate must stay out of a ranking, or ``""`` when it may be ranked.

    Degenerate: ``flagged`` (a study's own reason); every comparison a tie (``ties`` = 1:
    under a strict ``<`` nothing can pass, under ``<=`` everything does); an estimate that
    sits exactly on the no-effect ``reference`` with a zero-width interval (every item gives
    that value, e.g. a gap of 0 because all distances are equal); with ``constant``, any
    estimate with a zero-width bootstrap interval (every item gives the same value, e.g. a
    share of 0 % because no sample can pass: a constant row, not a measurement); an undefined
    estimate.
    """
    if flagged:
        return str(flagged)
    if not np.isfinite(value):
        return "undefined (no finite value)"
    if np.isfinite(ties) and ties >= 1.0:
        return "every comparison is a tie"
    if np.isfinite(reference) and value == low == high == reference:
        return f"every item gives exactly {reference:g}, the no-effect value"
    if constant and value == low == high:
        return f"every item gives exactly {value:g}"
    return ""


def join_names(names: Sequence[str], *, quote: str = "`") -> str:
    """``a``, ``a and b``, ``a, b and c`` (names in ``quote``)."""
    q = [f"{quote}{n}{quote}" for n in names]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1] if q else ""


class Leader(NamedTuple):
    """The leading model among estimates with intervals."""

    name: str                 # the highest (or lowest) estimate among the rankable ones
    tied_with: list[str]      # rankable models whose interval overlaps the leader's
    excluded: dict[str, str]  # degenerate models left out, with the reason


def leader(values, lows, highs, names: Sequence[str], *, higher: bool = True,
           excluded: dict[str, str] | None = None) -> Leader:
    """The model with the highest (``higher``) or lowest estimate, and every other model whose
    interval overlaps the leader's (two intervals overlap when neither lies wholly above the
    other; touching counts as overlap). ``excluded`` names models left out (degenerate).
    """
    excluded = dict(excluded or {})
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, lows, highs))
    if not (len(v) == len(lo) == len(hi) == len(names)):
        raise ValueError(f"values, lows, highs and names differ in length: {len(v)}, {len(lo)}, {len(hi)}, {len(names)}")
    keep = [i for i, n in enumerate(names) if n not in excluded and np.isfinite(v[i])]
    if not keep:
        raise ValueError(f"no model left to rank (excluded: {excluded})")
    best = max(keep, key=lambda i: v[i]) if higher else min(keep, key=lambda i: v[i])
    # an undefined interval overlaps everything: it cannot separate
    overlap = [names[i] for i in keep if i != best
               and not (np.isfinite(hi[i]) and np.isfinite(lo[best]) and hi[i] < lo[best])
               and not (np.isfinite(lo[i]) and np.isfinite(hi[best]) and lo[i] > hi[best])]
    return Leader(names[best], overlap, excluded)


def leader_sentence(values, lows, highs, names: Sequence[str], *, what: str, higher: bool = True,
                    excluded: dict[str, str] | None = None, digits: int = 2, unit: str = "",
                    noun: str = "model", exclude_degenerate: bool = False, constant: bool = False) -> str:
    """One sentence naming the leader only as far as the intervals allow.

    ``what`` completes "has the highest …" (e.g. "RSA with the reference"). Separated: "`a` has
    the highest RSA (0.55 [0.50, 0.60]); its interval clears every other model's." Overlapping:
    "`a` has the highest RSA (…), but its interval overlaps that of `b`: the two are
    indistinguishable at this sample size." Excluded models are named at the end; when every
    model is excluded the sentence says that none can be ranked, and why. ``noun`` names what
    is ranked ("model", "configuration"). With ``exclude_degenerate`` every row that
    :func:`degenerate_reason` (with ``constant``) finds degenerate is left out and named too
    (``excluded`` gives further reasons, and wins for a row it names).
    """
    excluded = dict(excluded or {})
    if exclude_degenerate:
        found = {n: why for n, v, lo, hi in zip(names, *(np.asarray(x, dtype=float) for x in (values, lows, highs)))
                 if (why := degenerate_reason(v, lo, hi, constant=constant))}
        excluded = {**found, **excluded}
    if names and all(n in excluded for n in names):
        return f"No {noun} can be ranked here: " + " ".join(f"`{n}`: {why}." for n, why in excluded.items())
    r = leader(values, lows, highs, names, higher=higher, excluded=excluded)
    i = list(names).index(r.name)
    v, lo, hi = (float(np.asarray(x, dtype=float)[i]) for x in (values, lows, highs))
    est = f"{v:.{digits}f}{unit}" + (f" [{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(lo) and np.isfinite(hi) else "")
    word = "highest" if higher else "lowest"
    others = len([n for n in names if n not in r.excluded]) - 1
    if not others:
        text = f"`{r.name}` ({est}) is the only {noun} that can be ranked here."
    elif not r.tied_with:
        text = f"`{r.name}` has the {word} {what} ({est}), its interval clear of every other {noun}'s."
    else:
        them = "that of" if len(r.tied_with) == 1 else "those of"
        n = "the two are" if len(r.tied_with) == 1 else "they are"
        text = (f"`{r.name}` has the {word} {what} ({est}), but its interval overlaps {them} "
                f"{join_names(r.tied_with)}: {n} indistinguishable at this sample size.")
    if r.excluded:
        text += " " + " ".join(f"`{n}` is left out of the ranking: {why}." for n, why in r.excluded.items())
    return text


def versus_reference(low: float, high: float, reference: float, *, higher: bool = True) -> str:
    """Where an interval lies against a reference (chance, no effect): ``"above"`` /
    ``"below"`` when it excludes the reference on the side ``higher`` calls good /
    ``"significantly below"`` (``"significantly above"`` when ``higher`` is False) on the wrong
    side, ``"indistinguishable"`` when it contains it, ``"undefined"`` without an interval."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "undefined"
    if low <= reference <= high:
        return "indistinguishable"
    above = low > reference
    if above == higher:
        return "above" if above else "below"
    return "significantly below" if not above else "significantly above"


# ---------------------------------------------------------------------------------------------
# paired comparisons: estimates on the same items
# ---------------------------------------------------------------------------------------------
def paired_bootstrap(values: dict[str, Sequence[float]], statistic: Callable[[np.ndarray], float] = np.mean, *,
                     n_boot: int = 1000, seed: int = 0) -> dict[str, np.ndarray]:
    """Replicates of ``statistic`` for every name of ``values`` (per-item values of one length,
    item i of every name measured on the same item), each replicate drawing the *same* items for
    every name (``numpy.random.default_rng(seed).integers(0, n, (n_boot, n))``): the differences
    of two names' replicates are a paired bootstrap of the difference of their statistics
    (:func:`paired_interval`). An item with a NaN under any name is left out for all of them."""
    arrs = {k: np.asarray(v, dtype=float).ravel() for k, v in values.items()}
    sizes = {a.size for a in arrs.values()}
    if len(sizes) > 1:
        raise ValueError(f"paired values must have one length per item, got lengths {sorted(sizes)}")
    if not arrs:
        return {}
    keep = np.all([np.isfinite(a) for a in arrs.values()], axis=0)
    idx = np.random.default_rng(seed).integers(0, int(keep.sum()), size=(n_boot, int(keep.sum())))
    out = {}
    for k, a in arrs.items():
        a = a[keep]
        out[k] = a[idx].mean(axis=1) if statistic is np.mean else np.array([statistic(a[i]) for i in idx])
    return out


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


def paired_leader_sentence(values, replicates: dict[str, np.ndarray], names: Sequence[str], *, what: str,
                           higher: bool = True, digits: int = 2, unit: str = "", noun: str = "model",
                           items: str = "items", level: float = 0.95) -> str:
    """One sentence naming the leader of estimates measured on the same items, only as far as a
    paired bootstrap allows: the leader is "clear of" another when the paired interval of their
    difference (:func:`paired_interval`) excludes zero on the leader's side, else the two are
    indistinguishable on these items. ``replicates[name]`` holds the name's replicates on shared
    resamples. Examples: "`a` has the highest test Spearman (59.1); on the same test pairs its lead
    over every other configuration has a paired 95 % interval above zero (the smallest: 3.2
    [1.1, 5.0] over `b`)." / "`a` has the highest … (59.1), but its lead over `b` (0.0 [-1.2,
    1.3]) has a paired 95 % interval that includes zero: the two are indistinguishable on these
    test pairs."
    """
    v = np.asarray(values, dtype=float)
    if not (len(v) == len(names)):
        raise ValueError(f"values and names differ in length: {len(v)}, {len(names)}")
    keep = [i for i in range(len(v)) if np.isfinite(v[i]) and names[i] in replicates]
    if not keep:
        return f"No {noun} can be ranked here: no estimate is defined."
    best = max(keep, key=lambda i: v[i]) if higher else min(keep, key=lambda i: v[i])
    word = "highest" if higher else "lowest"
    head = f"`{names[best]}` has the {word} {what} ({v[best]:.{digits}f}{unit})"
    others = [i for i in keep if i != best]
    if not others:
        return f"`{names[best]}` ({v[best]:.{digits}f}{unit}) is the only {noun} that can be ranked here."
    pct = f"{100 * level:g} %"
    leads = []
    for i in others:
        lo, hi = paired_interval(replicates[names[best]], replicates[names[i]], level=level)
        if not higher:
            lo, hi = -hi, -lo
        leads.append((names[i], v[best] - v[i] if higher else v[i] - v[best], lo, hi))
    tied = [x for x in leads if not (np.isfinite(x[2]) and x[2] > 0)]
    fmt = f".{digits}f"
    if not tied:
        n, d, lo, hi = min(leads, key=lambda x: x[2])
        return (f"{head}; on the same {items} its lead over every other {noun} has a paired {pct} interval above "
                f"zero (the smallest: {d:{fmt}} [{lo:{fmt}}, {hi:{fmt}}] over `{n}`).")
    shown = ", ".join(f"`{n}` ({d:{fmt}} [{lo:{fmt}}, {hi:{fmt}}])" if np.isfinite(lo) else f"`{n}` (no interval)"
                      for n, d, lo, hi in tied)
    if len(tied) == 1:
        return (f"{head}, but its lead over {shown} has a paired {pct} interval that includes zero: the two are "
                f"indistinguishable on these {items}.")
    return (f"{head}, but its leads over {shown} have paired {pct} intervals that include zero: they are "
            f"indistinguishable on these {items}.")


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

    difference: float   # model − control (the estimates)
    low: float          # paired percentile interval of the difference
    high: float
    outcome: str        # "higher", "lower", "no evidence of a difference" or "undefined"


def separation(value: float, control_value: float, replicates, control_replicates, *,
               level: float = 0.95) -> Separation:
    """Does a model separate from a control scored on the same items? The difference of the two
    estimates with the paired percentile interval of the replicates' differences (both drawn on
    the same resamples: :func:`shared_resamples`); the outcome is ``"higher"`` / ``"lower"`` when
    the interval lies wholly above / below zero, ``"no evidence of a difference"`` when it contains
    zero, ``"undefined"`` without replicates or an estimate."""
    d = float(value) - float(control_value)
    if replicates is None or control_replicates is None or not np.isfinite(d):
        return Separation(d, float("nan"), float("nan"), "undefined")
    a, b = np.asarray(replicates, dtype=float), np.asarray(control_replicates, dtype=float)
    if a.shape != b.shape or a.size == 0:
        return Separation(d, float("nan"), float("nan"), "undefined")
    lo, hi = paired_interval(a, b, level=level)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return Separation(d, lo, hi, "undefined")
    return Separation(d, lo, hi, "higher" if lo > 0 else "lower" if hi < 0 else "no evidence of a difference")
