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

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from ..measures import cosine_distance_matrix

__all__ = [
    "DISTANCES",
    "TIE_TOL",
    "READINGS",
    "Rules",
    "rules_for",
    "pairwise_distance",
    "within_adjective_distances",
    "single_intersectivity",
    "closer_than_all",
    "pair_intersectivity",
    "non_subsectivity",
]

DISTANCES: tuple[str, ...] = ("cos", "l2")
#: Two distances closer than this count as equal (a tie). Distances are computed in float64
#: from float32 embeddings, so rounding error is ~1e-15; exact ties (bag-of-words vectors
#: share words) must not be split at random by that rounding.
TIE_TOL = 1e-9


#: ``"official"``: the authors' code (``dscarvalho/modifiers_consistency``), which produced the
#: published numbers; ``"equations"``: Eq. 3, 5 and 7 as printed in the paper.
READINGS: tuple[str, ...] = ("official", "equations")


@dataclass(frozen=True)
class Rules:
    """The rules on which the two readings differ, one field per rule, so that a reader can switch
    one at a time (:func:`rules_for` with overrides).

    Attributes
    ----------
    aan_reference : ``"rest"`` or ``"words"``. What test I compares ``d(p, t_i)`` with on an AAN
        phrase. ``"words"`` (Eq. 3): every word–word distance ``d(t_j, t_k)``. ``"rest"`` (the
        authors' code): the distance from each word to the *rest of the phrase embedded as a
        phrase*, ``d(a1, "a2 n")``, ``d(a2, "a1 n")``, ``d(n, "a1 a2")``. On AN phrases both are
        ``d(a, n)``. In both, every inequality must hold.
    pair_nouns : ``"higher"`` or ``"all"``. Test II: ``"all"`` (Eq. 5–6) enumerates every ordered
        noun pair ``n1 != n2`` and a cell is one uniform mean; ``"higher"`` (the authors' code)
        pairs each noun only with nouns of higher index and a cell is the mean over nouns
        ``n1`` of the per-noun means — noun 1 weighs as much as noun 11 although it enters 11
        noun pairs and noun 11 one. Tests I and NI are averaged per noun too, which changes
        nothing there (every noun has the same number of phrases per cell).
    strict : bool. Tests II and NI count a combination when ``<`` (authors' code) rather than
        ``<=`` (Eq. 5, 7) holds; a tie then fails instead of holding.
    """

    aan_reference: str = "rest"
    pair_nouns: str = "higher"
    strict: bool = True

    def __post_init__(self):
        if self.aan_reference not in ("rest", "words"):
            raise ValueError(f"aan_reference must be 'rest' or 'words', got {self.aan_reference!r}")
        if self.pair_nouns not in ("higher", "all"):
            raise ValueError(f"pair_nouns must be 'higher' or 'all', got {self.pair_nouns!r}")

    @property
    def per_noun(self) -> bool:
        """Whether a cell is the mean over nouns of per-noun means (the authors' aggregation)."""
        return self.pair_nouns == "higher"


_READING_RULES = {"official": Rules("rest", "higher", True), "equations": Rules("words", "all", False)}


def rules_for(reading: str | Rules = "official", **overrides) -> Rules:
    """The :class:`Rules` of ``reading`` (:data:`READINGS`), with any field overridden, e.g.
    ``rules_for("official", strict=False)`` is the official reading with ``<=`` in tests II and NI."""
    if isinstance(reading, Rules):
        return replace(reading, **overrides)
    if reading not in _READING_RULES:
        raise ValueError(f"unknown reading {reading!r}; choose from {', '.join(READINGS)}")
    return replace(_READING_RULES[reading], **overrides)


def _check_distance(distance: str) -> str:
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; choose from {', '.join(DISTANCES)}")
    return distance


def pairwise_distance(X: np.ndarray, Y: np.ndarray, distance: str = "cos", *, chunk: int = 4096) -> np.ndarray:
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
        return np.concatenate(
            [pairwise_distance(X[i : i + chunk], Y, distance, chunk=chunk) for i in range(0, len(X), chunk)], axis=0
        )
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


