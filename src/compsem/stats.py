"""Small statistics helpers: bootstrap confidence intervals, NaN accounting, and the words a
page may use to compare estimates (:func:`leader`, :func:`leader_sentence`, :func:`versus_reference`).

A page says "best", "closest" or "largest" only when the leader's interval clears every other
model's (or, for estimates on the same items, when the paired interval of each difference excludes
zero: :func:`paired_bootstrap`, :func:`paired_leader_sentence`, :func:`paired_ranking_sentence`); where they do
not it says "no evidence of a difference", never that the estimates are the same (sameness only from
an equivalence test with a stated margin: :func:`paired_comparison`); a degenerate row (every
comparison a tie, every item exactly at the no-effect value) is left out of every ranking and
named (:func:`degenerate_reason`).

One resampling and one paired test serve every page: every bootstrap draws its items by
:func:`shared_resamples` (a function of the number of items, ``n_boot`` and ``seed`` only, so two
models scored on the same items get the same resamples), and every paired decision, from per-item
values (:func:`paired_comparison`) or from a study's replicates (:func:`separation`, the leaders'
sentences), is :func:`paired_verdict`: a percentile interval of the replicates' differences,
"higher" / "lower" when it excludes zero, "equivalent" only by two one-sided tests within a stated
margin, "undefined" (never a p-value) when the difference cannot vary. A table of counts with an
expected count below :data:`SMALL_EXPECTED` is tested exactly (:func:`exact_table_p`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln
from scipy.stats import binomtest

from .errors import CompsemError, DataError
from .fmt import number, p_value
from .measures import DegenerateGeometryWarning

__all__ = [
    "bootstrap",
    "bootstrap_ci",
    "BootstrapResult",
    "nan_report",
    "degenerate_reason",
    "Leader",
    "leader",
    "leader_sentence",
    "versus_reference",
    "join_names",
    "paired_bootstrap",
    "paired_interval",
    "paired_leader_sentence",
    "shared_resamples",
    "mean_replicates",
    "Separation",
    "separation",
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


def bootstrap_ci(
    values,
    statistic: Callable[[np.ndarray], float] = np.mean,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """``(low, high)`` of :func:`bootstrap`."""
    r = bootstrap(values, statistic, n_boot=n_boot, seed=seed, level=level)
    return r.low, r.high


# ---------------------------------------------------------------------------------------------
# words for comparisons
# ---------------------------------------------------------------------------------------------
def degenerate_reason(
    value: float,
    low: float,
    high: float,
    *,
    reference: float = float("nan"),
    ties: float = float("nan"),
    flagged: str = "",
    constant: bool = False,
) -> str:
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

    name: str  # the highest (or lowest) estimate among the rankable ones
    tied_with: list[str]  # rankable models whose interval overlaps the leader's
    excluded: dict[str, str]  # degenerate models left out, with the reason


def leader(
    values, lows, highs, names: Sequence[str], *, higher: bool = True, excluded: dict[str, str] | None = None
) -> Leader:
    """The model with the highest (``higher``) or lowest estimate, and every other model whose
    interval overlaps the leader's (two intervals overlap when neither lies wholly above the
    other; touching counts as overlap). ``excluded`` names models left out (degenerate).
    """
    excluded = dict(excluded or {})
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, lows, highs))
    if not (len(v) == len(lo) == len(hi) == len(names)):
        raise ValueError(
            f"values, lows, highs and names differ in length: {len(v)}, {len(lo)}, {len(hi)}, {len(names)}"
        )
    keep = [i for i, n in enumerate(names) if n not in excluded and np.isfinite(v[i])]
    if not keep:
        raise ValueError(f"no model left to rank (excluded: {excluded})")
    best = max(keep, key=lambda i: v[i]) if higher else min(keep, key=lambda i: v[i])
    # an undefined interval overlaps everything: it cannot separate
    overlap = [
        names[i]
        for i in keep
        if i != best
        and not (np.isfinite(hi[i]) and np.isfinite(lo[best]) and hi[i] < lo[best])
        and not (np.isfinite(lo[i]) and np.isfinite(hi[best]) and lo[i] > hi[best])
    ]
    return Leader(names[best], overlap, excluded)


def leader_sentence(
    values,
    lows,
    highs,
    names: Sequence[str],
    *,
    what: str,
    higher: bool = True,
    excluded: dict[str, str] | None = None,
    digits: int = 2,
    unit: str = "",
    noun: str = "model",
    exclude_degenerate: bool = False,
    constant: bool = False,
) -> str:
    """One sentence naming the leader only as far as the intervals allow.

    ``what`` completes "has the highest …" (e.g. "RSA with the reference"). Separated: "`a` has
    the highest RSA (0.55 [0.50, 0.60]); its interval clears every other model's." Overlapping:
    "`a` has the highest RSA (…), but its interval overlaps that of `b`: no evidence of a difference
    from these unpaired intervals." (Models scored on the same items are compared by
    :func:`paired_ranking_sentence` instead.) Excluded models are named at the end; when every
    model is excluded the sentence says that none can be ranked, and why. ``noun`` names what
    is ranked ("model", "configuration"); with more than one comparison the sentence says how many
    it made ("(3 comparisons with the leader)"). With ``exclude_degenerate`` every row that
    :func:`degenerate_reason` (with ``constant``) finds degenerate is left out and named too
    (``excluded`` gives further reasons, and wins for a row it names).
    """
    excluded = dict(excluded or {})
    if exclude_degenerate:
        found = {
            n: why
            for n, v, lo, hi in zip(names, *(np.asarray(x, dtype=float) for x in (values, lows, highs)))
            if (why := degenerate_reason(v, lo, hi, constant=constant))
        }
        excluded = {**found, **excluded}
    if names and all(n in excluded for n in names):
        return f"No {noun} can be ranked here: " + " ".join(f"`{n}`: {why}." for n, why in excluded.items())
    r = leader(values, lows, highs, names, higher=higher, excluded=excluded)
    i = list(names).index(r.name)
    v, lo, hi = (float(np.asarray(x, dtype=float)[i]) for x in (values, lows, highs))
    est = f"{number(v, digits)}{unit}" + (
        f" [{number(lo, digits)}, {number(hi, digits)}]" if np.isfinite(lo) and np.isfinite(hi) else ""
    )
    word = "highest" if higher else "lowest"
    others = len([n for n in names if n not in r.excluded]) - 1
    many = f" ({others} comparisons with the leader)" if others > 1 else ""
    if not others:
        text = f"`{r.name}` ({est}) is the only {noun} that can be ranked here."
    elif not r.tied_with:
        text = f"`{r.name}` has the {word} {what} ({est}), its interval clear of every other {noun}'s{many}."
    else:
        them = "that of" if len(r.tied_with) == 1 else "those of"
        text = (
            f"`{r.name}` has the {word} {what} ({est}), but its interval overlaps {them} "
            f"{join_names(r.tied_with)}: no evidence of a difference from these unpaired intervals{many}."
        )
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


def paired_leader_sentence(
    values,
    replicates: dict[str, np.ndarray],
    names: Sequence[str],
    *,
    what: str,
    higher: bool = True,
    digits: int = 2,
    unit: str = "",
    noun: str = "model",
    items: str = "items",
    level: float = 0.95,
    controls: Sequence[str] = (),
    lead: bool = True,
) -> str:
    """One sentence naming the leader of estimates measured on the same items, only as far as a
    paired bootstrap allows: the leader is "clear of" another when the paired interval of their
    difference (:func:`paired_interval`) excludes zero on the leader's side, else there is no
    evidence of a difference on these items. With ``m`` > 1 other names each interval is at
    ``1 − (1 − level)/m`` (Bonferroni), so that all ``m`` hold together at ``level``, and the
    sentence says so. ``replicates[name]`` holds the name's replicates on shared
    resamples. Examples: "`a` has the highest test Spearman (59.1); on the same test pairs its lead
    over every other configuration has a paired 95 % interval above zero (the smallest: 3.2
    [1.1, 5.0] over `b`)." / "`a` has the highest … (59.1), but its lead over `b` (0.0 [-1.2,
    1.3]) has a paired 95 % interval that includes zero: no evidence of a difference on these
    test pairs." A name in ``controls`` is never ranked: it is named at the end with its value.
    The lowest (``higher`` False) has no "lead": it is shown by its difference from each other name
    (lowest − other), which "falls below" them where every paired interval lies below zero.
    Where the highest is not the best (``lead`` False: a higher value is worse, or neither), the
    highest is worded the same way: its difference from each other name, which it "exceeds".
    """
    v = np.asarray(values, dtype=float)
    if not (len(v) == len(names)):
        raise ValueError(f"values and names differ in length: {len(v)}, {len(names)}")
    ctrl = set(controls)
    beside = _controls_tail([(names[i], float(v[i])) for i in range(len(v)) if names[i] in ctrl], digits, unit)
    keep = [i for i in range(len(v)) if np.isfinite(v[i]) and names[i] in replicates and names[i] not in ctrl]
    if not keep:
        only_controls = beside and not [n for n in names if n not in ctrl]
        why = "only controls are left" if only_controls else "no estimate is defined"
        return f"No {noun} can be ranked here: {why}." + beside
    best = max(keep, key=lambda i: v[i]) if higher else min(keep, key=lambda i: v[i])
    word = "highest" if higher else "lowest"
    head = f"`{names[best]}` has the {word} {what} ({v[best]:.{digits}f}{unit})"
    others = [i for i in keep if i != best]
    if not others:
        return f"`{names[best]}` ({v[best]:.{digits}f}{unit}) is the only {noun} that can be ranked here." + beside
    each = 1 - (1 - level) / len(others)
    pct = f"{round(100 * each, 1):g} %"
    many = (
        (
            f" ({len(others)} paired comparisons, each interval at {pct} by Bonferroni so that all "
            f"{len(others)} hold together at {100 * level:g} %)"
        )
        if len(others) > 1
        else ""
    )
    leads = []  # (name, lead, low, high, words) by the one paired test, each at 1 − (1 − level)/m
    for i in others:
        a, b = (np.asarray(replicates[names[k]], dtype=float) for k in (best, i))
        gap = v[best] - v[i] if higher else v[i] - v[best]
        r = paired_verdict(a - b if higher else b - a, estimate=gap, alpha=1 - each)
        leads.append((names[i], gap, r.low, r.high, r.words))
    if not higher:  # the lowest: shown as its difference from each other name (below zero), never a "lead"
        leads = [(n, -d, -hi, -lo, w) for n, d, lo, hi, w in leads]
    rel = "lead over" if higher and lead else "difference from"
    undefined = [x for x in leads if x[4] == UNDEFINED]
    tied = [x for x in leads if x[4] not in ("higher", UNDEFINED)]
    why = ""
    if undefined:  # the test cannot vary (every resample gives the same difference) or has no replicate
        ds = {x[1] for x in undefined}
        why = f"its {rel} {join_names([x[0] for x in undefined])} is undefined: " + (
            f"every resample gives the same difference ({number(ds.pop(), digits)}), so the paired test cannot vary"
            if len(ds) == 1 and all(np.isfinite(list(ds)))
            else "the paired test cannot vary or has no replicate"
        )
    if undefined and not tied:
        return f"{head}, but {why}{many}." + beside
    if not tied:
        if higher:
            n, d, lo, hi, _ = min(leads, key=lambda x: x[2])
            said = (
                f"its lead over every other {noun} has a paired {pct} interval above zero"
                if lead
                else f"it exceeds every other {noun} by a difference whose paired {pct} interval lies above zero"
            )
            return (
                f"{head}; on the same {items} {said} (the smallest: {number(d, digits)} [{number(lo, digits)}, "
                f"{number(hi, digits)}] over `{n}`){many}." + beside
            )
        n, d, lo, hi, _ = max(leads, key=lambda x: x[3])
        return (
            f"{head}; on the same {items} it falls below every other {noun} by a difference whose paired {pct} "
            f"interval lies below zero (the closest: {number(d, digits)} [{number(lo, digits)}, "
            f"{number(hi, digits)}] from `{n}`){many}." + beside
        )
    shown = ", ".join(
        f"`{n}` ({number(d, digits)} [{number(lo, digits)}, {number(hi, digits)}])" for n, d, lo, hi, _ in tied
    )
    also = f"; {why}" if why else ""
    if len(tied) == 1:
        return (
            f"{head}, but its {rel} {shown} has a paired {pct} interval that includes zero: no evidence "
            f"of a difference on these {items}{also}{many}." + beside
        )
    return (
        f"{head}, but its {'leads over' if higher and lead else 'differences from'} {shown} have paired {pct} intervals "
        "that include zero: no evidence of "
        f"a difference on these {items}{also}{many}." + beside
    )


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
# tests a referee accepts: exact tests against chance, paired comparisons, equivalence (TOST),
# and the words they allow ("no evidence of a difference", never "indistinguishable")
# ---------------------------------------------------------------------------------------------
#: the word of a test whose outcome cannot vary (no item, every item a tie): never a p-value
UNDEFINED = "undefined"

__all__ += [
    "UNDEFINED",
    "exact_binomial_p",
    "exact_table_p",
    "SMALL_EXPECTED",
    "sign_test",
    "Verdict",
    "outcomes_against_chance",
    "paired_comparison",
    "paired_verdict",
    "comparisons_words",
    "paired_ranking_sentence",
    "chance_sentence",
    "paired_words",
]


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


def comparisons_words(m: int, alpha: float) -> str:
    """How ``m`` comparisons are held at ``alpha`` together (Bonferroni): "one paired comparison,
    a 95 % interval" / "3 paired comparisons, each interval at 98.3 % by Bonferroni so that all 3
    hold together at 95 %"."""
    if m == 1:
        return f"one paired comparison, a {100 * (1 - alpha):g} % interval"
    return (
        f"{m} paired comparisons, each interval at {round(100 * (1 - alpha / m), 1):g} % by Bonferroni so "
        f"that all {m} hold together at {100 * (1 - alpha):g} %"
    )


