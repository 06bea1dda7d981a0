"""Finding 4: a read-only shared cache serves a rerun; a full disk or any SQLite failure is a
``CacheError`` naming the file, and the vectors computed are not lost; checksums; ``.broken``
files are never overwritten.

The read-only cases run in a child process that sees the cache folder through a read-only bind
mount (``unshare -m``) when the tests run as root (root ignores file modes), else with the write
bits removed.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from compsem.book.cli import main
from compsem.cache import CacheError, CacheWarning, EmbeddingCache, embed, last_stats
from tests.helpers import ROOT
from tests.helpers.fake_encoders import HashEncoder, hash_vector

TEXTS = [f"sentence number {i}" for i in range(120)]

RERUN = textwrap.dedent("""
    import json, warnings
    import numpy as np
    from compsem.cache import embed, last_stats, CacheWarning
    from tests.helpers.fake_encoders import HashEncoder, hash_vector
    texts = [f"sentence number {i}" for i in range(120)]
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step, batch in enumerate([texts[:40], texts[40:], texts, ["a text never seen"], ["a text never seen"]]):
            enc = HashEncoder()
            X = embed(batch, enc, show_progress=False)
            s = last_stats()
            out[step] = [s.n_cached, s.n_encoded, bool(np.array_equal(X, np.stack([hash_vector(t) for t in batch])))]
    out["warnings"] = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    out["other_warnings"] = [str(w.message) for w in caught if not issubclass(w.category, CacheWarning)]
    print(json.dumps(out))
