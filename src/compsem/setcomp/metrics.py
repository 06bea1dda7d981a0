"""Criteria C1–C6 of the set-operator study, vectorised over samples.

Conventions
-----------
``S(x, y)`` is :func:`compsem.measures.similarity`: the measure oriented so that larger means
more alike (distances NED, L1, L2 are negated). Every criterion is written as "a margin
Δ ≥ ε", so a larger Δ always means the criterion is better met, whatever the measure.

=========  ==========  ==========================================================
criterion  margin      definition (E_X the embedding of X)
=========  ==========  ==========================================================
C1         Δ1, Δ2      S(A,O) − S(A,B) ;  S(B,O) − S(A,B)
C3         Δ1, Δ2      S(A,D) − S(B,D) ;  S(A,B) − S(B,D)
C4         Δ3          S(E_A − E_B, E_D) − S(E_A − E_B, E_B)
C2/C5/C6   geometry    where the target projects in plane(E_A, E_B)
=========  ==========  ==========================================================

Averaging over margins (paper appendix A.5): each ε runs over ``G`` evenly spaced values
(inclusive ``linspace``) of a range, every grid combination is evaluated and the share of
samples in each cell (T,T), (T,F), (F,T), (F,F) is averaged over the grid. Because the grid is
a product, that average equals the mean over samples of ``G1(Δ1_i)·G2(Δ2_i)`` (and the
analogous products), with ``G(x)`` the fraction of grid values ≤ x — one ``searchsorted``
per margin, O(N log G) instead of O(N·G²). :func:`grid_cells_naive` keeps the literal loop
as the test oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import measures as M
from ..stats import bootstrap
from .dataset import TARGET_COLUMN, unique_texts

__all__ = [
    "CELLS",
    "EPS_MODES",
    "criterion_deltas",
    "raw_scores",
    "grid_fraction",
    "grid_cells_per_sample",
    "grid_cells",
    "grid_cells_naive",
    "grid_single",
    "grid_single_naive",
    "epsilon_grids",
    "embed_tables",
    "cells_table",
    "c4_table",
    "deltas_table",
    "raw_scores_table",
    "geometry",
    "geometry_table",
    "geometry_samples",
    "union_table",
    "ci",
]

CELLS: tuple[str, ...] = ("TT", "TF", "FT", "FF")
#: How the ε ranges are chosen: the paper's pooled range, one range per model, or ε = 0 only.
EPS_MODES: tuple[str, ...] = ("pooled", "per-model", "fixed")
_MARGINS = {"overlap": ("d1", "d2"), "difference": ("d1", "d2", "d3")}


# ----------------------------------------------------------------------------- margins


def criterion_deltas(ea, eb, et, operator: str, measure: str = "cos") -> dict[str, np.ndarray]:
    """The margins of one operator under one measure, per sample.

    Parameters
    ----------
    ea, eb, et : array-like of shape (n, d)
        Embeddings of A, B and the target (O for overlap, D for difference).
    operator : ``"overlap"`` (C1: ``d1``, ``d2``) or ``"difference"`` (C3: ``d1``, ``d2``; C4: ``d3``)
    measure : one of :data:`compsem.measures.MEASURES`; distances are negated.

    Returns
    -------
    dict name -> ndarray (n,), NaN where a similarity is undefined (zero vector).
    """
    if operator not in _MARGINS:
        raise ValueError(f"margins exist for 'overlap' and 'difference', not {operator!r}")
    if measure not in M.MEASURES:
        raise ValueError(f"unknown measure {measure!r}; choose from {', '.join(M.MEASURES)}")
    ea, eb, et = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (ea, eb, et))

    def S(x, y):
        return np.atleast_1d(M.similarity(x, y, measure, warn=False))

    if operator == "overlap":
        sab = S(ea, eb)
        return {"d1": S(ea, et) - sab, "d2": S(eb, et) - sab}
    sbd = S(eb, et)
    de = ea - eb
    return {"d1": S(ea, et) - sbd, "d2": S(ea, eb) - sbd, "d3": S(de, et) - S(de, eb)}


def raw_scores(ea, eb, et, operator: str, measure: str = "cos") -> dict[str, np.ndarray]:
    """Differences of the *raw* measure, in the sign convention of the paper's Tables 12 and 14.

    overlap: ``M(A,O) − M(A,B)`` and ``M(B,O) − M(A,B)``; difference: ``M(B,D)``,
    ``M(A,D) − M(B,D)`` and ``M(A,B) − M(B,D)``. For distances, negative is favourable.
    """
    ea, eb, et = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (ea, eb, et))

    def R(x, y):
        return np.atleast_1d(M.measure(x, y, measure, warn=False))

    if operator == "overlap":
        mab = R(ea, eb)
        return {"m_ao_minus_m_ab": R(ea, et) - mab, "m_bo_minus_m_ab": R(eb, et) - mab}
    if operator == "difference":
        mbd = R(eb, et)
        return {"m_bd": mbd, "m_ad_minus_m_bd": R(ea, et) - mbd, "m_ab_minus_m_bd": R(ea, eb) - mbd}
    raise ValueError(f"raw scores exist for 'overlap' and 'difference', not {operator!r}")


# ----------------------------------------------------------------------------- epsilon grid


def grid_fraction(delta, grid) -> np.ndarray:
    """``G(Δ)``: the fraction of grid values ε with ``Δ ≥ ε``, per sample (NaN stays NaN)."""
    grid = np.sort(np.asarray(grid, dtype=np.float64).ravel())
    if grid.size == 0:
        raise ValueError("the epsilon grid is empty")
    if np.isnan(grid).any():
        raise ValueError("the epsilon grid contains NaN")
    delta = np.asarray(delta, dtype=np.float64)
    frac = np.searchsorted(grid, delta, side="right") / grid.size
    return np.where(np.isnan(delta), np.nan, frac)


def grid_cells_per_sample(d1, d2, grid1, grid2) -> np.ndarray:
    """Each sample's share of grid combinations in (T,T), (T,F), (F,T), (F,F): shape (n, 4).

    Row i is ``[G1·G2, G1·(1−G2), (1−G1)·G2, (1−G1)·(1−G2)]`` with ``Gk = grid_fraction(dk_i,
    gridk)``; rows sum to 1, and NaN rows mark samples with an undefined margin.
    """
    g1, g2 = grid_fraction(d1, grid1), grid_fraction(d2, grid2)
    return np.stack([g1 * g2, g1 * (1 - g2), (1 - g1) * g2, (1 - g1) * (1 - g2)], axis=-1)


def grid_cells(d1, d2, grid1, grid2) -> dict[str, float]:
    """Percentages of samples per cell, averaged over the ε grid (O(N log G)).

    Samples with an undefined margin are left out and counted in ``n_nan``.
    """
    per = grid_cells_per_sample(d1, d2, grid1, grid2)
    ok = ~np.isnan(per).any(axis=1)
    res = {c: float(100 * per[ok, k].mean()) if ok.any() else float("nan") for k, c in enumerate(CELLS)}
    res.update(n=int(ok.sum()), n_nan=int((~ok).sum()))
    return res


def grid_cells_naive(d1, d2, grid1, grid2) -> dict[str, float]:
    """The literal definition: loop over every (ε1, ε2), classify every sample, average.

    O(N·G1·G2); the oracle for :func:`grid_cells` in the tests and the benchmark.
    """
    d1, d2 = np.asarray(d1, dtype=np.float64), np.asarray(d2, dtype=np.float64)
    ok = ~(np.isnan(d1) | np.isnan(d2))
    d1, d2 = d1[ok], d2[ok]
    acc = dict.fromkeys(CELLS, 0.0)
    n_comb = 0
    for e1 in np.asarray(grid1, dtype=np.float64).ravel():
        c1 = d1 >= e1
        for e2 in np.asarray(grid2, dtype=np.float64).ravel():
            c2 = d2 >= e2
            acc["TT"] += np.mean(c1 & c2)
            acc["TF"] += np.mean(c1 & ~c2)
            acc["FT"] += np.mean(~c1 & c2)
            acc["FF"] += np.mean(~c1 & ~c2)
            n_comb += 1
    res = {c: 100 * v / n_comb for c, v in acc.items()}
    res.update(n=int(ok.sum()), n_nan=int((~ok).sum()))
    return res


def grid_single(d, grid) -> dict[str, float]:
    """Percentage of samples with ``Δ ≥ ε``, averaged over a 1-D grid (C4)."""
    g = grid_fraction(d, grid)
    ok = ~np.isnan(g)
    return {"pct": float(100 * g[ok].mean()) if ok.any() else float("nan"), "n": int(ok.sum()),
            "n_nan": int((~ok).sum())}


def grid_single_naive(d, grid) -> float:
    """Oracle for :func:`grid_single`: loop over ε."""
    d = np.asarray(d, dtype=np.float64)
    d = d[~np.isnan(d)]
    return float(100 * np.mean([np.mean(d >= e) for e in np.asarray(grid, dtype=np.float64).ravel()]))


def epsilon_grids(deltas: Mapping[str, Mapping[str, np.ndarray]], *, mode: str = "pooled",
                  size: int = 132) -> dict[str, dict[str, np.ndarray]]:
    """ε grids for every model and margin.

    Parameters
    ----------
    deltas : {model: {margin name: Δ array}}
        The margins of one measure for every model of the run.
    mode : ``"pooled"`` (paper: range = [min, max] of that margin over all samples of all
        models), ``"per-model"`` (each model its own range) or ``"fixed"`` (ε = 0 only).
    size : grid values per margin (paper: 132).

    Returns
    -------
    {model: {margin: ndarray}} — in ``pooled`` mode every model gets the same grids.
    """
    if mode not in EPS_MODES:
        raise ValueError(f"unknown epsilon mode {mode!r}; choose from {', '.join(EPS_MODES)}")
    if int(size) < 1:
        raise ValueError(f"grid size must be at least 1, got {size}")
    names = sorted({k for d in deltas.values() for k in d})

    def span(arrays):
        vals = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])
        vals = vals[np.isfinite(vals)]
        if vals.size == 0:
            return np.array([0.0])
        return np.linspace(vals.min(), vals.max(), int(size))

    out: dict[str, dict[str, np.ndarray]] = {}
    if mode == "fixed":
        return {m: {k: np.array([0.0]) for k in d} for m, d in deltas.items()}
    if mode == "pooled":
        pooled = {k: span([d[k] for d in deltas.values() if k in d]) for k in names}
        return {m: {k: pooled[k] for k in d} for m, d in deltas.items()}
    for m, d in deltas.items():
        out[m] = {k: span([v]) for k, v in d.items()}
    return out


# ----------------------------------------------------------------------------- embeddings


def embed_tables(tables: Mapping[str, pd.DataFrame], models: Sequence[str], *,
                 embed_fn: Callable[[list[str], str], np.ndarray] | None = None,
                 ) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Embed every distinct sentence of ``tables`` once per model; index it per table.

    Returns ``{model: {operator: {"a": (n, d), "b": (n, d), "t": (n, d)}}}`` (float64).
    """
    if embed_fn is None:
        from ..cache import embed as embed_fn  # noqa: PLC0415
    texts = unique_texts(dict(tables))
    pos = {t: i for i, t in enumerate(texts)}
    out: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for model in models:
        E = np.asarray(embed_fn(texts, model), dtype=np.float64)
        per = {}
        for op, t in tables.items():
            tc = TARGET_COLUMN[op]
            per[op] = {"a": E[[pos[x] for x in t["a"]]], "b": E[[pos[x] for x in t["b"]]],
                       "t": E[[pos[x] for x in t[tc]]]}
        out[model] = per
    return out


