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
the file; ``python -m compsem cache clear`` moves it aside (never over an earlier ``.broken``
file) and starts a new one. Every other SQLite failure (a full disk, a file that cannot be
opened) is a :class:`CacheError` naming the file and advice that fits the cause; when opening
or writing fails in :func:`embed` (a full disk), one warning says so and the vectors just
computed are still returned. A model's identity row is written with its first vectors, never on
its own, so a run whose vectors are all cached writes nothing.

**Read-only and shared caches.** A cache file (or folder) this process cannot write is opened
read-only (SQLite ``mode=ro``, or ``immutable=1`` where the folder is read-only too): its hits
are served, and the misses go to the private overlay cache in ``$COMPSEM_CACHE_OVERLAY``
(default ``$XDG_CACHE_HOME/compsem/overlay``, else ``~/.cache/compsem/overlay``), or stay in
memory when that cannot be written either; one warning per process names the read-only file.
The overlay folder is created ``0700`` and checked at every open: one that belongs to another
user, or that its group or others may write, is refused with an
:class:`~compsem.errors.UnsafeFolderError` naming it (never read, never written); its files are
``0600``. A damaged overlay is reported like a damaged cache, not replaced by memory. So a
lecturer can fill one cache and share it read-only: ``COMPSEM_CACHE=/srv/class/compsem-cache``.

**Checksums.** Each stored vector carries a CRC-32 of its bytes (a column added in place to
older caches); a row whose bytes no longer match is treated as a miss and re-encoded, with a
warning, and ``python -m compsem cache verify`` counts such rows and runs SQLite's own
``PRAGMA integrity_check`` over the file (and over the overlay).

Clear it with ``python -m compsem cache clear [--model SPEC]`` or :meth:`EmbeddingCache.clear`.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from .cachestore import CacheWarning, EmbeddingCache, model_key, overlay_dir, text_key
from .encoders import Encoder, get_encoder, validate_texts
from .errors import BrokenCacheError, CacheError, UnsafeFolderError, check_trust_remote_code
from .settings import setting
from .progress import bar as progress_bar

__all__ = [
    "EmbeddingCache",
    "EmbedStats",
    "embed",
    "last_stats",
    "text_key",
    "model_key",
    "CacheError",
    "CacheWarning",
    "overlay_dir",
]


@dataclass
class EmbedStats:
    """What the last :func:`embed` call did."""

    spec: str
    n_texts: int  # texts asked for
    n_unique: int  # after folding duplicates
    n_cached: int  # unique texts found in the cache
    n_encoded: int  # unique texts sent to the model
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


_LAST: list[EmbedStats] = []


def _log_stats(stats: EmbedStats) -> None:
    """Append ``stats`` as one JSON line to ``$COMPSEM_EMBED_LOG`` when it is set: the
    counters of every :func:`embed` call of a process (a chapter run in its own kernel)."""
    path = setting("COMPSEM_EMBED_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(stats.as_dict()) + "\n")


def last_stats() -> EmbedStats | None:
    """Statistics of the most recent :func:`embed` call in this process."""
    return _LAST[-1] if _LAST else None


def embed(
    texts: Sequence[str],
    model: str | Encoder = "sbert-mini",
    *,
    cache: bool | EmbeddingCache = True,
    batch_size: int = 32,
    show_progress: bool | None = None,
    trust_remote_code: bool = False,
    device: str | None = None,
    chunk_size: int = 1024,
) -> np.ndarray:
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
        ``True`` uses the default cache, ``False`` none; encoders without weights to load
        (``glove-50d``, ``bow``, ``random``, ``vec:``) are never cached.
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
    check_trust_remote_code(trust_remote_code, where="embed")
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
        keys = [text_key(t) for t in unique]
        try:
            store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache()
            mkey = store.register(enc)
            hit = store.get_many(mkey, keys, enc.dim)
        except (BrokenCacheError, UnsafeFolderError):
            raise
        except CacheError as exc:  # e.g. a full disk at open: encode everything, store nothing
            warnings.warn(f"{exc}; this run goes on without the cache", CacheWarning, stacklevel=2)
            store, hit = None, {}
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
        # TQDM_DISABLE wins; show_progress=None: a bar for more than 1,000 texts (compsem.progress)
        with progress_bar(
            total=len(todo), show=show_progress, n=len(todo), desc=f"embed {enc.spec}", unit="text"
        ) as bar:
            for s in range(0, len(todo), chunk_size):
                part = todo[s : s + chunk_size]
                new = enc.encode([unique[i] for i in part], batch_size=batch_size, show_progress=False)
                vecs[part] = new
                if store is not None:
                    try:
                        store.put_many(mkey, [keys[i] for i in part], new)
                    except CacheError as exc:  # e.g. a full disk: the vectors in hand are still returned
                        warnings.warn(
                            f"{exc}; this run goes on without storing its vectors", CacheWarning, stacklevel=2
                        )
                        store = None
                bar.update(len(part))
    _LAST.append(EmbedStats(enc.spec, len(texts), len(unique), n_cached, len(todo), time.perf_counter() - t0))
    del _LAST[:-1]
    _log_stats(_LAST[-1])
    return vecs[[pos[t] for t in texts]] if texts else vecs