""")


def _fill(cache_root):
    store = EmbeddingCache(cache_root / "embeddings" / "embeddings.sqlite")
    embed(TEXTS, HashEncoder(), cache=store)
    return store.path


def run_read_only(folder, script, env):
    """Run ``script`` in a child Python that cannot write ``folder``; return its JSON output."""
    env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    if os.geteuid() != 0:
        for p in [folder, *folder.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
        finally:
            for p in [folder, *folder.rglob("*")]:
                p.chmod(0o755 if p.is_dir() else 0o644)
    else:
        if not shutil.which("unshare"):
            pytest.skip("running as root without unshare: no way to make a folder read-only")
        shell = 'mount --bind "$RO" "$RO" && mount -o remount,bind,ro "$RO" && exec "$PY" -c "$SCRIPT"'
        proc = subprocess.run(
            ["unshare", "-m", "sh", "-c", shell],
            capture_output=True,
            text=True,
            timeout=300,
            env={**env, "RO": str(folder), "PY": sys.executable, "SCRIPT": script},
        )
        if proc.returncode and ("unshare" in proc.stderr or "mount" in proc.stderr):
            pytest.skip(f"cannot make a read-only mount here: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_chapter_rerun_on_a_read_only_filled_cache_is_all_hits_with_one_warning(tmp_path):
    shared = tmp_path / "class-cache"
    path = _fill(shared)
    before = path.read_bytes()
    out = run_read_only(shared, RERUN, {"COMPSEM_CACHE": str(shared), "COMPSEM_CACHE_OVERLAY": str(tmp_path / "mine")})
    print(out)
    assert out["0"] == [40, 0, True] and out["1"] == [80, 0, True] and out["2"] == [120, 0, True]
    assert out["3"] == [0, 1, True]  # a miss: encoded, kept in the overlay
    assert out["4"] == [1, 0, True]  # ... and found there the next time
    assert len(out["warnings"]) == 1 and str(path) in out["warnings"][0] and "read-only" in out["warnings"][0]
    assert str(tmp_path / "mine") in out["warnings"][0]
    assert path.read_bytes() == before  # the shared file is untouched
    assert (tmp_path / "mine" / "embeddings.sqlite").is_file()


def test_read_only_empty_folder_works_from_the_overlay(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    out = run_read_only(empty, RERUN, {"COMPSEM_CACHE": str(empty), "COMPSEM_CACHE_OVERLAY": str(tmp_path / "mine")})
    assert out["0"] == [0, 40, True] and out["2"] == [120, 0, True]  # all from the overlay after the first pass
    assert len(out["warnings"]) == 1


def test_explicitly_read_only_store_keeps_misses_in_memory_without_overlay(tmp_path, monkeypatch):
    path = _fill(tmp_path / "c")
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(path.parent))  # the overlay would be the file itself: none
    store = EmbeddingCache(path, readonly=True)
    assert store.overlay is None
    enc = HashEncoder()
    X = embed(["brand new", *TEXTS[:3]], enc, cache=store)
    assert enc.seen == ["brand new"] and np.array_equal(X[0], hash_vector("brand new"))
    embed(["brand new"], enc, cache=store)
    assert enc.seen == ["brand new"]  # served from memory
    with pytest.raises(CacheError, match="read-only"):
        store.clear()


def test_full_disk_is_a_named_cache_error_and_the_vectors_are_returned(tmp_path, monkeypatch):
    path = tmp_path / "e.sqlite"
    store = EmbeddingCache(path)
    embed(TEXTS[:10], HashEncoder(), cache=store)
    connect = EmbeddingCache._connect

    def full(self):
        con = connect(self)
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        con.execute(f"PRAGMA max_page_count={pages}")  # no room for one more page: SQLITE_FULL
        return con

    monkeypatch.setattr(EmbeddingCache, "_connect", full)
    many = [f"a much longer text to store, number {i} " * 20 for i in range(300)]
    with pytest.raises(
        CacheError,
        match=rf"the embedding cache {path} failed \(database or disk is full\); "
        "the disk is full: free space there",
    ):
        store.put_many("m", [str(i) for i in range(300)], np.ones((300, 8), np.float32))
    enc = HashEncoder()
    with pytest.warns(CacheWarning, match=rf"{path}.*disk is full.*goes on without storing"):
        X = embed(many, enc, cache=store, chunk_size=100)
    assert len(enc.seen) == 300 and np.array_equal(X, np.stack([hash_vector(t) for t in many]))


def test_a_flipped_byte_is_caught_by_the_checksum(tmp_path, capsys, monkeypatch):
    path = tmp_path / "embeddings" / "embeddings.sqlite"
    embed(TEXTS[:5], HashEncoder(), cache=EmbeddingCache(path))
    with sqlite3.connect(path) as con:
        rowid, blob = con.execute("SELECT rowid, vec FROM vectors LIMIT 1").fetchone()
        flipped = bytearray(blob)
        flipped[5] ^= 0x10
        con.execute("UPDATE vectors SET vec = ? WHERE rowid = ?", (bytes(flipped), rowid))
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    assert main(["cache", "verify"]) == 1
    assert (
        capsys.readouterr().out.strip() == f"{path}: 5 vectors, 5 with a checksum, 1 damaged "
        "(they are re-encoded when next asked for)"
    )
    enc = HashEncoder()
    with pytest.warns(CacheWarning, match="checksum does not match"):
        X = embed(TEXTS[:5], enc, cache=EmbeddingCache(path))
    assert len(enc.seen) == 1 and np.array_equal(X, np.stack([hash_vector(t) for t in TEXTS[:5]]))
    assert main(["cache", "verify"]) == 0


def test_a_cache_made_before_the_checksums_is_migrated_in_place(tmp_path):
    from compsem.cache import model_key, text_key

    path = tmp_path / "old.sqlite"
    enc = HashEncoder()
    with sqlite3.connect(path) as con:  # the first schema: WITHOUT ROWID, no checksum column
        con.executescript(
            "CREATE TABLE models (model TEXT PRIMARY KEY, spec TEXT NOT NULL, identity TEXT NOT NULL, "
            "dim INTEGER NOT NULL); CREATE TABLE vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
            "vec BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID;"
        )
        con.execute(
            "INSERT INTO vectors VALUES (?, ?, ?)",
            (model_key(enc.identity), text_key("old"), hash_vector("old").tobytes()),
        )
    X = embed(["old", "new"], enc, cache=EmbeddingCache(path))
    assert enc.seen == ["new"] and np.array_equal(X[0], hash_vector("old"))
    assert EmbeddingCache(path).verify() == (2, 1, 0)  # the old row has no checksum, the new one has


def test_cache_clear_twice_in_one_second_keeps_both_broken_files(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    path = tmp_path / "embeddings" / "embeddings.sqlite"
    path.parent.mkdir()
    monkeypatch.setattr("time.strftime", lambda fmt, *a: "20260101-000000")  # both in the same second
    for content in (b"first garbage" * 100, b"second garbage" * 100):
        path.write_bytes(content)
        assert main(["cache", "clear"]) == 0
        path.unlink()
        for side in ("-wal", "-shm"):
            path.with_name(path.name + side).unlink(missing_ok=True)
    kept = sorted(
        p.read_bytes()[:6]
        for p in path.parent.glob("embeddings.sqlite.broken-*")
        if p.name[-4:] != "-wal" and p.name[-4:] != "-shm"
    )
    assert kept == [b"first ", b"second"]
