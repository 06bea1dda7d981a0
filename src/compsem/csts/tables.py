"""Tidy tables of Part II: bootstrap intervals over sentence pairs, summaries over seeds.

Both rows of a sentence pair share the sentences, so they are not independent: every interval
here resamples *pairs* (all rows of a drawn pair together).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import BootstrapResult, bootstrap
from . import metrics
from .data import pair_index
from .metrics import pair_bootstrap_ci, pair_bootstrap_replicates  # noqa: F401  (re-exported)
from .study import pair_accuracy

#: Part II's extension of :data:`compsem.labels.LABELS`: the loader's counts, the paper's columns
#: and the pair tables, as a page's headers and row labels.
LABELS = {
    "source": "data set",
    "n_rows_read": "rows read",
    "n_unlabelled": "rows without a label (left out)",
    "n_rows": "rows kept",
    "n_pairs": "sentence pairs",
    "n_complete_pairs": "pairs with both conditions",
    "n_single_rows": "rows left single (partner without a label)",
    "n_partner_unlabelled": "labelled rows whose partner was left out",
    "n_unpaired_rows": "rows not in a two-row pair",
    "n_both_orders": "pairs written in both sentence orders",
    "n_tied_pairs": "pairs whose two conditions share a label",
    "n_same_condition": "pairs with one condition twice and two labels",
    "condition_high": "C-High condition",
    "condition_low": "C-Low condition",
    "label_high": "C-High label (1–5)",
    "label_low": "C-Low label (1–5)",
    "sentence1": "sentence 1",
    "sentence2": "sentence 2",
    "csts_spearman": "C-STS Spearman (×100)",
    "csts_pearson": "C-STS Pearson (×100)",
    "stsb_spearman": "STS-B Spearman (×100)",
    "stsb_pearson": "STS-B Pearson (×100)",
    "sentences_only": "sentences only",
    "condition_only": "condition only",
    "lr": "learning rate",
    "transform": "transform",
    "objective": "objective",
    "tri_op": "tri-encoder op. (tri only)",
    "spearman": "Spearman (×100)",
    "pearson": "Pearson (×100)",
    "encoding": "encoder",
    "input_mode": "input",
    "invalid_rate": "invalid answers (share)",
    "out_of_range_rate": "answers out of range (share)",
    "n": "queries",
    "k": "examples in the prompt",
    "parser": "parser",
    "generator": "generator",
}

__all__ = [
    "LABELS",
    "pair_bootstrap_replicates",
    "pair_bootstrap_ci",
    "zero_shot_table",
    "summarise",
    "mean_pm_std",
    "with_baseline",
    "split_scores",
]


def pair_accuracy_interval(scores, df: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> BootstrapResult:
    """Pair accuracy (%) of ``scores`` on the untied complete pairs of ``df`` with its percentile
    bootstrap interval over those pairs (each pair's outcome 1, ½ or 0; ``seed`` seeds the
    resampling; ``n_boot=0`` gives no interval). The estimate equals
    :func:`~compsem.csts.study.pair_accuracy`."""
    s = np.asarray(scores, dtype=float)
    h, l_ = pair_index(df, label_ties="exclude")
    out = 100 * metrics.pair_outcomes(s[h], s[l_])
    if not n_boot:
        fin = out[np.isfinite(out)]
        return BootstrapResult(
            float(fin.mean()) if fin.size else float("nan"),
            float("nan"),
            float("nan"),
            int(fin.size),
            int(out.size - fin.size),
        )
    return bootstrap(out, n_boot=n_boot, seed=seed, warn=False)


def zero_shot_table(scores: dict, df: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per (model, condition variant): Spearman with its pair-bootstrap CI, Pearson,
    pair accuracy (label ties excluded) with its pair-bootstrap interval
    (:func:`pair_accuracy_interval`), the untied pairs it counts, rows used and undefined scores.

    ``scores`` maps ``(model, variant)`` to a score array aligned with ``df``.
    """
    gold = df["label"].to_numpy()
    rows = []
    for (model, variant), s in scores.items():
        s = np.asarray(s, dtype=float)
        r = metrics.correlations(s, gold)
        lo, hi = pair_bootstrap_ci(s, gold, df["pair_id"], n_boot=n_boot, seed=seed)
        pa = pair_accuracy_interval(s, df, n_boot=n_boot, seed=seed)
        rows.append(
            {
                "model": model,
                "condition": variant,
                "spearman": r["spearman"],
                "pearson": r["pearson"],
                "spearman_ci_low": lo,
                "spearman_ci_high": hi,
                "pair_accuracy_%": pair_accuracy(s, df),
                "pair_accuracy_ci_low": pa.low,
                "pair_accuracy_ci_high": pa.high,
                "n_pairs": pa.n,
                "n_rows": r["n"],
                "n_nan": int(np.isnan(s).sum()),
            }
        )
    return pd.DataFrame(rows)


