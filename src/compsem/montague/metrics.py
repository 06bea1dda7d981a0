"""The paper's three relations, on distance arrays (pure and vectorised; no embedding, no I/O).

Equation numbers are those of Carvalho et al., *Montague semantics and modifier consistency
measurement in neural language models*:

* **single-phrase intersectivity** (Eq. 3–4): a phrase ``p = t1 … th`` is closer to each of its
  words than any two of its words are to each other, ``max_i d(p, t_i) <= min_{j<k} d(t_j, t_k)``;
* **phrase-pair intersectivity** (Eq. 5–6): for ``a1 != a2`` and ``n1 != n2``,
  ``d(a1 n1, a1 n2) <= d(a2 n1, a2 n2)``; over all ordered combinations a same-type cell is
  0.5 by symmetry unless distances tie;
* **non-subsectivity** (Eq. 7–8): ``d(a n, a) <= d(a n, n)``.

Truth arrays are float: 1.0 holds, 0.0 fails, NaN where a distance is undefined (a zero or
all-OOV embedding) or the combination is excluded (``a1 == a2``, ``n1 == n2``). NaNs are counted
in every table (``n_nan``), never read as failures.

References
----------
Carvalho, Manino, Rozanova, Cordeiro, Freitas. Montague semantics and modifier consistency
measurement in neural language models. Sections 3.3–3.5.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..measures import cosine_distance_matrix

__all__ = ["DISTANCES", "TIE_TOL", "pairwise_distance", "within_adjective_distances",
           "single_intersectivity", "pair_intersectivity", "non_subsectivity"]

DISTANCES: tuple[str, ...] = ("cos", "l2")
#: Two distances closer than this count as equal (a tie). Distances are computed in float64
#: from float32 embeddings, so rounding error is ~1e-15; exact ties (bag-of-words vectors
#: share words) must not be split at random by that rounding.
TIE_TOL = 1e-9


def _check_distance(distance: str) -> str:
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; choose from {', '.join(DISTANCES)}")
    return distance


def pairwise_distance(X: np.ndarray, Y: np.ndarray, distance: str = "cos", *,
                      chunk: int = 4096) -> np.ndarray:
    """Distances between the rows of ``X`` (n, d) and ``Y`` (m, d) -> (n, m), in float64.

    ``"cos"`` is :func:`compsem.measures.cosine_distance_matrix` (``1 - cos``, NaN for a zero or
    NaN row); ``"l2"`` is Euclidean (NaN for a NaN row). A tall ``X`` is processed ``chunk``
    rows at a time, so no float64 copy of all phrase vectors is made at once.
    """
    _check_distance(distance)
    X, Y = np.asarray(X), np.asarray(Y)
    if X.ndim != 2 or Y.ndim != 2:
        raise ValueError(f"pairwise_distance takes 2-d arrays, got shapes {X.shape} and {Y.shape}")
    if len(X) > chunk:
        return np.concatenate([pairwise_distance(X[i:i + chunk], Y, distance, chunk=chunk)
                               for i in range(0, len(X), chunk)], axis=0)
    if distance == "cos":
        return cosine_distance_matrix(X, Y, warn=False)
    X, Y = X.astype(np.float64), Y.astype(np.float64)
    sq = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * (X @ Y.T)
    return np.sqrt(np.clip(sq, 0.0, None))


def within_adjective_distances(an: np.ndarray, distance: str = "cos") -> np.ndarray:
    """``an`` (A, N, d) AN-phrase vectors -> (A, N, N): ``out[a, n1, n2] = d(a n1, a n2)``.

    The diagonal blocks of the (A N) × (A N) distance matrix of all AN phrases (732 × 732 for
    the shipped lists)."""
    A, N = an.shape[:2]
    D = pairwise_distance(an.reshape(A * N, -1), an.reshape(A * N, -1), distance).reshape(A, N, A, N)
    ar = np.arange(A)
    return D[ar, :, ar, :]


# --------------------------------------------------------------------------------------------
# the three relations, on distance arrays
# --------------------------------------------------------------------------------------------
def _truth(cond: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    out = cond.astype(np.float64)
    bad = np.zeros(out.shape, dtype=bool)
    for op in operands:
        bad |= np.isnan(op)
    out[bad] = np.nan
    return out


def single_intersectivity(d_phrase_word: np.ndarray, d_word_word: np.ndarray,
                          terms: np.ndarray, *, tol: float = TIE_TOL, mode: str = "all") -> np.ndarray:
    """Eq. 3: does each phrase lie closer to every one of its words than its words lie to each other?

    Parameters
    ----------
    d_phrase_word : (P, W) distance of each phrase to each vocabulary word.
    d_word_word : (W, W) distances between vocabulary words.
    terms : (P, h) integer index of phrase p's h words (h >= 2) into the vocabulary.

    mode : ``"all"`` (default, Eq. 3 as written and as the spec reads it: every inequality must
        hold) or ``"share"`` (the share of the ``h * h(h-1)/2`` inequalities ``d(p, t_i) <=
        d(t_j, t_k)`` that hold; averaging it over phrases counts inequalities rather than
        phrases, which is how the paper's Figure 1 describes its expectation).

    Returns
    -------
    (P,) float: for ``"all"`` 1.0 where ``max_i d(p, t_i) <= min_{j<k} d(t_j, t_k)`` (up to
    ``tol``), else 0.0; for ``"share"`` a value in [0, 1]. NaN if any distance involved is NaN.
    """
    if mode not in ("all", "share"):
        raise ValueError(f"mode must be 'all' or 'share', got {mode!r}")
    terms = np.asarray(terms)
    if terms.ndim != 2 or terms.shape[1] < 2:
        raise ValueError(f"terms must have shape (P, h) with h >= 2, got {terms.shape}")
    d_pt = np.take_along_axis(np.asarray(d_phrase_word), terms, axis=1)            # (P, h)
    d_tt = np.stack([d_word_word[terms[:, j], terms[:, k]]                          # (P, h(h-1)/2)
                     for j, k in combinations(range(terms.shape[1]), 2)], axis=1)
    with np.errstate(invalid="ignore"):
        if mode == "all":
            cond = d_pt.max(axis=1) <= d_tt.min(axis=1) + tol
        else:
            cond = (d_pt[:, :, None] <= d_tt[:, None, :] + tol).mean(axis=(1, 2))
    return _truth(cond, d_pt.sum(axis=1), d_tt.sum(axis=1))


def pair_intersectivity(d_within: np.ndarray, *, tol: float = TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 5 over all ordered ``(a1, a2, n1, n2)`` with ``a1 != a2`` and ``n1 != n2``.

    Parameters
    ----------
    d_within : (A, N, N); ``d_within[a, n1, n2]`` is the distance between phrases ``a n1`` and ``a n2``.

    Returns
    -------
    holds : (A, A, N, N) float, ``holds[a1, a2, n1, n2] = d_within[a1, n1, n2] <= d_within[a2, n1, n2]``;
        NaN on the excluded diagonals (``a1 == a2`` or ``n1 == n2``) and where a distance is NaN.
    ties : (A, A, N, N) bool, where the two distances are equal (within ``tol``) (both orders then hold,
        which lifts same-type cells above 0.5).
    """
    d = np.asarray(d_within, dtype=np.float64)
    if d.ndim != 3 or d.shape[1] != d.shape[2]:
        raise ValueError(f"d_within must have shape (A, N, N), got {d.shape}")
    A, N = d.shape[0], d.shape[1]
    if A < 2 or N < 2:
        raise ValueError(f"the pair test needs at least 2 adjectives and 2 nouns, got {A} and {N}")
    left, right = d[:, None], d[None, :]                                           # (A,1,N,N), (1,A,N,N)
    with np.errstate(invalid="ignore"):
        holds = _truth(left <= right + tol, left + right)
        ties = np.abs(left - right) <= tol
    excluded = np.eye(A, dtype=bool)[:, :, None, None] | np.eye(N, dtype=bool)[None, None]
    holds[np.broadcast_to(excluded, holds.shape)] = np.nan
    ties = ties & ~excluded
    return holds, ties


def non_subsectivity(d_phrase_adj: np.ndarray, d_phrase_noun: np.ndarray, *,
                     tol: float = TIE_TOL) -> np.ndarray:
    """Eq. 7: is the phrase ``a n`` at least as close to ``a`` as to ``n`` (up to ``tol``)?
    Any shape; NaN where a distance is NaN."""
    a = np.asarray(d_phrase_adj, dtype=np.float64)
    n = np.asarray(d_phrase_noun, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return _truth(a <= n + tol, a, n)


