"""Part IV's tables: cluster-bootstrap intervals and the tidy Table 2 / Table 3 analogues.

A resample draws the K clusters of the pool with replacement (the sentences of a cluster are
not independent). Sparsity, RSA and the per-category accuracies of a resample are computed in
closed form from cluster-block sums weighted by the draw counts, with no Python loop over
draws. Every table has one row per model x cell.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .data import CATEGORIES
from .metrics import agreement_accuracy, calinski_harabasz, distances, entailment_accuracy, rsa, sparsity, square
from .study import Scored

__all__ = [
    "cluster_counts",
    "ssm_draws",
    "paired_ssm_draws",
    "category_mean_draws",
    "bootstrap_ssm",
    "bootstrap_category_mean",
    "bootstrap_agreement",
    "bootstrap_accuracy",
    "ssm_table",
    "accuracy_frame",
    "ssm_frame",
    "mean_scores_frame",
    "TABLE2_CATEGORIES",
]

#: the paper's five pair categories of Table 2
TABLE2_CATEGORIES = CATEGORIES[:5]


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
    D, D_ref = square(D, "D"), square(D_ref, "D_ref")
    labels = np.asarray(labels)
    uniq = np.unique(labels)
    inv = np.searchsorted(uniq, labels)
    K = uniq.size
    C = np.atleast_2d(np.asarray(C, dtype=float))
    # sparsity: all ordered entries, diagonal included
    spars = _weighted_total(C, _block_sums(np.abs(1.0 - D), inv, K)) / _weighted_total(
        C, _block_sums(np.ones_like(D), inv, K)
    )
    # RSA: ordered pairs i != j (D symmetric, so this equals the upper-triangle Pearson r)
    off = 1.0 - np.eye(D.shape[0])
    x, y = D * off, D_ref * off
    st = {
        name: _weighted_total(C, _block_sums(M, inv, K))
        for name, M in (("n", off), ("x", x), ("y", y), ("xx", x * x), ("yy", y * y), ("xy", x * y))
    }
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
    return {
        "sparsity": tuple(float(v) for v in np.percentile(spars, q)),
        "rsa": tuple(float(v) for v in np.percentile(r, q)) if r.size else (np.nan, np.nan),
    }


def paired_ssm_draws(
    scored: dict[str, Scored], R_ref, labels, *, space: str = "rel", n_boot: int = 1000, seed: int = 0
) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
    """Sparsity and RSA replicates (:func:`ssm_draws`) of every scorer in ``space`` on the *same*
    cluster resamples, so that the difference of two scorers' replicates is a paired cluster
    bootstrap of their difference (:func:`compsem.stats.paired_interval`). The resamples are
    those :func:`ssm_frame` draws for each scorer's interval (``cluster_counts`` of the valid
    sentences' clusters, ``seed``). ``None`` when the scorers' valid sentences differ (no common
    items to pair) or a scorer lacks ``space``."""
    labels = np.asarray(labels)
    masks = [np.asarray(s.valid) for s in scored.values()]
    if not masks or any(m.shape != masks[0].shape or (m != masks[0]).any() for m in masks):
        return None
    v = masks[0]
    sub = np.ix_(v, v)
    D_ref = distances(R_ref[sub])[space]
    _, C = cluster_counts(labels[v], n_boot=n_boot, seed=seed)
    out = {}
    for name, s in scored.items():
        D = distances(s.R[sub], symmetric=s.symmetric)
        if space not in D:
            return None
        out[name] = ssm_draws(D[space], D_ref, labels[v], C)
    return out


def category_mean_draws(values, categories, labels, *, category: str, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """The replicates of the mean of ``values`` over the pairs of ``category`` whose percentile
    interval :func:`bootstrap_category_mean` reports (the same cluster draws for the same
    ``labels`` and ``seed``): two scorers' replicates are paired, drawn on the same clusters;
    shape ``(n_boot,)``, NaN where a resample holds no such pair."""
    values = np.asarray(values, dtype=float)
    cats, labels = np.asarray(categories), np.asarray(labels)
    uniq, C = cluster_counts(labels, n_boot=n_boot, seed=seed)
    inv = np.searchsorted(uniq, labels)
    m = (cats == category) & np.isfinite(values)
    num = np.bincount(inv, weights=np.where(m, values, 0.0).sum(axis=1), minlength=uniq.size)
    den = np.bincount(inv, weights=m.sum(axis=1), minlength=uniq.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (C @ num) / (C @ den)


def bootstrap_category_mean(
    values, categories, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95, include=None
) -> dict:
    """Cluster-bootstrap CIs of the mean of ``values`` (N, N) over the pairs of each category
    (NaN pairs left out). A pair belongs to the cluster of its premise (row): a resample draws
    K clusters with replacement and takes every pair whose row lies in a drawn cluster, once
    per draw. Pairs are not independent (a sentence sits in N − 1 pairs of its row, the
    sentences of a cluster share a topic), so the clusters are resampled, as for every other
    Part IV interval. Returns ``{category: (lo, hi)}``."""
    values = np.asarray(values, dtype=float)
    cats = np.asarray(categories)
    labels = np.asarray(labels)
    uniq, C = cluster_counts(labels, n_boot=n_boot, seed=seed)
    inv = np.searchsorted(uniq, labels)
    K = uniq.size
    include = include or [c for c in np.unique(cats) if c != "identical"]
    q = [(1 - level) / 2 * 100, (1 + level) / 2 * 100]
    out = {}
    for c in include:
        m = (cats == c) & np.isfinite(values)
        num = np.bincount(inv, weights=np.where(m, values, 0.0).sum(axis=1), minlength=K)
        den = np.bincount(inv, weights=m.sum(axis=1), minlength=K)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (C @ num) / (C @ den)
        mean = mean[np.isfinite(mean)]
        out[c] = tuple(float(v) for v in np.percentile(mean, q)) if mean.size else (np.nan, np.nan)
    return out


def bootstrap_agreement(
    correct, categories, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95, include=None
) -> dict:
    """Cluster-bootstrap CIs of the share of ``correct`` (N, N) bool pairs per category
    (:func:`bootstrap_category_mean` of the 0/1 values). Returns ``{category: (lo, hi)}``."""
    return bootstrap_category_mean(
        np.asarray(correct, dtype=bool).astype(float),
        categories,
        labels,
        n_boot=n_boot,
        seed=seed,
        level=level,
        include=include,
    )


def bootstrap_accuracy(
    R,
    R_ref,
    categories,
    labels,
    *,
    threshold: float = 0.5,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    include=None,
    predicted=None,
) -> dict:
    """Cluster-bootstrap CIs for :func:`~compsem.ssm.metrics.entailment_accuracy` (the
    thresholded score ``R > threshold``), or, with ``predicted`` (N, N) bool, for the accuracy of
    a model's predicted labels. Returns ``{category: (lo, hi)}``."""
    R, R_ref = square(R), square(R_ref, "R_ref")
    decision = (R > threshold) if predicted is None else np.asarray(predicted, dtype=bool)
    correct = (decision == (R_ref > threshold)) & ~np.isnan(R)
    return bootstrap_agreement(correct, categories, labels, n_boot=n_boot, seed=seed, level=level, include=include)


