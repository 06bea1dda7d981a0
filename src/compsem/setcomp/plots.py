"""Part I's statistical figures, drawn with seaborn through :mod:`compsem.figures`."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import figures
from .. import measures as M

__all__ = ["plot_position_histograms", "plot_cells_summary", "plot_filter", "plot_norm_ratios"]


def plot_position_histograms(
    geoms: Mapping[str, M.PlaneGeometry], *, title: str, lo: float = -1.0, hi: float = 3.0, bins: int = 40
):
    """One histogram per model of the signed position ``s = 1 − t`` of the projection P.

    ``s`` is the paper's variable ∠(B,P)/∠(A,B) (Figures 4 and 6: 1 = at A, 0 = at B) with a sign:
    the two agree whenever P is not beyond B, and ``s < 0`` marks P beyond B. Values outside
    ``[lo, hi]`` are clipped into the end bins (their share is printed in the panel);
    degenerate samples are counted in the panel title.
    """
    figures.set_theme()
    models = list(geoms)
    colors = figures.model_colors(models)
    fig, axes = plt.subplots(1, len(models), figsize=(3.0 * len(models), 2.8), squeeze=False)
    edges = np.linspace(lo, hi, bins + 1)
    for ax, m in zip(axes[0], models):
        g = geoms[m]
        v = 1.0 - g.t[~g.degenerate]
        clipped = float(np.mean((v < lo) | (v > hi))) if v.size else 0.0
        sns.histplot(x=np.clip(v, lo, hi), bins=edges, color=colors[m], ax=ax)
        ax.axvspan(0, 1, color="0.5", alpha=0.08)
        for x in (0, 1):
            ax.axvline(x, color="k", lw=0.8, ls="--")
        ax.set_title(f"{m}" + (f" ({g.n_degenerate} degenerate)" if g.n_degenerate else ""), fontsize=10)
        ax.set_xlabel("signed ∠(B,P)/∠(A,B)  (0 = B, 1 = A)", fontsize=9)
        ax.set_ylabel("")
        if clipped:
            ax.text(0.02, 0.95, f"{100 * clipped:.0f}% clipped", transform=ax.transAxes, fontsize=8, va="top")
    axes[0][0].set_ylabel("samples")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_cells_summary(tab: pd.DataFrame, *, value: str = "pct", label: str = "", ax=None, cell: str | None = "TT"):
    """One percentage per model (and measure) with its 95% interval (:func:`compsem.figures.interval_plot`)."""
    figures.set_theme()
    t = tab if cell is None else tab[tab["cell"] == cell]
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 + 1.1 * t["model"].nunique(), 3.2))
    measures = list(dict.fromkeys(t["measure"]))
    figures.interval_plot(
        t,
        x="model",
        y=value,
        low="low",
        high="high",
        hue="measure" if len(measures) > 1 else None,
        colors={m: figures.PALETTE[i] for i, m in enumerate(measures)},
        ax=ax,
        xlabel="",
        ylabel=label,
    )
    ax.figure.tight_layout()
    return ax.figure


def plot_filter(rep, threshold: float):
    """The two neighbour cosines of every quintuple under the first filter encoder, pass or fail."""
    figures.set_theme()
    spec = rep.encoders[0]
    df = pd.DataFrame(
        {
            "cos(prev, curr)": rep.cos_prev_curr[spec],
            "cos(curr, next)": rep.cos_curr_next[spec],
            "quintuple": np.where(rep.mask, "passes", "fails"),
        }
    )
    fig, ax = plt.subplots(figsize=(4.6, 4.0))
    sns.scatterplot(
        df,
        x="cos(prev, curr)",
        y="cos(curr, next)",
        hue="quintuple",
        hue_order=["passes", "fails"],
        palette=[figures.PALETTE[2], "0.6"],
        s=18,
        ax=ax,
    )
    for line in (ax.axvline, ax.axhline):
        line(threshold, color="k", ls="--", lw=0.8)
    ax.set_title(f"difference filter under {spec}")
    fig.tight_layout()
    return fig


def plot_norm_ratios(ratios: Mapping[str, np.ndarray], *, lo: float = 0.5, hi: float = 1.5):
    """Histogram of ``|E_A| / |E_B|`` per model (the paper's Figure 10), clipped to [lo, hi]."""
    figures.set_theme()
    colors = figures.model_colors(list(ratios))
    fig, axes = plt.subplots(1, len(ratios), figsize=(3.0 * len(ratios), 2.8), squeeze=False)
    for ax, (m, r) in zip(axes[0], ratios.items()):
        sns.histplot(x=np.clip(r[np.isfinite(r)], lo, hi), bins=np.linspace(lo, hi, 42), color=colors[m], ax=ax)
        ax.axvline(1, color="k", ls="--", lw=0.8)
        ax.set_title(m, fontsize=10)
        ax.set_xlabel("|E_A| / |E_B|", fontsize=9)
        ax.set_ylabel("")
    axes[0][0].set_ylabel("samples")
    fig.tight_layout()
    return fig
