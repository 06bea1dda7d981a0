"""Adjective–noun composition read through Montague semantics (Part III).

Nouns denote sets; adjectives map sets to sets. If an embedding stood in for a denotation,
set inclusion should show up as a short distance. Three metamorphic relations test that with
no gold labels (equation numbers of the modifier-consistency paper, Carvalho et al.):

* **single-phrase intersectivity** (Eq. 3–4): a phrase ``p = t1 … th`` is closer to each of its
  words than any two of its words are to each other, ``max_i d(p, t_i) <= min_{j<k} d(t_j, t_k)``;
* **phrase-pair intersectivity** (Eq. 5–6): for ``a1 != a2`` and ``n1 != n2``,
  ``d(a1 n1, a1 n2) <= d(a2 n1, a2 n2)``; over all ordered combinations a same-type cell is
  0.5 by symmetry unless distances tie;
* **non-subsectivity** (Eq. 7–8): ``d(a n, a) <= d(a n, n)``.

*Consistency* is the share of phrases (or combinations) for which a relation holds. All maths
works on whole arrays: the per-phrase truth values come from index arrays into small
precomputed distance blocks (phrase × word, word × word, and one noun × noun block per
adjective); no Python loop runs per phrase or per combination.

Truth arrays are float: 1.0 holds, 0.0 fails, NaN where a distance is undefined (a zero or
all-OOV embedding) or the combination is excluded (``a1 == a2``, ``n1 == n2``). NaNs are counted
in every table (``n_nan``), never read as failures.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from .. import paths
from ..cache import embed
from ..errors import DataError
from ..measures import cosine_distance_matrix
from ..reference import paper_table

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "DISTANCES",
    "TIE_TOL",
    "PHRASE_SETS",
    "PAPER_PHRASE_COUNT",
    "Vocabulary",
    "PhraseSet",
    "Embedded",
    "MontagueResult",
    "load_vocabulary",
    "join_phrase",
    "build_phrases",
    "expected_phrase_count",
    "embed_phrases",
    "pairwise_distance",
    "within_adjective_distances",
    "single_intersectivity",
    "pair_intersectivity",
    "non_subsectivity",
    "run_tests",
    "run_models",
    "category_table",
    "type_pair_table",
    "an_table",
    "aan_table",
    "pair_table",
    "as_matrix",
    "category_difference_tests",
    "class_tests_view",
    "CLASS_TESTS",
    "adjective_scores",
    "permutation_test",
    "chi2_test",
    "load_paper_table",
    "compare_with_paper",
    "PAPER_MODEL_OF",
    "plot_type_matrix",
    "plot_set_diagrams",
    "score_spread",
]

#: Adjective classes, in the paper's order (short names used in its tables).
CATEGORIES: tuple[str, ...] = ("S-I", "S-NI", "NS-Pl", "NS-Pr", "A")
CATEGORY_NAMES: dict[str, str] = {
    "S-I": "subsective intersective",
    "S-NI": "subsective non-intersective",
    "NS-Pl": "plain non-subsective",
    "NS-Pr": "privative non-subsective",
    "A": "ambiguous",
}
#: Distances: cosine distance ``1 - cos`` (the paper's choice) or Euclidean.
DISTANCES: tuple[str, ...] = ("cos", "l2")
PHRASE_SETS: tuple[str, ...] = ("AN", "AAN")
#: 61 adjectives × 12 nouns + 61 × 60 × 12 ordered adjective pairs (section 4.1.2 of the paper).
PAPER_PHRASE_COUNT = 44_652
#: Two distances closer than this count as equal (a tie). Distances are computed in float64
#: from float32 embeddings, so rounding error is ~1e-15; exact ties (bag-of-words vectors
#: share words) must not be split at random by that rounding.
TIE_TOL = 1e-9
#: Our panel name -> the paper's model of the same kind (same weights for sbert-mini).
PAPER_MODEL_OF: dict[str, str] = {"sbert-mini": "MiniLM", "glove-50d": "GloVe"}


# --------------------------------------------------------------------------------------------
# vocabulary and phrases
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Vocabulary:
    """Adjectives with their classes, and nouns.

    Parameters
    ----------
    adjectives, categories : sequences of str of equal length; ``categories[i]`` in
        :data:`CATEGORIES` is the class of ``adjectives[i]``.
    nouns : sequence of str.
    """

    adjectives: tuple[str, ...]
    categories: tuple[str, ...]
    nouns: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "adjectives", tuple(self.adjectives))
        object.__setattr__(self, "categories", tuple(self.categories))
        object.__setattr__(self, "nouns", tuple(self.nouns))
        if not self.adjectives:
            raise DataError("empty vocabulary: no adjectives given")
        if not self.nouns:
            raise DataError("empty vocabulary: no nouns given")
        if len(self.adjectives) != len(self.categories):
            raise DataError(
                f"{len(self.adjectives)} adjectives but {len(self.categories)} categories"
            )
        for i, c in enumerate(self.categories):
            if c not in CATEGORIES:
                raise DataError(
                    f"unknown category {c!r} for adjective {self.adjectives[i]!r}; "
                    f"expected one of {', '.join(CATEGORIES)}"
                )
        for kind, words in (("adjective", self.adjectives), ("noun", self.nouns)):
            for w in words:
                if not isinstance(w, str) or not w.strip():
                    raise DataError(f"empty {kind} in the vocabulary")
            dup = sorted({w for w in words if words.count(w) > 1})
            if dup:
                raise DataError(f"duplicate {kind}(s): {', '.join(dup)}")
        clash = set(self.adjectives) & set(self.nouns)
        if clash:
            raise DataError(f"word(s) listed both as adjective and noun: {', '.join(sorted(clash))}")

    @property
    def n_adj(self) -> int:
        return len(self.adjectives)

    @property
    def n_noun(self) -> int:
        return len(self.nouns)

    @property
    def words(self) -> list[str]:
        """Adjectives then nouns: word ``i < n_adj`` is adjective ``i``, word ``n_adj + j`` noun ``j``."""
        return [*self.adjectives, *self.nouns]

    @property
    def category_index(self) -> np.ndarray:
        """Integer class of each adjective (index into :data:`CATEGORIES`)."""
        return np.array([CATEGORIES.index(c) for c in self.categories], dtype=np.int64)

    def counts(self) -> pd.DataFrame:
        """Adjectives per class, with the class's long name and its members."""
        rows = []
        for c in CATEGORIES:
            members = [a for a, k in zip(self.adjectives, self.categories) if k == c]
            rows.append({"category": c, "name": CATEGORY_NAMES[c], "n_adjectives": len(members),
                         "adjectives": ", ".join(members)})
        return pd.DataFrame(rows)


