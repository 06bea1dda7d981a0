"""The on-disk embedding cache and :func:`embed`, the one call chapters use to get vectors.

Storage is one SQLite file (``<cache>/embeddings/embeddings.sqlite``): a row per
(model identity, SHA-256 of the text) holding the float32 vector as raw bytes. SQLite gives
atomic, crash-safe writes (a batch lands whole or not at all) and nothing is ever unpickled.
The model key is a hash of :attr:`Encoder.identity` (spec + weights digest + pooling and
normalisation), so new weights under an old name are a cache miss, not a stale hit.

Long runs survive interruption: :func:`embed` encodes the missing texts chunk by chunk and
commits each chunk before the next, so a rerun after a crash or a kill encodes only what was
not stored yet. Several processes may share one cache (two chapters at once, a class on one
JupyterHub, ``make -j2 book``): SQLite's write-ahead log lets readers and one writer work
together, and every write waits (up to ``$COMPSEM_CACHE_TIMEOUT`` seconds, default 300) for a
lock held by another process instead of failing.

A cache file that is not a database (truncated, overwritten) raises :class:`CacheError` naming
the file; ``python -m compsem cache clear`` moves it aside and starts a new one.

Clear it with ``python -m compsem cache clear [--model SPEC]`` or :meth:`EmbeddingCache.clear`.
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
from tqdm.auto import tqdm

from .encoders import Encoder, get_encoder, validate_texts
from .errors import CacheError
from .paths import cache_dir
from .progress import wanted

__all__ = ["EmbeddingCache", "EmbedStats", "embed", "last_stats", "text_key", "model_key", "CacheError"]

T = TypeVar("T")

# A rowid table keeps a vector of up to ~4 KB inside its page; the former WITHOUT ROWID table
# (still read and written in caches made before) spilled every row over ~1 KB (a 384-d vector)
# into an overflow page: 3.1x the raw bytes on disk and half the write speed.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS models (model TEXT PRIMARY KEY, spec TEXT NOT NULL, identity TEXT NOT NULL,
                                   dim INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, vec BLOB NOT NULL,
                                    UNIQUE (model, key));
"""


def text_key(text: str) -> str:
    """SHA-256 hex digest of the UTF-8 text (the text itself is not stored)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_key(identity: str) -> str:
    """Short hash of an encoder identity."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:24]


def _lock_timeout() -> float:
    return float(os.environ.get("COMPSEM_CACHE_TIMEOUT", "300"))


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


