"""One look for every statistical figure of the book (seaborn underneath).

Chapters call :func:`set_theme` once (the book's font sizes, a white grid, the colour-blind
safe palette) and draw with seaborn directly (``sns.heatmap``, ``sns.histplot(hue=...)``,
``sns.pointplot``, ``sns.FacetGrid``) or with the two helpers here, which cover what seaborn
does not do in one call:

* :func:`interval_plot` — point estimates with *precomputed* intervals (bootstrap CIs from the
  library), one colour per model, optionally a reference line (chance, the paper's value);
* :func:`heatmap` — ``sns.heatmap`` with the book's defaults (annotated cells, a diverging map
  centred on a reference value when one is given, a labelled colour bar);
* :func:`plane_plot` — three vectors drawn in the plane of the first two (the toolkit's and
  Part I's picture of where a sentence falls between two others).

Every model keeps its colour across chapters (:func:`model_colors`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .measures import plane_geometry

__all__ = [
    "PALETTE",
    "FONT_SIZES",
    "set_theme",
    "model_colors",
    "interval_plot",
    "heatmap",
    "plane_plot",
    "strip_plot",
    "subplot_grid",
    "shown",
]

# seaborn 0.13.2 calls a matplotlib method that matplotlib 3.11 marks for deprecation; the
# warning says nothing to a reader of the book.
warnings.filterwarnings("ignore", message="The set_bad function", category=PendingDeprecationWarning)

#: The colour-blind-safe palette (seaborn's "colorblind", Okabe–Ito-like).
PALETTE: list = sns.color_palette("colorblind")

#: Font sizes that stay readable when a 6.4-inch-wide figure is shown in the book's content column.
FONT_SIZES: dict[str, float] = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "legend.title_fontsize": 10,
    "figure.titlesize": 13,
}

#: Models that appear in the default book, in the order they get colours.
_FIXED_ORDER: tuple[str, ...] = ("sbert-mini", "use", "glove-50d", "bow", "sbert-l", "random", "lexical")


def set_theme() -> None:
    """The book's look: seaborn's white grid, the colour-blind palette, :data:`FONT_SIZES`."""
    sns.set_theme(
        context="notebook",
        style="whitegrid",
        palette=PALETTE,
        rc={**FONT_SIZES, "figure.dpi": 100, "savefig.dpi": 100, "axes.titleweight": "normal"},
    )


def model_colors(models: Sequence[str]) -> dict[str, tuple]:
    """A colour per model: the default panel always gets the same colours, other specs the
    next free ones in order of appearance."""
    out: dict[str, tuple] = {}
    fixed = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(_FIXED_ORDER)}
    free = iter(PALETTE[len(_FIXED_ORDER) % len(PALETTE) :] + PALETTE[: len(_FIXED_ORDER) % len(PALETTE)])
    for m in dict.fromkeys(models):
        out[m] = fixed.get(m) or next(free, PALETTE[len(out) % len(PALETTE)])
    return out


def interval_plot(
    data: pd.DataFrame,
    *,
    x: str,
    y: str,
    low: str,
    high: str,
    hue: str | None = None,
    ax=None,
    reference: float | None = None,
    reference_label: str | None = None,
    horizontal: bool = False,
    dodge: float = 0.15,
    colors: Mapping[str, tuple] | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
):
    """Estimates with their intervals, one marker and error bar per row of ``data``.

    Parameters
    ----------
    data : DataFrame
        One row per estimate, with columns ``x`` (category), ``y`` (estimate), ``low``, ``high``
        (interval ends) and optionally ``hue`` (e.g. the model).
    horizontal : bool
        Categories on the y axis (long labels read better that way).
    reference : float, optional
        A dashed line at this value (chance, no effect, the paper's number).

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    cats = list(dict.fromkeys(data[x]))
    groups = list(dict.fromkeys(data[hue])) if hue else [None]
    colors = dict(colors or model_colors([g for g in groups if g is not None]))
    offsets = (np.arange(len(groups)) - (len(groups) - 1) / 2) * dodge
    for off, g in zip(offsets, groups):
        part = data if g is None else data[data[hue] == g]
        pos = np.array([cats.index(c) for c in part[x]], dtype=float) + off
        est = part[y].to_numpy(float)
        err = np.vstack([est - part[low].to_numpy(float), part[high].to_numpy(float) - est])
        color = colors.get(g, PALETTE[0]) if g is not None else PALETTE[0]
        if horizontal:
            ax.errorbar(est, pos, xerr=err, fmt="o", color=color, capsize=3, label=g)
        else:
            ax.errorbar(pos, est, yerr=err, fmt="o", color=color, capsize=3, label=g)
    ticks = np.arange(len(cats))
    if horizontal:
        ax.set_yticks(ticks, cats)
        ax.invert_yaxis()
    else:
        ax.set_xticks(ticks, cats)
    if reference is not None:
        (ax.axvline if horizontal else ax.axhline)(reference, color="0.3", ls="--", lw=1, label=reference_label)
    if hue or reference_label:
        ax.legend(frameon=False, loc="best")
    ax.set_xlabel(xlabel if xlabel is not None else (y if horizontal else x))
    ax.set_ylabel(ylabel if ylabel is not None else (x if horizontal else y))
    if title:
        ax.set_title(title)
    return ax


def heatmap(
    matrix: pd.DataFrame,
    *,
    ax=None,
    fmt: str = ".2f",
    center: float | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    cbar_label: str | None = None,
    cmap: str | None = None,
    annot: bool | pd.DataFrame = True,
    title: str | None = None,
    annot_size: float = 10,
    cbar: bool = True,
):
    """``sns.heatmap`` with the book's defaults.

    A sequential map (``"viridis"``) by default; a diverging one (``"vlag"``) centred on
    ``center`` when it is given (e.g. 0 for differences, 0.5 for a pair test). NaN cells stay
    blank and are not annotated. ``annot`` may be a frame of strings shaped like ``matrix``:
    the cells then show those texts (e.g. raw values over colours scaled per column).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 0.45 * len(matrix) + 1.6))
    cmap = cmap or ("vlag" if center is not None else "viridis")
    if isinstance(annot, pd.DataFrame):
        annot, fmt = annot.reindex(index=matrix.index, columns=matrix.columns).fillna("").to_numpy(str), ""
    sns.heatmap(
        matrix.astype(float),
        ax=ax,
        annot=annot,
        fmt=fmt,
        center=center,
        vmin=vmin,
        vmax=vmax,
        cmap=cmap,
        linewidths=0.5,
        linecolor="white",
        annot_kws={"size": annot_size},
        cbar=cbar,
        cbar_kws=({"label": cbar_label} if cbar_label else None) if cbar else None,
    )
    ax.set_xlabel(matrix.columns.name or "")
    ax.set_ylabel(matrix.index.name or "")
    if title:
        ax.set_title(title)
    return ax


def plane_plot(a, b, v, *, ax=None, labels: Sequence[str] = ("A", "B", "P(C)"), title: str | None = None):
    """Arrows from the origin to ``a``, ``b`` and the projection of ``v``, in the plane of ``a``
    and ``b`` (coordinates of :func:`compsem.measures.plane_geometry`: ``a`` on the horizontal
    axis, ``b`` in the upper half). ``a``, ``b``, ``v`` are ``(d,)`` vectors.

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(3.2, 3.2))
    g = plane_geometry(a, b, np.stack([np.asarray(a), np.asarray(b), np.asarray(v)]), warn=False)
    for x, y, label, color in zip(g.x, g.y, labels, PALETTE):
        ax.annotate("", xy=(x, y), xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": color, "lw": 2})
        ax.text(x, y, f" {label}", color=color)
    lim = 1.15 * float(np.nanmax(np.hypot(g.x, g.y)))
    ax.set_xlim(-0.25 * lim, lim)
    ax.set_ylim(-0.25 * lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color="0.85", lw=0.8)
    ax.axvline(0, color="0.85", lw=0.8)
    ax.set_xlabel("along A")
    ax.set_ylabel("towards B, orthogonal to A")
    if title:
        ax.set_title(title)
    return ax


def strip_plot(
    data: pd.DataFrame,
    *,
    x: str,
    y: str,
    order: Sequence[str] | None = None,
    ax=None,
    reference: float | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    width: float = 0.4,
):
    """One point per row of ``data`` in its group ``x`` (spread evenly across ``width``, not
    jittered at random, so the figure is the same at every build) and a black bar at each
    group's mean; optionally a dotted line at ``reference``. Returns the Axes."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.2))
    order = list(order) if order is not None else list(dict.fromkeys(data[x]))
    for k, g in enumerate(order):
        vals = data.loc[data[x] == g, y].to_numpy(float)
        vals = vals[np.isfinite(vals)]  # an undefined score is not drawn
        if vals.size:
            spread = np.linspace(-width / 2, width / 2, vals.size) if vals.size > 1 else np.zeros(1)
            ax.scatter(k + spread, vals, s=14, color=PALETTE[k % len(PALETTE)])
            ax.hlines(vals.mean(), k - 0.75 * width, k + 0.75 * width, color="black")
    if reference is not None:
        ax.axhline(reference, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(len(order)), order)
    ax.set_xlabel(xlabel if xlabel is not None else x)
    ax.set_ylabel(ylabel if ylabel is not None else y)
    if title:
        ax.set_title(title)
    return ax


def subplot_grid(n: int, *, ncol: int = 2, panel: tuple[float, float] = (4.2, 3.9)):
    """A figure with ``n`` panels, ``ncol`` to a row (fewer when ``n`` is smaller), each
    ``panel`` inches; the unused cells of the last row are switched off. Returns
    ``(fig, axes)`` with ``axes`` the list of the ``n`` panels in reading order."""
    if n < 1:
        raise ValueError(f"subplot_grid needs at least one panel, got {n}")
    ncol = min(n, ncol)
    nrow = -(-n // ncol)
    fig, grid = plt.subplots(nrow, ncol, figsize=(panel[0] * ncol, panel[1] * nrow), squeeze=False)
    axes = list(grid.flat)
    for ax in axes[n:]:
        ax.axis("off")
    return fig, axes[:n]


def shown(fig):
    """Close ``fig`` in pyplot and return it: a chapter cell that ends with ``figures.shown(fig)``
    (or a report function that returns it) shows the figure once, not twice."""
    plt.close(fig)
    return fig
