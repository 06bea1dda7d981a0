"""Part IV's figures: score matrices, the metrics with their intervals (seaborn, through
:mod:`compsem.figures`), and the sentence-space maps with their zoomed panels (Figure 1 of the
paper). Each function draws one figure and returns it; chapters call ``plt.show()``."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..figures import PALETTE, heatmap, interval_plot
from .data import Pool
from .space import Layout, basis_colours, zoom_window
from .study import REFERENCE

__all__ = [
    "reference_matrix",
    "score_matrices",
    "mean_scores_heatmap",
    "metric_intervals",
    "space_maps",
    "zoom_maps",
    "plot_space",
    "plot_zoom",
]


def _grid(n: int, width: float, height: float):
    ncol = min(3, n)
    nrow = int(np.ceil(n / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(width * ncol, height * nrow), squeeze=False)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    return fig, axes


def reference_matrix(pool: Pool, R_ref):
    """The reference matrix, sentences ordered by cluster (grey lines between clusters)."""
    order = pool.cluster_order()
    fig, ax = plt.subplots(figsize=(5.6, 5))
    im = ax.imshow(R_ref[np.ix_(order, order)], cmap="magma", vmin=0, vmax=1, interpolation="nearest")
    for b in np.flatnonzero(np.diff(pool.clusters[order])) + 0.5:
        ax.axhline(b, color="0.5", lw=0.3)
        ax.axvline(b, color="0.5", lw=0.3)
    ax.set_xlabel("hypothesis $s_j$ (ordered by cluster)")
    ax.set_ylabel("premise $s_i$")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="$R_{ref}(i, j)$", shrink=0.8)
    return fig


def score_matrices(pool: Pool, panels: dict, *, first_clusters: int | None = None):
    """One panel per matrix (name -> R), sentences ordered by cluster; with ``first_clusters``
    only the first clusters, with lines between them."""
    order = pool.cluster_order()
    sel = order
    if first_clusters is not None:
        first = np.unique(pool.clusters[order])[:first_clusters]
        sel = order[np.isin(pool.clusters[order], first)]
    fig, axes = _grid(len(panels), 3.6, 3.5)
    for ax, (name, R) in zip(axes.flat, panels.items()):
        im = ax.imshow(R[np.ix_(sel, sel)], cmap="magma", vmin=0, vmax=1, interpolation="nearest")
        if first_clusters is not None:
            for b in np.flatnonzero(np.diff(pool.clusters[sel])) + 0.5:
                ax.axhline(b, color="0.6", lw=0.6)
                ax.axvline(b, color="0.6", lw=0.6)
        ax.set_title(name, fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
    fig.colorbar(im, ax=axes, shrink=0.6, label="R(i, j)")
    return fig


def mean_scores_heatmap(table: pd.DataFrame):
    """Mean R per pair category (rows) and model (columns), annotated (seaborn heat map)."""
    fig, ax = plt.subplots(figsize=(1.2 * table.shape[1] + 3.2, 0.45 * table.shape[0] + 1.6))
    heatmap(
        table.rename(index=lambda c: c.replace("_reversed", " (rev.)").replace("_", " ")),
        ax=ax,
        vmin=0,
        vmax=1,
        cbar_label="mean R(i, j)",
    )
    ax.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    return fig


def metric_intervals(tab: pd.DataFrame):
    """RSA with the reference and sparsity per model and space with their cluster-bootstrap
    intervals (:func:`compsem.figures.interval_plot`), the reference's own row left out."""
    sub = tab[tab.scorer != REFERENCE]
    n = sub.scorer.nunique()
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.55 * n + 1.8))  # not sharey: each call inverts its y axis
    colors = {"rel": PALETTE[0], "dis": PALETTE[1]}
    for ax, metric, label in zip(
        axes, ["rsa", "sparsity"], ["RSA with the reference (Pearson $r$)", r"sparsity $\|1 - D\|_1 / N^2$"]
    ):
        low, high = (f"{metric}_low", f"{metric}_high") if f"{metric}_low" in sub else (metric, metric)
        interval_plot(
            sub.assign(space=sub.space.map({"rel": "D_rel", "dis": "D_dis"})),
            x="scorer",
            y=metric,
            low=low,
            high=high,
            hue="space",
            horizontal=True,
            ax=ax,
            dodge=0.25,
            colors={"D_rel": colors["rel"], "D_dis": colors["dis"]},
            xlabel=label,
            ylabel="",
        )
    axes[0].get_legend().remove()
    axes[1].tick_params(labelleft=False)
    fig.tight_layout()
    return fig


