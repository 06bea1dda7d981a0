"""Similarities, distances and plane geometry, vectorised over samples.

Every row-wise function takes ``x`` and ``y`` of shape ``(n, d)`` (or ``(d,)``, broadcast
against the other) and returns ``(n,)`` float64 (a float for two 1-D inputs). Degenerate
inputs (zero vectors, NaN rows, collinear planes) give ``NaN`` and one
:class:`DegenerateGeometryWarning` that says how many rows were affected; they never raise
deep inside and never turn into a silent 0.

Equation numbers refer to the set-operator paper (Bansal et al.), appendix A.2 for the
projection.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DegenerateGeometryWarning",
    "MEASURES",
    "DISTANCES",
    "cosine",
    "dot",
    "l1",
    "l2",
    "ned",
    "measure",
    "similarity",
    "angle",
    "cosine_matrix",
    "cosine_distance_matrix",
    "PlaneGeometry",
    "plane_geometry",
    "norm_ratio",
]

#: Measure names, in the order the paper's tables use.
MEASURES: tuple[str, ...] = ("cos", "dot", "ned", "l1", "l2")
#: The measures that are distances (smaller = more alike).
DISTANCES: frozenset[str] = frozenset({"ned", "l1", "l2"})


class DegenerateGeometryWarning(RuntimeWarning):
    """Some rows had no defined answer (zero vector, NaN input, collinear pair)."""


def _pair(x, y) -> tuple[np.ndarray, np.ndarray, bool]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    scalar = x.ndim == 1 and y.ndim == 1
    x2, y2 = np.atleast_2d(x), np.atleast_2d(y)
    if x2.shape[-1] != y2.shape[-1]:
        raise ValueError(f"dimension mismatch: {x.shape} vs {y.shape}")
    if x2.ndim != 2 or y2.ndim != 2:
        raise ValueError("inputs must be (d,) or (n, d)")
    if x2.shape[0] != y2.shape[0] and 1 not in (x2.shape[0], y2.shape[0]):
        raise ValueError(f"row counts differ: {x2.shape[0]} vs {y2.shape[0]}")
    x2, y2 = np.broadcast_arrays(x2, y2)
    return x2, y2, scalar


def _finish(values: np.ndarray, scalar: bool, what: str, warn: bool = True):
    bad = int(np.isnan(values).sum())
    if bad and warn:
        warnings.warn(
            f"{what}: {bad} of {values.size} values undefined (zero vector, NaN input or "
            "degenerate geometry); they are NaN",
            DegenerateGeometryWarning,
            stacklevel=3,
        )
    return float(values[0]) if scalar else values


def _norms(x: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", x, x))


def cosine(x, y, *, warn: bool = True):
    """Cosine similarity ``x·y / (|x||y|)`` per row; NaN where either vector is zero."""
    x, y, s = _pair(x, y)
    den = _norms(x) * _norms(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, np.einsum("ij,ij->i", x, y) / np.where(den > 0, den, 1), np.nan)
    return _finish(np.clip(val, -1.0, 1.0), s, "cosine", warn)


def dot(x, y, *, warn: bool = True):
    """Dot product ``x·y`` per row."""
    x, y, s = _pair(x, y)
    return _finish(np.einsum("ij,ij->i", x, y), s, "dot", warn)


def l1(x, y, *, warn: bool = True):
    """Manhattan distance ``sum |x_k − y_k|`` per row."""
    x, y, s = _pair(x, y)
    return _finish(np.abs(x - y).sum(axis=1), s, "l1", warn)


def l2(x, y, *, warn: bool = True):
    """Euclidean distance ``|x − y|`` per row."""
    x, y, s = _pair(x, y)
    return _finish(_norms(x - y), s, "l2", warn)


def ned(x, y, *, warn: bool = True):
    """Normalised Euclidean distance ``0.5 · Var(x − y) / (Var(x) + Var(y))`` per row.

    Variances are taken over the embedding dimensions (population variance). NED lies in
    [0, 1]; for unit-norm, zero-mean vectors it equals ``(1 − cos) / 2``. NaN where both
    vectors are constant (``Var(x) + Var(y) = 0``).
    """
    x, y, s = _pair(x, y)
    den = x.var(axis=1) + y.var(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, 0.5 * (x - y).var(axis=1) / np.where(den > 0, den, 1), np.nan)
    return _finish(val, s, "ned", warn)


_FUNCS = {"cos": cosine, "dot": dot, "ned": ned, "l1": l1, "l2": l2}


def measure(x, y, name: str, *, warn: bool = True):
    """The raw value of measure ``name`` (one of :data:`MEASURES`)."""
    try:
        f = _FUNCS[name]
    except KeyError:
        raise ValueError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)}") from None
    return f(x, y, warn=warn)


def similarity(x, y, name: str = "cos", *, warn: bool = True):
    """Measure ``name`` oriented so that larger means more alike: distances are negated.

    This is how the set-operator criteria apply one rule to every measure ("the sign is
    flipped for distances").
    """
    val = measure(x, y, name, warn=warn)
    return -val if name in DISTANCES else val


def angle(x, y, *, warn: bool = True):
    """Angle between ``x`` and ``y`` in radians, in [0, π], per row.

    Computed as ``2·atan2(|x̂ − ŷ|, |x̂ + ŷ|)``, accurate also for nearly parallel vectors
    (where ``arccos(cos)`` loses half the digits). NaN for zero vectors.
    """
    x, y, s = _pair(x, y)
    nx, ny = _norms(x)[:, None], _norms(y)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        xh, yh = x / nx, y / ny
        val = 2 * np.arctan2(_norms(xh - yh), _norms(xh + yh))
    val = np.where((nx[:, 0] > 0) & (ny[:, 0] > 0), val, np.nan)
    return _finish(val, s, "angle", warn)


def _unit_rows(X: np.ndarray) -> np.ndarray:
    n = _norms(X)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, X / np.where(n > 0, n, 1), np.nan)


def cosine_matrix(X, Y=None, *, warn: bool = True) -> np.ndarray:
    """All cosine similarities between the rows of ``X`` (n, d) and ``Y`` (m, d): (n, m).

    ``Y=None`` means ``Y = X``. Rows that are zero or NaN give NaN rows/columns.
    """
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    Xn = _unit_rows(X)
    Yn = Xn if Y is None else _unit_rows(np.atleast_2d(np.asarray(Y, dtype=np.float64)))
    out = np.clip(Xn @ Yn.T, -1.0, 1.0)
    bad_rows = int(np.isnan(Xn[:, 0]).sum()) + (0 if Y is None else int(np.isnan(Yn[:, 0]).sum()))
    if bad_rows and warn:
        warnings.warn(
            f"cosine_matrix: {bad_rows} zero or NaN input rows; their similarities are NaN",
            DegenerateGeometryWarning,
            stacklevel=2,
        )
    return out


def cosine_distance_matrix(X, Y=None, *, warn: bool = True) -> np.ndarray:
    """``1 − cosine_matrix(X, Y)``: cosine distances in [0, 2]."""
    return 1.0 - cosine_matrix(X, Y, warn=warn)


@dataclass(frozen=True)
class PlaneGeometry:
    """Where ``v`` projects in the plane spanned by ``a`` and ``b`` (one entry per sample).

    Attributes
    ----------
    angle_ab, angle_ap, angle_bp : ndarray (n,)
        Angles in radians between A and B, A and P, B and P (P = projection of v).
    t : ndarray (n,)
        Signed in-plane position ``φ / ∠(A, B)``, with φ the angle of P measured from A
        towards B: 0 at A, 1 at B, in [0, 1] between them, < 0 or > 1 outside.
    x, y : ndarray (n,)
        Coordinates of P in the orthonormal basis (b1 along A, b2 towards B).
    residual : ndarray (n,)
        ``|v − P| / |v|``: the share of v's length outside the plane.
    degenerate : ndarray of bool (n,)
        A or B zero, A ∥ B (no plane), or P = 0; all other fields are NaN there.
    """

    angle_ab: np.ndarray
    angle_ap: np.ndarray
    angle_bp: np.ndarray
    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    residual: np.ndarray
    degenerate: np.ndarray

    @property
    def n_degenerate(self) -> int:
        return int(self.degenerate.sum())

    @property
    def bp_ratio(self) -> np.ndarray:
        """``∠(B, P) / ∠(A, B)``: the quantity of the paper's histograms (1 = at A, 0 = at B)."""
        return self.angle_bp / self.angle_ab

    @property
    def between(self) -> np.ndarray:
        """P lies between A and B (``0 ≤ t ≤ 1``); NaN-safe (degenerate rows are False)."""
        with np.errstate(invalid="ignore"):
            return (self.t >= 0) & (self.t <= 1)


def plane_geometry(a, b, v, *, tol: float = 1e-9, warn: bool = True) -> PlaneGeometry:
    """Project ``v`` onto the plane of ``a`` and ``b`` (set-operator paper, appendix A.2).

    With ``b1 = a/|a|``, ``b2 = (b − (b·b1) b1)/|…|`` the projection is
    ``P = (v·b1) b1 + (v·b2) b2``. All inputs are ``(n, d)`` (or ``(d,)``).

    Rows where ``a`` or ``b`` is zero, ``b`` is parallel to ``a`` (relative tolerance
    ``tol``), or ``v`` projects to the origin are flagged ``degenerate`` and get NaN.
    """
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(b, dtype=np.float64))
    v = np.atleast_2d(np.asarray(v, dtype=np.float64))
    a, b, v = np.broadcast_arrays(a, b, v)
    na, nb, nv = _norms(a), _norms(b), _norms(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        b1 = a / na[:, None]
        bx = np.einsum("ij,ij->i", b, b1)
        w = b - bx[:, None] * b1
        by = _norms(w)
        b2 = w / by[:, None]
        px = np.einsum("ij,ij->i", v, b1)
        py = np.einsum("ij,ij->i", v, b2)
        pn = np.hypot(px, py)
        degenerate = ~((na > 0) & (nb > 0) & (by > tol * nb) & (pn > tol * nv) & (nv > 0))
        degenerate |= np.isnan(na) | np.isnan(nb) | np.isnan(nv)
        angle_ab = np.arctan2(by, bx)  # in (0, π): B sits at positive y
        phi = np.arctan2(py, px)  # signed, towards B is positive
        angle_ap = np.abs(phi)
        angle_bp = np.abs(np.arctan2(bx * py - by * px, bx * px + by * py))
        t = phi / angle_ab
        residual = np.sqrt(np.maximum(nv**2 - pn**2, 0.0)) / nv
    nan = np.where(degenerate, np.nan, 0.0)
    geom = PlaneGeometry(
        angle_ab + nan, angle_ap + nan, angle_bp + nan, t + nan, px + nan, py + nan, residual + nan, degenerate
    )
    if geom.n_degenerate and warn:
        warnings.warn(
            f"plane_geometry: {geom.n_degenerate} of {len(degenerate)} samples degenerate "
            "(zero vector, A parallel to B, or projection at the origin); their values are NaN",
            DegenerateGeometryWarning,
            stacklevel=2,
        )
    return geom


def norm_ratio(a, b, *, warn: bool = True):
    """``|a| / |b|`` per row (the union study's Figure 10); NaN where ``b`` is zero."""
    a, b, s = _pair(a, b)
    nb = _norms(b)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(nb > 0, _norms(a) / np.where(nb > 0, nb, 1), np.nan)
    return _finish(val, s, "norm_ratio", warn)