def ssm_table(R, R_ref, labels, *, symmetric: bool = False, n_boot: int = 0, seed: int = 0) -> list[dict]:
    """Table 3 analogue for one score matrix: one dict per space with sparsity, CH, RSA
    (and cluster-bootstrap CIs when ``n_boot > 0``)."""
    D_model = distances(R, symmetric=symmetric)
    D_refs = distances(R_ref)
    rows = []
    for space, D in D_model.items():
        row = {
            "space": space,
            "sparsity": sparsity(D),
            "ch": calinski_harabasz(D, labels),
            "rsa": rsa(D, D_refs[space]),
        }
        if n_boot:
            ci = bootstrap_ssm(D, D_refs[space], labels, n_boot=n_boot, seed=seed)
            row.update(
                sparsity_lo=ci["sparsity"][0], sparsity_hi=ci["sparsity"][1], rsa_lo=ci["rsa"][0], rsa_hi=ci["rsa"][1]
            )
        rows.append(row)
    return rows


def accuracy_frame(scored: dict[str, Scored], R_ref, cats, labels, *, n_boot: int = 1000, seed: int = 0):
    """Tidy Table 2 analogue, one row per model x category: ``accuracy`` of the thresholded
    score (R > 0.5) with ``ci_low``/``ci_high``, and, for models that predict a label (NLI),
    ``accuracy_label``: the paper's rule for them, predicted label == entailment, with
    ``ci_low_label``/``ci_high_label`` (NaN for the other models)."""
    rows = []
    labels = np.asarray(labels)
    for name, s in scored.items():
        v = s.valid
        sub = np.ix_(v, v)
        R, ref, cat = s.R[sub], R_ref[sub], cats[sub]
        acc = entailment_accuracy(R, ref, cat)
        ci = bootstrap_accuracy(R, ref, cat, labels[v], n_boot=n_boot, seed=seed, include=list(acc)) if n_boot else {}
        by_label, ci_label = {}, {}
        if s.predicted is not None:
            pred = np.where(np.isnan(R), np.nan, s.predicted[sub])
            by_label = agreement_accuracy(pred, ref > 0.5, cat, include=list(acc))
            if n_boot:
                ci_label = bootstrap_accuracy(
                    R, ref, cat, labels[v], n_boot=n_boot, seed=seed, include=list(acc), predicted=s.predicted[sub]
                )
        for c, (a, n) in acc.items():
            lo, hi = ci.get(c, (np.nan, np.nan))
            lo_l, hi_l = ci_label.get(c, (np.nan, np.nan))
            rows.append(
                {
                    "scorer": name,
                    "category": c,
                    "accuracy": a,
                    "n_pairs": n,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n_sentences_dropped": int((~v).sum()),
                    "accuracy_label": by_label.get(c, (np.nan,))[0],
                    "ci_low_label": lo_l,
                    "ci_high_label": hi_l,
                }
            )
    return pd.DataFrame(rows)


