"""Part III's figures: the type-pair heat maps, the set diagrams of the four adjective classes,
consistency per class with intervals, and each adjective's score (:mod:`.report` re-exports
them; the styling is :mod:`compsem.figures`'s, as in every Part)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..figures import heatmap, interval_plot, model_colors, strip_plot, subplot_grid
from .data import CATEGORIES
from .tables import as_matrix

__all__ = ["plot_type_matrix", "plot_set_diagrams", "plot_type_matrices", "plot_classes", "plot_adjective_scores"]


def plot_type_matrix(
    matrix: pd.DataFrame,
    ax,
    *,
    title: str = "",
    vmin: float = 0.0,
    vmax: float = 1.0,
    cmap: str | None = None,
    fmt: str = ".2f",
    center: float | None = None,
    span: float | None = None,
    fontsize: float = 9,
):
    """Draw a 5 × 5 type-pair matrix (:func:`as_matrix`) as an annotated heat map on ``ax``
    (:func:`compsem.figures.heatmap`, seaborn).

    ``center`` switches to a diverging map around that value (for differences); its colour range
    is ``center ± span`` (default: the largest deviation in the matrix). Pass the same ``span``
    to panels that readers should compare by colour. ``fmt`` is a format spec (``".2f"``,
    ``"+.2f"``; ``"{:.2f}"`` is accepted too); ``fontsize`` is that of the cell values."""
    vals = matrix.to_numpy(dtype=float)
    if center is not None:
        if span is None:
            span = np.nanmax(np.abs(vals - center)) if np.isfinite(vals).any() else 1.0
        span = span or 1.0
        vmin, vmax = center - span, center + span
    spec = fmt[2:-1] if fmt.startswith("{:") and fmt.endswith("}") else fmt
    m = matrix.copy()
    m.index.name, m.columns.name = "type of a1", "type of a2"
    heatmap(
        m, ax=ax, fmt=spec, center=center, vmin=vmin, vmax=vmax, cmap=cmap, annot_size=fontsize, title=title or None
    )
    ax.tick_params(axis="x", labelrotation=45)
    return ax


def plot_set_diagrams(axes=None):
    """Four panels: how the phrase set P (dashed) relates to the noun set N (and the adjective
    set A) for the four adjective classes; for the intersective class P is the whole overlap
    A ∩ N."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Ellipse

    if axes is None:
        _, axes = plt.subplots(1, 4, figsize=(12, 3.2))
    specs = [
        (
            "subsective intersective\n(red dog)",
            [("N", (0.38, 0.5), 0.28, "tab:blue"), ("A", (0.62, 0.5), 0.28, "tab:orange")],
            "P = A ∩ N",
            None,  # P is the whole lens: drawn as the two arcs that bound it
            None,
        ),
        (
            "subsective non-intersective\n(skilful student)",
            [("N", (0.5, 0.5), 0.36, "tab:blue")],
            "P ⊆ N",
            (0.56, 0.44),
            (0.30, 0.26),
        ),
        (
            "privative non-subsective\n(counterfeit law)",
            [("N", (0.33, 0.5), 0.26, "tab:blue")],
            "P ∩ N = ∅",
            (0.78, 0.5),
            (0.26, 0.34),
        ),
        (
            "plain non-subsective\n(alleged king)",
            [("N", (0.38, 0.5), 0.28, "tab:blue")],
            "P ⊄ N, P ∩ N ≠ ∅",
            (0.66, 0.5),
            (0.40, 0.34),
        ),
    ]
    for ax, (title, circles, plabel, pc, pwh) in zip(axes, specs):
        for name, c, r, col in circles:
            ax.add_patch(Circle(c, r, fc=col, alpha=0.25, ec=col, lw=1.5))
            ax.text(
                c[0] + (-0.7 if name == "N" else 0.7) * r,
                c[1] + 0.75 * r,
                name,
                color=col,
                fontsize=14,
                ha="center",
                weight="bold",
            )
        if pc is None:  # P = A ∩ N: each circle's outline, dashed, clipped to the other circle
            for (_, c, r, _), (_, c_other, r_other, _) in zip(circles, circles[::-1]):
                arc = ax.add_patch(Circle(c, r, fc="none", ec="black", lw=2, ls="--"))
                clip = ax.add_patch(Circle(c_other, r_other, fc="none", ec="none"))
                arc.set_clip_path(clip)
        else:
            ax.add_patch(Ellipse(pc, *pwh, fc="none", ec="black", lw=2, ls="--"))
        ax.text(0.5, 0.02, plabel, ha="center", va="bottom", fontsize=12)
        ax.set_title(title, fontsize=12)
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.02, 0.95)
        ax.set_aspect("equal")
        ax.axis("off")
    return axes


def plot_type_matrices(cells: pd.DataFrame, models: Sequence[str], *, title: str = "{model}"):
    """One type-pair heat map (:func:`plot_type_matrix`) per model of ``cells`` (a tidy
    :func:`~compsem.montague.tables.pair_table` / ``aan_table`` frame), two to a row
    (:func:`compsem.figures.subplot_grid`). Returns the Figure."""
    fig, axes = subplot_grid(len(models), ncol=2, panel=(4.2, 3.9))
    for ax, m in zip(axes, models):
        if len(cells) and len(cells[cells.model == m]):
            plot_type_matrix(as_matrix(cells[cells.model == m]), ax, title=title.format(model=m))
    fig.tight_layout()
    return fig


def plot_classes(
    cells: pd.DataFrame,
    paper: pd.DataFrame,
    *,
    ylabel: str,
    paper_models: Sequence[str] = ("MiniLM",),
    reference: float | None = None,
    ax=None,
):
    """Consistency per adjective class and model with its interval
    (:func:`compsem.figures.interval_plot`, one colour per model across the book), the paper's
    values for ``paper_models`` as black markers."""
    cats = list(CATEGORIES)
    data = cells.assign(category=pd.Categorical(cells.category, cats)).sort_values("category")
    ax = interval_plot(
        data,
        x="category",
        y="consistency",
        low="ci_low",
        high="ci_high",
        hue="model",
        ax=ax,
        reference=reference,
        ylabel=ylabel,
        xlabel="adjective class",
        colors=model_colors(list(dict.fromkeys(cells.model))),
    )
    for pm, mk in zip(paper_models, ["x", "+", "1", "2"]):
        p = paper[paper.model == pm].set_index("category").reindex(cats)
        ax.scatter(np.arange(len(cats)), p.value, marker=mk, color="black", s=50, zorder=5, label=f"paper: {pm}")
    ax.set_ylim(-0.02, 1.05)
    ax.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    return ax


def plot_adjective_scores(scores: pd.DataFrame, *, ylabel: str, title: str = "", reference: float | None = None):
    """Each adjective's score by class with the class means (:func:`compsem.figures.strip_plot`).
    Returns the Figure."""
    fig, ax = plt.subplots(figsize=(8, 3.2))
    strip_plot(
        scores, x="category", y="score", order=list(CATEGORIES), ax=ax, reference=reference, ylabel=ylabel, title=title
    )
    fig.tight_layout()
    return fig
