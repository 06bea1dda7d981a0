"""The sentence-space picture: 2-D metric MDS of a distance matrix, RGB colours from three
basis sentences, and a zoomed panel with the sentences' text (paper Section 2.6, Figure 1)."""
from __future__ import annotations

import numpy as np


def mds_layout(D, *, seed: int = 0, n_init: int = 4, max_iter: int = 300) -> tuple[np.ndarray, float]:
    """Metric MDS of a precomputed distance matrix into 2-D.

    The diagonal is set to 0 first (a sentence is at distance 0 from itself; D_dis has 1 there
    by definition) and D is symmetrised. Returns (xy (N, 2), Kruskal stress-1 of the fit).
    """
    from sklearn.manifold import MDS

    D = np.asarray(D, dtype=float).copy()
    if np.isnan(D).any():
        raise ValueError(f"D has {int(np.isnan(D).sum())} NaN entries; drop those sentences first")
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    mds = MDS(n_components=2, metric="precomputed", metric_mds=True, n_init=n_init, init="random",
              max_iter=max_iter, random_state=seed, normalized_stress="auto")
    xy = mds.fit_transform(D)
    fitted = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=-1)
    stress1 = np.sqrt(((fitted - D) ** 2).sum() / (D**2).sum())  # Kruskal's stress-1
    return xy, float(stress1)


def pick_basis(clusters, *, seed: int = 0, k: int = 3) -> np.ndarray:
    """Indices of ``k`` basis sentences drawn with ``seed`` from ``k`` different clusters (the
    paper draws them at random; distinct clusters keep them unrelated)."""
    clusters = np.asarray(clusters)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(np.unique(clusters), size=k, replace=False)
    return np.array([rng.choice(np.flatnonzero(clusters == c)) for c in chosen])


def basis_colours(D, basis) -> np.ndarray:
    """(N, 3) RGB in [0, 1]: channel c of sentence i is 1 - D(basis_c, i), clipped."""
    D = np.asarray(D, dtype=float)
    return np.clip(1.0 - D[np.asarray(basis)].T, 0.0, 1.0)


def plot_space(ax, xy, colours, basis=None, *, title: str = "", size: float = 18):
    """Scatter the sentences on a dark background in their RGB colours; ring the basis."""
    ax.set_facecolor("0.55")
    ax.scatter(xy[:, 0], xy[:, 1], c=colours, s=size, edgecolors="none")
    if basis is not None:
        for b, col in zip(basis, ("red", "green", "blue")):
            ax.scatter(*xy[b], s=size * 6, facecolors="none", edgecolors=col, linewidths=1.5)
    ax.set_xticks([]); ax.set_yticks([])
    ax.set_title(title, fontsize=10)
    return ax


def zoom_window(xy, centre: int, *, k: int = 12) -> np.ndarray:
    """Indices of the ``k`` sentences nearest (in the MDS plane) to sentence ``centre``."""
    d = np.linalg.norm(xy - xy[centre], axis=1)
    return np.argsort(d, kind="stable")[:k]


def plot_zoom(ax, xy, texts, colours, closeness, idx, *, min_font: float = 6, max_font: float = 12,
              wrap: int = 44):
    """Print the sentences ``idx`` beside their MDS positions, font size growing with
    ``closeness`` in [0, 1] (e.g. the largest 1 - D to a basis sentence) and text in their RGB
    colour (black = close to no basis sentence) on a white background.

    Labels are spread evenly over the panel's height in the order of the points' y coordinate
    and joined to their point by a thin line, so that sentences at (almost) the same position
    stay readable.
    """
    import textwrap

    idx = np.asarray(idx)
    pts = xy[idx]
    c = np.clip(np.asarray(closeness, dtype=float)[idx], 0, 1)
    span = max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1]), 1e-6)
    y0, y1 = pts[:, 1].min() - 0.1 * span, pts[:, 1].max() + 0.1 * span
    slots = np.linspace(y0, y1, len(idx))
    label_y = np.empty(len(idx))
    label_y[np.argsort(pts[:, 1], kind="stable")] = slots
    label_x = pts[:, 0].max() + 0.25 * span
    ax.set_facecolor("white")
    for k, i in enumerate(idx):
        col = np.asarray(colours[i], dtype=float)
        ax.plot([pts[k, 0], label_x], [pts[k, 1], label_y[k]], color="0.8", lw=0.6, zorder=1)
        ax.scatter(*pts[k], color=col, s=25, edgecolors="0.4", linewidths=0.5, zorder=2)
        ax.text(label_x, label_y[k], textwrap.fill(texts[i], wrap), fontsize=min_font + (max_font - min_font) * c[k],
                color=col, ha="left", va="center")
    ax.set_xlim(pts[:, 0].min() - 0.1 * span, label_x + 1.6 * span)
    ax.set_ylim(y0 - 0.08 * span, y1 + 0.08 * span)
    ax.set_xticks([]); ax.set_yticks([])
    return ax
