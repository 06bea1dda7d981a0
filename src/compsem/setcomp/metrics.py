"""The set-operator paper's maths: margins of criteria C1, C3, C4, the ε-grid average, planes.

Pure and vectorised: arrays in, arrays or floats out; nothing here embeds or reads files
(:mod:`compsem.setcomp.study` embeds, :mod:`compsem.setcomp.tables` builds the tables).

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

Averaging over margins (paper appendix A.5): each ε runs over ``G`` values of a range, every
grid combination is evaluated and the share of samples in each cell (T,T), (T,F), (F,T),
(F,F) is averaged over the grid. Because the grid is a product, that average equals the mean
over samples of ``G1(Δ1_i)·G2(Δ2_i)`` (and the analogous products), with ``G(x)`` the fraction
of grid values ≤ x — one ``searchsorted`` per margin, O(N log G) instead of O(N·G²).
:func:`grid_cells_naive` keeps the literal loop as the test oracle.

**Our assumptions, not the paper's statements.** The paper says it *samples* 132 values of
each ε between the smallest and the largest margin; that they are evenly spaced (an inclusive
``linspace``) is our reading, and so is the 1-D grid of the same size for C4's single margin.
The paper never defines NED; :func:`compsem.measures.ned` (variance-based) is our choice, see
:func:`ned_check`.

References
----------
Bansal, Mahajan, Sinha, Karmaker, *Set-Theoretic Compositionality of Sentence Embeddings*,
Section 4 (criteria), appendices A.2 (projection) and A.5 (ε sampling).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import measures as M
from ..fmt import noun

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
    "eps_label",
    "geometry",
    "ned_check",
]

CELLS: tuple[str, ...] = ("TT", "TF", "FT", "FF")
#: How the ε ranges are chosen by name: the paper's pooled range, one range per model, or ε = 0
#: only. An explicit ``{margin: [lo, hi]}`` (or one ``[lo, hi]`` for every margin) is the fourth way.
EPS_MODES: tuple[str, ...] = ("pooled", "per-model", "fixed")
_MARGINS = {"overlap": ("d1", "d2"), "difference": ("d1", "d2", "d3")}


# ----------------------------------------------------------------------------- margins


def criterion_deltas(ea, eb, et, operator: str, *, measure: str = "cos") -> dict[str, np.ndarray]:
    """The margins of one operator under one measure, per sample (paper Section 4, C1, C3, C4).

    C1: ``Δ1 = S(A,O) − S(A,B)``, ``Δ2 = S(B,O) − S(A,B)``; C3: ``Δ1 = S(A,D) − S(B,D)``,
    ``Δ2 = S(A,B) − S(B,D)``; C4: ``Δ3 = S(E_A − E_B, E_D) − S(E_A − E_B, E_B)``.

    Parameters
    ----------
    ea, eb, et : array-like of shape (n, d)
        Embeddings of A, B and the target (O for overlap, D for difference).
    operator : ``"overlap"`` (C1: ``d1``, ``d2``) or ``"difference"`` (C3: ``d1``, ``d2``; C4: ``d3``)
    measure : one of :data:`compsem.measures.MEASURES`; distances are negated.

    Returns
    -------
    dict name -> ndarray (n,), NaN where a similarity is undefined (zero vector).

    References
    ----------
    Bansal et al., Section 4, criteria C1 (TextOverlap), C3 and C4 (TextDifference).
    """
    d = _differences(ea, eb, et, operator, lambda x, y: M.similarity(x, y, measure, warn=False), measure, c4=True)
    if operator == "overlap":
        return {"d1": d["ao-ab"], "d2": d["bo-ab"]}
    return {"d1": d["ad-bd"], "d2": d["ab-bd"], "d3": d["c4"]}


def _differences(ea, eb, et, operator: str, f, measure: str, *, c4: bool = False) -> dict[str, np.ndarray]:
    """The differences both :func:`criterion_deltas` and :func:`raw_scores` are made of, under
    one pair function ``f`` (oriented similarity or raw measure): overlap ``ao-ab``, ``bo-ab``;
    difference ``bd``, ``ad-bd``, ``ab-bd`` and, with ``c4``, C4's ``c4``."""
    if operator not in _MARGINS:
        raise ValueError(f"margins exist for 'overlap' and 'difference', not {operator!r}")
    if measure not in M.MEASURES:
        raise ValueError(f"unknown measure {measure!r}; choose from {', '.join(M.MEASURES)}")
    ea, eb, et = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (ea, eb, et))

    def F(x, y):
        return np.atleast_1d(f(x, y))

    if operator == "overlap":
        ab = F(ea, eb)
        return {"ao-ab": F(ea, et) - ab, "bo-ab": F(eb, et) - ab}
    bd = F(eb, et)
    out = {"bd": bd, "ad-bd": F(ea, et) - bd, "ab-bd": F(ea, eb) - bd}
    if c4:
        de = ea - eb
        out["c4"] = F(de, et) - F(de, eb)
    return out


