"""The on-disk embedding cache and :func:`embed`, the one call chapters use to get vectors.

Storage is one SQLite file (``<cache>/embeddings/embeddings.sqlite``): a row per
(model identity, SHA-256 of the text) holding the float32 vector as raw bytes. SQLite gives
atomic, crash-safe writes (a batch lands whole or not at all) and nothing is ever unpickled.
The model key is a hash of :attr:`Encoder.identity` (spec + weights digest + pooling and
normalisation), so new weights under an old name are a cache miss, not a stale hit.

Clear it with ``python -m compsem cache clear [--model SPEC]`` or :meth:`EmbeddingCache.clear`.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .encoders import Encoder, get_encoder, validate_texts
from .paths import cache_dir

__all__ = ["EmbeddingCache", "EmbedStats", "embed", "last_stats", "text_key", "model_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS models (model TEXT PRIMARY KEY, spec TEXT NOT NULL, identity TEXT NOT NULL,
                                   dim INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, vec BLOB NOT NULL,
                                    PRIMARY KEY (model, key)) WITHOUT ROWID;
"""


def text_key(text: str) -> str:
    """SHA-256 hex digest of the UTF-8 text (the text itself is not stored)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_key(identity: str) -> str:
    """Short hash of an encoder identity."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:24]


class EmbeddingCache:
    """Vectors on disk, keyed by (model identity, text).

    Parameters
    ----------
    path : path-like, optional
        The SQLite file; default ``<cache_dir>/embeddings/embeddings.sqlite``.
    """

    _CHUNK = 500  # keys per SELECT (SQLite's host-parameter limit is far above)

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else cache_dir("embeddings") / "embeddings.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=60)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        return con

    def register(self, encoder: Encoder) -> str:
        """Record an encoder's identity; return its model key."""
        key = model_key(encoder.identity)
        with self._connect() as con:
            con.execute("INSERT OR REPLACE INTO models VALUES (?, ?, ?, ?)",
                        (key, encoder.spec, encoder.identity, encoder.dim))
        return key

    def get_many(self, model: str, keys: Sequence[str], dim: int) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys`` (a missing key is simply absent from the result)."""
        found: dict[str, np.ndarray] = {}
        con = self._connect()
        try:
            for s in range(0, len(keys), self._CHUNK):
                chunk = list(keys[s:s + self._CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                                   [model, *chunk])
                for k, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (dim,):  # a row of another shape is ignored (re-embedded)
                        found[k] = vec
        finally:
            con.close()
        return found

    def put_many(self, model: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Store ``vectors[i]`` under ``keys[i]``, all in one transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._connect() as con:
            con.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                            [(model, k, vectors[i].tobytes()) for i, k in enumerate(keys)])

    def info(self):
        """One row per cached model: spec, identity, dimension, number of texts, MB."""
        import pandas as pd

        with self._connect() as con:
            rows = con.execute(
                "SELECT m.spec, m.identity, m.dim, COUNT(v.key), COALESCE(SUM(LENGTH(v.vec)), 0) "
                "FROM models m LEFT JOIN vectors v ON v.model = m.model GROUP BY m.model ORDER BY m.spec"
            ).fetchall()
        return pd.DataFrame(rows, columns=["spec", "identity", "dim", "texts", "bytes"]).assign(
            MB=lambda d: (d.bytes / 1e6).round(2)).drop(columns="bytes")

    def clear(self, spec: str | None = None) -> int:
        """Delete every cached vector (or only those of models whose spec is ``spec``).

        Returns the number of vectors removed.
        """
        with self._connect() as con:
            if spec is None:
                n = con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
                con.execute("DELETE FROM vectors")
                con.execute("DELETE FROM models")
            else:
                models = [r[0] for r in con.execute("SELECT model FROM models WHERE spec = ?", (spec,))]
                n = 0
                for m in models:
                    n += con.execute("DELETE FROM vectors WHERE model = ?", (m,)).rowcount
                    con.execute("DELETE FROM models WHERE model = ?", (m,))
        with sqlite3.connect(self.path) as con:
            con.execute("VACUUM")
        return int(n)


@dataclass
class EmbedStats:
    """What the last :func:`embed` call did."""

    spec: str
    n_texts: int       # texts asked for
    n_unique: int      # after folding duplicates
    n_cached: int      # unique texts found in the cache
    n_encoded: int     # unique texts sent to the model
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


_LAST: list[EmbedStats] = []


def last_stats() -> EmbedStats | None:
    """Statistics of the most recent :func:`embed` call in this process."""
    return _LAST[-1] if _LAST else None


def embed(texts: Sequence[str], model: str | Encoder = "sbert-mini", *, cache: bool | EmbeddingCache = True,
          batch_size: int = 32, show_progress: bool | None = None, trust_remote_code: bool = False,
          device: str | None = None) -> np.ndarray:
    """Embed ``texts`` with ``model``, each unique text once, through the disk cache.

    Parameters
    ----------
    texts : list of str, length n
        Non-empty texts; duplicates are folded before encoding.
    model : str or Encoder
        A spec (see :mod:`compsem.encoders`) or an encoder object.
    cache : bool or EmbeddingCache
        ``True`` uses the default cache, ``False`` none; encoders that are cheaper to
        recompute (``glove-50d``, ``bow``, ``random``) are never cached.
    trust_remote_code : bool
        Passed to the loader of a hub model; only when the reader asks for it.
    device : str, optional
        Where the model runs (see :mod:`compsem.device`).

    Returns
    -------
    ndarray of shape (n, dim), float32, row i the embedding of ``texts[i]``.
    """
    t0 = time.perf_counter()
    texts = validate_texts(texts)
    enc = get_encoder(model, trust_remote_code=trust_remote_code, device=device)
    unique = list(dict.fromkeys(texts))
    pos = {t: i for i, t in enumerate(unique)}
    vecs = np.empty((len(unique), enc.dim), dtype=np.float32)
    n_cached = 0
    todo = list(range(len(unique)))
    store: EmbeddingCache | None = None
    if cache and enc.cacheable and unique:
        store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache()
        mkey = store.register(enc)
        keys = [text_key(t) for t in unique]
        hit = store.get_many(mkey, keys, enc.dim)
        todo = []
        for i, k in enumerate(keys):
            if k in hit:
                vecs[i] = hit[k]
            else:
                todo.append(i)
        n_cached = len(unique) - len(todo)
    if todo:
        new = enc.encode([unique[i] for i in todo], batch_size=batch_size, show_progress=show_progress)
        vecs[todo] = new
        if store is not None:
            store.put_many(mkey, [keys[i] for i in todo], new)
    _LAST.append(EmbedStats(enc.spec, len(texts), len(unique), n_cached, len(todo), time.perf_counter() - t0))
    del _LAST[:-1]
    return vecs[[pos[t] for t in texts]] if texts else vecs
