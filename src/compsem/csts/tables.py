"""Tidy tables of Part II: bootstrap intervals over sentence pairs, summaries over seeds.

Both rows of a sentence pair share the sentences, so they are not independent: every interval
here resamples *pairs* (all rows of a drawn pair together).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from . import metrics
from .study import pair_accuracy

__all__ = ["pair_bootstrap_replicates", "pair_bootstrap_ci", "zero_shot_table", "summarise", "mean_pm_std",
           "with_baseline"]


def pair_bootstrap_replicates(pred, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Spearman ×100 of ``n_boot`` pair-resampled replicates (vectorised), shape ``(n_boot,)``.

    Replicate b uses the pairs ``default_rng(seed).integers(0, n_pairs, (n_boot, n_pairs))[b]``
    (pairs in sorted-id order), all rows of each drawn pair. Every pair must have the same
    number of rows (load with complete pairs, or drop single rows first).
    """
    pred = np.asarray(pred, dtype=float)
    gold = np.asarray(gold, dtype=float)
    ids = np.asarray(pair_ids).astype(str)
    uniq, inv = np.unique(ids, return_inverse=True)
    members = [np.flatnonzero(inv == j) for j in range(len(uniq))]
    if len({len(m) for m in members}) != 1:
        raise ValueError("pair_bootstrap_ci needs the same number of rows in every pair")
    M = np.stack(members)
    draw = np.random.default_rng(seed).integers(0, len(uniq), size=(n_boot, len(uniq)))
    idx = M[draw].reshape(n_boot, -1)
    rp, rg = rankdata(pred[idx], axis=1), rankdata(gold[idx], axis=1)
    rp -= rp.mean(1, keepdims=True)
    rg -= rg.mean(1, keepdims=True)
    den = np.sqrt((rp**2).sum(1) * (rg**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100 * (rp * rg).sum(1) / den


def pair_bootstrap_ci(pred, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95):
    """Percentile bootstrap CI of Spearman ×100 resampling sentence pairs; undefined
    replicates are dropped."""
    rho = pair_bootstrap_replicates(pred, gold, pair_ids, n_boot=n_boot, seed=seed)
    rho = rho[np.isfinite(rho)]
    a = (1 - level) / 2
    return float(np.quantile(rho, a)), float(np.quantile(rho, 1 - a))


def zero_shot_table(scores: dict, df: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per (model, condition variant): Spearman with its pair-bootstrap CI, Pearson,
    pair accuracy (label ties excluded), rows used and undefined scores.

    ``scores`` maps ``(model, variant)`` to a score array aligned with ``df``.
    """
    gold = df["label"].to_numpy()
    rows = []
    for (model, variant), s in scores.items():
        s = np.asarray(s, dtype=float)
        r = metrics.correlations(s, gold)
        lo, hi = pair_bootstrap_ci(s, gold, df["pair_id"], n_boot=n_boot, seed=seed)
        rows.append({"model": model, "condition": variant, "spearman": r["spearman"], "pearson": r["pearson"],
                     "spearman_ci_low": lo, "spearman_ci_high": hi, "pair_accuracy_%": pair_accuracy(s, df),
                     "n_rows": r["n"], "n_nan": int(np.isnan(s).sum())})
    return pd.DataFrame(rows)


def summarise(runs: pd.DataFrame, *, by=("config",), splits=("validation", "test")) -> pd.DataFrame:
    """Mean ± std over seeds of each split's Spearman, Pearson and pair accuracies."""
    stats = ("spearman", "pearson", "pair_accuracy", "pair_accuracy_with_ties")
    cols = [f"{s}_{m}" for s in splits for m in stats if f"{s}_{m}" in runs]
    g = runs.groupby(list(by), sort=False)[cols]
    out = pd.concat([g.mean().add_suffix("_mean"), g.std(ddof=1).add_suffix("_std")], axis=1)
    out["n_seeds"] = runs.groupby(list(by), sort=False).size()
    return out.reset_index()


def mean_pm_std(summary: pd.DataFrame, col: str, *, digits: int = 1) -> list[str]:
    """``"mean ± std"`` strings of ``summary[col + "_mean"]`` / ``summary[col + "_std"]``; the
    mean alone where the std is undefined (a single seed)."""
    m, s = summary[f"{col}_mean"], summary[f"{col}_std"]
    return ["nan" if not np.isfinite(a) else f"{a:.{digits}f} ± {b:.{digits}f}" if np.isfinite(b) else f"{a:.{digits}f}"
            for a, b in zip(m.astype(float), s.astype(float))]


def with_baseline(summary: pd.DataFrame, base: pd.DataFrame, *, split: str = "test",
                  label: str = "config") -> pd.DataFrame:
    """A display table: each configuration's Spearman (mean ± std), its gain over the
    condition prior on the same rows, Pearson and both pair accuracies, and the baseline as
    the last row."""
    prior = base.set_index("split").loc[split]
    out = pd.DataFrame({
        label: summary[label],
        f"{split} Spearman": mean_pm_std(summary, f"{split}_spearman"),
        "minus condition prior": (summary[f"{split}_spearman_mean"] - prior["spearman"]).round(1),
        f"{split} Pearson": mean_pm_std(summary, f"{split}_pearson"),
        "pair acc. % (no ties)": mean_pm_std(summary, f"{split}_pair_accuracy"),
        "pair acc. % (ties by file order)": mean_pm_std(summary, f"{split}_pair_accuracy_with_ties"),
        "seeds": summary["n_seeds"],
    })
    base_row = {label: "condition prior (baseline)", f"{split} Spearman": f"{prior['spearman']:.1f}",
                "minus condition prior": 0.0, f"{split} Pearson": f"{prior['pearson']:.1f}",
                "pair acc. % (no ties)": f"{prior['pair_accuracy']:.1f}",
                "pair acc. % (ties by file order)": f"{prior['pair_accuracy_with_ties']:.1f}", "seeds": 0}
    return pd.concat([out, pd.DataFrame([base_row])], ignore_index=True).set_index(label)