def paired_ranking_sentence(
    scores,
    *,
    what: str,
    higher: bool = True,
    scale: float = 1.0,
    digits: int = 1,
    unit: str = "",
    items: str = "items",
    noun: str = "model",
    margin: float | None = None,
    alpha: float = 0.05,
    n_boot: int = 1000,
    seed: int = 0,
    constant: bool = True,
    excluded: dict[str, str] | None = None,
    controls: Sequence[str] = (),
) -> str:
    """One sentence naming the leader of per-item scores measured on the same items
    (``{name: scores}``, the statistic their mean × ``scale``), only as far as paired tests
    allow: the leader against each other name by :func:`paired_comparison`, the ``m``
    comparisons held together by Bonferroni (each at ``1 − alpha/m``), and the sentence says how
    many it made. A lead whose interval includes zero reads "no evidence of a difference" (with
    its interval), "equivalent within ±margin" only when a ``margin`` is given and the TOST
    passes. A name with no finite score, or (``constant``) the same score on every item, is left
    out and named, as are those of ``excluded``. A name in ``controls`` is a control: never
    ranked, named at the end with its value. Items undefined under any ranked name are left
    out for all. Example: "`a` has the highest share (75.0 %); on the same 4 items its lead over
    `b` has a paired interval above zero (50.0 [25.0, 75.0]; one paired comparison, a 95 %
    interval)." The lowest (``higher`` False) is shown by its difference from each other name
    (lowest − other, below zero where clear): "`b` has the lowest share (25.0 %); on the same 4
    items it falls below `a` by a difference whose paired interval lies below zero (-50.0 …)".
    """
    excluded = dict(excluded or {})
    arrs = {k: np.asarray(v, dtype=float).ravel() for k, v in scores.items()}
    if len({a.size for a in arrs.values()}) > 1:
        raise ValueError(f"paired scores must have one length per item, got {sorted({a.size for a in arrs.values()})}")
    ctrl = [k for k in arrs if k in set(controls)]
    beside = _controls_tail(
        [(k, scale * float(np.nanmean(arrs[k])) if np.isfinite(arrs[k]).any() else float("nan")) for k in ctrl],
        digits,
        unit,
    )
    arrs = {k: v for k, v in arrs.items() if k not in ctrl}
    for k, a in arrs.items():
        fin = a[np.isfinite(a)]
        if k in excluded:
            continue
        if not fin.size:
            excluded[k] = "undefined (no finite value)"
        elif constant and np.all(fin == fin[0]):
            excluded[k] = f"every item gives exactly {scale * fin[0]:g}"
    names = [k for k in arrs if k not in excluded]
    tail = "".join(f" `{k}` is left out of the ranking: {why}." for k, why in excluded.items() if k in arrs)
    if not names:
        return (f"No {noun} can be ranked here:" + (tail or " only controls are left.")).rstrip() + beside
    keep = np.all([np.isfinite(arrs[k]) for k in names], axis=0)
    means = {k: scale * float(arrs[k][keep].mean()) if keep.any() else float("nan") for k in names}
    best = (max if higher else min)(names, key=lambda k: means[k])
    head = f"`{best}` has the {'highest' if higher else 'lowest'} {what} ({number(means[best], digits)}{unit})"
    others = [k for k in names if k != best]
    if not others:
        return (
            f"`{best}` ({number(means[best], digits)}{unit}) is the only {noun} that can be ranked here."
            + tail
            + beside
        )
    m = len(others)
    alpha_each = alpha / m
    res = {}
    for k in others:
        hi_, lo_ = (arrs[best][keep], arrs[k][keep]) if higher else (arrs[k][keep], arrs[best][keep])
        res[k] = paired_comparison(hi_, lo_, margin=margin, alpha=alpha_each, n_boot=n_boot, seed=seed, scale=scale)
    n_items = int(keep.sum())

    # the lowest is shown by its difference from each other name (lowest − other, below zero), never a "lead"
    sign = 1 if higher else -1

    def shown_ci(k):
        r = res[k]
        lo, hi = sorted((sign * r.low, sign * r.high))
        return f"{number(sign * r.estimate, digits)} [{number(lo, digits)}, {number(hi, digits)}]"

    def shown(k):
        if res[k].words == UNDEFINED:
            return f"`{k}`"
        return f"`{k}` ({shown_ci(k)})"

    rel = "lead over" if higher else "difference from"

    clear = [k for k in others if res[k].words == "higher"]
    equivalent = [k for k in others if res[k].words == "equivalent"]
    none = [k for k in others if res[k].words in ("no evidence of a difference", "lower")]
    undefined = [k for k in others if res[k].words == UNDEFINED]
    parts = []
    if len(clear) == m:
        k = min(clear, key=lambda k: res[k].low)
        whom = f"`{k}`" if m == 1 else f"every other {noun}"
        said = (
            f"its lead over {whom} has a paired interval above zero"
            if higher
            else f"it falls below {whom} by a difference whose paired interval lies below zero"
        )
        return (
            f"{head}; on the same {n_items} {items} {said}"
            f" ({('the smallest: ' if higher else 'the closest: ') if m > 1 else ''}{shown_ci(k)}"
            f"{(' over `' if higher else ' from `') + k + '`' if m > 1 else ''}; {comparisons_words(m, alpha)})."
            + tail
            + beside
        )
    if none:
        one = len(none) == 1
        parts.append(
            f"for its {rel} {', '.join(shown(k) for k in none)} the paired interval"
            f"{'' if one else 's'} include{'s' if one else ''} zero: no evidence of a difference"
        )
    if equivalent:
        parts.append(
            f"{', '.join(shown(k) for k in equivalent)} "
            f"{'is' if len(equivalent) == 1 else 'are'} equivalent to it within ±{margin:g}{unit} "
            f"(two one-sided tests)"
        )
    if undefined:
        parts.append(f"the comparison with {join_names(undefined)} is undefined: {res[undefined[0]].reason}")
    first = (
        (
            f"{head} on the same {n_items} {items}: its lead over {join_names(clear)} has a paired interval above "
            f"zero, but "
            if higher
            else f"{head} on the same {n_items} {items}: it falls below {join_names(clear)} by a difference whose "
            f"paired interval lies below zero, but "
        )
        if clear
        else f"{head} on the same {n_items} {items}, but "
    )
    return first + "; ".join(parts) + f" ({comparisons_words(m, alpha)})." + tail + beside