def closer_than_all(d_near: np.ndarray, d_far: np.ndarray, *, tol: float = TIE_TOL) -> np.ndarray:
    """Does every distance of a row of ``d_near`` stay at or below every distance of the same row
    of ``d_far``?  The core of test I in both readings (Eq. 3; all inequalities must hold, as in the
    authors' code, which does not read its ``strict`` setting here).

    Parameters
    ----------
    d_near : (P, h) distances from phrase ``p`` to each of its ``h`` words, ``d(p, t_i)``.
    d_far : (P, m) the distances each ``d(p, t_i)`` must not exceed: word–word distances
        ``d(t_j, t_k)`` (Eq. 3) or word–rest-of-phrase distances (authors' code).

    Returns
    -------
    (P,) float: 1.0 where ``max_i d_near[p, i] <= min_j d_far[p, j] + tol``, else 0.0; NaN where
    any distance of the row is NaN.
    """
    d_near = np.asarray(d_near, dtype=np.float64)
    d_far = np.asarray(d_far, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        cond = d_near.max(axis=1) <= d_far.min(axis=1) + tol
    return _truth(cond, d_near.sum(axis=1), d_far.sum(axis=1))


def single_intersectivity(
    d_phrase_word: np.ndarray, d_word_word: np.ndarray, terms: np.ndarray, *, tol: float = TIE_TOL, mode: str = "all"
) -> np.ndarray:
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
    d_pt = np.take_along_axis(np.asarray(d_phrase_word), terms, axis=1)  # (P, h)
    d_tt = np.stack(
        [
            d_word_word[terms[:, j], terms[:, k]]  # (P, h(h-1)/2)
            for j, k in combinations(range(terms.shape[1]), 2)
        ],
        axis=1,
    )
    with np.errstate(invalid="ignore"):
        if mode == "all":
            cond = d_pt.max(axis=1) <= d_tt.min(axis=1) + tol
        else:
            cond = (d_pt[:, :, None] <= d_tt[:, None, :] + tol).mean(axis=(1, 2))
    return _truth(cond, d_pt.sum(axis=1), d_tt.sum(axis=1))


def pair_intersectivity(
    d_within: np.ndarray, *, tol: float = TIE_TOL, strict: bool = False, nouns: str = "all"
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 5 over ordered ``(a1, a2, n1, n2)`` with ``a1 != a2`` and ``n1 != n2``.

    Parameters
    ----------
    d_within : (A, N, N); ``d_within[a, n1, n2]`` is the distance between phrases ``a n1`` and ``a n2``.
    strict : ``<`` (authors' code: a tie fails) instead of ``<=`` (Eq. 5: a tie holds), up to ``tol``.
    nouns : ``"all"`` every ordered ``n1 != n2`` (Eq. 6); ``"higher"`` only ``n2 > n1`` (authors' code).

    Returns
    -------
    holds : (A, A, N, N) float, ``holds[a1, a2, n1, n2] = d_within[a1, n1, n2] <= d_within[a2, n1, n2]``
        (``<`` if ``strict``); NaN on the excluded entries (``a1 == a2``, ``n1 == n2``, and
        ``n2 < n1`` for ``nouns="higher"``) and where a distance is NaN.
    ties : (A, A, N, N) bool, where the two distances are equal (within ``tol``) (both orders then hold,
        which lifts same-type cells above 0.5).
    """
    d = np.asarray(d_within, dtype=np.float64)
    if d.ndim != 3 or d.shape[1] != d.shape[2]:
        raise ValueError(f"d_within must have shape (A, N, N), got {d.shape}")
    A, N = d.shape[0], d.shape[1]
    if A < 2 or N < 2:
        raise ValueError(f"the pair test needs at least 2 adjectives and 2 nouns, got {A} and {N}")
    if nouns not in ("all", "higher"):
        raise ValueError(f"nouns must be 'all' or 'higher', got {nouns!r}")
    left, right = d[:, None], d[None, :]  # (A,1,N,N), (1,A,N,N)
    with np.errstate(invalid="ignore"):
        cond = (left < right - tol) if strict else (left <= right + tol)
        holds = _truth(cond, left + right)
        ties = np.abs(left - right) <= tol
    skip_nouns = np.eye(N, dtype=bool) if nouns == "all" else ~np.triu(np.ones((N, N), dtype=bool), k=1)
    excluded = np.eye(A, dtype=bool)[:, :, None, None] | skip_nouns[None, None]
    holds[np.broadcast_to(excluded, holds.shape)] = np.nan
    ties = ties & ~excluded
    return holds, ties


def non_subsectivity(
    d_phrase_adj: np.ndarray, d_phrase_noun: np.ndarray, *, tol: float = TIE_TOL, strict: bool = False
) -> np.ndarray:
    """Eq. 7: is the phrase ``a n`` at least as close to ``a`` as to ``n``?

    ``d(p, a) <= d(p, n) + tol`` (Eq. 7), or ``d(p, a) < d(p, n) - tol`` with ``strict`` (the
    authors' code: a tie fails). Any shape, same for both arguments; NaN where a distance is NaN.
    """
    a = np.asarray(d_phrase_adj, dtype=np.float64)
    n = np.asarray(d_phrase_noun, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return _truth((a < n - tol) if strict else (a <= n + tol), a, n)
