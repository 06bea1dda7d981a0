"""Small shared helpers of Part III's tests: a subset of the shipped vocabulary, cosine
distance written out, unit vectors at given angles, a seeded fake encoder."""

from __future__ import annotations

import math

import numpy as np

from compsem.montague import data
from tests.helpers.fake_encoders import seeded_embed_fn


def small_vocab(n_nouns: int = 4) -> data.Vocabulary:
    """Two adjectives of each class (the first two in the shipped list) and the first nouns."""
    full = data.load_vocabulary()
    pick = [i for c in data.CATEGORIES for i in [j for j, k in enumerate(full.categories) if k == c][:2]]
    return data.Vocabulary(
        [full.adjectives[i] for i in pick], [full.categories[i] for i in pick], list(full.nouns[:n_nouns])
    )


def cosd(u, v) -> float:
    u, v = np.asarray(u, float), np.asarray(v, float)
    return 1.0 - float(u @ v) / math.sqrt(float(u @ u) * float(v @ v))


def unit(deg: float) -> list[float]:
    """A unit vector at ``deg`` degrees: cosine distance between two of them is 1 - cos(Δ)."""
    return [math.cos(math.radians(deg)), math.sin(math.radians(deg))]


def fake_embed(dim: int = 6, seed: int = 0):
    return seeded_embed_fn(dim=dim, seed=seed)
