"""Finding 6: a full disk never stops a run whose vectors are computed. The model row is written
with the first vectors (never on its own), so a run that finds everything cached writes
nothing; a cache that cannot even be opened is one warning; a disk I/O error gets advice about
the disk, not "run cache clear"."""

import sqlite3
import warnings

import numpy as np
import pytest

from compsem.cache import CacheError, CacheWarning, EmbeddingCache, embed
from tests.helpers.fake_encoders import HashEncoder, hash_vector

WRITES = ("insert", "update", "delete", "replace", "create", "alter", "vacuum", "pragma journal_mode=")


class _Full:
    """A connection on a disk with no room left: every statement that writes fails as SQLite says."""

    def __init__(self, con, message):
        self.con, self.message = con, message

    def _check(self, sql):
        if sql.strip().lower().startswith(WRITES):
            raise sqlite3.OperationalError(self.message)

    def execute(self, sql, *a):
        self._check(sql)
        return self.con.execute(sql, *a)

    def executemany(self, sql, *a):
        self._check(sql)
        return self.con.executemany(sql, *a)

    def executescript(self, sql):
        self._check(sql)
        return self.con.executescript(sql)

    def __enter__(self):
        self.con.__enter__()
        return self

    def __exit__(self, *exc):
        return self.con.__exit__(*exc)

    def close(self):
        self.con.close()


def _disk_full(monkeypatch, message="database or disk is full"):
    monkeypatch.setattr(EmbeddingCache, "_connect", lambda self: _Full(sqlite3.connect(self.path), message))


def test_a_run_whose_vectors_are_all_cached_writes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "e.sqlite"
    texts = [f"text {i}" for i in range(20)]
    embed(texts, HashEncoder(), cache=EmbeddingCache(path))
    store = EmbeddingCache(path)
    _disk_full(monkeypatch)
    enc = HashEncoder()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning: nothing had to be written
        X = embed(texts, enc, cache=store)
    assert enc.seen == [] and np.array_equal(X, np.stack([hash_vector(t) for t in texts]))


def test_new_vectors_on_a_full_disk_are_returned_with_one_warning(tmp_path, monkeypatch):
    path = tmp_path / "e.sqlite"
    embed(["old"], HashEncoder(), cache=EmbeddingCache(path))
    store = EmbeddingCache(path)
    _disk_full(monkeypatch)
    with pytest.warns(CacheWarning, match="disk is full.*goes on without storing"):
        X = embed(["old", "new"], HashEncoder(), cache=store)
    assert np.array_equal(X[1], hash_vector("new"))


def test_a_cache_that_cannot_be_created_on_a_full_disk_is_a_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "new-cache"))
    _disk_full(monkeypatch)
    with pytest.warns(CacheWarning, match="disk is full.*goes on without the cache"):
        X = embed(["a", "b"], HashEncoder())
    assert np.array_equal(X, np.stack([hash_vector("a"), hash_vector("b")]))


def test_a_disk_io_error_is_not_answered_with_cache_clear(tmp_path, monkeypatch):
    path = tmp_path / "e.sqlite"
    store = EmbeddingCache(path)
    _disk_full(monkeypatch, "disk I/O error")
    with pytest.raises(CacheError) as err:
        store.put_many("m", ["k"], np.ones((1, 4), np.float32))
    text = str(err.value)
    assert f"the embedding cache {path} failed (disk I/O error)" in text
    assert "cache clear" not in text and "check the disk and its free space" in text
