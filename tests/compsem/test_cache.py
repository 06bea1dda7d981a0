"""The embedding cache: hits, misses, deduplication, invalidation, clearing, safe storage."""

import sqlite3

import numpy as np
import pytest

from compsem.cache import EmbeddingCache, embed, last_stats
from compsem.encoders import Encoder, weights_digest


class CountingEncoder(Encoder):
    """A fake model that records every text it is asked to encode."""

    def __init__(self, version: str = "v1", dim: int = 4):
        self.spec, self.dim, self.version, self.seen = "counting", dim, version, []

    @property
    def identity(self):
        return f"counting|{self.version}"

    def _encode(self, texts, *, batch_size, show_progress):
        self.seen.extend(texts)
        return np.array([[len(t), t.count("a"), len(self.version), 1.0] for t in texts], dtype=np.float32)


def test_duplicates_folded_and_second_call_hits(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    enc = CountingEncoder()
    X = embed(["aa", "b", "aa", "ccc"], enc, cache=store)
    assert enc.seen == ["aa", "b", "ccc"]
    assert X.shape == (4, 4) and np.array_equal(X[0], X[2]) and X[3, 0] == 3
    s = last_stats()
    assert (s.n_texts, s.n_unique, s.n_cached, s.n_encoded) == (4, 3, 0, 3)
    Y = embed(["ccc", "aa", "new"], enc, cache=store)
    assert enc.seen == ["aa", "b", "ccc", "new"]
    assert np.array_equal(Y[0], X[3]) and np.array_equal(Y[1], X[0])
    assert (last_stats().n_cached, last_stats().n_encoded) == (2, 1)


def test_identity_change_is_a_miss(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    old, new = CountingEncoder("v1"), CountingEncoder("v2")
    embed(["x", "y"], old, cache=store)
    embed(["x", "y"], new, cache=store)
    assert new.seen == ["x", "y"]
    embed(["x"], old, cache=store)
    assert old.seen == ["x", "y"]                       # still cached under v1


def test_weights_change_changes_identity(tmp_path, tiny_bert):
    import shutil

    from tests.helpers.tiny import tiny_bert as build_tiny_bert

    d1 = weights_digest(tiny_bert)
    copy = tmp_path / "bert"
    shutil.copytree(tiny_bert, copy)
    assert weights_digest(copy) == d1
    build_tiny_bert(copy, seed=1)                       # same folder, other weights
    assert weights_digest(copy) != d1


def test_no_cache_and_uncacheable_encoders(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    enc = CountingEncoder()
    embed(["x"], enc, cache=False)
    embed(["x"], enc, cache=False)
    assert enc.seen == ["x", "x"]
    embed(["a red car"], "bow", cache=store)
    assert store.info().empty


def test_clear_and_info(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    enc = CountingEncoder()
    embed(["p", "q", "r"], enc, cache=store)
    info = store.info()
    assert list(info.spec) == ["counting"] and int(info.texts.iloc[0]) == 3
    assert store.clear("other") == 0
    assert store.clear("counting") == 3
    embed(["p"], enc, cache=store)
    assert enc.seen[-1] == "p"
    assert store.clear() == 1


def test_storage_is_plain_sqlite_with_float32_blobs(tmp_path):
    path = tmp_path / "e.sqlite"
    embed(["hello"], CountingEncoder(), cache=EmbeddingCache(path))
    with sqlite3.connect(path) as con:
        (blob,) = con.execute("SELECT vec FROM vectors").fetchone()
    assert np.frombuffer(blob, dtype=np.float32).tolist() == [5.0, 0.0, 2.0, 1.0]


def test_row_of_wrong_dimension_is_re_embedded(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    enc = CountingEncoder()
    embed(["t"], enc, cache=store)
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE vectors SET vec = ?", (np.zeros(3, np.float32).tobytes(),))
    embed(["t"], enc, cache=store)
    assert enc.seen == ["t", "t"]


def test_empty_text_rejected_before_anything_is_encoded(tmp_path):
    enc = CountingEncoder()
    with pytest.raises(ValueError, match="row 2"):
        embed(["a", "b", ""], enc, cache=EmbeddingCache(tmp_path / "e.sqlite"))
    assert enc.seen == []
