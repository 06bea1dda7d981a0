"""What the controls of chapters 11 and 13 show about C2 and C6, in words produced from tests.

:func:`c3_against_shuffled` says what the shuffled difference sentences show about C3 at ε = 0:
the real against the shuffled targets on the same samples, for both conditions together and for
each condition, and which condition the real targets raise more (a paired test of the two rises).

A projection "between the inputs" (C2 for the overlap, the middle case of C6 for the union) is
compared, on the same samples, with the same projection of a *shuffled* target (a target from
another quintuple: a paired test of the per-sample outcomes, :func:`compsem.stats.paired_comparison`),
and the random control's share with the chance level the plane's geometry derives: a uniformly
random direction in the plane of ``E_A`` and ``E_B`` falls inside the angle between them with
probability ``∠(A, B) / 360°`` (an exact binomial test against the mean of that per-sample
chance). For the overlap it also says how much of C2 the derivation "C1 at ε = 0 implies C2"
can account for: only the samples that meet C1 at ε = 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import CompsemError
from ..measures import PlaneGeometry
from ..results import Prose
from ..fmt import number
from ..stats import exact_binomial_p, paired_comparison, paired_words

__all__ = ["between", "chance_between", "control_values", "c3_against_shuffled"]


def between(g: PlaneGeometry) -> np.ndarray:
    """Per sample: 1.0 when the projection lies between the inputs (0 ≤ t ≤ 1), 0.0 when not,
    NaN for a degenerate plane."""
    out = ((g.t >= 0) & (g.t <= 1)).astype(float)
    out[np.asarray(g.degenerate, dtype=bool)] = np.nan
    return out


def chance_between(g: PlaneGeometry) -> float:
    """The mean over the non-degenerate samples of ``∠(A, B) / 2π``: the share a projection in a
    uniformly random direction of the plane would put between the inputs; NaN with no sample."""
    ok = ~np.asarray(g.degenerate, dtype=bool)
    return float(np.mean(g.angle_ab[ok] / (2 * np.pi))) if ok.any() else float("nan")


def control_values(
    prefix: str,
    *,
    real: PlaneGeometry,
    shuffled: PlaneGeometry,
    random: PlaneGeometry,
    model: str,
    target: str,
    c1_at_zero: np.ndarray | None = None,
    alpha: float = 0.05,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
) -> dict:
    """Glue values ``<prefix>_…`` of the controls' test of a "between" share: ``_real_pct``,
    ``_shuffled_pct``, ``_random_pct``, ``_chance_pct`` (percentages), ``_control_sentence``
    (the words of both tests), and with ``c1_at_zero`` (per sample 1 when C1 holds at ε = 0)
    ``_implied_pct``: the share of the samples between the inputs that also meet C1 at ε = 0,
    the most of the "between" share the derivation can account for.

    ``real`` and ``shuffled`` are geometries of the same samples (the shuffled one with each
    sample's target taken from another quintuple); ``target`` names the target ("O", "U").
    ``groups`` (each sample's quintuple): the paired test of real against shuffled is made on the
    quintuples, each the mean of its samples, since a quintuple's samples are not independent."""
    b_real, b_shuf, b_rand = between(real), between(shuffled), between(random)
    if b_real.size != b_shuf.size:
        raise CompsemError(
            f"the real and the shuffled geometries cover {b_real.size} and {b_shuf.size} samples; "
            "a paired test needs the same samples"
        )
    pct = {
        k: 100 * float(np.nanmean(v)) if np.isfinite(v).any() else float("nan")
        for k, v in (("real", b_real), ("shuffled", b_shuf), ("random", b_rand))
    }
    pr, ps, items = b_real, b_shuf, "samples"
    if groups is not None:
        g = np.asarray(groups)
        pr, ps = (pd.Series(v.astype(float)).groupby(g).mean().to_numpy() for v in (b_real, b_shuf))
        items = "quintuples"
    vs = paired_comparison(pr, ps, alpha=alpha, n_boot=n_boot, seed=seed, scale=100)
    first = (
        "On"
        + paired_words(
            vs,
            f"the real {target} of `{model}` projects between the inputs",
            f"a shuffled {target}",
            items,
            shares=(pct["real"], pct["shuffled"]),
        )[2:]
    )
    chance = chance_between(random)
    fin = b_rand[np.isfinite(b_rand)]
    k, n = int(fin.sum()), int(fin.size)
    if n and np.isfinite(chance) and 0 < chance < 1:
        p = exact_binomial_p(k, n, chance)
        ptxt = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
        where = (
            f"{'above' if k / n > chance else 'below'} the chance level"
            if p < alpha
            else "with no evidence of a difference from the chance level"
        )
        second = (
            f" Random vectors project there for {pct['random']:.1f} % of the samples, {where} of "
            f"{100 * chance:.1f} % that the angle between their inputs derives"
        )
        second += f" (exact binomial test over {n} samples, {ptxt})."
    else:
        second = " The random control's share cannot be tested against chance here (undefined)."
    verdict = {
        "higher": " So the share separates real targets from shuffled ones here; whether it would also "
        "separate them from a target similar to both inputs but wrong has not been tested.",
        "lower": " So the share does not separate real targets from shuffled ones in the expected direction here.",
    }.get(vs.words, " So the share does not separate real targets from shuffled ones here.")
    out = {
        f"{prefix}_real_pct": pct["real"],
        f"{prefix}_shuffled_pct": pct["shuffled"],
        f"{prefix}_random_pct": pct["random"],
        f"{prefix}_chance_pct": 100 * chance,
        f"{prefix}_control_sentence": Prose(first + second + verdict),
    }
    if c1_at_zero is not None:
        c1 = np.asarray(c1_at_zero, dtype=float)
        if c1.size != b_real.size:
            raise CompsemError(f"C1 covers {c1.size} samples, the geometry {b_real.size}")
        ok = np.isfinite(b_real) & np.isfinite(c1) & (b_real == 1)
        out[f"{prefix}_implied_pct"] = 100 * float(c1[ok].mean()) if ok.any() else float("nan")
        out[f"{prefix}_c1_zero_pct"] = 100 * float(np.nanmean(c1))
    return out


def _quintuple_means(v: np.ndarray, groups) -> np.ndarray:
    return v if groups is None else pd.Series(np.asarray(v, dtype=float)).groupby(np.asarray(groups)).mean().to_numpy()


def c3_against_shuffled(
    real: np.ndarray,
    shuffled: np.ndarray,
    *,
    model: str,
    alpha: float = 0.05,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
) -> Prose:
    """What shuffled difference sentences show about C3, in words from paired tests.

    ``real`` and ``shuffled`` are the per-sample cell shares at ε = 0 (shape ``(n, 4)``, the cells
    (T,T), (T,F), (F,T), (F,F) of :func:`compsem.setcomp.metrics.grid_cells_per_sample`; at ε = 0
    each row is one 1 and three 0) of the same samples, the shuffled one with each sample's D
    taken from another quintuple. The sentence compares, on the same quintuples (``groups``; each
    the mean of its samples), the share meeting both conditions, then each condition (the first
    condition: cells (T,T) + (T,F); the second: (T,T) + (F,T)), and says through which condition
    the real targets raise C3 only where the paired difference of the two rises excludes zero."""
    real, shuffled = (np.asarray(v, dtype=float) for v in (real, shuffled))
    if real.shape != shuffled.shape or real.ndim != 2 or real.shape[1] != 4:
        raise CompsemError(
            f"the real and the shuffled cells must cover the same samples, four cells each; got {real.shape} "
            f"and {shuffled.shape}"
        )
    items = "samples" if groups is None else "quintuples"
    both = [100 * float(np.nanmean(v[:, 0])) for v in (real, shuffled)]
    q = {k: _quintuple_means(v, groups) for k, v in (("real", real[:, 0]), ("shuffled", shuffled[:, 0]))}
    tt = paired_comparison(q["real"], q["shuffled"], alpha=alpha, n_boot=n_boot, seed=seed, scale=100)
    said = (
        "On"
        + paired_words(tt, f"the real D of `{model}` meets both conditions", "a shuffled D", items, shares=both)[2:]
    )
    if tt.words != "higher":
        return Prose(said + " So C3 does not separate real difference sentences from shuffled ones here.")
    rise = {}
    for k, cols in (("first", [0, 1]), ("second", [0, 2])):
        r, s_ = (_quintuple_means(v[:, cols].sum(axis=1), groups) for v in (real, shuffled))
        rise[k] = (r - s_, paired_comparison(r, s_, alpha=alpha, n_boot=n_boot, seed=seed, scale=100))

    def shown(v) -> str:
        return (
            f"{number(v.estimate, 1)} points [{number(v.low, 1)}, {number(v.high, 1)}]"
            if np.isfinite(v.low)
            else f"{number(v.estimate, 1)} points (undefined: {v.reason})"
        )

    said += (
        f" Per condition, the real D changes the share meeting the first condition by {shown(rise['first'][1])}"
        f" and the share meeting the second by {shown(rise['second'][1])}."
    )
    diff = paired_comparison(rise["first"][0], rise["second"][0], alpha=alpha, n_boot=n_boot, seed=seed, scale=100)
    if diff.words in ("higher", "lower"):
        which = "first" if diff.words == "higher" else "second"
        if which == "second":  # the larger rise minus the smaller, so the difference shown is positive
            diff = diff._replace(estimate=-diff.estimate, low=-diff.high, high=-diff.low)
        said += (
            f" The rise in the {which} condition is the larger (paired difference of the rises {shown(diff)}), "
            f"so on these samples C3 separates real difference sentences from shuffled ones mainly through the "
            f"{which} condition."
        )
    else:
        said += (
            " There is no evidence that one condition carries more of the difference than the other "
            f"(paired difference of the rises {shown(diff)})."
        )
    return Prose(said)
