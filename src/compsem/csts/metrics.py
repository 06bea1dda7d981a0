"""C-STS metrics and the baselines that say what a number is worth (pure numpy, no I/O).

* :func:`correlations` — Spearman and Pearson ×100, the paper's evaluation (Section 5);
* :func:`pair_accuracy` — share of sentence pairs whose C-High row scores above the C-Low row;
* :func:`condition_prior` — the baseline that ignores the sentences: each condition's mean
  training label;
* :func:`quad_margin_loss` — the quadruplet loss of the paper's Eq. 1 on cosine scores.

References
----------
Deshpande, Jimenez, Chen, Murahari, Graf, Rajpurohit, Kalyan, Chen, Narasimhan (2023).
C-STS: Conditional Semantic Textual Similarity. EMNLP 2023.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as sstats
from scipy.stats import rankdata, spearmanr
from ..fmt import noun

__all__ = [
    "correlations",
    "pair_accuracy",
    "pair_outcomes",
    "condition_prior",
    "quad_margin_loss",
    "seed_agreement",
    "pair_bootstrap_replicates",
    "pair_bootstrap_ci",
]


def correlations(pred, gold) -> dict:
    """Spearman and Pearson correlations ×100 between predictions and gold labels.

    Parameters
    ----------
    pred, gold : array-like, shape ``(n,)``.

    Returns
    -------
    dict with ``spearman``, ``pearson`` (×100), ``n`` (finite pairs used) and
    ``n_nonfinite`` (rows left out because a value was NaN or infinite, with a warning).
    Constant predictions or labels leave the correlation undefined: NaN with a warning, never
    a silent 0.

    References
    ----------
    Deshpande et al. (2023), Section 5 (Spearman and Pearson ×100 on the test split).
    """
    pred = np.asarray(pred, dtype=float)
    gold = np.asarray(gold, dtype=float)
    if pred.shape != gold.shape:
        raise ValueError(f"pred and gold shapes differ: {pred.shape} vs {gold.shape}")
    ok = np.isfinite(pred) & np.isfinite(gold)
    n_bad = int((~ok).sum())
    if n_bad:
        warnings.warn(
            f"{n_bad} non-finite {noun(n_bad, 'prediction or label', 'predictions or labels')} left out of the correlation",
            stacklevel=2,
        )
    p, g = pred[ok], gold[ok]
    if len(p) < 2 or np.ptp(p) == 0 or np.ptp(g) == 0:
        warnings.warn("constant predictions or labels: correlation undefined (NaN)", stacklevel=2)
        return {"spearman": float("nan"), "pearson": float("nan"), "n": int(len(p)), "n_nonfinite": n_bad}
    return {
        "spearman": 100 * float(sstats.spearmanr(p, g).statistic),
        "pearson": 100 * float(sstats.pearsonr(p, g).statistic),
        "n": int(len(p)),
        "n_nonfinite": n_bad,
    }


def pair_accuracy(score_high, score_low) -> float:
    """Share (%) of sentence pairs whose C-High row scores above its C-Low row.

    .. math:: \\mathrm{acc} = \\frac{100}{P} \\sum_{i=1}^{P}
              \\Big([\\hat y^{hi}_i > \\hat y^{lo}_i] + \\tfrac12 [\\hat y^{hi}_i = \\hat y^{lo}_i]\\Big)

    Parameters
    ----------
    score_high, score_low : array-like, shape ``(P,)`` — the scores of each pair's C-High and
        C-Low rows (see :func:`compsem.csts.data.pair_index`, which also decides whether pairs
        whose two *labels* are tied take part).

    Returns
    -------
    float in [0, 100]; a model that ignores the condition scores both rows alike and gets 50.
    NaN when no pair has two finite scores.

    References
    ----------
    A diagnostic of this book (not in the paper), built on the C-High / C-Low design of
    Deshpande et al. (2023), Section 3.
    """
    out = pair_outcomes(score_high, score_low)
    out = out[np.isfinite(out)]
    return 100.0 * float(out.mean()) if out.size else float("nan")


def pair_outcomes(score_high, score_low) -> np.ndarray:
    """Per pair: 1 when the C-High row scores above the C-Low row, ½ on a tie, 0 below, NaN
    when a score is undefined; shape ``(P,)``. :func:`pair_accuracy` is 100 × their mean.

    References
    ----------
    As :func:`pair_accuracy`.
    """
    d = np.asarray(score_high, dtype=float) - np.asarray(score_low, dtype=float)
    return np.where(np.isfinite(d), (d > 0) + 0.5 * (d == 0), np.nan)


def condition_prior(train_conditions, train_labels, conditions) -> np.ndarray:
    """The condition-prior baseline: each condition's mean training label.

    .. math:: \\hat y(s_1, s_2, c) = \\frac{1}{|T_c|} \\sum_{(c', y) \\in T,\\, c' = c} y

    A condition absent from training gets the mean of all training labels. The sentences are
    ignored, so whatever this baseline reaches is what the wording of the conditions alone
    gives away.

    Parameters
    ----------
    train_conditions, train_labels : array-like, shape ``(n_train,)``.
    conditions : array-like, shape ``(n,)`` — the rows to predict.

    Returns
    -------
    ndarray, shape ``(n,)``.

    References
    ----------
    A baseline of this book; the paper's condition-only ablation (Table 10) trains a model on
    the same information.
    """
    tc = np.asarray(train_conditions).astype(str)
    ty = np.asarray(train_labels, dtype=float)
    if tc.shape != ty.shape or not ty.size:
        raise ValueError(f"need as many training conditions as labels (and at least one): {tc.shape} vs {ty.shape}")
    uniq, inv = np.unique(tc, return_inverse=True)
    means = np.bincount(inv, weights=ty) / np.bincount(inv)
    lookup = dict(zip(uniq, means))
    fallback = float(ty.mean())
    return np.array([lookup.get(c, fallback) for c in np.asarray(conditions).astype(str)], dtype=float)


def quad_margin_loss(score_high, score_low, *, margin: float) -> float:
    """The quadruplet loss averaged over pairs (the paper's Eq. 1, on cosines).

    .. math:: \\mathrm{Quad} = \\frac1P\\sum_i \\max\\big(0,\\ \\lambda + \\cos(n^i_1, n^i_2) -
              \\cos(p^i_1, p^i_2)\\big)

    Parameters
    ----------
    score_high, score_low : array-like, shape ``(P,)`` — ``cos(p1, p2)`` of each pair's C-High
        row and ``cos(n1, n2)`` of its C-Low row.
    margin : λ (the paper's text does not fix it; the authors' code uses 1.0).

    References
    ----------
    Deshpande et al. (2023), Section 4.1, Eq. 1. The code writes it with the cosine distance
    ``1 − cos``: ``max(0, λ + d(p1, p2) − d(n1, n2))``, the same quantity.
    """
    hi = np.asarray(score_high, dtype=float)
    lo = np.asarray(score_low, dtype=float)
    if hi.shape != lo.shape:
        raise ValueError(f"score_high and score_low shapes differ: {hi.shape} vs {lo.shape}")
    return float(np.maximum(0.0, margin + lo - hi).mean()) if hi.size else float("nan")


def pair_bootstrap_replicates(pred, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Spearman ×100 of ``n_boot`` pair-resampled replicates (vectorised), shape ``(n_boot,)``.

    Replicate b uses the pairs ``default_rng(seed).integers(0, n_pairs, (n_boot, n_pairs))[b]``
    (pairs in sorted-id order), all rows of each drawn pair. Pairs of two rows and single rows
    (partner unlabelled) may mix; then replicates are computed one by one.
    """
    pred = np.asarray(pred, dtype=float)
    gold = np.asarray(gold, dtype=float)
    ids = np.asarray(pair_ids).astype(str)
    uniq, inv = np.unique(ids, return_inverse=True)
    members = [np.flatnonzero(inv == j) for j in range(len(uniq))]
    draw = np.random.default_rng(seed).integers(0, len(uniq), size=(n_boot, len(uniq)))
    if len({len(m) for m in members}) != 1:  # e.g. a row whose partner was unlabelled: one replicate at a time
        out = np.empty(n_boot)
        for b in range(n_boot):
            rows = np.concatenate([members[j] for j in draw[b]])
            out[b] = 100 * spearmanr(pred[rows], gold[rows]).statistic
        return out
    M = np.stack(members)
    idx = M[draw].reshape(n_boot, -1)
    rp, rg = rankdata(pred[idx], axis=1), rankdata(gold[idx], axis=1)
    rp -= rp.mean(1, keepdims=True)
    rg -= rg.mean(1, keepdims=True)
    den = np.sqrt((rp**2).sum(1) * (rg**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100 * (rp * rg).sum(1) / den


def pair_bootstrap_ci(pred, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95):
    """Percentile bootstrap CI of Spearman ×100 resampling sentence pairs; undefined
    replicates are dropped (NaN bounds when none is defined)."""
    rho = pair_bootstrap_replicates(pred, gold, pair_ids, n_boot=n_boot, seed=seed)
    rho = rho[np.isfinite(rho)]
    if not len(rho):  # every replicate undefined (e.g. constant predictions): no interval
        return float("nan"), float("nan")
    a = (1 - level) / 2
    return float(np.quantile(rho, a)), float(np.quantile(rho, 1 - a))


def seed_agreement(a, b, *, k: float = 2.0) -> dict:
    """Two sides' scores (one per seed, at least two each) against the pooled seed spread: means,
    standard deviations (ddof 1), the pooled standard deviation ``sqrt((sd_a² + sd_b²) / 2)``, the
    difference of the means (a − b) and ``agree``: whether it lies within ``k`` pooled standard
    deviations."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"each side needs at least two seeds to have a spread, got {len(a)} and {len(b)}")
    sa, sb = float(a.std(ddof=1)), float(b.std(ddof=1))
    pooled = float(np.sqrt((sa**2 + sb**2) / 2))
    diff = float(a.mean() - b.mean())
    return {
        "a_mean": float(a.mean()),
        "a_std": sa,
        "b_mean": float(b.mean()),
        "b_std": sb,
        "pooled_std": pooled,
        "difference": diff,
        "k": k,
        "agree": bool(abs(diff) <= k * pooled),
    }
