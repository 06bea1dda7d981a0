"""Finding 5: a damaged cache can be recovered. ``cache verify`` runs SQLite's integrity check
as well as the checksums; ``cache clear`` moves a malformed file aside even when it cannot be
opened or emptied; a damaged overlay is reported, not silently replaced by memory; advice fits
the cause (the clear command never tells the reader to run itself)."""

import sqlite3

import pytest

from compsem.book.cli import main
from compsem.cache import CacheError, EmbeddingCache, embed
from tests.helpers.fake_encoders import HashEncoder

TEXTS = [f"sentence number {i} of a cache that spans several pages" for i in range(400)]


def _filled(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    path = tmp_path / "embeddings" / "embeddings.sqlite"
    embed(TEXTS, HashEncoder(dim=32), cache=EmbeddingCache(path))
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert (
            con.execute("PRAGMA page_count").fetchone()[0] > 3 and con.execute("PRAGMA page_size").fetchone()[0] == 4096
        )
    return path


def _stomp(path):
    data = bytearray(path.read_bytes())
    data[4096:4108] = b"\xff" * 12  # the header of the second page
    path.write_bytes(bytes(data))


def test_verify_reports_a_damaged_page_and_clear_moves_the_file_aside(tmp_path, monkeypatch, capsys):
    path = _filled(tmp_path, monkeypatch)
    _stomp(path)
    assert main(["cache", "verify"]) == 1
    out = capsys.readouterr().out
    assert str(path) in out and ("integrity check found" in out or "damaged, not a usable database" in out), out
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert f"the embedding cache {path} was not a usable database" in out and "moved it to" in out, out
    assert "run `python -m compsem cache clear`" not in out
    broken = [p for p in path.parent.iterdir() if ".broken-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(broken) == 1 and broken[0].read_bytes()[4096:4108] == b"\xff" * 12  # kept, for a post-mortem
    assert main(["cache", "verify"]) == 0  # a new, sound cache
    assert EmbeddingCache(path).verify() == (0, 0, 0)


def test_clear_moves_aside_a_file_that_is_not_a_database(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    path = tmp_path / "embeddings" / "embeddings.sqlite"
    path.parent.mkdir()
    path.write_bytes(b"\xff" * 8192)
    assert main(["cache", "verify"]) == 1
    assert "damaged, not a usable database" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "was not a usable database" in out and "cache clear`" not in out, out


def test_a_damaged_overlay_is_reported_not_replaced_by_memory(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared" / "embeddings.sqlite"
    embed(["known"], HashEncoder(), cache=EmbeddingCache(shared))
    overlay = tmp_path / "overlay"
    overlay.mkdir(mode=0o700)
    (overlay / "embeddings.sqlite").write_bytes(b"garbage, not a database" * 200)
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(overlay))
    with pytest.raises(CacheError, match=rf"{overlay}/embeddings.sqlite is not a usable database"):
        EmbeddingCache(shared, readonly=True)
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "shared-root"))
    assert main(["cache", "verify"]) == 1
    assert f"{overlay}/embeddings.sqlite: damaged" in capsys.readouterr().out
