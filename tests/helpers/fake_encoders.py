"""Cheap deterministic encoders for cache tests, importable by ``multiprocessing`` spawn children.

:class:`HashEncoder` maps a text to a fixed vector derived from its SHA-256, so every process
computes identical values; :class:`FailingEncoder` raises after a given number of calls, to
interrupt :func:`compsem.embed` mid-run.
"""

from __future__ import annotations

import hashlib

import numpy as np

from compsem.encoders import Encoder

__all__ = ["HashEncoder", "FailingEncoder", "TableEncoder", "hash_vector", "embed_worker"]


def hash_vector(text: str, dim: int = 8) -> np.ndarray:
    """The vector :class:`HashEncoder` gives ``text``: its SHA-256 bytes scaled to [0, 1)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return (np.frombuffer(digest[:dim], dtype=np.uint8) / 256.0).astype(np.float32)


class HashEncoder(Encoder):
    """``hash_vector`` per text; records how many texts it encoded."""

    def __init__(self, dim: int = 8, spec: str = "hash"):
        self.spec, self.dim, self.seen = spec, dim, []

    @property
    def identity(self) -> str:
        return f"{self.spec}|dim={self.dim}"

    def _encode(self, texts, *, batch_size, show_progress):
        self.seen.extend(texts)
        return np.stack([hash_vector(t, self.dim) for t in texts])


class TableEncoder(Encoder):
    """The vector of each text from a table written by hand (a test's worked example); its
    identity hashes the table, so a cache never serves another table's vectors."""

    def __init__(self, table: dict[str, list[float]], spec: str = "table"):
        self.spec, self.table = spec, {k: np.asarray(v, dtype=np.float64) for k, v in table.items()}
        self.dim = len(next(iter(self.table.values())))

    @property
    def identity(self) -> str:
        digest = hashlib.sha256(repr(sorted((k, v.tolist()) for k, v in self.table.items())).encode()).hexdigest()
        return f"{self.spec}|{digest[:16]}"

    def _encode(self, texts, *, batch_size, show_progress):
        return np.stack([self.table[t] for t in texts])


class FailingEncoder(HashEncoder):
    """A :class:`HashEncoder` whose call number ``fail_on`` (1-based) raises ``KeyboardInterrupt``."""

    def __init__(self, fail_on: int, dim: int = 8):
        super().__init__(dim)
        self.fail_on, self.calls = fail_on, 0

    def _encode(self, texts, *, batch_size, show_progress):
        self.calls += 1
        if self.calls == self.fail_on:
            raise KeyboardInterrupt("simulated interruption")
        return super()._encode(texts, batch_size=batch_size, show_progress=show_progress)


def embed_worker(path: str, texts: list[str], barrier, chunk_size: int) -> None:
    """Wait for the other processes, then open the (new) cache at ``path`` and embed ``texts``
    into it chunk by chunk; raise if any returned vector is wrong."""
    from compsem.cache import EmbeddingCache, embed

    barrier.wait()
    X = embed(texts, HashEncoder(), cache=EmbeddingCache(path), chunk_size=chunk_size, show_progress=False)
    expected = np.stack([hash_vector(t) for t in texts])
    if not np.array_equal(X, expected):
        raise AssertionError("wrong vectors")


def open_and_embed_worker(path: str, texts: list[str], barrier, queue) -> None:
    """Wait for the others, open the cache at ``path``, embed ``texts``; put ``"ok"`` or the
    error's text in ``queue``."""
    from compsem.cache import EmbeddingCache, embed

    barrier.wait()
    try:
        X = embed(texts, HashEncoder(), cache=EmbeddingCache(path), chunk_size=7, show_progress=False)
        ok = np.array_equal(X, np.stack([hash_vector(t) for t in texts]))
        queue.put("ok" if ok else "wrong vectors")
    except BaseException as exc:  # noqa: BLE001 - reported to the test
        queue.put(f"{type(exc).__name__}: {exc}")


def seeded_embed_fn(dim: int = 8, seed: int = 0, calls: list | None = None):
    """An ``embed_fn(texts, model)`` giving a deterministic pseudo-random ``(n, dim)`` float32
    vector per text (seeded by ``seed`` and the text); appends ``(texts, model)`` to ``calls``."""

    def embed_fn(texts, model):
        if calls is not None:
            calls.append((list(texts), model))
        out = np.empty((len(texts), dim), dtype=np.float32)
        for i, t in enumerate(texts):
            h = int.from_bytes(hashlib.sha256(f"{seed}|{t}".encode()).digest()[:8], "little")
            out[i] = np.random.default_rng(h).standard_normal(dim)
        return out

    return embed_fn
