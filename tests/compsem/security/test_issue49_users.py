"""Issue 49, the items that need several users of one machine (root sets the scene, uid 2000 is
the victim, uid 3000 another user; :func:`tests.helpers.users.as_user`). Slow: ``make test-slow``.
Each failed on 956f5e4.

* item 3: a folder another user prepared, with a manifest carrying the run id the victim's run
  would have had on 956f5e4 and a link inside, is refused, and so is an empty folder of theirs
  that anyone may write; the victim's run id is not the one anyone can compute;
* item 5: a link another user planted in a world-writable shared cache, pointing at an SQLite
  file of the victim's, changes nothing of it: not the cache a run opens, not ``cache clear``.
"""

from __future__ import annotations

import encodings.ascii  # noqa: F401 - store._umask reads /proc as ASCII; a dropped child cannot import it
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from compsem.book.running.runfolder import prepare_out, run_id
from compsem.results import RUN_MANIFEST
from tests.helpers.users import as_user, give, home_of, needs_root

pytestmark = [pytest.mark.slow, needs_root]

VICTIM, OTHER = 2000, 3000
NOTEBOOK, PARAMETERS = "31_probe.ipynb", {"model": "b"}


@pytest.fixture
def base():
    folder = Path(tempfile.mkdtemp(prefix="compsem-users-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _guess() -> str:
    """The run id of NOTEBOOK with PARAMETERS as 956f5e4 computed it (anyone could)."""
    text = json.dumps({"notebook": NOTEBOOK, "parameters": PARAMETERS}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _claim(out: str):
    run = run_id(NOTEBOOK, PARAMETERS)
    try:
        prepare_out(Path(out), run=run, notebook=NOTEBOOK, parameters=PARAMETERS, announce=lambda t: None)
        return run, "claimed"
    except Exception as exc:  # noqa: BLE001 - the test reads which
        return run, f"{type(exc).__name__}: {exc}"


def test_a_folder_another_user_prepared_is_never_taken(base):
    home2, home3 = home_of(base, VICTIM), home_of(base, OTHER)
    (home2 / "notes.txt").write_text("the victim's notes")
    give(home2, VICTIM)
    drop = base / "drop"  # a shared folder (like /tmp) where anyone may make folders
    drop.mkdir()
    drop.chmod(0o1777)
    trap = drop / "trap"

    def prepare(folder, target):
        Path(folder).mkdir(mode=0o777)
        os.chmod(folder, 0o777)
        Path(folder, RUN_MANIFEST).write_text(
            json.dumps(
                {"run": _guess(), "notebook": NOTEBOOK, "state": "done", "parameters": PARAMETERS, "files": [NOTEBOOK]}
            )
        )
        Path(folder, NOTEBOOK).symlink_to(target)

    assert as_user(OTHER, home3, prepare, str(trap), str(home2 / "notes.txt"))[0] == "ok"
    env = {"COMPSEM_CACHE_OVERLAY": str(home2 / "overlay")}
    status, (run, got) = as_user(VICTIM, home2, _claim, str(trap), env=env)
    assert status == "ok" and run != _guess(), (run, got)
    assert got.startswith("RunMixError: --out") and "is not empty and holds another run" in got, got
    assert (home2 / "notes.txt").read_text() == "the victim's notes"

    empty = drop / "empty"  # no manifest at all: an empty folder anyone may write
    assert as_user(OTHER, home3, lambda f: (Path(f).mkdir(), os.chmod(f, 0o777)) and None, str(empty))[0] == "ok"
    status, (_, got) = as_user(VICTIM, home2, _claim, str(empty), env=env)
    assert status == "ok" and got.startswith("RunMixError") and "the folder belongs to uid 3000" in got, got
    assert list(empty.iterdir()) == []


def test_the_same_users_rerun_still_reuses_its_folder(base):
    home2 = home_of(base, VICTIM)
    env = {"COMPSEM_CACHE_OVERLAY": str(home2 / "overlay")}
    out = str(home2 / "run")
    first = as_user(VICTIM, home2, _claim, out, env=env)
    again = as_user(VICTIM, home2, _claim, out, env=env)
    assert first[0] == again[0] == "ok" and first[1] == again[1] and first[1][1] == "claimed", (first, again)


def test_a_link_planted_in_a_shared_cache_changes_nothing_of_the_victims(base):
    import sqlite3

    from compsem.book import cli
    from compsem.cachestore import EmbeddingCache

    home2, home3 = home_of(base, VICTIM), home_of(base, OTHER)
    project = home2 / "project.sqlite"
    con = sqlite3.connect(project)
    con.execute("CREATE TABLE vectors (id INTEGER, vec BLOB)")
    con.executemany("INSERT INTO vectors VALUES (?, ?)", [(i, b"x") for i in range(3)])
    con.commit()
    con.close()
    give(home2, VICTIM)
    home2.chmod(0o755)  # the attacker may name the file, not write it
    before = project.read_bytes()
    shared = base / "shared"
    (shared / "embeddings").mkdir(parents=True)
    for p in (shared, shared / "embeddings"):
        p.chmod(0o777)
    assert (
        as_user(
            OTHER,
            home3,
            lambda link, target: Path(link).symlink_to(target),
            str(shared / "embeddings" / "embeddings.sqlite"),
            str(project),
        )[0]
        == "ok"
    )

    def victim():
        got = []
        for call in (EmbeddingCache, lambda: cli.main(["cache", "clear"])):
            try:
                got.append(call())
            except Exception as exc:  # noqa: BLE001 - the test reads which
                got.append(f"{type(exc).__name__}: {exc}")
        return [str(g) for g in got]

    env = {"COMPSEM_CACHE": str(shared), "COMPSEM_CACHE_OVERLAY": str(home2 / "overlay")}
    status, got = as_user(VICTIM, home2, victim, env=env)
    assert status == "ok" and "is a symbolic link made by uid 3000" in got[0] and got[1] == "2", got
    assert project.read_bytes() == before
