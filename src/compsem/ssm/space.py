"""The sentence-space map: 2-D metric MDS of a distance matrix, RGB colours from three basis
sentences, the neighbourhood of a sentence on the map (paper Section 2.6, Figure 1). The
drawing is in :mod:`compsem.ssm.plots`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.manifold import MDS

from .metrics import distances


def mds_layout(D, *, seed: int = 0, n_init: int = 4, max_iter: int = 300) -> tuple[np.ndarray, float]:
    """Metric MDS of a precomputed distance matrix into 2-D.

    The diagonal is set to 0 first (a sentence is at distance 0 from itself; D_dis has 1 there
    by definition) and D is symmetrised. Returns (xy (N, 2), Kruskal stress-1 of the fit).
    """
    D = np.asarray(D, dtype=float).copy()
    if np.isnan(D).any():
        raise ValueError(f"D has {int(np.isnan(D).sum())} NaN entries; drop those sentences first")
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    mds = MDS(
        n_components=2,
        metric="precomputed",
        metric_mds=True,
        n_init=n_init,
        init="random",
        max_iter=max_iter,
        random_state=seed,
        normalized_stress="auto",
    )
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


def zoom_window(xy, centre: int, *, k: int = 12) -> np.ndarray:
    """Indices of the ``k`` sentences nearest (in the MDS plane) to sentence ``centre``."""
    d = np.linalg.norm(xy - xy[centre], axis=1)
    return np.argsort(d, kind="stable")[:k]


def mates_near(xy, centre: int, clusters, *, k: int = 12) -> tuple[int, int]:
    """Of the sentences in :func:`zoom_window`'s ``k`` nearest to ``centre`` other than ``centre``
    itself, how many there are and how many share its cluster (``clusters`` aligned with the rows
    of ``xy``): ``(others, mates)``."""
    clusters = np.asarray(clusters)
    if len(clusters) != len(xy):
        raise ValueError(f"clusters has {len(clusters)} entries for {len(xy)} points")
    near = zoom_window(xy, centre, k=k)
    others = near[near != centre]
    return len(others), int((clusters[others] == clusters[centre]).sum())


@dataclass
class Layout:
    """A 2-D map of one model's space: ``xy`` (n, 2) for the ``valid`` sentences (mask over the
    pool), the distances ``D`` (n, n) it was fitted to, and Kruskal's stress-1 of the fit."""

    xy: np.ndarray
    D: np.ndarray
    valid: np.ndarray
    stress1: float

    def basis(self, basis) -> np.ndarray:
        """Positions of the pool's ``basis`` sentences among the valid ones."""
        return np.searchsorted(np.flatnonzero(self.valid), np.asarray(basis))


def layouts(scored: dict, *, seed: int = 0) -> dict[tuple[str, str], Layout]:
    """A :class:`Layout` per (model, space) of ``scored`` (name -> :class:`~compsem.ssm.study.Scored`),
    leaving out each model's sentences without scores."""
    out = {}
    for name, s in scored.items():
        v = s.valid
        for sp, D in distances(s.R[np.ix_(v, v)], symmetric=s.symmetric).items():
            xy, stress = mds_layout(D, seed=seed)
            out[(name, sp)] = Layout(xy, D, v, stress)
    return out