def _read_csv_rows(path: Path, required: Sequence[str]) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise DataError("file not found", file=str(path))
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        for col in required:
            if col not in header:
                raise DataError(f"missing column (found: {', '.join(header) or 'none'})",
                                file=str(path), row=1, column=col)
        rows = [(i, r) for i, r in enumerate(reader, start=2)]  # row 1 is the header
    if not rows:
        raise DataError("empty vocabulary: the file has a header but no rows", file=str(path))
    for i, r in rows:
        for col in required:
            if r.get(col) is None or not r[col].strip():
                raise DataError("empty value", file=str(path), row=i, column=col)
    return rows


def load_vocabulary(adjectives_csv: str | Path | None = None,
                    nouns_csv: str | Path | None = None) -> Vocabulary:
    """Read ``adjectives.csv`` (columns ``adjective, category``) and ``nouns.csv`` (``noun``).

    Defaults to the shipped lists in ``data/montague/``. Malformed files raise
    :class:`~compsem.errors.DataError` naming the file, row and column.
    """
    a_path = Path(adjectives_csv) if adjectives_csv else paths.data_dir("montague", "adjectives.csv")
    n_path = Path(nouns_csv) if nouns_csv else paths.data_dir("montague", "nouns.csv")
    a_rows = _read_csv_rows(a_path, ("adjective", "category"))
    for i, r in a_rows:
        if r["category"].strip() not in CATEGORIES:
            raise DataError(f"unknown category {r['category']!r}; expected one of {', '.join(CATEGORIES)}",
                            file=str(a_path), row=i, column="category")
    n_rows = _read_csv_rows(n_path, ("noun",))
    return Vocabulary(
        adjectives=[r["adjective"].strip() for _, r in a_rows],
        categories=[r["category"].strip() for _, r in a_rows],
        nouns=[r["noun"].strip() for _, r in n_rows],
    )


def join_phrase(*words: str) -> str:
    """Join words into a phrase with single spaces, except after a prefix ending in ``-``.

    The one prefix in the list is ``ex-``: ``join_phrase("ex-", "king") == "ex-king"`` and
    ``join_phrase("red", "ex-", "king") == "red ex-king"`` (written the way English writes it,
    so the tokenizers see the familiar form). Placed first it binds to the next adjective:
    ``"ex-red king"``.
    """
    out = ""
    for w in words:
        out = out + w if (not out or out.endswith("-")) else out + " " + w
    return out


def expected_phrase_count(n_adj: int, n_noun: int) -> int:
    """``n_adj * n_noun`` AN phrases plus ``n_adj * (n_adj - 1) * n_noun`` AAN phrases."""
    return n_adj * n_noun + n_adj * (n_adj - 1) * n_noun


