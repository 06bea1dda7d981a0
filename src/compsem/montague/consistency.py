"""The three metamorphic tests on one model's embeddings (:func:`run_tests`), under one reading
(:data:`~compsem.montague.metrics.READINGS`): ``"official"``, the authors' code, which produced
the published numbers, or ``"equations"``, Eq. 3/5/7 as printed. Nothing here embeds:
:mod:`.study` embeds the words and phrases (:class:`Embedded`) and re-exports these names.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .data import PhraseSet, Vocabulary
from .metrics import (
    READINGS,
    TIE_TOL,
    Rules,
    _check_distance,
    closer_than_all,
    non_subsectivity,
    pair_intersectivity,
    pairwise_distance,
    rules_for,
    single_intersectivity,
    within_adjective_distances,
)

__all__ = ["Embedded", "MontagueResult", "reading_label", "run_tests"]


@dataclass
class Embedded:
    """The embeddings a model gives the words and phrases of one :class:`PhraseSet`.

    ``words`` (A + N, d): adjectives then nouns; ``an`` (A, N, d); ``aan`` (K, d) and ``aa``
    (A (A-1), d), the AA sub-phrases, or None when the AAN set was not requested. ``strings``
    says how the texts were written.
    """

    model: str
    words: np.ndarray
    an: np.ndarray
    aan: np.ndarray | None = None
    seconds: float = 0.0
    aa: np.ndarray | None = None
    strings: str = "official"


def reading_label(reading: str | Rules) -> str:
    """``"official"`` or ``"equations"`` when the rules are exactly one reading's, else a label
    naming the rules that differ from the official reading (e.g. ``"official, strict=False"``)."""
    rules = rules_for(reading)
    for name in READINGS:
        if rules == rules_for(name):
            return name
    base = rules_for("official")
    diff = [
        f"{k}={getattr(rules, k)}"
        for k in ("aan_reference", "pair_nouns", "strict")
        if getattr(rules, k) != getattr(base, k)
    ]
    return "official, " + ", ".join(diff)


@dataclass
class MontagueResult:
    """Truth arrays of the three tests for one model under one reading.

    ``single_an`` (A, N); ``single_aan`` (A, A, N) with NaN on ``a1 == a2`` (None if AAN was not
    run); ``pairs`` and ``pair_ties`` (A, A, N, N) (NaN on excluded entries); ``nonsub`` (A, N);
    ``reading`` the label of the rules (:func:`reading_label`), ``rules`` the rules themselves,
    ``strings`` how the texts were written; ``an_distances`` holds the (A, N) distances
    ``phrase_adj`` d(a n, a), ``phrase_noun`` d(a n, n) and ``adj_noun`` d(a, n) the AN tests
    read; ``nan_embeddings`` counts words/phrases whose embedding was zero or NaN.
    """

    model: str
    distance: str
    vocab: Vocabulary
    single_an: np.ndarray
    pairs: np.ndarray
    pair_ties: np.ndarray
    nonsub: np.ndarray
    single_aan: np.ndarray | None = None
    an_distances: dict = field(default_factory=dict)
    nan_embeddings: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    reading: str = "official"
    rules: Rules = field(default_factory=Rules)
    strings: str = "official"
    nonsub_ties: np.ndarray | None = None
    dim: int = 0


def _degenerate_rows(X: np.ndarray) -> int:
    X = X.reshape(-1, X.shape[-1])
    return int(np.sum(~np.isfinite(X).all(axis=1) | ~(np.abs(X).sum(axis=1) > 0)))


def _aan_references(emb: Embedded, phrases: PhraseSet, rules: Rules, D_ww: np.ndarray, distance: str) -> np.ndarray:
    """(K, m) distances each d(p, t_i) of AAN phrase p is compared with under ``rules``."""
    A, N = phrases.vocab.n_adj, phrases.vocab.n_noun
    a1, a2, n = phrases.aan_a1, phrases.aan_a2, phrases.aan_n
    if rules.aan_reference == "words":  # Eq. 3: d(a1, a2), d(a1, n), d(a2, n)
        return np.stack([D_ww[a1, a2], D_ww[a1, A + n], D_ww[a2, A + n]], axis=1)
    if emb.aa is None:
        raise ValueError("the official reading of test I needs the AA sub-phrases; embed with sets=('AN', 'AAN')")
    # word -> rest of the phrase embedded as a phrase: d(a1, "a2 n"), d(a2, "a1 n"), d(n, "a1 a2")
    D_w_an = pairwise_distance(emb.words, emb.an.reshape(A * N, -1), distance)  # (W, A N)
    aa_pos = np.full((A, A), -1)
    aa_pos[phrases.aa_a1, phrases.aa_a2] = np.arange(len(phrases.aa))
    D_n_aa = pairwise_distance(emb.words[A:], emb.aa, distance)  # (N, A)
    return np.stack([D_w_an[a1, a2 * N + n], D_w_an[a2, a1 * N + n], D_n_aa[n, aa_pos[a1, a2]]], axis=1)


def run_tests(
    emb: Embedded,
    vocab: Vocabulary,
    phrases: PhraseSet | None = None,
    *,
    reading: str | Rules = "official",
    distance: str = "cos",
) -> MontagueResult:
    """All three tests for one model's embeddings under ``reading`` (AAN only if ``emb.aan`` is
    present).

    ``reading`` is ``"official"`` (the authors' code, default), ``"equations"`` (Eq. 3/5/7 as
    printed) or a :class:`~compsem.montague.metrics.Rules` (one rule switched at a time, see
    :func:`~compsem.montague.metrics.rules_for`). The AAN tests need the :class:`PhraseSet`.
    """
    _check_distance(distance)
    rules = rules_for(reading)
    A, N = vocab.n_adj, vocab.n_noun
    secs = {}
    t0 = time.perf_counter()
    D_ww = pairwise_distance(emb.words, emb.words, distance)  # (W, W)
    an_flat = emb.an.reshape(A * N, -1)
    D_an_w = pairwise_distance(an_flat, emb.words, distance)  # (A N, W)
    a_idx, n_idx = np.divmod(np.arange(A * N), N)
    terms_an = np.stack([a_idx, A + n_idx], axis=1)
    single_an = single_intersectivity(D_an_w, D_ww, terms_an).reshape(A, N)  # same in both readings
    secs["single_an"] = time.perf_counter() - t0

    single_aan = None
    if emb.aan is not None:
        if phrases is None:
            raise ValueError("run_tests needs the PhraseSet to read the AAN index arrays")
        t0 = time.perf_counter()
        a1, a2, n = phrases.aan_a1, phrases.aan_a2, phrases.aan_n
        rows = np.arange(len(a1))
        D_aan_w = pairwise_distance(emb.aan, emb.words, distance)  # (K, W)
        d_near = np.stack([D_aan_w[rows, a1], D_aan_w[rows, a2], D_aan_w[rows, A + n]], axis=1)
        d_far = _aan_references(emb, phrases, rules, D_ww, distance)
        single_aan = np.full((A, A, N), np.nan)
        single_aan[a1, a2, n] = closer_than_all(d_near, d_far)
        secs["single_aan"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    d_within = within_adjective_distances(emb.an, distance)  # (A, N, N)
    pairs, ties = pair_intersectivity(d_within, strict=rules.strict, nouns=rules.pair_nouns)
    secs["pairs"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    rows = np.arange(A * N)
    nonsub = non_subsectivity(D_an_w[rows, a_idx], D_an_w[rows, A + n_idx], strict=rules.strict).reshape(A, N)
    secs["nonsub"] = time.perf_counter() - t0

    nan_emb = {"words": _degenerate_rows(emb.words), "AN": _degenerate_rows(emb.an)}
    if emb.aan is not None:
        nan_emb["AAN"] = _degenerate_rows(emb.aan)
    an_d = {
        "phrase_adj": D_an_w[rows, a_idx].reshape(A, N),
        "phrase_noun": D_an_w[rows, A + n_idx].reshape(A, N),
        "adj_noun": D_ww[a_idx, A + n_idx].reshape(A, N),
    }
    with np.errstate(invalid="ignore"):  # a NaN distance is no tie (its phrase is undefined)
        ns_ties = np.abs(an_d["phrase_adj"] - an_d["phrase_noun"]) <= TIE_TOL
    return MontagueResult(
        emb.model,
        distance,
        vocab,
        single_an,
        pairs,
        ties,
        nonsub,
        single_aan,
        an_d,
        nan_emb,
        secs,
        reading_label(rules),
        rules,
        emb.strings,
        ns_ties,
        int(emb.words.shape[1]),
    )
