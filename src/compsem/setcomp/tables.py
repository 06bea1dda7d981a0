"""Tidy tables of Part I from embedded samples: one row per model × cell, with 95% intervals.

Every table takes ``emb = {model: {operator: {"a", "b", "t"}}}`` (from
:func:`compsem.setcomp.study.embed_tables`) or plane geometries (from
:func:`compsem.setcomp.metrics.geometry`), applies the maths of :mod:`.metrics` and puts a
percentile bootstrap interval (:func:`compsem.stats.bootstrap`) on every percentage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import measures as M
from ..encoders.kinds import is_control
from ..errors import CompsemError
from ..stats import bootstrap, group_bootstrap
from .metrics import (
    CELLS,
    EPS_MODES,
    criterion_deltas,
    eps_label,
    epsilon_grids,
    grid_cells_per_sample,
    grid_fraction,
    raw_scores,
)

__all__ = [
    "LABELS",
    "ci",
    "cells_table",
    "cell_samples",
    "cells_per_sample",
    "c4_table",
    "c4_samples",
    "deltas_table",
    "raw_scores_table",
    "geometry_table",
    "union_table",
    "geometry_samples",
    "eps_modes_table",
    "norm_ratio_stats",
    "paired_difference",
    "paired_leads",
    "with_leads",
    "LEAD_COLUMNS",
]

#: The columns :func:`with_leads` adds to a table's rows.
LEAD_COLUMNS: tuple[str, ...] = ("lead", "lead_low", "lead_high", "lead_over")


#: Part I's extension of :data:`compsem.labels.LABELS`: the quintuple's roles as the paper writes
#: them, the regions of the plane and the norm cases of C6, as a page's headers.
LABELS = {
    "s_prev": "S_prev (sentence before)",
    "s_curr": "S_curr (middle sentence)",
    "s_next": "S_next (sentence after)",
    "s1": "S1 (fusion of S_prev and S_curr)",
    "s2": "S2 (fusion of S_curr and S_next)",
    "region": "where the projection falls",
    "between": "between A and B (%)",
    "near_a": "near A (%)",
    "near_b": "near B (%)",
    "outside": "outside (%)",
    "norm_case": "norms of A and B",
    "n_case": "samples",
    "a_larger": "A larger",
    "b_larger": "B larger",
    "comparable": "comparable",
}


def ci(values, *, n_boot: int = 1000, seed: int = 0, scale: float = 1.0, groups=None) -> tuple[float, float, float]:
    """Mean with a 95% percentile bootstrap interval (NaN dropped), times ``scale``. With
    ``groups`` (one label per value: the quintuple a sample comes from) the interval resamples
    whole groups (:func:`compsem.stats.group_bootstrap`), since the samples of one quintuple
    share sentences and are not independent."""
    if n_boot <= 0:
        v = np.asarray(values, dtype=np.float64)
        v = v[~np.isnan(v)]
        m = float(v.mean()) * scale if v.size else float("nan")
        return m, float("nan"), float("nan")
    r = (
        bootstrap(values, n_boot=n_boot, seed=seed, warn=False)
        if groups is None
        else group_bootstrap(values, groups, n_boot=n_boot, seed=seed)
    )
    return r.estimate * scale, r.low * scale, r.high * scale


# ----------------------------------------------------------------------------- tables


def _deltas_for(emb, operator, measure):
    return {
        m: criterion_deltas(e[operator]["a"], e[operator]["b"], e[operator]["t"], operator, measure=measure)
        for m, e in emb.items()
    }


def cells_table(
    emb,
    operator: str,
    measures: Sequence[str] = ("cos", "ned"),
    *,
    mode="pooled",
    size: int = 132,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
) -> pd.DataFrame:
    """C1 (overlap) or C3 (difference) cell percentages for every model and measure (``groups``:
    each sample's quintuple, resampled whole by the interval: :func:`ci`).

    Columns: ``model, measure, mode, cell, pct, low, high, n, n_nan`` (percentages, 95% CI).
    The grids follow ``mode`` (see :func:`epsilon_grids`); the CI resamples the samples with
    the grid held fixed. The (T,T) row also holds ``tt_minus_ff`` with ``tt_minus_ff_low`` and
    ``tt_minus_ff_high``: the paired difference (T,T) − (F,F) in points, per sample on the same
    samples, its interval resampling the same units (NaN on the other rows).
    """
    rows = []
    for meas in measures:
        deltas = _deltas_for(emb, operator, meas)
        grids = epsilon_grids({m: {k: d[k] for k in ("d1", "d2")} for m, d in deltas.items()}, mode=mode, size=size)
        for model, d in deltas.items():
            per = grid_cells_per_sample(d["d1"], d["d2"], grids[model]["d1"], grids[model]["d2"])
            bad = np.isnan(per).any(axis=1)
            tt, ff = list(CELLS).index("TT"), list(CELLS).index("FF")
            paired = ci(per[:, tt] - per[:, ff], n_boot=n_boot, seed=seed, scale=100, groups=groups)
            nan3 = (float("nan"),) * 3
            for k, cell in enumerate(CELLS):
                est, lo, hi = ci(per[:, k], n_boot=n_boot, seed=seed, scale=100, groups=groups)
                d, dlo, dhi = paired if cell == "TT" else nan3
                rows.append(
                    dict(
                        model=model,
                        measure=meas,
                        mode=eps_label(mode),
                        cell=cell,
                        pct=est,
                        low=lo,
                        high=hi,
                        n=int((~bad).sum()),
                        n_nan=int(bad.sum()),
                        tt_minus_ff=d,
                        tt_minus_ff_low=dlo,
                        tt_minus_ff_high=dhi,
                    )
                )
    return pd.DataFrame(rows)


def cell_samples(
    emb, operator: str, measure: str, cell: str, *, mode="pooled", size: int = 132
) -> dict[str, np.ndarray]:
    """Per sample, the share of the ε grid in ``cell`` (the values whose mean :func:`cells_table`
    reports), one array per model on the same samples (NaN where undefined): what a paired test
    of two models' shares needs. The grids follow ``mode`` over the models of ``emb``, as there."""
    k = list(CELLS).index(cell)
    return {model: per[:, k] for model, per in cells_per_sample(emb, operator, measure, mode=mode, size=size).items()}


def cells_per_sample(emb, operator: str, measure: str, *, mode="pooled", size: int = 132) -> dict[str, np.ndarray]:
    """Per sample, the share of the ε grid in each of the four cells (shape ``(n, 4)``, the order of
    :data:`.metrics.CELLS`), one array per model on the same samples; the grids follow ``mode``
    over the models of ``emb``, as in :func:`cells_table`."""
    deltas = _deltas_for(emb, operator, measure)
    grids = epsilon_grids({m: {k: d[k] for k in ("d1", "d2")} for m, d in deltas.items()}, mode=mode, size=size)
    return {
        model: grid_cells_per_sample(d["d1"], d["d2"], grids[model]["d1"], grids[model]["d2"])
        for model, d in deltas.items()
    }


def c4_samples(emb, measure: str, *, mode="pooled", size: int = 132) -> dict[str, np.ndarray]:
    """Per sample, the share of the ε grid meeting C4 (the values whose mean :func:`c4_table`
    reports), one array per model on the same samples."""
    deltas = _deltas_for(emb, "difference", measure)
    grids = epsilon_grids({m: {"d3": d["d3"]} for m, d in deltas.items()}, mode=mode, size=size)
    return {model: grid_fraction(d["d3"], grids[model]["d3"]) for model, d in deltas.items()}


def c4_table(
    emb,
    measures: Sequence[str] = ("cos", "ned"),
    *,
    mode="pooled",
    size: int = 132,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
) -> pd.DataFrame:
    """C4 percentages (``Δ3 ≥ ε`` averaged over the ε grid) per model and measure, with CIs
    (``groups``: each sample's quintuple, resampled whole: :func:`ci`)."""
    rows = []
    for meas in measures:
        deltas = _deltas_for(emb, "difference", meas)
        grids = epsilon_grids({m: {"d3": d["d3"]} for m, d in deltas.items()}, mode=mode, size=size)
        for model, d in deltas.items():
            g = grid_fraction(d["d3"], grids[model]["d3"])
            est, lo, hi = ci(g, n_boot=n_boot, seed=seed, scale=100, groups=groups)
            rows.append(
                dict(
                    model=model,
                    measure=meas,
                    mode=eps_label(mode),
                    pct=est,
                    low=lo,
                    high=hi,
                    n=int((~np.isnan(g)).sum()),
                    n_nan=int(np.isnan(g).sum()),
                )
            )
    return pd.DataFrame(rows)


def deltas_table(emb, operator: str, measures: Sequence[str] = M.MEASURES) -> pd.DataFrame:
    """Mean and standard deviation of each sign-flipped margin (larger = criterion met)."""
    rows = []
    for meas in measures:
        for model, d in _deltas_for(emb, operator, meas).items():
            for name, v in d.items():
                rows.append(
                    dict(
                        model=model,
                        measure=meas,
                        margin=name,
                        mean=float(np.nanmean(v)),
                        std=float(np.nanstd(v)),
                        share_positive=float(100 * np.nanmean(v >= 0)),
                        n=int((~np.isnan(v)).sum()),
                        n_nan=int(np.isnan(v).sum()),
                    )
                )
    return pd.DataFrame(rows)


def raw_scores_table(emb, operator: str, measures: Sequence[str] = M.MEASURES) -> pd.DataFrame:
    """Mean ± std of the raw-measure differences (paper convention, Tables 12 and 14)."""
    rows = []
    for meas in measures:
        for model, e in emb.items():
            r = raw_scores(e[operator]["a"], e[operator]["b"], e[operator]["t"], operator, measure=meas)
            for name, v in r.items():
                rows.append(
                    dict(
                        model=model,
                        measure=meas,
                        quantity=name,
                        mean=float(np.nanmean(v)),
                        std=float(np.nanstd(v)),
                        n_nan=int(np.isnan(v).sum()),
                    )
                )
    return pd.DataFrame(rows)


def geometry_table(
    geoms: Mapping[str, M.PlaneGeometry],
    *,
    near: float = 0.25,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
    paired: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Where projections fall, per model: between A and B (C2), near A (C5), near B, outside.

    ``t`` is the signed in-plane position (0 at A, 1 at B). *near A* means ``|t| ≤ near``, i.e.
    the angle ∠(A, P) is at most ``near`` times ∠(A, B); *near B* means ``|t − 1| ≤ near``;
    *between* means ``0 ≤ t ≤ 1``. Degenerate samples are counted, not classified. ``groups``:
    each sample's quintuple, resampled whole by the intervals (:func:`ci`).

    ``paired`` (``{model: control}``, both in ``geoms`` and measured on the same samples): the
    model's rows also hold ``control`` and ``minus_control`` with ``minus_control_low`` and
    ``minus_control_high``: the paired difference model − control in points, per sample (1 or 0
    in the region) over the samples degenerate in neither, its interval resampling the same
    units (empty and NaN on the other rows).
    """
    paired = dict(paired or {})
    for model, control in paired.items():
        if model not in geoms or control not in geoms:
            raise CompsemError(f"geometry_table: the paired {model!r} and {control!r} are not both in geoms")
        if geoms[model].t.shape != geoms[control].t.shape:
            raise CompsemError(f"geometry_table: {model!r} and {control!r} are not measured on the same samples")

    def region_flags(t):
        return {
            "between": (t >= 0) & (t <= 1),
            "near_a": np.abs(t) <= near,
            "near_b": np.abs(t - 1) <= near,
            "outside": (t < 0) | (t > 1),
        }

    rows = []
    for model, g in geoms.items():
        ok = ~g.degenerate
        t = g.t[ok]
        flags = region_flags(t)
        diffs = {}
        if model in paired:
            c = geoms[paired[model]]
            both = ~g.degenerate & ~c.degenerate
            mine, theirs = region_flags(g.t[both]), region_flags(c.t[both])
            g_both = None if groups is None else np.asarray(groups)[both]
            diffs = {
                name: ci(
                    mine[name].astype(float) - theirs[name].astype(float),
                    n_boot=n_boot,
                    seed=seed,
                    scale=100,
                    groups=g_both,
                )
                for name in mine
            }
        for name, f in flags.items():
            g_ok = None if groups is None else np.asarray(groups)[ok]
            est, lo, hi = ci(f.astype(float), n_boot=n_boot, seed=seed, scale=100, groups=g_ok)
            d, dlo, dhi = diffs.get(name, (float("nan"),) * 3)
            rows.append(
                dict(
                    model=model,
                    region=name,
                    pct=est,
                    low=lo,
                    high=hi,
                    n=int(ok.sum()),
                    n_degenerate=int(g.n_degenerate),
                    median_t=float(np.median(t)) if t.size else float("nan"),
                    median_residual=float(np.median(g.residual[ok])) if t.size else float("nan"),
                    control=paired.get(model, ""),
                    minus_control=d,
                    minus_control_low=dlo,
                    minus_control_high=dhi,
                )
            )
    return pd.DataFrame(rows)


def union_table(
    emb,
    geoms: Mapping[str, M.PlaneGeometry],
    *,
    comparable: float = 0.1,
    near: float = 0.25,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
) -> pd.DataFrame:
    """C6: the projection of U against the norm ratio ``r = |E_A| / |E_B|`` of the inputs
    (``groups``: each sample's quintuple, resampled whole by the intervals: :func:`ci`).

    Samples fall into three norm cases: comparable (``|r − 1| ≤ comparable``), A larger
    (``r > 1 + comparable``), B larger (``r < 1 − comparable``). The expected region is
    *between* for comparable norms, *near A* (``|t| ≤ near``) when A is larger and *near B*
    when B is larger; ``pct_expected`` is the share of each case's samples in its region.
    """
    rows = []
    for model, e in emb.items():
        g = geoms[model]
        r = M.norm_ratio(e["union"]["a"], e["union"]["b"], warn=False)
        ok = ~g.degenerate & ~np.isnan(r)
        t, r = g.t[ok], r[ok]
        g_ok = None if groups is None else np.asarray(groups)[ok]
        cases = {
            "comparable": (np.abs(r - 1) <= comparable, (t >= 0) & (t <= 1)),
            "a_larger": (r > 1 + comparable, np.abs(t) <= near),
            "b_larger": (r < 1 - comparable, np.abs(t - 1) <= near),
        }
        for case, (sel, hit) in cases.items():
            est, lo, hi = (
                ci(
                    hit[sel].astype(float),
                    n_boot=n_boot,
                    seed=seed,
                    scale=100,
                    groups=None if g_ok is None else g_ok[sel],
                )
                if sel.any()
                else (float("nan"), float("nan"), float("nan"))
            )
            rows.append(
                dict(
                    model=model,
                    norm_case=case,
                    n_case=int(sel.sum()),
                    share_of_samples=float(100 * sel.mean()) if sel.size else float("nan"),
                    pct_expected=est,
                    low=lo,
                    high=hi,
                    n_degenerate=int((~ok).sum()),
                )
            )
    return pd.DataFrame(rows)


def geometry_samples(geoms: Mapping[str, M.PlaneGeometry], table: pd.DataFrame) -> pd.DataFrame:
    """Per-sample projection results in tidy form (one row per model and sample).

    Columns: ``model, qid, variant, angle_ab, angle_ap, angle_bp`` (degrees), ``t`` (signed
    position, 0 at A, 1 at B), ``bp_ratio`` (∠(B,P)/∠(A,B), the paper's histogram variable),
    ``residual`` (share of the target's length outside the plane) and ``degenerate``.
    """
    frames = []
    for model, g in geoms.items():
        if len(g.t) != len(table):
            raise ValueError(f"{model}: {len(g.t)} projections for {len(table)} samples")
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "qid": table["qid"].to_numpy(),
                    "variant": table["variant"].to_numpy(),
                    "angle_ab": np.degrees(g.angle_ab),
                    "angle_ap": np.degrees(g.angle_ap),
                    "angle_bp": np.degrees(g.angle_bp),
                    "t": g.t,
                    "bp_ratio": g.bp_ratio,
                    "residual": g.residual,
                    "degenerate": g.degenerate,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def eps_modes_table(
    emb, operator: str, measure: str = "cos", *, size: int = 132, cell: str = "TT", extra: Sequence = ()
) -> pd.DataFrame:
    """One cell's share (no interval) under the three named ε modes (and any ``extra`` explicit
    ranges), wide: one row per model, one column per mode."""
    modes = list(EPS_MODES) + list(extra)
    t = pd.concat([cells_table(emb, operator, [measure], mode=m, size=size, n_boot=0) for m in modes])
    cols = list(dict.fromkeys(eps_label(m) for m in modes))
    return t[t["cell"] == cell].pivot(index="model", columns="mode", values="pct")[cols]


def norm_ratio_stats(ratios: Mapping[str, np.ndarray], *, comparable: float = 0.1) -> pd.DataFrame:
    """Median, 5th and 95th percentile of ``|E_A|/|E_B|`` per model, and the share within
    ``1 ± comparable`` (NaN ratios left out)."""
    return pd.DataFrame(
        {
            m: {
                "median ratio": float(np.nanmedian(r)),
                "5th pct": float(np.nanpercentile(r, 5)),
                "95th pct": float(np.nanpercentile(r, 95)),
                "% comparable": float(100 * np.nanmean(np.abs(r - 1) <= comparable)),
            }
            for m, r in ratios.items()
        }
    ).T


# ----------------------------------------------------------------------------- paired leads


def paired_difference(a, b, *, groups=None, n_boot: int = 1000, seed: int = 0, scale: float = 100.0):
    """Mean of ``a − b`` per item on the same items, times ``scale``, with its 95 % interval
    (:func:`ci`: resampling whole quintuples with ``groups``); an item undefined in either is
    left out. ``(estimate, low, high)``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise CompsemError(f"a paired difference needs the same items, got {a.size} and {b.size} values")
    return ci(a - b, n_boot=n_boot, seed=seed, scale=scale, groups=groups)


def paired_leads(
    samples: Mapping[str, np.ndarray], *, groups=None, n_boot: int = 1000, seed: int = 0
) -> dict[str, tuple[float, float, float, str]]:
    """Each model's lead over the other models of the run on the same samples, as one row:
    ``{model: (lead, low, high, over)}`` in points, a paired difference per sample (model minus
    the other), resampling quintuples (:func:`paired_difference`).

    "The model has the highest share" claims that it lies above *every* other model, so each
    comparison is made at 95 % and all must exclude zero (an intersection–union test, which needs
    no correction for the number of comparisons). The row reported is the comparison that decides:
    the other model with the smallest lead when some lead is at or below zero, else the one whose
    interval reaches lowest. Controls (:func:`compsem.encoders.kinds.is_control`) are neither
    ranked nor compared with; a model with no other model to compare gets NaN and ``""``. This is
    a study statistic (Part I's claims of the paper's "highest"), kept beside its tables."""
    models = [m for m in samples if not is_control(m)]
    nan = float("nan")
    out: dict[str, tuple[float, float, float, str]] = {}
    for m in models:
        rows = {
            o: paired_difference(samples[m], samples[o], groups=groups, n_boot=n_boot, seed=seed)
            for o in models
            if o != m
        }
        if not rows:
            out[m] = (nan, nan, nan, "")
            continue
        if any(not (r[0] > 0) for r in rows.values()):
            over = min(rows, key=lambda o: rows[o][0] if np.isfinite(rows[o][0]) else -np.inf)
        else:
            over = min(rows, key=lambda o: rows[o][1] if np.isfinite(rows[o][1]) else -np.inf)
        out[m] = (*rows[over], over)
    return out


def with_leads(tab: pd.DataFrame, leads: Mapping[str, tuple[float, float, float, str]], **where) -> pd.DataFrame:
    """``tab`` with the :data:`LEAD_COLUMNS` of :func:`paired_leads` filled on the rows that match
    ``where`` (column == value) and whose model has a lead; NaN / ``""`` elsewhere."""
    tab = tab.copy()
    for c in LEAD_COLUMNS:
        if c not in tab:
            tab[c] = "" if c == "lead_over" else float("nan")
    mask = pd.Series(True, index=tab.index)
    for k, v in where.items():
        mask &= tab[k] == v
    for i in tab.index[mask]:
        got = leads.get(tab.at[i, "model"])
        if got is not None:
            tab.loc[i, list(LEAD_COLUMNS)] = list(got)
    return tab