def ssm_frame(scored: dict[str, Scored], R_ref, cats, labels, *, n_boot: int = 1000, seed: int = 0):
    """Tidy Table 3 analogue: scorer, space, sparsity, ch, rsa (+ cluster-bootstrap CIs) and
    ``rsa_labelled``: RSA without the unlabelled within-cluster pairs (a sensitivity check)."""
    labels = np.asarray(labels)
    rows = []
    for name, s in scored.items():
        v = s.valid
        sub = np.ix_(v, v)
        D_ref = distances(R_ref[sub])
        keep = (cats[sub] != "within_cluster") & (cats[sub].T != "within_cluster")
        for space, D in distances(s.R[sub], symmetric=s.symmetric).items():
            row = {
                "scorer": name,
                "space": space,
                "sparsity": sparsity(D),
                "ch": calinski_harabasz(D, labels[v]),
                "rsa": rsa(D, D_ref[space]),
                "rsa_labelled": rsa(D, D_ref[space], mask=keep),
                "n_sentences": int(v.sum()),
            }
            if n_boot:
                ci = bootstrap_ssm(D, D_ref[space], labels[v], n_boot=n_boot, seed=seed)
                row.update(
                    sparsity_low=ci["sparsity"][0],
                    sparsity_high=ci["sparsity"][1],
                    rsa_low=ci["rsa"][0],
                    rsa_high=ci["rsa"][1],
                )
            rows.append(row)
    return pd.DataFrame(rows)


def mean_scores_frame(scored: dict[str, Scored], cats):
    """Mean R per pair category and scorer (tidy)."""
    rows = []
    for name, s in scored.items():
        for cat in CATEGORIES:
            m = (cats == cat) & np.isfinite(s.R)
            rows.append(
                {
                    "scorer": name,
                    "category": cat,
                    "mean_R": float(s.R[m].mean()) if m.any() else np.nan,
                    "n_pairs": int(m.sum()),
                }
            )
    return pd.DataFrame(rows)