@dataclass(frozen=True)
class PhraseSet:
    """All AN and AAN phrases of a vocabulary, with index arrays into it.

    ``an[a, n]`` is the text of adjective ``a`` + noun ``n``. AAN phrase ``k`` is
    ``aan[k] = join(adj[aan_a1[k]], adj[aan_a2[k]], noun[aan_n[k]])`` with ``aan_a1 != aan_a2``,
    ordered by ``(a1, a2, n)``.
    """

    vocab: Vocabulary
    an: np.ndarray          # (A, N) object array of str
    aan: np.ndarray         # (K,) object array of str, K = A N
    aan_a1: np.ndarray
    aan_a2: np.ndarray
    aan_n: np.ndarray

    def __len__(self) -> int:
        return self.an.size + self.aan.size

    def frame(self) -> pd.DataFrame:
        """One row per phrase: phrase, kind (AN/AAN), adj1, adj2 (empty for AN), noun, type1, type2."""
        v = self.vocab
        A, N = v.n_adj, v.n_noun
        adj = np.array(v.adjectives, dtype=object)
        cat = np.array(v.categories, dtype=object)
        nn = np.array(v.nouns, dtype=object)
        a_an, n_an = np.divmod(np.arange(A * N), N)
        an = pd.DataFrame({"phrase": self.an.ravel(), "kind": "AN", "adj1": adj[a_an], "adj2": "",
                           "noun": nn[n_an], "type1": cat[a_an], "type2": ""})
        aan = pd.DataFrame({"phrase": self.aan, "kind": "AAN", "adj1": adj[self.aan_a1],
                            "adj2": adj[self.aan_a2], "noun": nn[self.aan_n],
                            "type1": cat[self.aan_a1], "type2": cat[self.aan_a2]})
        return pd.concat([an, aan], ignore_index=True)


def build_phrases(vocab: Vocabulary) -> PhraseSet:
    """Generate every AN phrase and every AAN phrase with two different adjectives.

    The count is checked against :func:`expected_phrase_count` (44,652 for the shipped lists).
    """
    A, N = vocab.n_adj, vocab.n_noun
    adj, nouns = vocab.adjectives, vocab.nouns
    an = np.array([[join_phrase(a, n) for n in nouns] for a in adj], dtype=object).reshape(A, N)
    a1, a2, n = (x.ravel() for x in np.meshgrid(np.arange(A), np.arange(A), np.arange(N), indexing="ij"))
    keep = a1 != a2
    a1, a2, n = a1[keep], a2[keep], n[keep]
    aan = np.array([join_phrase(adj[i], adj[j], nouns[k]) for i, j, k in zip(a1, a2, n)], dtype=object)
    ps = PhraseSet(vocab, an, aan, a1, a2, n)
    if len(ps) != expected_phrase_count(A, N):  # pragma: no cover - guards the generator itself
        raise AssertionError(f"generated {len(ps)} phrases, expected {expected_phrase_count(A, N)}")
    texts = [*vocab.words, *ps.an.ravel(), *ps.aan]
    if len(set(texts)) != len(texts):
        raise DataError("two different word combinations give the same text; check the vocabulary")
    return ps


# --------------------------------------------------------------------------------------------
# embeddings and distances
# --------------------------------------------------------------------------------------------
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


def _check_distance(distance: str) -> str:
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; choose from {', '.join(DISTANCES)}")
    return distance


def pairwise_distance(X: np.ndarray, Y: np.ndarray, distance: str = "cos", *,
                      chunk: int = 4096) -> np.ndarray:
    """Distances between the rows of ``X`` (n, d) and ``Y`` (m, d) -> (n, m), in float64.

    ``"cos"`` is :func:`compsem.measures.cosine_distance_matrix` (``1 - cos``, NaN for a zero or
    NaN row); ``"l2"`` is Euclidean (NaN for a NaN row). A tall ``X`` is processed ``chunk``
    rows at a time, so no float64 copy of all phrase vectors is made at once.
    """
    _check_distance(distance)
    X, Y = np.asarray(X), np.asarray(Y)
    if X.ndim != 2 or Y.ndim != 2:
        raise ValueError(f"pairwise_distance takes 2-d arrays, got shapes {X.shape} and {Y.shape}")
    if len(X) > chunk:
        return np.concatenate([pairwise_distance(X[i:i + chunk], Y, distance, chunk=chunk)
                               for i in range(0, len(X), chunk)], axis=0)
    if distance == "cos":
        return cosine_distance_matrix(X, Y, warn=False)
    X, Y = X.astype(np.float64), Y.astype(np.float64)
    sq = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * (X @ Y.T)
    return np.sqrt(np.clip(sq, 0.0, None))


def within_adjective_distances(an: np.ndarray, distance: str = "cos") -> np.ndarray:
    """``an`` (A, N, d) AN-phrase vectors -> (A, N, N): ``out[a, n1, n2] = d(a n1, a n2)``.

    The diagonal blocks of the (A N) × (A N) distance matrix of all AN phrases (732 × 732 for
    the shipped lists)."""
    A, N = an.shape[:2]
    D = pairwise_distance(an.reshape(A * N, -1), an.reshape(A * N, -1), distance).reshape(A, N, A, N)
    ar = np.arange(A)
    return D[ar, :, ar, :]