def raw_scores(ea, eb, et, operator: str, *, measure: str = "cos") -> dict[str, np.ndarray]:
    """Differences of the *raw* measure, in the sign convention of the paper's Tables 12 and 14.

    overlap: ``M(A,O) − M(A,B)`` and ``M(B,O) − M(A,B)``; difference: ``M(B,D)``,
    ``M(A,D) − M(B,D)`` and ``M(A,B) − M(B,D)``. For distances, negative is favourable.

    Parameters
    ----------
    ea, eb, et : array-like of shape (n, d)
    operator : ``"overlap"`` or ``"difference"``
    measure : one of :data:`compsem.measures.MEASURES` (not negated here)

    Returns
    -------
    dict name -> ndarray (n,)

    References
    ----------
    Bansal et al., appendix Tables 12 (overlap) and 14 (difference).
    """
    d = _differences(ea, eb, et, operator, lambda x, y: M.measure(x, y, measure, warn=False), measure)
    if operator == "overlap":
        return {"m_ao_minus_m_ab": d["ao-ab"], "m_bo_minus_m_ab": d["bo-ab"]}
    return {"m_bd": d["bd"], "m_ad_minus_m_bd": d["ad-bd"], "m_ab_minus_m_bd": d["ab-bd"]}


# ----------------------------------------------------------------------------- epsilon grid


def grid_fraction(delta, grid) -> np.ndarray:
    """``G(Δ)``: the fraction of grid values ε with ``Δ ≥ ε``, per sample (NaN stays NaN).

    ``delta`` has shape (n,), ``grid`` (G,); returns (n,) in [0, 1]. References: Bansal et al.,
    appendix A.5.
    """
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
    return {
        "pct": float(100 * g[ok].mean()) if ok.any() else float("nan"),
        "n": int(ok.sum()),
        "n_nan": int((~ok).sum()),
    }


def grid_single_naive(d, grid) -> float:
    """Oracle for :func:`grid_single`: loop over ε."""
    d = np.asarray(d, dtype=np.float64)
    d = d[~np.isnan(d)]
    return float(100 * np.mean([np.mean(d >= e) for e in np.asarray(grid, dtype=np.float64).ravel()]))


