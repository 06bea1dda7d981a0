"""The maths of the sentence-space metrics (SSM): distances, sparsity, clustering, RSA, accuracy.

All functions are pure and vectorised. Matrices are ``(N, N)`` with rows = premise i and
columns = hypothesis j, so ``R[i, j]`` is the score for "sentence j can be inferred from i".

References
----------
Lin, Chen & Ding (2024), *Sentence-Space Metrics (SSM) for the Evaluation of Sentence
Comprehension*, CCL 2024 — Sections 2.4 (accuracy), 2.5 (distances), 2.7 (metrics).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.metrics import calinski_harabasz_score

__all__ = [
    "SPACES",
    "square",
    "relatedness_distance",
    "discrepancy_distance",
    "distances",
    "sparsity",
    "calinski_harabasz",
    "upper",
    "rsa",
    "agreement_accuracy",
    "entailment_accuracy",
    "ACCURACY_CATEGORIES",
]

#: the two sentence spaces: relatedness and discrepancy
SPACES = ("rel", "dis")
#: pair categories of the accuracy table (Table 2's five, with the split irrelevant category)
ACCURACY_CATEGORIES = (
    "synonymous",
    "synonymous_reversed",
    "inferential",
    "inferential_reversed",
    "irrelevant",
    "within_cluster",
)


def square(R, name="R") -> np.ndarray:
    """``R`` as a float array, checked to be square ``(N, N)``."""
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise ValueError(f"{name} must be a square (N, N) matrix, got shape {R.shape}")
    return R


def relatedness_distance(R) -> np.ndarray:
    """Semantic relatedness distance.

    .. math:: D_{rel}(i, j) = 1 - \\frac{R(i, j) + R(j, i)}{2}

    Parameters
    ----------
    R : array (N, N)
        Entailment scores in [0, 1], premise = row.

    Returns
    -------
    ndarray (N, N), symmetric.

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.5.
    """
    R = square(R)
    return 1.0 - (R + R.T) / 2.0


def discrepancy_distance(R) -> np.ndarray:
    """Semantic discrepancy distance.

    .. math:: D_{dis}(i, j) = 1 - \\lvert R(i, j) - R(j, i) \\rvert

    Parameters
    ----------
    R : array (N, N)

    Returns
    -------
    ndarray (N, N), symmetric, with 1 on the diagonal.

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.5.
    """
    R = square(R)
    return 1.0 - np.abs(R - R.T)


def distances(R, *, symmetric: bool = False) -> dict[str, np.ndarray]:
    """Both spaces as ``{"rel": D_rel, "dis": D_dis}``, each ``(N, N)``.

    A symmetric scorer (``symmetric=True``) has no ``"dis"`` space: ``|R(i,j) - R(j,i)|`` is
    identically 0 (the paper's "/" in Table 3).
    """
    out = {"rel": relatedness_distance(R)}
    if not symmetric:
        out["dis"] = discrepancy_distance(R)
    return out


def sparsity(D) -> float:
    """Averaged l1 norm of ``1 - D``; smaller = sparser.

    .. math:: \\text{sparsity}(D) = \\frac{1}{N^2} \\sum_{i, j} \\lvert 1 - D(i, j) \\rvert

    Parameters
    ----------
    D : array (N, N)

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.7.1.
    """
    D = square(D, "D")
    return float(np.abs(1.0 - D).sum() / D.size)


def calinski_harabasz(D, labels) -> float:
    """Calinski–Harabasz index of the rows of D grouped by cluster label.

    .. math:: CH = \\frac{\\sum_k n_k \\lVert \\bar d_k - \\bar d \\rVert^2 / (K - 1)}
                         {\\sum_k \\sum_{i \\in k} \\lVert d_i - \\bar d_k \\rVert^2 / (N - K)}

    with ``d_i`` row i of D. NaN (warned) when D has NaN entries.

    Parameters
    ----------
    D : array (N, N)
    labels : array (N,)
        Cluster label of each sentence.

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.7.2; Caliński & Harabasz (1974).
    """
    D = square(D, "D")
    labels = np.asarray(labels)
    if labels.shape != (D.shape[0],):
        raise ValueError(f"labels must have shape ({D.shape[0]},), got {labels.shape}")
    n_nan = int(np.isnan(D).sum())
    if n_nan:
        warnings.warn(
            f"Calinski-Harabasz undefined: D has {n_nan} NaN entries; returning NaN", RuntimeWarning, stacklevel=2
        )
        return float("nan")
    return float(calinski_harabasz_score(D, labels))


def upper(D) -> np.ndarray:
    """The strict upper triangle of D (N, N), flattened row by row: (N (N - 1) / 2,)."""
    D = square(D, "D")
    return D[np.triu_indices(D.shape[0], k=1)]


def rsa(D, D_ref, *, mask=None) -> float:
    """Representational similarity: Pearson r between the strict upper triangles of D and D_ref.

    .. math:: r = \\frac{\\sum_{i<j} (a_{ij} - \\bar a)(b_{ij} - \\bar b)}
                       {\\sqrt{\\sum_{i<j} (a_{ij} - \\bar a)^2 \\sum_{i<j} (b_{ij} - \\bar b)^2}}

    Parameters
    ----------
    D, D_ref : array (N, N)
    mask : array (N, N) of bool, optional
        Restricts the pairs used (its upper triangle is read).

    Returns
    -------
    float; NaN (with a warning) when either triangle is constant.

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.7.3; Kriegeskorte, Mur & Bandettini (2008).
    """
    a, b = upper(D), upper(D_ref)
    if a.shape != b.shape:
        raise ValueError(f"D and D_ref differ in shape: {np.shape(D)} vs {np.shape(D_ref)}")
    if mask is not None:
        m = upper(np.asarray(mask, dtype=float)).astype(bool)
        a, b = a[m], b[m]
    a = a - a.mean()
    b = b - b.mean()
    den = np.sqrt((a * a).sum() * (b * b).sum())
    if den == 0:
        warnings.warn("RSA undefined: a distance triangle is constant; returning NaN", RuntimeWarning, stacklevel=2)
        return float("nan")
    return float((a * b).sum() / den)


def agreement_accuracy(decision, truth, categories, *, include=ACCURACY_CATEGORIES) -> dict:
    """Share of pairs of each category where a model's yes/no entailment decision agrees with
    the reference's.

    .. math:: \\text{acc}_c = \\frac{1}{|c|} \\sum_{(i, j) \\in c} [\\,\\hat y_{ij} = y_{ij}\\,]

    Parameters
    ----------
    decision : array (N, N) of bool, or of float with NaN
        The model's decision (True = entailment); NaN counts as a wrong answer.
    truth : array (N, N) of bool
        The reference decision.
    categories : array (N, N) of str
        The pair category of each entry.
    include : sequence of str
        The categories reported.

    Returns
    -------
    ``{category: (accuracy, n_pairs)}`` (accuracy NaN for an empty category).

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.4 and Table 2.
    """
    decision = np.asarray(decision)
    nan = np.isnan(decision) if decision.dtype.kind == "f" else np.zeros(decision.shape, dtype=bool)
    correct = (np.where(nan, 0, decision).astype(bool) == np.asarray(truth, dtype=bool)) & ~nan
    cats = np.asarray(categories)
    out = {}
    for c in include:
        m = cats == c
        out[c] = (float(correct[m].mean()) if m.any() else float("nan"), int(m.sum()))
    return out


def entailment_accuracy(R, R_ref, categories, *, threshold: float = 0.5, include=ACCURACY_CATEGORIES) -> dict:
    """Accuracy per pair category of the thresholded score: a pair is "entailment" when
    ``R > threshold``, and the ground truth is ``R_ref > threshold`` (the mean human score in
    the paper). NaN scores count as wrong and are warned about.

    Parameters
    ----------
    R, R_ref : array (N, N)
    categories : array (N, N) of str
    threshold : float
        0.5 in the paper.

    Returns
    -------
    ``{category: (accuracy, n_pairs)}``; see :func:`agreement_accuracy`.

    References
    ----------
    Lin, Chen & Ding (2024), Section 2.4 and Table 2.
    """
    R, R_ref = square(R), square(R_ref, "R_ref")
    n_nan = int(np.isnan(R).sum())
    if n_nan:
        warnings.warn(f"{n_nan} NaN scores count as wrong answers", RuntimeWarning, stacklevel=2)
    decision = np.where(np.isnan(R), np.nan, R > threshold)
    return agreement_accuracy(decision, R_ref > threshold, categories, include=include)
