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


def plot_zoom(ax, xy, texts, colours, closeness, idx, *, min_font: float = 5, max_font: float = 11,
              wrap: int = 38):
    """Write the sentences ``idx`` at their MDS positions, font size growing with ``closeness``
    (e.g. the largest 1 - D to a basis sentence), coloured by their RGB colour."""
    import textwrap

    idx = np.asarray(idx)
    ax.set_facecolor("0.35")
    c = np.clip(np.asarray(closeness, dtype=float)[idx], 0, 1)
    for k, i in enumerate(idx):
        ax.text(xy[i, 0], xy[i, 1], textwrap.fill(texts[i], wrap), fontsize=min_font + (max_font - min_font) * c[k],
                color=colours[i], ha="center", va="center")
    pad = 0.15 * max(np.ptp(xy[idx, 0]), np.ptp(xy[idx, 1]), 1e-3)
    ax.set_xlim(xy[idx, 0].min() - 3 * pad, xy[idx, 0].max() + 3 * pad)
    ax.set_ylim(xy[idx, 1].min() - pad, xy[idx, 1].max() + pad)
    ax.set_xticks([]); ax.set_yticks([])
    return ax