def chance_sentence(
    outcomes,
    *,
    what: str,
    chance: str = "chance (50 %)",
    items: str = "items",
    digits: int = 1,
    unit: str = " %",
    scale: float = 100.0,
    alpha: float = 0.05,
    n_boot: int = 1000,
    seed: int = 0,
) -> str:
    """Where each name's per-item outcomes (``{name: outcomes}``, 1 win, 0 loss, ½ tie) lie
    against chance, by the exact sign test (:func:`outcomes_against_chance`), the tests held
    together by Bonferroni (each at ``alpha`` / their number), in one sentence that says how
    many tests it made. Example: "The pair accuracy lies below chance (50 %) for `a` (30.0 %
    [20.0, 40.0], p = 0.001) and shows no evidence of a difference from it for `b` (…): exact
    sign tests over the untied items, 2 tests each at α = 0.025 (Bonferroni)."
    """
    names = list(outcomes)
    if not names:
        raise ValueError("no outcomes to test")
    m = len(names)
    res = {
        k: outcomes_against_chance(v, alpha=alpha / m, n_boot=n_boot, seed=seed, scale=scale)
        for k, v in outcomes.items()
    }

    def one(k):
        r = res[k]
        if r.words == UNDEFINED:
            return f"`{k}` ({r.reason})"
        iv = f" [{number(r.low, digits)}, {number(r.high, digits)}]" if np.isfinite(r.low) else ""
        p = p_value(r.p)
        return f"`{k}` ({number(r.estimate, digits)}{unit}{iv}, p {p if p.startswith('<') else '= ' + p})"

    groups = {
        "below": f"lies below {chance} for",
        "above": f"lies above {chance} for",
        "no evidence of a difference": f"shows no evidence of a difference from {chance} for",
        UNDEFINED: "cannot be tested against chance (undefined) for",
    }
    parts = []
    for w, lead in groups.items():
        ks = [k for k in names if res[k].words == w]
        if ks:
            every = f"all {m}: " if len(ks) == m and m > 1 else ""
            listed = ", ".join(one(k) for k in ks[:-1]) + (" and " if len(ks) > 1 else "") + one(ks[-1])
            parts.append(f"{lead} {every}{listed}")
    tests = f"one test at α = {alpha:g}" if m == 1 else f"{m} tests, each at α = {alpha / m:.3g} (Bonferroni)"
    text = f"{what[:1].upper()}{what[1:]} " + "; it ".join(parts)
    return f"{text}: exact sign tests over the untied {items}, {tests}."