class EmbeddingCache:
    """Vectors on disk, keyed by (model identity, text).

    Parameters
    ----------
    path : path-like, optional
        The SQLite file; default ``<cache_dir>/embeddings/embeddings.sqlite``.

    Raises
    ------
    CacheError
        The file exists but is not a usable SQLite database (the message names it and says
        to run ``python -m compsem cache clear``).
    """

    _CHUNK = 500  # keys per SELECT (SQLite's host-parameter limit is far above)

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else cache_dir("embeddings") / "embeddings.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._with_retry(lambda con: con.executescript(_SCHEMA))

    def _broken(self, exc: BaseException) -> CacheError:
        return CacheError(f"the embedding cache {self.path} is not a usable database ({exc}); run "
                          "`python -m compsem cache clear` to move it aside and start a new one "
                          "(or delete the file)")

    def _connect(self) -> sqlite3.Connection:
        timeout = _lock_timeout()
        con = sqlite3.connect(self.path, timeout=timeout)
        try:
            con.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            # Switching a new file to WAL needs a lock that SQLite does not wait for: check first,
            # and let _with_retry try again when another process holds it.
            if con.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            con.close()
            raise
        return con

    def _with_retry(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(con)`` in one transaction; on a lock held elsewhere, wait and try again
        (jittered backoff, up to ``$COMPSEM_CACHE_TIMEOUT`` seconds)."""
        deadline = time.monotonic() + _lock_timeout()
        delay = 0.02
        while True:
            try:
                con = self._connect()
                try:
                    with con:
                        return work(con)
                finally:
                    con.close()
            except sqlite3.OperationalError as exc:
                if not _is_lock_error(exc) or time.monotonic() > deadline:
                    raise
            except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
                raise self._broken(exc) from exc
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)

    @staticmethod
    def move_aside(path: str | Path) -> Path | None:
        """Rename a cache file (and its ``-wal``/``-shm`` companions) to
        ``<name>.broken-<time>``; return the new name, or ``None`` when there was no file."""
        path = Path(path)
        if not path.exists():
            return None
        target = path.with_name(f"{path.name}.broken-{time.strftime('%Y%m%d-%H%M%S')}")
        path.rename(target)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
        return target

    def register(self, encoder: Encoder) -> str:
        """Record an encoder's identity; return its model key."""
        key = model_key(encoder.identity)
        self._with_retry(lambda con: con.execute("INSERT OR REPLACE INTO models VALUES (?, ?, ?, ?)",
                                                 (key, encoder.spec, encoder.identity, encoder.dim)))
        return key

    def get_many(self, model: str, keys: Sequence[str], dim: int) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys`` (a missing key is simply absent from the result)."""
        def read(con: sqlite3.Connection) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            for s in range(0, len(keys), self._CHUNK):
                chunk = list(keys[s:s + self._CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                                   [model, *chunk])
                for k, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (dim,):  # a row of another shape is ignored (re-embedded)
                        found[k] = vec
            return found

        return self._with_retry(read)

    def put_many(self, model: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Store ``vectors[i]`` under ``keys[i]``, all in one transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        rows = [(model, k, vectors[i].tobytes()) for i, k in enumerate(keys)]
        self._with_retry(lambda con: con.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows))

    def info(self):
        """One row per cached model: spec, identity, dimension, number of texts, MB."""
        import pandas as pd

        rows = self._with_retry(lambda con: con.execute(
            "SELECT m.spec, m.identity, m.dim, COUNT(v.key), COALESCE(SUM(LENGTH(v.vec)), 0) "
            "FROM models m LEFT JOIN vectors v ON v.model = m.model GROUP BY m.model ORDER BY m.spec"
        ).fetchall())
        return pd.DataFrame(rows, columns=["spec", "identity", "dim", "texts", "bytes"]).assign(
            MB=lambda d: (d.bytes / 1e6).round(2)).drop(columns="bytes")

    def clear(self, spec: str | None = None) -> int:
        """Delete every cached vector (or only those of models whose spec is ``spec``).

        Returns the number of vectors removed.
        """
        def delete(con: sqlite3.Connection) -> int:
            if spec is None:
                n = con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
                con.execute("DELETE FROM vectors")
                con.execute("DELETE FROM models")
                return n
            n = 0
            for (m,) in con.execute("SELECT model FROM models WHERE spec = ?", (spec,)).fetchall():
                n += con.execute("DELETE FROM vectors WHERE model = ?", (m,)).rowcount
                con.execute("DELETE FROM models WHERE model = ?", (m,))
            return n

        n = self._with_retry(delete)
        try:
            con = sqlite3.connect(self.path, timeout=_lock_timeout())
            try:
                con.execute("VACUUM")
            finally:
                con.close()
        except sqlite3.OperationalError as exc:  # another process is reading: the space is reused later
            if not _is_lock_error(exc):
                raise
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
          device: str | None = None, chunk_size: int = 1024) -> np.ndarray:
    """Embed ``texts`` with ``model``, each unique text once, through the disk cache.

    The texts missing from the cache are encoded ``chunk_size`` at a time (longest first) and
    each chunk is stored before the next is encoded: an interrupted run keeps what it
    computed, and a rerun encodes only the rest.

    Parameters
    ----------
    texts : list of str, length n
        Non-empty texts; duplicates are folded before encoding.
    model : str or Encoder
        A spec (see :mod:`compsem.encoders`) or an encoder object.
    cache : bool or EmbeddingCache
        ``True`` uses the default cache, ``False`` none; encoders that are cheaper to
        recompute (``glove-50d``, ``bow``, ``random``, ``vec:``) are never cached.
    batch_size : int
        Texts per model call.
    show_progress : bool, optional
        A progress bar over the texts to encode; by default shown for more than 1,000.
    trust_remote_code : bool
        Passed to the loader of a hub model; only when the reader asks for it.
    device : str, optional
        Where the model runs (see :mod:`compsem.device`).
    chunk_size : int
        Texts encoded between two writes to the cache.

    Returns
    -------
    ndarray of shape (n, dim), float32, row i the embedding of ``texts[i]``.
    """
    t0 = time.perf_counter()
    texts = validate_texts(texts)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
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
    if todo and store is None:
        vecs[todo] = enc.encode([unique[i] for i in todo], batch_size=batch_size, show_progress=show_progress)
    elif todo:
        todo.sort(key=lambda i: -len(unique[i]))  # similar lengths batch together, as the encoders do
        show = wanted(show_progress, len(todo))   # TQDM_DISABLE wins (compsem.progress)
        with tqdm(total=len(todo), desc=f"embed {enc.spec}", unit="text", disable=not show) as bar:
            for s in range(0, len(todo), chunk_size):
                part = todo[s:s + chunk_size]
                new = enc.encode([unique[i] for i in part], batch_size=batch_size, show_progress=False)
                vecs[part] = new
                store.put_many(mkey, [keys[i] for i in part], new)
                bar.update(len(part))
    _LAST.append(EmbedStats(enc.spec, len(texts), len(unique), n_cached, len(todo), time.perf_counter() - t0))
    del _LAST[:-1]
    return vecs[[pos[t] for t in texts]] if texts else vecs
