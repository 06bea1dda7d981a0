"""Part III's material: the adjective classes, the word lists and the generated phrases.

The vocabulary is the modifier-consistency paper's appendix A (shipped in ``data/montague/``);
the phrases are every AN and every AAN (two different adjectives) string over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import paths
from ..data import read_table
from ..errors import DataError
from ..fmt import noun

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "PHRASE_SETS",
    "PAPER_PHRASE_COUNT",
    "STRINGS",
    "Vocabulary",
    "PhraseSet",
    "load_vocabulary",
    "join_phrase",
    "word_text",
    "build_phrases",
    "expected_phrase_count",
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
PHRASE_SETS: tuple[str, ...] = ("AN", "AAN")
#: 61 adjectives × 12 nouns + 61 × 60 × 12 ordered adjective pairs (section 4.1.2 of the paper).
PAPER_PHRASE_COUNT = 44_652


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
            raise DataError(f"{len(self.adjectives)} adjectives but {len(self.categories)} categories")
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
                raise DataError(f"duplicate {noun(len(dup), kind)}: {', '.join(dup)}")
        clash = set(self.adjectives) & set(self.nouns)
        if clash:
            raise DataError(f"{noun(len(clash), 'word')} listed both as adjective and noun: {', '.join(sorted(clash))}")

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
            rows.append(
                {
                    "category": c,
                    "name": CATEGORY_NAMES[c],
                    "n_adjectives": len(members),
                    "adjectives": ", ".join(members),
                }
            )
        return pd.DataFrame(rows)


def _read_rows(path: Path, required: Sequence[str]) -> list[dict]:
    """The rows of a vocabulary file through the shared reader (:func:`compsem.data.read_table`:
    a missing or unparsable file, a missing column, an empty cell, a header without rows all
    raise a :class:`DataError` naming file, row and column)."""
    df = read_table(path, required=required, text_columns=required)
    return [{c: str(r[c]).strip() for c in required} for r in df.to_dict("records")]


def load_vocabulary(adjectives_csv: str | Path | None = None, nouns_csv: str | Path | None = None) -> Vocabulary:
    """Read ``adjectives.csv`` (columns ``adjective, category``) and ``nouns.csv`` (``noun``).

    Defaults to the shipped lists in ``data/montague/``. Malformed files raise
    :class:`~compsem.errors.DataError` naming the file, row and column.
    """
    a_path = Path(adjectives_csv) if adjectives_csv else paths.data_dir("montague", "adjectives.csv")
    n_path = Path(nouns_csv) if nouns_csv else paths.data_dir("montague", "nouns.csv")
    a_rows = _read_rows(a_path, ("adjective", "category"))
    for i, r in enumerate(a_rows, start=1):  # data rows counted as compsem.data.require_text counts them
        if r["category"] not in CATEGORIES:
            raise DataError(
                f"unknown category {r['category']!r}; expected one of {', '.join(CATEGORIES)}",
                file=str(a_path),
                row=i,
                column="category",
            )
    n_rows = _read_rows(n_path, ("noun",))
    return Vocabulary(
        adjectives=[r["adjective"] for r in a_rows],
        categories=[r["category"] for r in a_rows],
        nouns=[r["noun"] for r in n_rows],
    )


#: How the phrase strings are written: ``"official"`` as the authors' code writes them (every
#: word lower-cased, words joined by one space so ``ex-`` stays apart: ``"ex- king"``, and the noun
#: spelled ``"occurence"`` as in their ``data/adjectives.csv``); ``"clean"`` as English writes them
#: (``"Canadian"``, ``"ex-king"``, ``"occurrence"``).
STRINGS: tuple[str, ...] = ("official", "clean")
#: The authors' spelling of nouns where it differs from ours.
OFFICIAL_SPELLING: dict[str, str] = {"occurrence": "occurence"}


def check_strings(strings: str) -> str:
    if strings not in STRINGS:
        raise ValueError(f"unknown strings {strings!r}; choose from {', '.join(STRINGS)}")
    return strings


def join_phrase(*words: str, strings: str = "clean") -> str:
    """Join words into a phrase.

    ``strings="clean"`` (English spelling): single spaces, except after a prefix ending in
    ``-``. The one prefix in the list is ``ex-``: ``join_phrase("ex-", "king") == "ex-king"`` and
    ``join_phrase("red", "ex-", "king") == "red ex-king"``; placed first it binds to the next
    adjective: ``"ex-red king"``.

    ``strings="official"`` (the authors' code): every word written as :func:`word_text` writes
    it, joined by single spaces: ``join_phrase("Canadian", "ex-", "occurrence",
    strings="official") == "canadian ex- occurence"``.
    """
    check_strings(strings)
    if strings == "official":
        return " ".join(word_text(w, strings="official") for w in words)
    out = ""
    for w in words:
        out = out + w if (not out or out.endswith("-")) else out + " " + w
    return out


def word_text(word: str, *, strings: str = "clean") -> str:
    """A vocabulary word as it is embedded on its own: unchanged for ``"clean"``; lower-cased and
    spelled as in the authors' data for ``"official"``."""
    check_strings(strings)
    if strings == "clean":
        return word
    w = word.lower()
    return OFFICIAL_SPELLING.get(w, w)


def expected_phrase_count(n_adj: int, n_noun: int) -> int:
    """``n_adj * n_noun`` AN phrases plus ``n_adj * (n_adj - 1) * n_noun`` AAN phrases."""
    return n_adj * n_noun + n_adj * (n_adj - 1) * n_noun


@dataclass(frozen=True)
class PhraseSet:
    """All AN and AAN phrases of a vocabulary, with index arrays into it, written one way.

    ``words[i]`` is the text of vocabulary word ``i`` (adjectives then nouns) as embedded alone;
    ``an[a, n]`` the text of adjective ``a`` + noun ``n``. AAN phrase ``k`` is
    ``aan[k] = join(adj[aan_a1[k]], adj[aan_a2[k]], noun[aan_n[k]])`` with ``aan_a1 != aan_a2``,
    ordered by ``(a1, a2, n)``. ``aa[k]`` is the two-adjective sub-phrase ``join(adj[aa_a1[k]],
    adj[aa_a2[k]])`` (A (A-1) ordered pairs, 3,660 for the shipped lists), which the official
    reading of test I compares with the noun (:func:`compsem.montague.metrics.rest_of_phrase`).
    ``strings`` says how the texts are written (:data:`STRINGS`).
    """

    vocab: Vocabulary
    an: np.ndarray  # (A, N) object array of str
    aan: np.ndarray  # (K,) object array of str, K = A N
    aan_a1: np.ndarray
    aan_a2: np.ndarray
    aan_n: np.ndarray
    aa: np.ndarray = None  # (A ,) object array of str
    aa_a1: np.ndarray = None
    aa_a2: np.ndarray = None
    words: tuple = ()
    strings: str = "clean"

    def __len__(self) -> int:
        """The paper's phrase count: AN plus AAN (the AA sub-phrases are not phrases of L)."""
        return self.an.size + self.aan.size

    def frame(self) -> pd.DataFrame:
        """One row per phrase: phrase, kind (AN/AAN), adj1, adj2 (empty for AN), noun, type1, type2."""
        v = self.vocab
        A, N = v.n_adj, v.n_noun
        adj = np.array(v.adjectives, dtype=object)
        cat = np.array(v.categories, dtype=object)
        nn = np.array(v.nouns, dtype=object)
        a_an, n_an = np.divmod(np.arange(A * N), N)
        an = pd.DataFrame(
            {
                "phrase": self.an.ravel(),
                "kind": "AN",
                "adj1": adj[a_an],
                "adj2": "",
                "noun": nn[n_an],
                "type1": cat[a_an],
                "type2": "",
            }
        )
        aan = pd.DataFrame(
            {
                "phrase": self.aan,
                "kind": "AAN",
                "adj1": adj[self.aan_a1],
                "adj2": adj[self.aan_a2],
                "noun": nn[self.aan_n],
                "type1": cat[self.aan_a1],
                "type2": cat[self.aan_a2],
            }
        )
        return pd.concat([an, aan], ignore_index=True)


def build_phrases(vocab: Vocabulary, *, strings: str = "official") -> PhraseSet:
    """Generate every AN phrase, every AAN phrase with two different adjectives, and the AA
    sub-phrases, written as ``strings`` says (:data:`STRINGS`).

    The count is checked against :func:`expected_phrase_count` (44,652 for the shipped lists).
    """
    check_strings(strings)
    A, N = vocab.n_adj, vocab.n_noun
    adj, nouns = vocab.adjectives, vocab.nouns
    an = np.array([[join_phrase(a, n, strings=strings) for n in nouns] for a in adj], dtype=object).reshape(A, N)
    a1, a2, n = (x.ravel() for x in np.meshgrid(np.arange(A), np.arange(A), np.arange(N), indexing="ij"))
    keep = a1 != a2
    a1, a2, n = a1[keep], a2[keep], n[keep]
    aan = np.array([join_phrase(adj[i], adj[j], nouns[k], strings=strings) for i, j, k in zip(a1, a2, n)], dtype=object)
    b1, b2 = (x.ravel() for x in np.meshgrid(np.arange(A), np.arange(A), indexing="ij"))
    keep = b1 != b2
    b1, b2 = b1[keep], b2[keep]
    aa = np.array([join_phrase(adj[i], adj[j], strings=strings) for i, j in zip(b1, b2)], dtype=object)
    words = tuple(word_text(w, strings=strings) for w in vocab.words)
    ps = PhraseSet(vocab, an, aan, a1, a2, n, aa, b1, b2, words, strings)
    if len(ps) != expected_phrase_count(A, N):  # pragma: no cover - guards the generator itself
        raise AssertionError(f"generated {len(ps)} phrases, expected {expected_phrase_count(A, N)}")
    texts = [*words, *ps.an.ravel(), *ps.aan, *aa]
    if len(set(texts)) != len(texts):
        raise DataError("two different word combinations give the same text; check the vocabulary")
    return ps
