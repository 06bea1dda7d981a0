"""Issue 37, the findings that need several users of one machine (root here acts as a lecturer,
uid 2000 as a student, uid 3000 as another user; :func:`tests.helpers.users.as_user`). Slow:
``make test-slow``. Each failed on 467c50a.

* finding 2: a damaged overlay above a healthy read-only shared cache is named and recovered by
  ``cache verify``/``cache clear``; the shared cache is reported read-only, never damaged, and
  stays byte-identical; a healthy cache that is read-only to its user is never moved aside;
* finding 3: a manifest planted by another user in a sticky shared folder does not make
  ``--force`` delete the caller's files;
* finding 5: a student's ``--out /tmp`` is refused at once, and ``--out / --force`` is a
  RunMixError, not a raw PermissionError.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

import pytest

from compsem.book import cli
from compsem.book.running.runfolder import prepare_out
from compsem.cache import embed
from compsem.cachestore import EmbeddingCache, text_key
from compsem.encoders import get_encoder
from compsem.results import RUN_MANIFEST
from tests.helpers.users import as_user, give, home_of, needs_root

pytestmark = [pytest.mark.slow, needs_root]

STUDENT, OTHER = 2000, 3000


@pytest.fixture
def base():
    folder = Path(tempfile.mkdtemp(prefix="compsem-users-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _cache_command(action: str):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            rc = cli.main(["cache", action])
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue()


def _shared_cache(base: Path) -> Path:
    cache = base / "shared"
    store = EmbeddingCache(cache / "embeddings" / "embeddings.sqlite")
    enc = get_encoder("random:8")  # not cached by embed() (cheaper to compute): stored by hand
    texts = ["a red car", "the dog runs"]
    store.put_many(store.register(enc), [text_key(t) for t in texts], enc.encode(texts))
    con = sqlite3.connect(store.path)  # a lecturer's finished cache: its log folded in
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    for p in [cache, *cache.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return cache


def _bytes(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_damaged_overlay_above_a_read_only_shared_cache_is_recovered(base):
    shared = _shared_cache(base)
    before = _bytes(shared)
    home = home_of(base, STUDENT)
    overlay = home / "overlay"
    overlay.mkdir(mode=0o700)
    (overlay / "embeddings.sqlite").write_bytes(b"not a database " * 100)
    give(home, STUDENT)
    env = {"COMPSEM_CACHE": str(shared), "COMPSEM_CACHE_OVERLAY": str(overlay)}
    status, (rc, text) = as_user(STUDENT, home, _cache_command, "verify", env=env)
    assert status == "ok" and rc == 1, text
    shared_file = shared / "embeddings" / "embeddings.sqlite"
    assert f"{shared_file} (read-only: used as it is): 2 vectors" in text
    assert f"{shared_file}: damaged" not in text and f"{overlay / 'embeddings.sqlite'}: damaged" in text
    status, (rc, text) = as_user(STUDENT, home, _cache_command, "clear", env=env)
    assert status == "ok" and rc == 0, text
    assert "is read-only (shared, or not yours): left as it is" in text and "was not a usable database" in text
    assert any(p.name.startswith("embeddings.sqlite.broken-") for p in overlay.iterdir())
    assert _bytes(shared) == before  # never touched
    status, got = as_user(STUDENT, home, lambda: embed(["a red car", "a new text"], "random:8").shape, env=env)
    assert status == "ok" and got == (2, 8), got  # embed() works again


def test_a_healthy_cache_read_only_to_its_user_is_never_moved_aside(base):
    shared = _shared_cache(base)
    give(shared, STUDENT)  # the student's own folder, the file 0444
    f = shared / "embeddings" / "embeddings.sqlite"
    f.chmod(0o444)
    before = _bytes(shared)
    home = home_of(base, STUDENT)
    env = {"COMPSEM_CACHE": str(shared), "COMPSEM_CACHE_OVERLAY": str(home / "overlay")}
    for action in ("verify", "clear"):
        status, (rc, text) = as_user(STUDENT, home, _cache_command, action, env=env)
        assert status == "ok" and "damaged," not in text and "moved it to" not in text, text
    assert _bytes(shared) == before and sorted(p.name for p in f.parent.iterdir()) == ["embeddings.sqlite"]


def _force(out: str):
    try:
        prepare_out(Path(out), run="r", notebook="00_x.ipynb", force=True, announce=lambda t: None)
        return "cleared"
    except Exception as exc:  # noqa: BLE001 - the test reads which
        return f"{type(exc).__name__}: {exc}"


def test_a_manifest_planted_by_another_user_does_not_make_force_delete(base):
    shared = base / "drop"
    shared.mkdir(mode=0o1777)
    shared.chmod(0o1777)
    home2, home3 = home_of(base, STUDENT), home_of(base, OTHER)

    def student_files(folder):
        Path(folder, "notes.txt").write_text("mine")
        Path(folder, "project").mkdir()
        Path(folder, "project", "a.py").write_text("x = 1\n")

    def plant(folder):
        Path(folder, RUN_MANIFEST).write_text(
            json.dumps({"run": "x", "notebook": "00_x.ipynb", "state": "done", "files": ["notes.txt", "project/a.py"]})
        )

    assert as_user(STUDENT, home2, student_files, str(shared))[0] == "ok"
    assert as_user(OTHER, home3, plant, str(shared))[0] == "ok"
    status, got = as_user(STUDENT, home2, _force, str(shared), env={"COMPSEM_CACHE": str(home2 / "cache")})
    assert status == "ok" and got.startswith("RunMixError") and "belongs to uid 3000" in got, got
    assert (shared / "notes.txt").read_text() == "mine" and (shared / "project" / "a.py").is_file()


def test_a_students_out_is_judged_before_it_is_walked(base):
    home = home_of(base, STUDENT)

    def out(folder, force):
        t0 = time.perf_counter()
        try:
            prepare_out(Path(folder), run="r", notebook="00_x.ipynb", force=force, announce=lambda t: None)
            return "claimed", time.perf_counter() - t0
        except Exception as exc:  # noqa: BLE001 - the test reads which
            return f"{type(exc).__name__}: {exc}", time.perf_counter() - t0

    for folder, force in (("/tmp", False), ("/", True), ("/tmp", True), ("/root/compsem-x", False)):
        status, (got, seconds) = as_user(STUDENT, home, out, folder, force, env={"COMPSEM_CACHE": str(home / "c")})
        assert status == "ok" and got.startswith("RunMixError"), (folder, got)
        assert seconds < 5, f"--out {folder} took {seconds:.1f} s"
    assert not Path("/root/compsem-x").exists()