def _explicit_ranges(eps_range, names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """``{margin: (lo, hi)}`` from an explicit ``eps_range`` (dict per margin, or one pair)."""
    if isinstance(eps_range, Mapping):
        missing = [k for k in names if k not in eps_range]
        if missing:
            raise ValueError(
                f"eps_range gives no [lo, hi] for {noun(len(missing), 'margin')} {missing}; it has {sorted(eps_range)}"
            )
        pairs = {k: eps_range[k] for k in names}
    else:
        pairs = dict.fromkeys(names, eps_range)
    out = {}
    for k, pair in pairs.items():
        try:
            lo, hi = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise ValueError(f"eps_range for {k} must be [lo, hi], got {pair!r}") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
            raise ValueError(f"eps_range for {k} must be finite with lo <= hi, got [{lo}, {hi}]")
        out[k] = (lo, hi)
    return out


def eps_label(eps_range) -> str:
    """A short name of an ``eps_range`` for tables: the mode, or ``"explicit"``."""
    return eps_range if isinstance(eps_range, str) else "explicit"


def epsilon_grids(
    deltas: Mapping[str, Mapping[str, np.ndarray]], *, mode="pooled", size: int = 132
) -> dict[str, dict[str, np.ndarray]]:
    """ε grids for every model and margin.

    Parameters
    ----------
    deltas : {model: {margin name: Δ array of shape (n,)}}
        The margins of one measure for every model of the run.
    mode : ``"pooled"`` | ``"per-model"`` | ``"fixed"`` | ``{margin: [lo, hi]}`` | ``[lo, hi]``
        ``"pooled"`` (the paper: range = [min, max] of that margin over all samples of all
        models of the run), ``"per-model"`` (each model its own range), ``"fixed"`` (ε = 0
        only), or an explicit range per margin (or one range for every margin), the same for
        every model.
    size : grid values per margin (paper: 132), evenly spaced and inclusive (our assumption).

    Returns
    -------
    {model: {margin: ndarray (size,)}} — in pooled and explicit modes every model gets the
    same grids.

    References
    ----------
    Bansal et al., appendix A.5 ("epsilon sampling").
    """
    if isinstance(mode, str) and mode not in EPS_MODES:
        raise ValueError(f"unknown epsilon mode {mode!r}; choose from {', '.join(EPS_MODES)} or give [lo, hi]")
    if int(size) < 1:
        raise ValueError(f"grid size must be at least 1, got {size}")
    names = sorted({k for d in deltas.values() for k in d})

    def span(arrays):
        vals = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])
        vals = vals[np.isfinite(vals)]
        if vals.size == 0:
            return np.array([0.0])
        return np.linspace(vals.min(), vals.max(), int(size))

    if not isinstance(mode, str):
        ranges = _explicit_ranges(mode, names)
        grids = {k: np.linspace(lo, hi, int(size)) for k, (lo, hi) in ranges.items()}
        return {m: {k: grids[k] for k in d} for m, d in deltas.items()}
    if mode == "fixed":
        return {m: {k: np.array([0.0]) for k in d} for m, d in deltas.items()}
    if mode == "pooled":
        pooled = {k: span([d[k] for d in deltas.values() if k in d]) for k in names}
        return {m: {k: pooled[k] for k in d} for m, d in deltas.items()}
    return {m: {k: span([v]) for k, v in d.items()} for m, d in deltas.items()}


# ----------------------------------------------------------------------------- geometry and NED


def geometry(emb: Mapping[str, Mapping[str, Mapping[str, np.ndarray]]], operator: str) -> dict[str, M.PlaneGeometry]:
    """Projection of the target onto plane(E_A, E_B) for every model (appendix A.2).

    ``emb`` is ``{model: {operator: {"a": (n, d), "b": (n, d), "t": (n, d)}}}`` as
    :func:`compsem.setcomp.study.embed_tables` returns; one :class:`~compsem.measures.PlaneGeometry`
    (arrays of shape (n,)) per model. References: Bansal et al., appendix A.2, criteria C2, C5, C6.
    """
    return {
        m: M.plane_geometry(e[operator]["a"], e[operator]["b"], e[operator]["t"], warn=False) for m, e in emb.items()
    }


def ned_check(x, y) -> dict[str, np.ndarray]:
    """Our NED beside the two simpler candidates, per row, to test which fits a paper's numbers.

    ``ned = 0.5·Var(x − y) / (Var(x) + Var(y))`` (:func:`compsem.measures.ned`, variances over
    the d dimensions), ``half_one_minus_cos = (1 − cos(x, y)) / 2`` and
    ``half_one_minus_pearson = (1 − r(x, y)) / 2`` with ``r`` the correlation of the two rows.
    For rows of equal variance ``ned`` equals the Pearson form exactly; for unit-norm, zero-mean
    rows all three agree. Shapes: ``x, y`` (n, d) -> each (n,).

    References
    ----------
    The paper (Bansal et al.) reports NED without a definition; the variance form is ours.
    """
    x, y = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (x, y))
    xc, yc = x - x.mean(axis=1, keepdims=True), y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    return {
        "ned": np.atleast_1d(M.ned(x, y, warn=False)),
        "half_one_minus_cos": (1 - np.atleast_1d(M.cosine(x, y, warn=False))) / 2,
        "half_one_minus_pearson": (1 - r) / 2,
    }
