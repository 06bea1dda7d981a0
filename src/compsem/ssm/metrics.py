"""Sentence-space metrics (SSM): distances, sparsity, clustering, RSA, accuracy, bootstrap.

All functions are pure and vectorised; matrices are ``(N, N)`` with rows = premise i and
columns = hypothesis j, so ``R[i, j]`` is the score for "sentence j can be inferred from i".
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.metrics import calinski_harabasz_score

from compsem.errors import DataError

SPACES = ("rel", "dis")


def _square(R, name="R") -> np.ndarray:
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise ValueError(f"{name} must be a square (N, N) matrix, got shape {R.shape}")
    return R


def relatedness_distance(R) -> np.ndarray:
    """D_rel(i, j) = 1 - (R(i, j) + R(j, i)) / 2  (paper Section 2.5). Symmetric."""
    R = _square(R)
    return 1.0 - (R + R.T) / 2.0


def discrepancy_distance(R) -> np.ndarray:
    """D_dis(i, j) = 1 - |R(i, j) - R(j, i)|  (paper Section 2.5). Symmetric; diagonal 1."""
    R = _square(R)
    return 1.0 - np.abs(R - R.T)


def distances(R, *, symmetric: bool = False) -> dict[str, np.ndarray]:
    """Both spaces as ``{"rel": D_rel, "dis": D_dis}``; a symmetric scorer has no "dis" space
    (|R(i,j) - R(j,i)| is identically 0, the paper's "/" in Table 3)."""
    out = {"rel": relatedness_distance(R)}
    if not symmetric:
        out["dis"] = discrepancy_distance(R)
    return out


def sparsity(D) -> float:
    """Averaged l1 norm ||1 - D||_1 / N^2 (paper Section 2.7.1); smaller = sparser."""
    D = _square(D, "D")
    return float(np.abs(1.0 - D).sum() / D.size)


def calinski_harabasz(D, labels) -> float:
    """Calinski-Harabasz index of the rows of D grouped by cluster label (Section 2.7.2)."""
    D = _square(D, "D")
    labels = np.asarray(labels)
    if labels.shape != (D.shape[0],):
        raise ValueError(f"labels must have shape ({D.shape[0]},), got {labels.shape}")
    n_nan = int(np.isnan(D).sum())
    if n_nan:
        warnings.warn(f"Calinski-Harabasz undefined: D has {n_nan} NaN entries; returning NaN",
                      RuntimeWarning, stacklevel=2)
        return float("nan")
    return float(calinski_harabasz_score(D, labels))


def upper(D) -> np.ndarray:
    """The strict upper triangle of D, flattened row by row."""
    D = _square(D, "D")
    return D[np.triu_indices(D.shape[0], k=1)]


def rsa(D, D_ref, *, mask=None) -> float:
    """Representational similarity: Pearson r between the strict upper triangles of D and D_ref
    (Section 2.7.3). ``mask`` (N, N) bool optionally restricts the pairs used.

    Returns NaN (with a warning) when either triangle is constant.
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


def entailment_accuracy(R, R_ref, categories, *, threshold: float = 0.5,
                        include=("synonymous", "synonymous_reversed", "inferential",
                                 "inferential_reversed", "irrelevant", "within_cluster")) -> dict:
    """Share of pairs of each category where ``R > threshold`` agrees with ``R_ref > threshold``
    (the paper's Table 2: the mean reference score, thresholded at 0.5, is the ground truth).

    Returns ``{category: (accuracy, n_pairs)}``. NaN scores count as wrong and are reported.
    """
    R, R_ref = _square(R), _square(R_ref, "R_ref")
    cats = np.asarray(categories)
    n_nan = int(np.isnan(R).sum())
    if n_nan:
        warnings.warn(f"{n_nan} NaN scores count as wrong answers", RuntimeWarning, stacklevel=2)
    correct = (R > threshold) == (R_ref > threshold)
    correct &= ~np.isnan(R)
    out = {}
    for c in include:
        m = cats == c
        out[c] = (float(correct[m].mean()) if m.any() else float("nan"), int(m.sum()))
    return out


# ---------------------------------------------------------------------------------------------
# cluster bootstrap
# ---------------------------------------------------------------------------------------------
def cluster_counts(labels, *, n_boot: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n_boot`` cluster-bootstrap resamples: each draws K clusters with replacement.

    Returns (uniq, C): the K cluster labels and C (n_boot, K) with how often each was drawn.
    """
    uniq, inv = np.unique(np.asarray(labels), return_inverse=True)
    K = uniq.size
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, K, size=(n_boot, K))
    C = np.zeros((n_boot, K))
    np.add.at(C, (np.arange(n_boot)[:, None], draws), 1.0)
    return uniq, C


def _block_sums(M, inv, K) -> np.ndarray:
    """S[k, l] = sum of M[i, j] over i in cluster k, j in cluster l."""
    E = np.zeros((M.shape[0], K))
    E[np.arange(M.shape[0]), inv] = 1.0
    return E.T @ M @ E


def _weighted_total(C, S) -> np.ndarray:
    """sum_{k != l} c_k c_l S[k, l] + sum_k c_k S[k, k] for each row c of C: a cluster drawn c
    times contributes its own block c times, and pairs of two *copies* of one cluster (which
    would pose as between-cluster pairs) are left out."""
    d = np.diagonal(S)
    return np.einsum("bk,kl,bl->b", C, S, C) - (C**2) @ d + C @ d


def ssm_draws(D, D_ref, labels, C) -> tuple[np.ndarray, np.ndarray]:
    """Sparsity of D and RSA(D, D_ref) for each cluster-count row of C (B, K); clusters in
    ``np.unique(labels)`` order. See :func:`bootstrap_ssm`."""
    D, D_ref = _square(D, "D"), _square(D_ref, "D_ref")
    labels = np.asarray(labels)
    uniq = np.unique(labels)
    inv = np.searchsorted(uniq, labels)
    K = uniq.size
    C = np.atleast_2d(np.asarray(C, dtype=float))
    # sparsity: all ordered entries, diagonal included
    spars = (_weighted_total(C, _block_sums(np.abs(1.0 - D), inv, K))
             / _weighted_total(C, _block_sums(np.ones_like(D), inv, K)))
    # RSA: ordered pairs i != j (D symmetric, so this equals the upper-triangle Pearson r)
    off = 1.0 - np.eye(D.shape[0])
    x, y = D * off, D_ref * off
    st = {name: _weighted_total(C, _block_sums(M, inv, K))
          for name, M in (("n", off), ("x", x), ("y", y), ("xx", x * x), ("yy", y * y), ("xy", x * y))}
    n = st["n"]
    cov = st["xy"] / n - st["x"] * st["y"] / n**2
    vx = st["xx"] / n - (st["x"] / n) ** 2
    vy = st["yy"] / n - (st["y"] / n) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(vx * vy)
    return spars, r


def bootstrap_ssm(D, D_ref, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> dict:
    """Cluster-bootstrap percentile CIs for sparsity and RSA of one distance matrix.

    A resample draws K clusters with replacement; its pairs are those between the drawn
    clusters plus each drawn cluster's own pairs (pairs between two copies of one cluster are
    left out). Sparsity and RSA of a resample are computed in closed form from cluster-block
    sums weighted by the draw counts (no Python loop over draws). CH gets no interval: copies of
    a cluster make identical rows, which distorts the index rather than resampling it.

    Returns ``{"sparsity": (lo, hi), "rsa": (lo, hi)}``.
    """
    uniq, C = cluster_counts(labels, n_boot=n_boot, seed=seed)
    spars, r = ssm_draws(D, D_ref, labels, C)
    q = [(1 - level) / 2 * 100, (1 + level) / 2 * 100]
    n_bad = int((~np.isfinite(r)).sum())
    if n_bad:
        warnings.warn(f"{n_bad} of {n_boot} bootstrap RSA values undefined (dropped)", RuntimeWarning, stacklevel=2)
    r = r[np.isfinite(r)]
    return {"sparsity": tuple(float(v) for v in np.percentile(spars, q)),
            "rsa": tuple(float(v) for v in np.percentile(r, q)) if r.size else (np.nan, np.nan)}


def bootstrap_accuracy(R, R_ref, categories, labels, *, threshold: float = 0.5, n_boot: int = 1000,
                       seed: int = 0, level: float = 0.95, include=None) -> dict:
    """Cluster-bootstrap CIs for :func:`entailment_accuracy`. A pair belongs to the cluster of
    its premise (row). Returns ``{category: (lo, hi)}``."""
    R, R_ref = _square(R), _square(R_ref, "R_ref")
    cats = np.asarray(categories)
    labels = np.asarray(labels)
    uniq, C = cluster_counts(labels, n_boot=n_boot, seed=seed)
    inv = np.searchsorted(uniq, labels)
    K = uniq.size
    correct = ((R > threshold) == (R_ref > threshold)) & ~np.isnan(R)
    include = include or [c for c in np.unique(cats) if c != "identical"]
    q = [(1 - level) / 2 * 100, (1 + level) / 2 * 100]
    out = {}
    for c in include:
        m = cats == c
        num = np.bincount(inv, weights=(correct & m).sum(axis=1), minlength=K)
        den = np.bincount(inv, weights=m.sum(axis=1), minlength=K)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = (C @ num) / (C @ den)
        acc = acc[np.isfinite(acc)]
        out[c] = tuple(float(v) for v in np.percentile(acc, q)) if acc.size else (np.nan, np.nan)
    return out


def ssm_table(R, R_ref, labels, *, symmetric: bool = False, n_boot: int = 0, seed: int = 0) -> list[dict]:
    """Table 3 analogue for one score matrix: one dict per space with sparsity, CH, RSA
    (and cluster-bootstrap CIs when ``n_boot > 0``)."""
    D_model = distances(R, symmetric=symmetric)
    D_refs = distances(R_ref)
    rows = []
    for space, D in D_model.items():
        row = {"space": space, "sparsity": sparsity(D), "ch": calinski_harabasz(D, labels),
               "rsa": rsa(D, D_refs[space])}
        if n_boot:
            ci = bootstrap_ssm(D, D_refs[space], labels, n_boot=n_boot, seed=seed)
            row.update(sparsity_lo=ci["sparsity"][0], sparsity_hi=ci["sparsity"][1],
                       rsa_lo=ci["rsa"][0], rsa_hi=ci["rsa"][1])
        rows.append(row)
    return rows


__all__ = ["SPACES", "relatedness_distance", "discrepancy_distance", "distances", "sparsity",
           "calinski_harabasz", "upper", "rsa", "entailment_accuracy", "cluster_counts",
           "ssm_draws", "bootstrap_ssm", "bootstrap_accuracy", "ssm_table", "DataError"]