# --------------------------------------------------------------------------------------------
# the three relations, on distance arrays
# --------------------------------------------------------------------------------------------
def _truth(cond: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    out = cond.astype(np.float64)
    bad = np.zeros(out.shape, dtype=bool)
    for op in operands:
        bad |= np.isnan(op)
    out[bad] = np.nan
    return out


def single_intersectivity(d_phrase_word: np.ndarray, d_word_word: np.ndarray,
                          terms: np.ndarray, *, tol: float = TIE_TOL, mode: str = "all") -> np.ndarray:
    """Eq. 3: does each phrase lie closer to every one of its words than its words lie to each other?

    Parameters
    ----------
    d_phrase_word : (P, W) distance of each phrase to each vocabulary word.
    d_word_word : (W, W) distances between vocabulary words.
    terms : (P, h) integer index of phrase p's h words (h >= 2) into the vocabulary.

    mode : ``"all"`` (default, Eq. 3 as written and as the spec reads it: every inequality must
        hold) or ``"share"`` (the share of the ``h * h(h-1)/2`` inequalities ``d(p, t_i) <=
        d(t_j, t_k)`` that hold; averaging it over phrases counts inequalities rather than
        phrases, which is how the paper's Figure 1 describes its expectation).

    Returns
    -------
    (P,) float: for ``"all"`` 1.0 where ``max_i d(p, t_i) <= min_{j<k} d(t_j, t_k)`` (up to
    ``tol``), else 0.0; for ``"share"`` a value in [0, 1]. NaN if any distance involved is NaN.
    """
    if mode not in ("all", "share"):
        raise ValueError(f"mode must be 'all' or 'share', got {mode!r}")
    terms = np.asarray(terms)
    if terms.ndim != 2 or terms.shape[1] < 2:
        raise ValueError(f"terms must have shape (P, h) with h >= 2, got {terms.shape}")
    d_pt = np.take_along_axis(np.asarray(d_phrase_word), terms, axis=1)            # (P, h)
    d_tt = np.stack([d_word_word[terms[:, j], terms[:, k]]                          # (P, h(h-1)/2)
                     for j, k in combinations(range(terms.shape[1]), 2)], axis=1)
    with np.errstate(invalid="ignore"):
        if mode == "all":
            cond = d_pt.max(axis=1) <= d_tt.min(axis=1) + tol
        else:
            cond = (d_pt[:, :, None] <= d_tt[:, None, :] + tol).mean(axis=(1, 2))
    return _truth(cond, d_pt.sum(axis=1), d_tt.sum(axis=1))


def pair_intersectivity(d_within: np.ndarray, *, tol: float = TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 5 over all ordered ``(a1, a2, n1, n2)`` with ``a1 != a2`` and ``n1 != n2``.

    Parameters
    ----------
    d_within : (A, N, N); ``d_within[a, n1, n2]`` is the distance between phrases ``a n1`` and ``a n2``.

    Returns
    -------
    holds : (A, A, N, N) float, ``holds[a1, a2, n1, n2] = d_within[a1, n1, n2] <= d_within[a2, n1, n2]``;
        NaN on the excluded diagonals (``a1 == a2`` or ``n1 == n2``) and where a distance is NaN.
    ties : (A, A, N, N) bool, where the two distances are equal (within ``tol``) (both orders then hold,
        which lifts same-type cells above 0.5).
    """
    d = np.asarray(d_within, dtype=np.float64)
    if d.ndim != 3 or d.shape[1] != d.shape[2]:
        raise ValueError(f"d_within must have shape (A, N, N), got {d.shape}")
    A, N = d.shape[0], d.shape[1]
    if A < 2 or N < 2:
        raise ValueError(f"the pair test needs at least 2 adjectives and 2 nouns, got {A} and {N}")
    left, right = d[:, None], d[None, :]                                           # (A,1,N,N), (1,A,N,N)
    with np.errstate(invalid="ignore"):
        holds = _truth(left <= right + tol, left + right)
        ties = np.abs(left - right) <= tol
    excluded = np.eye(A, dtype=bool)[:, :, None, None] | np.eye(N, dtype=bool)[None, None]
    holds[np.broadcast_to(excluded, holds.shape)] = np.nan
    ties = ties & ~excluded
    return holds, ties


def non_subsectivity(d_phrase_adj: np.ndarray, d_phrase_noun: np.ndarray, *,
                     tol: float = TIE_TOL) -> np.ndarray:
    """Eq. 7: is the phrase ``a n`` at least as close to ``a`` as to ``n`` (up to ``tol``)?
    Any shape; NaN where a distance is NaN."""
    a = np.asarray(d_phrase_adj, dtype=np.float64)
    n = np.asarray(d_phrase_noun, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return _truth(a <= n + tol, a, n)


# --------------------------------------------------------------------------------------------
# running the tests for a model
# --------------------------------------------------------------------------------------------
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
    it = models
    if progress:
        try:
            from tqdm.auto import tqdm
            it = tqdm(models, desc="models")
        except ImportError:  # pragma: no cover
            pass
    for m in it:
        emb = embed_phrases(phrases, m, sets=sets, embed_fn=embed_fn)
        res = run_tests(emb, vocab, phrases, distance=distance)
        res.seconds["embed"] = emb.seconds
        out[m] = res
    return out


# --------------------------------------------------------------------------------------------
# consistency tables with bootstrap intervals
# --------------------------------------------------------------------------------------------
def _sums(holds: np.ndarray, lead: int) -> tuple[np.ndarray, np.ndarray]:
    """Sum of truths and count of valid entries over all axes after the first ``lead`` ones."""
    axes = tuple(range(lead, holds.ndim))
    valid = ~np.isnan(holds)
    return np.where(valid, holds, 0.0).sum(axis=axes), valid.sum(axis=axes)


def _ratio_ci(num: np.ndarray, den: np.ndarray, level: float) -> tuple[float, float, int]:
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / den
    ok = np.isfinite(r)
    if not ok.any():
        return np.nan, np.nan, int((~ok).sum())
    lo, hi = np.quantile(r[ok], [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi), int((~ok).sum())


def category_table(holds: np.ndarray, vocab: Vocabulary, *, n_boot: int = 1000, seed: int = 0,
                   level: float = 0.95) -> pd.DataFrame:
    """Consistency by adjective class for a truth array whose first axis is the adjective.

    ``consistency`` is the mean over all valid entries of the class (the paper's Eq. 4/8
    expectation). The interval is a seeded cluster bootstrap: adjectives are resampled with
    replacement within the class (phrases of one adjective are not independent draws).
    """
    S, C = _sums(holds, 1)
    cat = vocab.category_index
    rng = np.random.default_rng(seed)
    rows = []
    for ci, c in enumerate(CATEGORIES):
        members = np.flatnonzero(cat == ci)
        n_total = int(np.prod(holds.shape[1:])) * len(members)
        if len(members) == 0:
            rows.append({"category": c, "consistency": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                         "n": 0, "n_nan": 0, "n_adjectives": 0})
            continue
        idx = members[rng.integers(0, len(members), size=(n_boot, len(members)))]
        lo, hi, _ = _ratio_ci(S[idx].sum(1), C[idx].sum(1), level)
        n = int(C[members].sum())
        rows.append({"category": c,
                     "consistency": float(S[members].sum() / n) if n else np.nan,
                     "ci_low": lo, "ci_high": hi, "n": n, "n_nan": n_total - n,
                     "n_adjectives": len(members)})
    return pd.DataFrame(rows)


def type_pair_table(holds: np.ndarray, vocab: Vocabulary, *, n_boot: int = 1000, seed: int = 0,
                    level: float = 0.95, ties: np.ndarray | None = None,
                    per_pair: int | None = None) -> pd.DataFrame:
    """Consistency by ordered pair of classes ``(type(a1), type(a2))`` for a truth array whose
    first two axes are adjectives (AAN single-phrase test, pair test).

    The interval resamples the adjectives of class t1 (first axis) and of class t2 (second axis)
    independently, with replacement (a two-way cluster bootstrap); pairs that resample to the
    same adjective carry no entries. ``tie_rate`` (when ``ties`` is given) is the share of valid
    entries where both distances are equal. ``per_pair`` is the number of entries an ordered pair
    ``a1 != a2`` has by construction (default: all trailing entries); ``n_nan`` counts the
    missing ones among them (degenerate embeddings), not the excluded ``a1 == a2`` diagonal.
    """
    if per_pair is None:
        per_pair = int(np.prod(holds.shape[2:]))
    S, C = _sums(holds, 2)
    T = ties.sum(axis=tuple(range(2, ties.ndim))) if ties is not None else None
    cat = vocab.category_index
    rng = np.random.default_rng(seed)
    rows = []
    for i, c1 in enumerate(CATEGORIES):
        m1 = np.flatnonzero(cat == i)
        for j, c2 in enumerate(CATEGORIES):
            m2 = np.flatnonzero(cat == j)
            if len(m1) == 0 or len(m2) == 0:
                continue
            n = int(C[np.ix_(m1, m2)].sum())
            r = m1[rng.integers(0, len(m1), size=(n_boot, len(m1)))][:, :, None]
            k = m2[rng.integers(0, len(m2), size=(n_boot, len(m2)))][:, None, :]
            lo, hi, n_undef = _ratio_ci(S[r, k].sum((1, 2)), C[r, k].sum((1, 2)), level)
            n_pairs = len(m1) * len(m2) - (len(m1) if i == j else 0)  # a1 == a2 excluded
            n_total = per_pair * n_pairs
            row = {"type1": c1, "type2": c2,
                   "consistency": float(S[np.ix_(m1, m2)].sum() / n) if n else np.nan,
                   "ci_low": lo, "ci_high": hi, "n": n, "n_nan": n_total - n,
                   "n_boot_undefined": n_undef}
            if T is not None:
                row["tie_rate"] = float(T[np.ix_(m1, m2)].sum() / n) if n else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def an_table(result: MontagueResult, test: str = "single_an", **kw) -> pd.DataFrame:
    """Tidy class table (Tables 1, 4/8 analogues) of ``test`` in
    ``{"single_an", "single_an_share", "nonsub"}``."""
    if test not in ("single_an", "single_an_share", "nonsub"):
        raise ValueError(f"test must be 'single_an', 'single_an_share' or 'nonsub', got {test!r}")
    t = category_table(getattr(result, test), result.vocab, **kw)
    t.insert(0, "model", result.model)
    t.insert(1, "test", test)
    t["distance"] = result.distance
    return t


def aan_table(result: MontagueResult, *, share: bool = False, **kw) -> pd.DataFrame:
    """Tidy type-pair table of the AAN single-phrase test (Tables 2, 6 analogues); ``share``
    reads the test as the share of inequalities that hold (see :func:`single_intersectivity`)."""
    if result.single_aan is None:
        raise ValueError("this result has no AAN phrases; run with sets=('AN', 'AAN')")
    N = result.vocab.n_noun
    holds = result.single_aan_share if share else result.single_aan
    t = type_pair_table(holds, result.vocab, per_pair=N, **kw)
    t.insert(0, "model", result.model)
    t.insert(1, "test", "single_aan_share" if share else "single_aan")
    t["distance"] = result.distance
    return t


def pair_table(result: MontagueResult, **kw) -> pd.DataFrame:
    """Tidy type-pair table of the phrase-pair test (Tables 3, 7 analogues), with tie rates."""
    N = result.vocab.n_noun
    t = type_pair_table(result.pairs, result.vocab, ties=result.pair_ties, per_pair=N * (N - 1), **kw)
    t.insert(0, "model", result.model)
    t.insert(1, "test", "pairs")
    t["distance"] = result.distance
    return t


def as_matrix(table: pd.DataFrame, value: str = "consistency") -> pd.DataFrame:
    """A type-pair table as a 5 × 5 matrix (rows: type of a1, columns: type of a2)."""
    return (table.pivot(index="type1", columns="type2", values=value)
            .reindex(index=list(CATEGORIES), columns=list(CATEGORIES)))


def adjective_scores(holds: np.ndarray, *, both_positions: bool = False) -> np.ndarray:
    """Per-adjective consistency: mean of the valid truths where the adjective is on axis 0.

    With ``both_positions`` (arrays indexed ``[a1, a2, ...]``) the adjective's entries as first
    and as second adjective are pooled.
    """
    S, C = _sums(holds, 1)
    if both_positions:
        S2, C2 = _sums(np.swapaxes(holds, 0, 1), 1)
        S, C = S + S2, C + C2
    with np.errstate(invalid="ignore", divide="ignore"):
        return S / C


def permutation_test(scores: np.ndarray, groups: np.ndarray, *, n_perm: int = 10_000,
                     seed: int = 0) -> dict:
    """Do the groups' mean scores differ more than under random relabelling?

    Statistic: the between-group sum of squares ``sum_g k_g (mean_g - mean)^2`` of per-unit
    scores (here: adjectives). Labels are permuted ``n_perm`` times (seeded, all at once);
    ``p = (1 + #{perm >= observed}) / (1 + n_perm)``. Units with a NaN score are dropped and
    counted.
    """
    scores = np.asarray(scores, dtype=np.float64)
    groups = np.asarray(groups)
    ok = np.isfinite(scores)
    s, g = scores[ok], groups[ok]
    _, g = np.unique(g, return_inverse=True)
    G = g.max() + 1 if g.size else 0
    if s.size < 2 or G < 2:
        return {"statistic": np.nan, "p_value": np.nan, "n_units": int(s.size),
                "n_dropped": int((~ok).sum()), "n_perm": n_perm}

    def ss_between(labels: np.ndarray) -> np.ndarray:  # labels (R, n)
        onehot = labels[..., None] == np.arange(G)                                # (R, n, G)
        k = onehot.sum(axis=-2)
        tot = np.einsum("rng,n->rg", onehot, s)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(k > 0, tot / np.maximum(k, 1), 0.0)
        return (k * (means - s.mean()) ** 2).sum(axis=-1)

    observed = float(ss_between(g[None])[0])
    rng = np.random.default_rng(seed)
    perms = rng.permuted(np.broadcast_to(g, (n_perm, g.size)), axis=1)
    null = ss_between(perms)
    p = (1 + np.sum(null >= observed - 1e-12)) / (1 + n_perm)
    return {"statistic": observed, "p_value": float(p), "n_units": int(s.size),
            "n_dropped": int((~ok).sum()), "n_perm": n_perm}


def chi2_test(holds: np.ndarray, vocab: Vocabulary) -> dict:
    """χ² test of independence between adjective class and outcome (holds / fails), pooling all
    valid entries of each class. Treats entries as independent, which they are not (they share
    adjectives and nouns), so its p-value is optimistic; read it beside the permutation test.
    Undefined (NaN, with a ``note``) when an outcome never occurs."""
    from scipy.stats import chi2_contingency

    S, C = _sums(holds, 1)
    cat = vocab.category_index
    present = np.unique(cat)
    hold = np.array([S[cat == c].sum() for c in present])
    fail = np.array([C[cat == c].sum() for c in present]) - hold
    table = np.stack([hold, fail], axis=1)
    if (table.sum(axis=0) == 0).any() or len(present) < 2:
        return {"statistic": np.nan, "p_value": np.nan, "dof": np.nan,
                "note": "undefined: one outcome never occurs (or a single class)"}
    res = chi2_contingency(table)
    return {"statistic": float(res[0]), "p_value": float(res[1]), "dof": int(res[2]), "note": ""}


CLASS_TESTS: tuple[str, ...] = ("single_AN", "single_AAN", "pairs", "nonsub")


def category_difference_tests(result: MontagueResult, *, tests: Iterable[str] = CLASS_TESTS,
                              n_perm: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """χ² and adjective-level permutation tests of "the classes do not differ", for each of
    ``tests`` (a subset of :data:`CLASS_TESTS`; ``single_AAN`` is skipped when AAN was not run).

    For the pair and AAN tests the adjective's score pools its entries as first adjective
    (pairs) or in either position (AAN).
    """
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    bad = [t for t in tests if t not in CLASS_TESTS]
    if bad:
        raise ValueError(f"unknown test(s) {bad}; choose from {CLASS_TESTS}")
    v = result.vocab
    cat = v.category_index
    arrays = {"single_AN": (result.single_an, False), "single_AAN": (result.single_aan, True),
              "pairs": (result.pairs, False), "nonsub": (result.nonsub, False)}
    rows = []
    for name in tests:
        holds, both = arrays[name]
        if holds is None:
            continue
        scores = adjective_scores(holds, both_positions=both)
        chi = chi2_test(holds, v)
        perm = permutation_test(scores, cat, n_perm=n_perm, seed=seed)
        rows.append({"model": result.model, "test": name,
                     "chi2": chi["statistic"], "chi2_dof": chi["dof"], "chi2_p": chi["p_value"],
                     "perm_stat": perm["statistic"], "perm_p": perm["p_value"],
                     "n_adjectives": perm["n_units"], "n_adjectives_dropped": perm["n_dropped"],
                     "note": chi["note"]})
    return pd.DataFrame(rows)


def class_tests_view(tests: pd.DataFrame) -> pd.DataFrame:
    """A compact, readable view of :func:`category_difference_tests` for display: one row per
    model and test, the χ² statistic with its p-value, the permutation p-value, and a note where
    a test is undefined. p-values are formatted as text (``2.5e-106`` rather than ``0.0000``)."""
    def fmt_p(p):
        return "—" if not np.isfinite(p) else (f"{p:.3f}" if p >= 0.001 else f"{p:.1e}")

    out = pd.DataFrame({
        "model": tests["model"], "test": tests["test"],
        "χ²": tests["chi2"].map(lambda v: "—" if not np.isfinite(v) else f"{v:,.1f}"),
        "χ² p (phrases)": tests["chi2_p"].map(fmt_p),
        "permutation p (adjectives)": tests["perm_p"].map(fmt_p),
        "adjectives": tests["n_adjectives"],
        "note": tests["note"].fillna("").map(lambda s: s.split(" (")[0]),
    })
    return out.set_index(["model", "test"])


# --------------------------------------------------------------------------------------------
# the paper's numbers
# --------------------------------------------------------------------------------------------
def load_paper_table(table: int) -> pd.DataFrame:
    """The paper's numbers from ``data/reference/montague_table<table>.csv`` (tables 1, 6, 7, 8)."""
    return paper_table("montague", f"table{table}")


def compare_with_paper(ours: pd.DataFrame, table: int, model: str,
                       paper_model: str | None = None) -> pd.DataFrame:
    """Our cells beside the paper's for one model; ``diff = ours - paper``.

    ``ours`` is a :func:`category_table` or :func:`type_pair_table` frame. Only cells the paper
    reports are kept.
    """
    paper_model = paper_model or PAPER_MODEL_OF.get(model, model)
    ref = load_paper_table(table)
    ref = ref[ref["model"] == paper_model]
    if ref.empty:
        raise KeyError(f"the paper's Table {table} has no model {paper_model!r}")
    keys = ["category"] if "category" in ref.columns else ["type1", "type2"]
    m = ref[keys + ["value"]].rename(columns={"value": "paper"}).merge(
        ours[keys + ["consistency", "ci_low", "ci_high"]].rename(columns={"consistency": "ours"}),
        on=keys, how="left")
    m.insert(0, "model", model)
    m["paper_model"] = paper_model
    m["diff"] = m["ours"] - m["paper"]
    m["paper_in_ci"] = (m["paper"] >= m["ci_low"] - 1e-9) & (m["paper"] <= m["ci_high"] + 1e-9)
    return m


# --------------------------------------------------------------------------------------------
# figures shared by the chapters
# --------------------------------------------------------------------------------------------
def plot_type_matrix(matrix: pd.DataFrame, ax, *, title: str = "", vmin: float = 0.0, vmax: float = 1.0,
                     cmap: str = "viridis", fmt: str = "{:.2f}", center: float | None = None,
                     span: float | None = None, fontsize: float = 9):
    """Draw a 5 × 5 type-pair matrix (:func:`as_matrix`) as an annotated heat map on ``ax``.

    ``center`` switches to a diverging map around that value (for differences); its colour range
    is ``center ± span`` (default: the largest deviation in the matrix). Pass the same ``span``
    to panels that readers should compare by colour. ``fontsize`` is that of the cell values."""
    vals = matrix.to_numpy(dtype=float)
    if center is not None:
        if span is None:
            span = np.nanmax(np.abs(vals - center)) if np.isfinite(vals).any() else 1.0
        span = span or 1.0
        vmin, vmax, cmap = center - span, center + span, "RdBu_r"
    im = ax.imshow(vals, vmin=vmin, vmax=vmax, cmap=cmap)
    ax.set_xticks(range(len(matrix.columns)), matrix.columns, rotation=45, ha="right")
    ax.set_yticks(range(len(matrix.index)), matrix.index)
    ax.set_xlabel("type of a2")
    ax.set_ylabel("type of a1")
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            if np.isfinite(vals[i, j]):
                norm = (vals[i, j] - vmin) / ((vmax - vmin) or 1)
                light = norm < 0.5 if center is None else abs(norm - 0.5) > 0.3
                ax.text(j, i, fmt.format(vals[i, j]), ha="center", va="center", fontsize=fontsize,
                        color="white" if light else "black")
    ax.set_title(title, fontsize=fontsize + 1)
    return im


def plot_set_diagrams(axes=None):
    """Four panels: how the phrase set P relates to the noun set N (and the adjective set A)
    for the four adjective classes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Ellipse

    if axes is None:
        _, axes = plt.subplots(1, 4, figsize=(12, 3.2))
    specs = [
        ("subsective intersective\n(red dog)", [("N", (0.38, 0.5), 0.28, "tab:blue"), ("A", (0.62, 0.5), 0.28, "tab:orange")],
         "P = A ∩ N", (0.5, 0.5), (0.16, 0.34)),
        ("subsective non-intersective\n(skilful student)", [("N", (0.5, 0.5), 0.36, "tab:blue")],
         "P ⊆ N", (0.56, 0.44), (0.30, 0.26)),
        ("privative non-subsective\n(counterfeit law)", [("N", (0.33, 0.5), 0.26, "tab:blue")],
         "P ∩ N = ∅", (0.78, 0.5), (0.26, 0.34)),
        ("plain non-subsective\n(alleged king)", [("N", (0.38, 0.5), 0.28, "tab:blue")],
         "P ⊄ N, P ∩ N ≠ ∅", (0.66, 0.5), (0.40, 0.34)),
    ]
    for ax, (title, circles, plabel, pc, pwh) in zip(axes, specs):
        for name, c, r, col in circles:
            ax.add_patch(Circle(c, r, fc=col, alpha=0.25, ec=col, lw=1.5))
            ax.text(c[0] + (-0.7 if name == "N" else 0.7) * r, c[1] + 0.75 * r, name, color=col,
                    fontsize=14, ha="center", weight="bold")
        ax.add_patch(Ellipse(pc, *pwh, fc="none", ec="black", lw=2, ls="--"))
        ax.text(0.5, 0.02, plabel, ha="center", va="bottom", fontsize=12)
        ax.set_title(title, fontsize=12)
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.02, 0.95)
        ax.set_aspect("equal")
        ax.axis("off")
    return axes


def score_spread(scores: np.ndarray, vocab: Vocabulary) -> dict:
    """How per-adjective scores spread within and between classes.

    Returns the class means, ``within_sd`` (pooled standard deviation of the scores around their
    class mean) and ``between_sd`` (standard deviation of the class means, unweighted). NaN
    scores are dropped.
    """
    s = np.asarray(scores, dtype=float)
    cat = np.asarray(vocab.categories)
    ok = np.isfinite(s)
    means = {c: float(s[ok & (cat == c)].mean()) if (ok & (cat == c)).any() else np.nan for c in CATEGORIES}
    resid = np.array([s[i] - means[cat[i]] for i in np.flatnonzero(ok)])
    groups = sum(1 for c in CATEGORIES if (ok & (cat == c)).any())
    within = float(np.sqrt((resid ** 2).sum() / max(len(resid) - groups, 1)))
    between = float(np.nanstd([m for m in means.values()], ddof=1))
    return {"class_means": means, "within_sd": within, "between_sd": between}
