"""Property-based tests of issue 49 over what a shared machine may put in a run folder or a
cache folder: manifests, run-folder entries and cache paths that are files, folders or links (to
the user's own files), owned by the user or by another uid (uid 3000, where the tests run as
root), in folders of several modes. The property (:mod:`.harness`): accepted, or a
``CompsemError`` naming the folder; and whatever happens, no file of the user's that a link
points at is changed, and nothing of another user's is removed."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from compsem.book.running.runfolder import prepare_out, read_manifest
from compsem.cachestore import EmbeddingCache
from compsem.results import RUN_MANIFEST
from compsem.store import write_below
from tests.compsem.fuzz.harness import fuzz, holds

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER = 3000
NOTEBOOK = "31_probe.ipynb"

_BASE = Path(tempfile.mkdtemp(prefix="compsem-fuzz49-"))
_BASE.chmod(0o755)
atexit.register(shutil.rmtree, _BASE, ignore_errors=True)


def _tmp() -> Path:
    return Path(tempfile.mkdtemp(dir=_BASE))


def _victim(base: Path) -> dict[Path, bytes]:
    """The user's own files (a text file, a folder with a file, an SQLite file) that links point at."""
    (base / "home" / "dir").mkdir(parents=True)
    (base / "home" / "notes.txt").write_text("the user's notes")
    (base / "home" / "dir" / "keep.csv").write_text("a,b\n1,2\n")
    con = sqlite3.connect(base / "home" / "project.sqlite")
    con.execute("CREATE TABLE vectors (id INTEGER, vec BLOB)")
    con.execute("INSERT INTO vectors VALUES (1, x'00')")
    con.commit()
    con.close()
    return {p: p.read_bytes() for p in (base / "home").rglob("*") if p.is_file()}


owner = st.sampled_from(["me", "other"] if ROOT else ["me"])
kind = st.sampled_from(["file", "folder", "link-file", "link-folder", "link-db", "dangling"])
entry_name = st.sampled_from([NOTEBOOK, "31_probe.runtime.json", "results", "notes.txt", RUN_MANIFEST])
manifest = st.fixed_dictionaries(
    {
        "run": st.sampled_from(["r1", "r2"]),
        "notebook": st.sampled_from([NOTEBOOK, "x.txt"]),
        "state": st.just("done"),
        "files": st.lists(st.sampled_from([NOTEBOOK, "results/a.csv", "notes.txt"]), max_size=3),
    },
    optional={"kind": st.sampled_from(["run", "book", "stage"])},
)


def _place(path: Path, what: str, whose: str, base: Path, text: str = "x") -> None:
    home = base / "home"
    if what == "file":
        path.write_text(text)
    elif what == "folder":
        path.mkdir()
        (path / "a.csv").write_text("planted")
    else:
        target = {
            "link-file": home / "notes.txt",
            "link-folder": home / "dir",
            "link-db": home / "project.sqlite",
            "dangling": base / "nowhere",
        }[what]
        path.symlink_to(target)
    if whose == "other":
        names = [path] + (sorted(path.rglob("*")) if what == "folder" else [])
        for name in names:
            os.lchown(name, OTHER, OTHER)


@fuzz(
    st.sampled_from([0o755, 0o775, 0o777, 0o1777]),
    owner,
    st.lists(st.tuples(entry_name, kind, owner), max_size=4, unique_by=lambda t: t[0]),
    st.one_of(st.none(), manifest),
    owner,
    st.sampled_from(["r1", "r2"]),
    st.booleans(),
    examples=[
        (
            0o755,
            "me",
            [(NOTEBOOK, "link-file", "me")],
            {"run": "r1", "notebook": NOTEBOOK, "state": "done", "files": [NOTEBOOK]},
            "me",
            "r1",
            False,
        ),
        (0o1777, "me", [("results", "link-folder", "other")], None, "me", "r1", False),
        (0o777, "other", [], {"run": "r1", "notebook": NOTEBOOK, "state": "done", "files": []}, "other", "r1", True),
    ],
)
def test_run_folder_entries(mode, folder_owner, entries, man, man_owner, run, force):
    """A run claiming a folder with these entries, then writing its notebook, run time and a
    table there: claimed and written as regular files, or refused naming the folder; never a
    file of the user's changed through a link, never another user's entry removed."""
    base = _tmp()
    victim = _victim(base)
    out = base / "out"
    out.mkdir()
    for name, what, whose in entries:
        if name != RUN_MANIFEST:
            _place(out / name, what, whose, base)
    if man is not None:
        (out / RUN_MANIFEST).write_text(json.dumps(man))
        if man_owner == "other":
            os.lchown(out / RUN_MANIFEST, OTHER, OTHER)
    foreign = {p.name for p in out.iterdir() if p.lstat().st_uid != os.geteuid()}
    if folder_owner == "other":
        os.chown(out, OTHER, OTHER)
    out.chmod(mode)

    def claim_and_write():
        prepare_out(out, run=run, notebook=NOTEBOOK, force=force, announce=lambda t: None)
        for rel in (NOTEBOOK, "31_probe.runtime.json", "results/probe/single_an.csv"):
            write_below(out, rel, "written by the run")
        return True

    try:
        ok, _ = holds(claim_and_write, names=[str(out)])
        if ok:
            assert read_manifest(out)["run"] == run and out.stat().st_uid == os.geteuid()
            for rel in (NOTEBOOK, "31_probe.runtime.json", "results/probe/single_an.csv"):
                assert not (out / rel).is_symlink() and (out / rel).read_text() == "written by the run"
        assert {p: p.read_bytes() for p in victim} == victim
        assert foreign <= {p.name for p in out.iterdir()}  # another user's entries all still there
    finally:
        out.chmod(0o755)


@fuzz(
    st.sampled_from(["absent", "ours", "link-db", "link-file", "dangling"]),
    owner,
    st.sampled_from(["absent", "link-db", "link-file"]),
    owner,
    st.sampled_from([0o755, 0o777, 0o1777]),
    st.sampled_from(["open", "clear"]),
    examples=[
        ("link-db", "other", "absent", "me", 0o777, "clear"),
        ("ours", "me", "link-file", "other", 0o777, "open"),
    ],
)
def test_cache_paths_with_links(main, main_owner, wal, wal_owner, mode, action):
    """The cache's file and its ``-wal`` as files or links, the user's or another user's: the cache
    opens (and clears) or a CacheError names it; a file of the user's that another user's link
    points at is never changed."""
    base = _tmp()
    victim = _victim(base)
    folder = base / "cache" / "embeddings"
    folder.mkdir(parents=True)
    path = folder / "embeddings.sqlite"
    if main == "ours":
        EmbeddingCache(path, overlay=False)
    elif main != "absent":
        _place(path, main, main_owner, base)
    if wal != "absent":
        _place(folder / "embeddings.sqlite-wal", wal, wal_owner, base)
    folder.chmod(mode)

    def use():
        store = EmbeddingCache(path, overlay=False)
        return store.clear() if action == "clear" and not store.readonly else store.verify()

    try:
        holds(use, names=[str(path)])
        foreign_link = (main in ("link-db", "link-file") and main_owner == "other") or (
            wal != "absent" and wal_owner == "other"
        )
        if foreign_link:
            assert {p: p.read_bytes() for p in victim} == victim
    finally:
        folder.chmod(0o755)
