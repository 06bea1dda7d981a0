"""The words a page may use for a statistical result: who leads, where an interval lies against
a reference, how many comparisons were made, and which rows are left out. Each sentence is made
from the numbers of :mod:`compsem.stats` by a stated rule.

A page says "best", "closest" or "largest" only when the leader's interval clears every other
model's (:func:`leader`, :func:`leader_sentence`) or, for estimates on the same items, when the
paired interval of each difference excludes zero (:func:`paired_leader_sentence` on replicates,
:func:`paired_ranking_sentence` and :func:`paired_leader` on per-item scores); where they do not it
says "no evidence of a difference", never that the estimates are the same (sameness only from an
equivalence test with a stated margin: :func:`compsem.stats.paired_comparison`). A degenerate row
(every comparison a tie, every item exactly at the no-effect value) is left out of every ranking
and named (:func:`degenerate_reason`); a control is never ranked, only shown beside the models.

* :func:`versus_reference` and :func:`against_reference`: an interval against a reference level
  (chance, no effect), and each model's, with plural agreement ("`a` lies", "`a` and `b` lie");
* :func:`chance_sentence`: per-item outcomes against chance by the exact sign test;
* :func:`paired_words`: one :func:`compsem.stats.paired_comparison` of two shares in a sentence;
* :func:`comparisons_words`: how many paired comparisons, held together by Bonferroni;
* :func:`join_names`: "`a`, `b` and `c`".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from . import fmt
from .fmt import estimate, number, p_value
from .stats import UNDEFINED, Verdict, outcomes_against_chance, paired_bootstrap, paired_comparison, paired_verdict

__all__ = [
    "join_names",
    "degenerate_reason",
    "Leader",
    "leader",
    "leader_sentence",
    "versus_reference",
    "against_reference",
    "paired_leader_sentence",
    "paired_leader",
    "comparisons_words",
    "paired_ranking_sentence",
    "chance_sentence",
    "paired_words",
]


def join_names(names: Sequence[str], *, quote: str = "`") -> str:
    """``a``, ``a and b``, ``a, b and c`` (names in ``quote``)."""
    q = [f"{quote}{n}{quote}" for n in names]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1] if q else ""


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
    est = estimate(v, lo, hi, digits, unit=unit)
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
    return text + _left_out(r.excluded)


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


def against_reference(
    rows: pd.DataFrame,
    *,
    reference: float,
    what: str,
    level: str,
    level_name: str,
    higher: bool = True,
    digits: int = 2,
    unit: str = "",
    wrong_side: tuple[str, str] = ("", ""),
) -> str:
    """Where each model's interval lies against ``reference``.

    ``rows``: one row per model (index), columns ``value``, ``low``, ``high``. ``what`` is the
    measure ("the zero-shot pair accuracy of Part II"), ``level`` the reference as a number with
    its unit ("50 %"), ``level_name`` its name after "lies above" ("chance"). ``wrong_side``: a
    clause for one model and one for several that explains an interval on the wrong side of the
    reference (for ``higher``), appended after a colon.

    Example: "For 1 of the 2 models the accuracy has an interval that contains 50 %. `b` lies
    above chance (60.0 % [55.0, 65.0])."
    """
    where = {m: versus_reference(r.low, r.high, reference, higher=higher) for m, r in rows.iterrows()}
    n = len(rows)
    contains = sum(w == "indistinguishable" for w in where.values())
    if n and contains == n:
        head = f"For every model {what} has an interval that contains {level}."
    elif n == 1:
        head = f"For the one model, {what} has an interval that excludes {level}."
    else:
        head = f"For {contains} of the {n} {fmt.noun(n, 'model')} {what} has an interval that contains {level}."
    parts = [head]
    est = {m: estimate(r.value, r.low, r.high, digits, unit=unit) for m, r in rows.iterrows()}
    for side in ("significantly below", "significantly above", "above", "below"):
        ms = [m for m in rows.index if where[m] == side]
        if not ms:
            continue
        clause = wrong_side[0 if len(ms) == 1 else 1] if side.startswith("significantly") else ""
        if len(ms) == 1:
            parts.append(f"`{ms[0]}` lies {side} {level_name} ({est[ms[0]]})" + (f": {clause}." if clause else "."))
        else:
            named = ", ".join(f"`{m}` ({est[m]})" for m in ms[:-1]) + f" and `{ms[-1]}` ({est[ms[-1]]})"
            parts.append(f"{named} lie {side} {level_name}" + (f": {clause}." if clause else "."))
    undefined = [m for m in rows.index if where[m] == "undefined"]
    if undefined:
        parts.append(f"{join_names(undefined)} {fmt.noun(len(undefined), 'has', 'have')} no interval.")
    return " ".join(parts)


def paired_leader(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    what: str,
    higher: bool = True,
    scale: float = 1.0,
    digits: int = 2,
    unit: str = "",
    items: str = "items",
    n_boot: int = 1000,
    seed: int = 0,
) -> str:
    """The leader of the models' mean per-item scores (``{model: scores on the same items}``),
    named only as far as a paired bootstrap of each difference allows; ``scale`` turns shares
    into percentages. Example: "`a` has the highest share (75.0 %); on the same triples its lead
    over every other model has a paired 95 % interval above zero (the smallest: …)." """
    reps = {m: scale * r for m, r in paired_bootstrap(scores, n_boot=n_boot, seed=seed).items()}
    names = list(scores)
    means = [scale * float(np.nanmean(np.asarray(scores[m], dtype=float))) for m in names]
    return paired_leader_sentence(means, reps, names, what=what, higher=higher, digits=digits, unit=unit, items=items)


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
    many = f" ({comparisons_words(len(others), 1 - level)})" if len(others) > 1 else ""
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
                f"{head}; on the same {items} {said} (the smallest: {estimate(d, lo, hi, digits)} over `{n}`){many}."
                + beside
            )
        n, d, lo, hi, _ = max(leads, key=lambda x: x[3])
        return (
            f"{head}; on the same {items} it falls below every other {noun} by a difference whose paired {pct} "
            f"interval lies below zero (the closest: {estimate(d, lo, hi, digits)} from `{n}`){many}." + beside
        )
    shown = ", ".join(f"`{n}` ({estimate(d, lo, hi, digits)})" for n, d, lo, hi, _ in tied)
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
    tail = _left_out({k: why for k, why in excluded.items() if k in arrs})
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
        return estimate(sign * r.estimate, lo, hi, digits)

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
        p = p_value(r.p)
        return f"`{k}` ({estimate(r.estimate, r.low, r.high, digits, unit=unit)}, p {p if p.startswith('<') else '= ' + p})"

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
        parts.append(f"paired difference {estimate(v.estimate, v.low, v.high, 1, unit=f' {unit}')}")
    iv = f" ({'; '.join(parts)})" if parts else ""
    return f"on the same {v.n} {items}, {subject} {words[v.words]}{iv}."


def _left_out(excluded: Mapping[str, str]) -> str:
    """ " `z` is left out of the ranking: every item gives exactly 0." for each row left out."""
    return "".join(f" `{k}` is left out of the ranking: {why}." for k, why in excluded.items())


def _controls_tail(values: Sequence[tuple[str, float]], digits: int = 1, unit: str = "") -> str:
    """ " `bow` is a control, shown beside the models and not ranked (18.4 %)." for each control."""
    if not values:
        return ""
    shown = [f"`{k}` ({v:.{digits}f}{unit})" if np.isfinite(v) else f"`{k}` (undefined)" for k, v in values]
    if len(shown) == 1:
        return f" {shown[0]} is a control, shown beside the models and not ranked."
    return f" {', '.join(shown[:-1])} and {shown[-1]} are controls, shown beside the models and not ranked."