def paired_words(
    v: Verdict,
    subject: str,
    other: str,
    items: str = "items",
    *,
    unit: str = "points",
    margin: float | None = None,
    shares: tuple[float, float] | None = None,
) -> str:
    """One sentence from a :func:`paired_comparison` of two shares on the same items:
    "On the same 20 samples, <subject> more often than <other> (paired difference 12.0 points
    [4.0, 20.0])." / "… with no evidence of a difference from <other> (…)." / "… as often as
    <other> within ±5 points (two one-sided tests) (…)." / "… exactly as often as <other> on
    every sample (the paired test is undefined)." With ``shares`` (the two percentages) they
    open the parenthesis: "(100.0 % against 0.0 %; paired difference …)"."""
    words = {
        "higher": f"more often than {other}",
        "lower": f"less often than {other}",
        "no evidence of a difference": f"with no evidence of a difference from {other}",
        "equivalent": f"as often as {other} within ±{margin if margin is not None else float('nan'):g} {unit} "
        "(two one-sided tests)",
        UNDEFINED: f"exactly as often as {other} on every {items.rstrip('s')} (the paired test is undefined)",
    }
    parts = [f"{shares[0]:.1f} % against {shares[1]:.1f} %"] if shares is not None else []
    if np.isfinite(v.low):
        parts.append(f"paired difference {number(v.estimate, 1)} {unit} [{number(v.low, 1)}, {number(v.high, 1)}]")
    iv = f" ({'; '.join(parts)})" if parts else ""
    return f"on the same {v.n} {items}, {subject} {words[v.words]}{iv}."


def _controls_tail(values: Sequence[tuple[str, float]], digits: int = 1, unit: str = "") -> str:
    """ " `bow` is a control, shown beside the models and not ranked (18.4 %)." for each control."""
    if not values:
        return ""
    shown = [f"`{k}` ({v:.{digits}f}{unit})" if np.isfinite(v) else f"`{k}` (undefined)" for k, v in values]
    if len(shown) == 1:
        return f" {shown[0]} is a control, shown beside the models and not ranked."
    return f" {', '.join(shown[:-1])} and {shown[-1]} are controls, shown beside the models and not ranked."


# ---------------------------------------------------------------------------------------------
# cluster bootstrap: items that share a group (Part I's samples of one quintuple) are resampled together
# ---------------------------------------------------------------------------------------------
__all__ += ["group_resamples", "group_bootstrap"]


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
