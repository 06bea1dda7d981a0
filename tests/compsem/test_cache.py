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
    assert enc.seen == ["ccc", "aa", "b"]  # each unique text once, longest first
    assert X.shape == (4, 4) and np.array_equal(X[0], X[2]) and X[3, 0] == 3
    s = last_stats()
    assert (s.n_texts, s.n_unique, s.n_cached, s.n_encoded) == (4, 3, 0, 3)
    Y = embed(["ccc", "aa", "new"], enc, cache=store)
    assert enc.seen == ["ccc", "aa", "b", "new"]
    assert np.array_equal(Y[0], X[3]) and np.array_equal(Y[1], X[0])
    assert (last_stats().n_cached, last_stats().n_encoded) == (2, 1)


def test_identity_change_is_a_miss(tmp_path):
    store = EmbeddingCache(tmp_path / "e.sqlite")
    old, new = CountingEncoder("v1"), CountingEncoder("v2")
    embed(["x", "y"], old, cache=store)
    embed(["x", "y"], new, cache=store)
    assert new.seen == ["x", "y"]
    embed(["x"], old, cache=store)
    assert old.seen == ["x", "y"]  # still cached under v1


def test_weights_change_changes_identity(tmp_path, tiny_bert):
    import shutil

    from tests.helpers.tiny import tiny_bert as build_tiny_bert

    d1 = weights_digest(tiny_bert)
    copy = tmp_path / "bert"
    shutil.copytree(tiny_bert, copy)
    assert weights_digest(copy) == d1
    build_tiny_bert(copy, seed=1)  # same folder, other weights
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


def test_interrupted_run_resumes_with_only_the_rest(tmp_path):
    from tests.helpers.fake_encoders import FailingEncoder, HashEncoder, hash_vector

    store = EmbeddingCache(tmp_path / "e.sqlite")
    texts = [f"text number {i:03d}" for i in range(100)]  # all the same length
    with pytest.raises(KeyboardInterrupt):
        embed(texts, FailingEncoder(fail_on=4), cache=store, chunk_size=25)
    assert int(store.info().texts.iloc[0]) == 75  # three chunks were stored
    again = HashEncoder()
    X = embed(texts, again, cache=store, chunk_size=25)
    assert len(again.seen) == 25 and (last_stats().n_cached, last_stats().n_encoded) == (75, 25)
    assert np.array_equal(X, np.stack([hash_vector(t) for t in texts]))


def test_chunks_are_longest_first_and_each_stored(tmp_path):
    from tests.helpers.fake_encoders import HashEncoder

    enc = HashEncoder()
    embed(["a", "bbb", "cc", "dddd", "e"], enc, cache=EmbeddingCache(tmp_path / "e.sqlite"), chunk_size=2)
    assert enc.seen == ["dddd", "bbb", "cc", "a", "e"]
    with pytest.raises(ValueError, match="chunk_size"):
        embed(["x"], enc, cache=False, chunk_size=0)


@pytest.mark.parametrize("damage", ["truncated", "overwritten"])
def test_a_cache_file_that_is_not_a_database_is_named(tmp_path, damage):
    from compsem.errors import CacheError
    from tests.helpers.fake_encoders import HashEncoder

    path = tmp_path / "e.sqlite"
    embed([f"t{i}" for i in range(300)], HashEncoder(), cache=EmbeddingCache(path))
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3] if damage == "truncated" else b"not a database at all" * 100)
    with pytest.raises(CacheError, match=rf"{path}.*python -m compsem cache clear"):
        embed([f"t{i}" for i in range(300)], HashEncoder(), cache=EmbeddingCache(path))
    moved = EmbeddingCache.move_aside(path)
    assert moved.exists() and not path.exists() and ".broken-" in moved.name
    enc = HashEncoder()
    embed(["t1"], enc, cache=EmbeddingCache(path))  # a fresh cache
    assert enc.seen == ["t1"]


def test_cli_cache_clear_moves_a_broken_file_aside(tmp_path, monkeypatch, capsys):
    from compsem.book.cli import main

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    path = tmp_path / "embeddings" / "embeddings.sqlite"
    path.parent.mkdir()
    path.write_bytes(b"garbage" * 1000)
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "not a usable database" in out and "moved it to" in out
    assert len(list(path.parent.glob("embeddings.sqlite.broken-*"))) == 1
    assert main(["cache", "info"]) == 0 and EmbeddingCache(path).info().empty  # a new, empty cache


def test_processes_opening_a_new_cache_at_once_all_succeed(tmp_path):
    import multiprocessing as mp

    from tests.helpers.fake_encoders import embed_worker, hash_vector

    ctx = mp.get_context("spawn")
    n_proc, rounds = 4, 3
    for r in range(rounds):  # each round a fresh file: the WAL switch race
        path = str(tmp_path / f"shared{r}.sqlite")
        barrier = ctx.Barrier(n_proc)
        # overlapping texts: process p embeds texts [100 p, 100 p + 200)
        jobs = [[f"sentence {i}" for i in range(100 * p, 100 * p + 200)] for p in range(n_proc)]
        procs = [ctx.Process(target=embed_worker, args=(path, jobs[p], barrier, 10)) for p in range(n_proc)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        assert [p.exitcode for p in procs] == [0] * n_proc, f"round {r}"
        with sqlite3.connect(path) as con:
            rows = con.execute("SELECT key, vec FROM vectors").fetchall()
        union = {t for job in jobs for t in job}
        assert len(rows) == len(union) == 100 * (n_proc + 1)
        from compsem.cache import text_key

        want = {text_key(t): hash_vector(t) for t in union}
        assert all(np.array_equal(np.frombuffer(blob, np.float32), want[k]) for k, blob in rows)


def test_opening_while_another_process_writes_a_new_file_waits_instead_of_failing(tmp_path):
    """The race of issue 13: a process switches a new cache file to WAL while another holds a
    write lock on it. SQLite answers that switch with 'database is locked' at once, without
    waiting; the cache must retry until the lock is gone."""
    import multiprocessing as mp
    import time as _time

    from tests.helpers.fake_encoders import open_and_embed_worker

    path = tmp_path / "new.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)  # a new file, not yet in WAL mode
    holder.execute("CREATE TABLE IF NOT EXISTS scratch (x)")
    holder.execute("BEGIN IMMEDIATE")  # ... and someone writing to it
    holder.execute("INSERT INTO scratch VALUES (1)")
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(5), ctx.Queue()
    jobs = [[f"s{i}" for i in range(20 * p, 20 * p + 40)] for p in range(4)]
    procs = [ctx.Process(target=open_and_embed_worker, args=(str(path), job, barrier, queue)) for job in jobs]
    for p in procs:
        p.start()
    barrier.wait()
    _time.sleep(1.5)  # the workers try to open meanwhile
    holder.execute("COMMIT")
    holder.close()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
    assert results == ["ok"] * 4
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 100
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