def ci(values, *, n_boot: int = 1000, seed: int = 0, scale: float = 1.0) -> tuple[float, float, float]:
    """Mean with a 95% percentile bootstrap interval (NaN dropped), times ``scale``."""
    if n_boot <= 0:
        v = np.asarray(values, dtype=np.float64)
        v = v[~np.isnan(v)]
        m = float(v.mean()) * scale if v.size else float("nan")
        return m, float("nan"), float("nan")
    r = bootstrap(values, n_boot=n_boot, seed=seed, warn=False)
    return r.estimate * scale, r.low * scale, r.high * scale


# ----------------------------------------------------------------------------- tables


def _deltas_for(emb, operator, measure):
    return {m: criterion_deltas(e[operator]["a"], e[operator]["b"], e[operator]["t"], operator, measure)
            for m, e in emb.items()}


def cells_table(emb, operator: str, measures: Sequence[str] = ("cos", "ned"), *, mode: str = "pooled",
                size: int = 132, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """C1 (overlap) or C3 (difference) cell percentages for every model and measure.

    Columns: ``model, measure, mode, cell, pct, low, high, n, n_nan`` (percentages, 95% CI).
    The grids follow ``mode`` (see :func:`epsilon_grids`); the CI resamples the samples with
    the grid held fixed.
    """
    rows = []
    for meas in measures:
        deltas = _deltas_for(emb, operator, meas)
        grids = epsilon_grids({m: {k: d[k] for k in ("d1", "d2")} for m, d in deltas.items()}, mode=mode, size=size)
        for model, d in deltas.items():
            per = grid_cells_per_sample(d["d1"], d["d2"], grids[model]["d1"], grids[model]["d2"])
            bad = np.isnan(per).any(axis=1)
            for k, cell in enumerate(CELLS):
                est, lo, hi = ci(per[:, k], n_boot=n_boot, seed=seed, scale=100)
                rows.append(dict(model=model, measure=meas, mode=mode, cell=cell, pct=est, low=lo, high=hi,
                                 n=int((~bad).sum()), n_nan=int(bad.sum())))
    return pd.DataFrame(rows)


def c4_table(emb, measures: Sequence[str] = ("cos", "ned"), *, mode: str = "pooled", size: int = 132,
             n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """C4 percentages (``Δ3 ≥ ε`` averaged over the ε grid) per model and measure, with CIs."""
    rows = []
    for meas in measures:
        deltas = _deltas_for(emb, "difference", meas)
        grids = epsilon_grids({m: {"d3": d["d3"]} for m, d in deltas.items()}, mode=mode, size=size)
        for model, d in deltas.items():
            g = grid_fraction(d["d3"], grids[model]["d3"])
            est, lo, hi = ci(g, n_boot=n_boot, seed=seed, scale=100)
            rows.append(dict(model=model, measure=meas, mode=mode, pct=est, low=lo, high=hi,
                             n=int((~np.isnan(g)).sum()), n_nan=int(np.isnan(g).sum())))
    return pd.DataFrame(rows)


def deltas_table(emb, operator: str, measures: Sequence[str] = M.MEASURES) -> pd.DataFrame:
    """Mean and standard deviation of each sign-flipped margin (larger = criterion met)."""
    rows = []
    for meas in measures:
        for model, d in _deltas_for(emb, operator, meas).items():
            for name, v in d.items():
                rows.append(dict(model=model, measure=meas, margin=name, mean=float(np.nanmean(v)),
                                 std=float(np.nanstd(v)), share_positive=float(100 * np.nanmean(v >= 0)),
                                 n=int((~np.isnan(v)).sum()), n_nan=int(np.isnan(v).sum())))
    return pd.DataFrame(rows)


def raw_scores_table(emb, operator: str, measures: Sequence[str] = M.MEASURES) -> pd.DataFrame:
    """Mean ± std of the raw-measure differences (paper convention, Tables 12 and 14)."""
    rows = []
    for meas in measures:
        for model, e in emb.items():
            r = raw_scores(e[operator]["a"], e[operator]["b"], e[operator]["t"], operator, meas)
            for name, v in r.items():
                rows.append(dict(model=model, measure=meas, quantity=name, mean=float(np.nanmean(v)),
                                 std=float(np.nanstd(v)), n_nan=int(np.isnan(v).sum())))
    return pd.DataFrame(rows)


def geometry(emb, operator: str) -> dict[str, M.PlaneGeometry]:
    """Projection of the target onto plane(E_A, E_B) for every model (appendix A.2)."""
    return {m: M.plane_geometry(e[operator]["a"], e[operator]["b"], e[operator]["t"], warn=False)
            for m, e in emb.items()}


def geometry_table(geoms: Mapping[str, M.PlaneGeometry], *, near: float = 0.25, n_boot: int = 1000,
                   seed: int = 0) -> pd.DataFrame:
    """Where projections fall, per model: between A and B (C2), near A (C5), near B, outside.

    ``t`` is the signed in-plane position (0 at A, 1 at B). *near A* means ``|t| ≤ near``, i.e.
    the angle ∠(A, P) is at most ``near`` times ∠(A, B); *near B* means ``|t − 1| ≤ near``;
    *between* means ``0 ≤ t ≤ 1``. Degenerate samples are counted, not classified.
    """
    rows = []
    for model, g in geoms.items():
        ok = ~g.degenerate
        t = g.t[ok]
        flags = {"between": (t >= 0) & (t <= 1), "near_a": np.abs(t) <= near, "near_b": np.abs(t - 1) <= near,
                 "outside": (t < 0) | (t > 1)}
        for name, f in flags.items():
            est, lo, hi = ci(f.astype(float), n_boot=n_boot, seed=seed, scale=100)
            rows.append(dict(model=model, region=name, pct=est, low=lo, high=hi, n=int(ok.sum()),
                             n_degenerate=int(g.n_degenerate),
                             median_t=float(np.median(t)) if t.size else float("nan"),
                             median_residual=float(np.median(g.residual[ok])) if t.size else float("nan")))
    return pd.DataFrame(rows)


def union_table(emb, geoms: Mapping[str, M.PlaneGeometry], *, comparable: float = 0.1, near: float = 0.25,
                n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """C6: the projection of U against the norm ratio ``r = |E_A| / |E_B|`` of the inputs.

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
        cases = {"comparable": (np.abs(r - 1) <= comparable, (t >= 0) & (t <= 1)),
                 "a_larger": (r > 1 + comparable, np.abs(t) <= near),
                 "b_larger": (r < 1 - comparable, np.abs(t - 1) <= near)}
        for case, (sel, hit) in cases.items():
            est, lo, hi = ci(hit[sel].astype(float), n_boot=n_boot, seed=seed, scale=100) if sel.any() else (
                float("nan"), float("nan"), float("nan"))
            rows.append(dict(model=model, norm_case=case, n_case=int(sel.sum()),
                             share_of_samples=float(100 * sel.mean()) if sel.size else float("nan"),
                             pct_expected=est, low=lo, high=hi, n_degenerate=int((~ok).sum())))
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
        frames.append(pd.DataFrame({
            "model": model, "qid": table["qid"].to_numpy(), "variant": table["variant"].to_numpy(),
            "angle_ab": np.degrees(g.angle_ab), "angle_ap": np.degrees(g.angle_ap),
            "angle_bp": np.degrees(g.angle_bp), "t": g.t, "bp_ratio": g.bp_ratio, "residual": g.residual,
            "degenerate": g.degenerate}))
    return pd.concat(frames, ignore_index=True)
