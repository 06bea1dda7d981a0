"""Embed and run: the only module of Part III that calls the embedding cache."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ..cache import embed
from .data import PHRASE_SETS, PhraseSet, Vocabulary, build_phrases, load_vocabulary
from .metrics import (_check_distance, pairwise_distance, single_intersectivity,
                      within_adjective_distances, pair_intersectivity, non_subsectivity)

__all__ = ["Embedded", "MontagueResult", "embed_phrases", "run_tests", "run_models"]


@dataclass
class Embedded:
    """The embeddings a model gives the words and phrases of one :class:`PhraseSet`.

    ``words`` (A + N, d): adjectives then nouns; ``an`` (A, N, d); ``aan`` (K, d) or None when
    the AAN set was not requested.
    """

    model: str
    words: np.ndarray
    an: np.ndarray
    aan: np.ndarray | None = None
    seconds: float = 0.0


def embed_phrases(phrases: PhraseSet, model: str, *, sets: Iterable[str] = PHRASE_SETS,
                  embed_fn: Callable[[list[str], str], np.ndarray] | None = None) -> Embedded:
    """Embed all words and the requested phrase sets with **one** call to ``embed_fn``.

    ``embed_fn(texts, model)`` defaults to :func:`compsem.embed` (cached on disk, deduplicating).
    The texts are unique by construction, so the blocks are views into the one returned matrix.
    """
    sets = _check_sets(sets)
    if embed_fn is None:
        embed_fn = embed
    v = phrases.vocab
    texts = [*v.words, *phrases.an.ravel()]
    if "AAN" in sets:
        texts += list(phrases.aan)
    t0 = time.perf_counter()
    X = np.asarray(embed_fn(texts, model))
    secs = time.perf_counter() - t0
    if X.ndim != 2 or X.shape[0] != len(texts):
        raise ValueError(f"embedding function returned shape {X.shape} for {len(texts)} texts")
    W = v.n_adj + v.n_noun
    K = phrases.an.size
    return Embedded(model=model, words=X[:W], an=X[W:W + K].reshape(v.n_adj, v.n_noun, -1),
                    aan=X[W + K:] if "AAN" in sets else None, seconds=secs)


def _check_sets(sets: Iterable[str]) -> tuple[str, ...]:
    sets = (sets,) if isinstance(sets, str) else tuple(sets)
    bad = [s for s in sets if s not in PHRASE_SETS]
    if bad or not sets:
        raise ValueError(f"unknown phrase set(s) {bad or sets}; choose from {PHRASE_SETS}")
    return sets


@dataclass
class MontagueResult:
    """Truth arrays of the three tests for one model.

    ``single_an`` (A, N); ``single_aan`` (A, A, N) with NaN on ``a1 == a2`` (None if AAN was not
    run); ``pairs`` and ``pair_ties`` (A, A, N, N); ``nonsub`` (A, N); ``*_share`` the
    single-phrase test read as the share of inequalities that hold (``mode="share"``);
    ``an_distances`` holds the (A, N) distances ``phrase_adj`` d(a n, a), ``phrase_noun``
    d(a n, n) and ``adj_noun`` d(a, n) the AN tests read; ``nan_embeddings`` counts
    words/phrases whose embedding was zero or NaN.
    """

    model: str
    distance: str
    vocab: Vocabulary
    single_an: np.ndarray
    pairs: np.ndarray
    pair_ties: np.ndarray
    nonsub: np.ndarray
    single_aan: np.ndarray | None = None
    single_an_share: np.ndarray | None = None
    single_aan_share: np.ndarray | None = None
    an_distances: dict = field(default_factory=dict)
    nan_embeddings: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


def _degenerate_rows(X: np.ndarray) -> int:
    X = X.reshape(-1, X.shape[-1])
    return int(np.sum(~np.isfinite(X).all(axis=1) | ~(np.abs(X).sum(axis=1) > 0)))


def run_tests(emb: Embedded, vocab: Vocabulary, phrases: PhraseSet | None = None, *,
              distance: str = "cos") -> MontagueResult:
    """All three tests for one model's embeddings (AAN only if ``emb.aan`` is present)."""
    _check_distance(distance)
    A, N = vocab.n_adj, vocab.n_noun
    secs = {}
    t0 = time.perf_counter()
    D_ww = pairwise_distance(emb.words, emb.words, distance)                       # (W, W)
    an_flat = emb.an.reshape(A * N, -1)
    D_an_w = pairwise_distance(an_flat, emb.words, distance)                       # (A N, W)
    a_idx, n_idx = np.divmod(np.arange(A * N), N)
    terms_an = np.stack([a_idx, A + n_idx], axis=1)
    single_an = single_intersectivity(D_an_w, D_ww, terms_an).reshape(A, N)
    single_an_share = single_intersectivity(D_an_w, D_ww, terms_an, mode="share").reshape(A, N)
    secs["single_an"] = time.perf_counter() - t0

    single_aan = single_aan_share = None
    if emb.aan is not None:
        if phrases is None:
            raise ValueError("run_tests needs the PhraseSet to read the AAN index arrays")
        t0 = time.perf_counter()
        D_aan_w = pairwise_distance(emb.aan, emb.words, distance)                  # (K, W)
        terms = np.stack([phrases.aan_a1, phrases.aan_a2, A + phrases.aan_n], axis=1)
        single_aan = np.full((A, A, N), np.nan)
        single_aan_share = np.full((A, A, N), np.nan)
        single_aan[phrases.aan_a1, phrases.aan_a2, phrases.aan_n] = single_intersectivity(D_aan_w, D_ww, terms)
        single_aan_share[phrases.aan_a1, phrases.aan_a2, phrases.aan_n] = single_intersectivity(
            D_aan_w, D_ww, terms, mode="share")
        secs["single_aan"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    d_within = within_adjective_distances(emb.an, distance)                        # (A, N, N)
    pairs, ties = pair_intersectivity(d_within)
    secs["pairs"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    rows = np.arange(A * N)
    nonsub = non_subsectivity(D_an_w[rows, a_idx], D_an_w[rows, A + n_idx]).reshape(A, N)
    secs["nonsub"] = time.perf_counter() - t0

    nan_emb = {"words": _degenerate_rows(emb.words), "AN": _degenerate_rows(emb.an)}
    if emb.aan is not None:
        nan_emb["AAN"] = _degenerate_rows(emb.aan)
    an_d = {"phrase_adj": D_an_w[rows, a_idx].reshape(A, N), "phrase_noun": D_an_w[rows, A + n_idx].reshape(A, N),
            "adj_noun": D_ww[a_idx, A + n_idx].reshape(A, N)}
    return MontagueResult(emb.model, distance, vocab, single_an, pairs, ties, nonsub,
                          single_aan, single_an_share, single_aan_share, an_d, nan_emb, secs)


def run_models(models: Sequence[str], *, vocab: Vocabulary | None = None, distance: str = "cos",
               sets: Iterable[str] = PHRASE_SETS, embed_fn=None, progress: bool = True
               ) -> dict[str, MontagueResult]:
    """Embed (one cached call per model) and run all tests for each model in ``models``."""
    vocab = vocab or load_vocabulary()
    phrases = build_phrases(vocab)
    out = {}
    it = tqdm(models, desc="models") if progress else models
    for m in it:
        emb = embed_phrases(phrases, m, sets=sets, embed_fn=embed_fn)
        res = run_tests(emb, vocab, phrases, distance=distance)
        res.seconds["embed"] = emb.seconds
        out[m] = res
    return out


