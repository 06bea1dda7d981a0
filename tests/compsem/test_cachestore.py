"""compsem/cachestore.py, the SQLite store behind compsem.embed: keys, round trips, checksums,
counts and clearing, on a fresh file per test (the read-only and full-disk paths are in
tests/compsem/security/test_readonly_cache.py)."""

import hashlib
import sqlite3
from types import SimpleNamespace

import numpy as np
import pytest

from compsem.cachestore import CacheWarning, EmbeddingCache, model_key, text_key


def _enc(spec="bow", identity="bow|v1", dim=3):
    return SimpleNamespace(spec=spec, identity=identity, dim=dim)


def test_keys_are_sha256_of_the_text_and_a_short_hash_of_the_identity():
    assert text_key("café") == hashlib.sha256("café".encode("utf-8")).hexdigest()
    assert model_key("bow|v1") == hashlib.sha256(b"bow|v1").hexdigest()[:24] and len(model_key("x")) == 24


def test_vectors_round_trip_as_float32_and_missing_keys_are_absent(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    m = store.register(_enc())
    vecs = np.array([[1, 2, 3], [0.1, 0.2, 0.3]], dtype=np.float64)
    store.put_many(m, ["a", "b"], vecs)
    got = store.get_many(m, ["a", "b", "c"], 3)
    assert set(got) == {"a", "b"} and got["b"].dtype == np.float32
    np.testing.assert_array_equal(got["b"], vecs[1].astype(np.float32))
    assert store.get_many(m, ["a"], 4) == {}  # a row of another shape is not served
    assert store.count_cached("bow", ["a", "b", "b", "zzz"]) == 2  # distinct keys, by spec, nothing loaded
    assert store.verify() == (2, 2, 0)


def test_a_damaged_vector_is_a_miss_with_one_warning_and_verify_counts_it(tmp_path):
    path = tmp_path / "e.sqlite"
    store = EmbeddingCache(path)
    m = store.register(_enc())
    store.put_many(m, ["a", "b"], np.eye(2, 3))
    with sqlite3.connect(path) as con:  # flip bytes of "a" behind the store's back
        con.execute("UPDATE vectors SET vec = ? WHERE key = 'a'", (np.array([9, 9, 9], np.float32).tobytes(),))
    with pytest.warns(CacheWarning, match="1 vector whose checksum does not match"):
        got = store.get_many(m, ["a", "b"], 3)
    assert set(got) == {"b"}
    assert store.verify() == (2, 2, 1)


def test_clear_removes_one_models_vectors_or_all(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    a, b = store.register(_enc("bow", "bow|v1")), store.register(_enc("glove-50d", "glove|v1"))
    store.put_many(a, ["x", "y"], np.ones((2, 3)))
    store.put_many(b, ["x"], np.ones((1, 3)))
    assert store.clear("bow") == 2
    assert store.count_cached("bow", ["x", "y"]) == 0 and store.count_cached("glove-50d", ["x"]) == 1
    assert store.clear() == 1 and store.verify() == (0, 0, 0)