def plot_space(ax, xy, colours, basis=None, *, title: str = "", size: float = 18):
    """Scatter the sentences on a grey background in their RGB colours; ring the basis."""
    ax.set_facecolor("0.55")
    ax.grid(False)
    ax.scatter(xy[:, 0], xy[:, 1], c=colours, s=size, edgecolors="none")
    if basis is not None:
        for b, col in zip(basis, ("red", "green", "blue")):
            ax.scatter(*xy[b], s=size * 6, facecolors="none", edgecolors=col, linewidths=1.5)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=10)
    return ax


def plot_zoom(ax, xy, texts, colours, closeness, idx, *, min_font: float = 6, max_font: float = 12, wrap: int = 44):
    """Print the sentences ``idx`` beside their map positions, font size growing with
    ``closeness`` in [0, 1] and text in their RGB colour, on white.

    Labels are spread evenly over the panel's height in the order of the points' y coordinate
    and joined to their point by a thin line, so that sentences at (almost) the same position
    stay readable.
    """
    idx = np.asarray(idx)
    pts = xy[idx]
    c = np.clip(np.asarray(closeness, dtype=float)[idx], 0, 1)
    span = max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1]), 1e-6)
    y0, y1 = pts[:, 1].min() - 0.1 * span, pts[:, 1].max() + 0.1 * span
    label_y = np.empty(len(idx))
    label_y[np.argsort(pts[:, 1], kind="stable")] = np.linspace(y0, y1, len(idx))
    label_x = pts[:, 0].max() + 0.25 * span
    ax.set_facecolor("white")
    ax.grid(False)
    for k, i in enumerate(idx):
        col = np.asarray(colours[i], dtype=float)
        ax.plot([pts[k, 0], label_x], [pts[k, 1], label_y[k]], color="0.8", lw=0.6, zorder=1)
        ax.scatter(*pts[k], color=col, s=25, edgecolors="0.4", linewidths=0.5, zorder=2)
        ax.text(
            label_x,
            label_y[k],
            textwrap.fill(texts[i], wrap),
            fontsize=min_font + (max_font - min_font) * c[k],
            color=col,
            ha="left",
            va="center",
        )
    ax.set_xlim(pts[:, 0].min() - 0.1 * span, label_x + 1.6 * span)
    ax.set_ylim(y0 - 0.08 * span, y1 + 0.08 * span)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def space_maps(maps: dict[tuple[str, str], Layout], basis, space: str):
    """The maps of one space (``"rel"`` or ``"dis"``), one panel per model, coloured by the
    three basis sentences (circled) when all three have scores."""
    keys = [k for k in maps if k[1] == space]
    fig, axes = _grid(len(keys), 3.4, 3.4)
    for ax, key in zip(axes.flat, keys):
        lay = maps[key]
        b = lay.basis(basis) if lay.valid[basis].all() else None
        plot_space(ax, lay.xy, basis_colours(lay.D, b if b is not None else []), b, title=key[0], size=14)
    fig.tight_layout()
    return fig


def zoom_maps(maps: dict[tuple[str, str], Layout], pool: Pool, basis, model: str, *, k: int = 10):
    """Zoomed panels around the red basis sentence for the reference and ``model``, in each
    space they have: the ``k`` nearest sentences on the map, printed."""
    panels = [(n, sp) for sp in ("rel", "dis") for n in (REFERENCE, model) if (n, sp) in maps]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 5.4 * len(panels)), squeeze=False)
    for ax, (name, sp) in zip(axes[:, 0], panels):
        lay = maps[(name, sp)]
        b = lay.basis(basis)
        cols = basis_colours(lay.D, b)
        texts = [pool.texts[i] for i in np.flatnonzero(lay.valid)]
        plot_zoom(
            ax, lay.xy, texts, 0.85 * cols, cols.max(axis=1), zoom_window(lay.xy, b[0], k=k), min_font=8.5, max_font=13
        )  # the smallest text must stay readable on the page
        ax.set_title(f"{name}, D_{sp}: around the red basis sentence", fontsize=10)
    fig.tight_layout()
    return fig