def summarise(runs: pd.DataFrame, *, by=("config",), splits=("validation", "test")) -> pd.DataFrame:
    """Mean ± std over seeds of each split's Spearman, Pearson and pair accuracies, and the mean
    over seeds of each run's pair-bootstrap interval of the Spearman (``*_spearman_ci_low_mean``,
    ``*_spearman_ci_high_mean``; present when the runs recorded one)."""
    stats = ("spearman", "pearson", "pair_accuracy", "pair_accuracy_with_ties", "spearman_ci_low", "spearman_ci_high")
    cols = [f"{s}_{m}" for s in splits for m in stats if f"{s}_{m}" in runs]
    g = runs.groupby(list(by), sort=False)[cols]
    out = pd.concat([g.mean().add_suffix("_mean"), g.std(ddof=1).add_suffix("_std")], axis=1)
    out["n_seeds"] = runs.groupby(list(by), sort=False).size()
    return out.reset_index()


#: the scores :func:`split_scores` keeps per run and split (``<split>_<score>`` in a run's row)
SPLIT_SCORES = (
    "spearman",
    "spearman_ci_low",
    "spearman_ci_high",
    "pearson",
    "pair_accuracy",
    "pair_accuracy_with_ties",
    "n",
    "n_pairs",
)


def split_scores(runs: pd.DataFrame, base: pd.DataFrame, splits, *, keys=("model", "config", "seed")) -> pd.DataFrame:
    """The runs' scores in long form: one row per run (``keys``) and evaluated split (``splits``,
    e.g. ``["test", "other"]`` with a reader's ``eval_data``), with :data:`SPLIT_SCORES` (the
    Spearman's pair-bootstrap interval among them) and the condition prior's Spearman on the
    same rows (``prior_spearman``, from ``base``, one row per split). A split no run scored is
    an error naming it."""
    prior = base.set_index("split")["spearman"]
    parts = []
    for split in splits:
        cols = {f"{split}_{k}": k for k in SPLIT_SCORES if f"{split}_{k}" in runs}
        if f"{split}_spearman" not in cols:
            raise KeyError(f"no run was scored on the split {split!r}; the runs have {sorted(runs.columns)}")
        part = runs[[k for k in keys if k in runs] + list(cols)].rename(columns=cols)
        parts.append(part.assign(split=split, prior_spearman=float(prior.get(split, np.nan))))
    return pd.concat(parts, ignore_index=True)


def mean_pm_std(summary: pd.DataFrame, col: str, *, digits: int = 1) -> list[str]:
    """``"mean ± std"`` strings of ``summary[col + "_mean"]`` / ``summary[col + "_std"]``; the
    mean alone where the std is undefined (a single seed)."""
    m, s = summary[f"{col}_mean"], summary[f"{col}_std"]
    return [
        "nan" if not np.isfinite(a) else f"{a:.{digits}f} ± {b:.{digits}f}" if np.isfinite(b) else f"{a:.{digits}f}"
        for a, b in zip(m.astype(float), s.astype(float))
    ]


def with_baseline(
    summary: pd.DataFrame, base: pd.DataFrame, *, split: str = "test", label: str = "config"
) -> pd.DataFrame:
    """A display table: each configuration's Spearman (mean ± std), its gain over the
    condition prior on the same rows, Pearson and both pair accuracies, and the baseline as
    the last row."""
    prior = base.set_index("split").loc[split]
    out = pd.DataFrame(
        {
            label: summary[label],
            f"{split} Spearman": mean_pm_std(summary, f"{split}_spearman"),
            "minus condition prior": (summary[f"{split}_spearman_mean"] - prior["spearman"]).round(1),
            f"{split} Pearson": mean_pm_std(summary, f"{split}_pearson"),
            "pair acc. % (no ties)": mean_pm_std(summary, f"{split}_pair_accuracy"),
            "pair acc. % (ties by file order)": mean_pm_std(summary, f"{split}_pair_accuracy_with_ties"),
            "seeds": summary["n_seeds"],
        }
    )
    base_row = {
        label: "condition prior (baseline)",
        f"{split} Spearman": f"{prior['spearman']:.1f}",
        "minus condition prior": 0.0,
        f"{split} Pearson": f"{prior['pearson']:.1f}",
        "pair acc. % (no ties)": f"{prior['pair_accuracy']:.1f}",
        "pair acc. % (ties by file order)": f"{prior['pair_accuracy_with_ties']:.1f}",
        "seeds": 0,
    }
    return pd.concat([out, pd.DataFrame([base_row])], ignore_index=True).set_index(label)
