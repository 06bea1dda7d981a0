"""Finding 2: the overlay of a read-only cache is a private folder of the user's own.

It is created 0700 in a per-user place (``$XDG_CACHE_HOME/compsem/overlay``, else
``~/.cache/compsem/overlay``), never a shared temporary folder; a folder owned by another user
or writable by others is refused with one line naming it (a vector planted there is never
returned); its files are 0600; ``cache verify`` and ``cache clear`` look at it too.
"""

import os
import sqlite3
import stat

import numpy as np
import pytest

from compsem import paths
from compsem.book.cli import main
from compsem.cache import CacheError, EmbeddingCache, embed, model_key, text_key
from tests.helpers.fake_encoders import HashEncoder, hash_vector


def _shared(tmp_path):
    """A filled cache file, opened read-only as a student would see it."""
    path = tmp_path / "shared" / "embeddings.sqlite"
    embed(["a known text"], HashEncoder(), cache=EmbeddingCache(path))
    return path


def _plant(folder, enc, text, vector):
    """What an attacker leaves in ``folder``: a valid cache holding a forged vector."""
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(folder / "embeddings.sqlite") as con:
        con.executescript(
            "CREATE TABLE models (model TEXT PRIMARY KEY, spec TEXT NOT NULL, identity TEXT NOT NULL, "
            "dim INTEGER NOT NULL); CREATE TABLE vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
            "vec BLOB NOT NULL, sum INTEGER, UNIQUE (model, key));"
        )
        import zlib

        blob = vector.astype(np.float32).tobytes()
        con.execute(
            "INSERT INTO models VALUES (?, ?, ?, ?)", (model_key(enc.identity), enc.spec, enc.identity, enc.dim)
        )
        con.execute(
            "INSERT INTO vectors VALUES (?, ?, ?, ?)", (model_key(enc.identity), text_key(text), blob, zlib.crc32(blob))
        )


def test_the_default_overlay_is_per_user_not_a_shared_temp_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPSEM_CACHE_OVERLAY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.overlay_dir() == tmp_path / "xdg" / "compsem" / "overlay"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert paths.overlay_dir() == tmp_path / "home" / ".cache" / "compsem" / "overlay"


def test_a_new_overlay_is_0700_and_its_files_0600(monkeypatch, tmp_path):
    overlay = tmp_path / "mine" / "overlay"
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(overlay))
    store = EmbeddingCache(_shared(tmp_path), readonly=True)
    embed(["a text only I asked for"], HashEncoder(), cache=store)
    assert stat.S_IMODE(overlay.stat().st_mode) == 0o700
    files = list(overlay.iterdir())
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files), {
        p.name: oct(p.stat().st_mode) for p in files
    }


def test_a_world_writable_overlay_with_a_planted_vector_is_refused(monkeypatch, tmp_path):
    overlay = tmp_path / "planted"
    enc = HashEncoder()
    _plant(overlay, enc, "the student's text", np.full(8, 0.94))
    overlay.chmod(0o777)
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(overlay))
    with pytest.raises(
        CacheError,
        match=rf"^the cache overlay folder {overlay} is writable by others \(mode 777\): "
        "refused",
    ) as err:
        embed(["the student's text"], enc, cache=EmbeddingCache(_shared(tmp_path), readonly=True))
    assert "\n" not in str(err.value) and enc.seen == []


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_an_overlay_owned_by_another_user_is_refused_even_when_read_only(monkeypatch, tmp_path):
    overlay = tmp_path / "theirs"
    enc = HashEncoder()
    _plant(overlay, enc, "the student's text", np.full(8, 0.94))
    for p in (overlay, *overlay.iterdir()):
        os.chown(p, 2000, 2000)
    overlay.chmod(0o555)  # read-only: today every embed then fails, or is poisoned
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(overlay))
    with pytest.raises(CacheError, match=rf"{overlay} is owned by another user \(uid 2000, you are uid 0\): refused"):
        embed(["the student's text"], enc, cache=EmbeddingCache(_shared(tmp_path), readonly=True))


def test_cache_verify_and_clear_cover_the_overlay(monkeypatch, tmp_path, capsys):
    cache = tmp_path / "cache"
    overlay = tmp_path / "overlay"
    monkeypatch.setenv("COMPSEM_CACHE", str(cache))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(overlay))
    embed(["in the cache"], HashEncoder(), cache=EmbeddingCache())
    mine = EmbeddingCache(overlay / "embeddings.sqlite")
    embed(["in the overlay", "another"], HashEncoder(), cache=mine)
    with sqlite3.connect(mine.path) as con:  # one damaged vector in the overlay only
        rowid, blob = con.execute("SELECT rowid, vec FROM vectors LIMIT 1").fetchone()
        con.execute("UPDATE vectors SET vec = ? WHERE rowid = ?", (bytes([blob[0] ^ 1]) + blob[1:], rowid))
    assert main(["cache", "verify"]) == 1
    out = capsys.readouterr().out
    assert f"{cache}/embeddings/embeddings.sqlite: 1 vector" in out.replace("1 vectors", "1 vector")
    assert f"{mine.path}: 2 vectors, 2 with a checksum, 1 damaged" in out
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert f"removed 2 cached vectors from {mine.path}" in out
    assert EmbeddingCache(mine.path).verify() == (0, 0, 0)
    assert np.array_equal(embed(["in the overlay"], HashEncoder(), cache=mine), hash_vector("in the overlay")[None])
