"""Issue 49: the shared-machine holes of a third probe, one section per item (the items that need
several users are in ``test_issue49_users.py``, slow). Each test here failed on 956f5e4."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from compsem.book.running.runner import run_notebook
from compsem.errors import DataError
from compsem.results import RUN_MANIFEST, save_table
from tests.helpers.notebooks import probe_notebook

WRITE = """
import pandas as pd
from compsem.results import save_table
save_table(pd.DataFrame({"model": [model]}), "probe", "single_an")
"""


def _victim(folder: Path) -> dict[str, Path]:
    """Files of the user's own that a link in a run folder points at."""
    folder.mkdir()
    files = {n: folder / n for n in ("notebook.txt", "runtime.txt", "table.txt")}
    for p in files.values():
        p.write_text(f"the user's own {p.name}")
    return files


# ---- item 3: writes inside a run folder never follow a link ----------------------------------
def test_a_rerun_never_writes_through_links_left_in_its_own_folder(tmp_path):
    nb = probe_notebook(tmp_path / "31_probe.ipynb", 'model = "a"', WRITE)
    out = tmp_path / "run"
    run_notebook(nb, {"model": "a"}, out=out, progress=False)
    victim = _victim(tmp_path / "home")
    for entry, target in (
        ("31_probe.ipynb", "notebook.txt"),
        ("31_probe.runtime.json", "runtime.txt"),
        ("results/probe/single_an.csv", "table.txt"),
    ):
        (out / entry).unlink()
        (out / entry).symlink_to(victim[target])
    run_notebook(nb, {"model": "a"}, out=out, progress=False)  # the same run again: the folder is reused
    assert {p.name: p.read_text() for p in victim.values()} == {n: f"the user's own {n}" for n in victim}
    for entry in ("31_probe.ipynb", "31_probe.runtime.json", "results/probe/single_an.csv"):
        assert not (out / entry).is_symlink() and (out / entry).is_file(), entry
    assert json.loads((out / "31_probe.ipynb").read_text())["cells"]  # the executed copy
    assert pd.read_csv(out / "results/probe/single_an.csv").model.tolist() == ["a"]


def test_a_table_is_never_written_through_a_linked_folder(tmp_path, monkeypatch):
    run = tmp_path / "run"
    (run / "results").mkdir(parents=True)
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    (run / "results" / "probe").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.setenv("COMPSEM_RESULTS", str(run / "results"))
    monkeypatch.delenv("COMPSEM_RUN", raising=False)
    with pytest.raises(OSError, match=r"is a symbolic link or not a folder: refused to write"):
        save_table(pd.DataFrame({"a": [1]}), "probe", "t")
    assert list(elsewhere.iterdir()) == []


def test_a_fresh_run_folder_is_writable_by_its_owner_only(tmp_path):
    from compsem.book.running.runfolder import prepare_out

    old = os.umask(0o002)  # a user-private-group umask would make it 0775
    try:
        prepare_out(tmp_path / "new", run="r", notebook="00_x.ipynb")
    finally:
        os.umask(old)
    assert (tmp_path / "new").stat().st_mode & 0o022 == 0
    assert json.loads((tmp_path / "new" / RUN_MANIFEST).read_text())["run"] == "r"


# ---- item 4: a folder is removed or overwritten only when it is a run folder of the user's ----
def _notes(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("the user's notes")
    return folder / "notes.txt"


def test_assign_never_removes_a_folder_that_is_not_its_own_assignment(tmp_path):
    from compsem.book.teaching import assignments as asg
    from compsem.results import RunMixError
    from tests.helpers import ROOT

    part = next(iter(asg.assignment_parts(ROOT)))
    notes = _notes(tmp_path / "out" / part)
    with pytest.raises(RunMixError, match="is not a compsem assignment folder of yours"):
        asg.write_assignment(ROOT, part, tmp_path / "out")
    assert notes.read_text() == "the user's notes"


def test_the_timed_lab_never_removes_a_folder_that_is_not_its_run(tmp_path, monkeypatch):
    from compsem import studies
    from compsem.book.running import runner
    from compsem.book.teaching import labtime
    from compsem.faces import LabStep
    from compsem.results import RunMixError

    monkeypatch.setattr(runner, "run_notebook", lambda *a, **k: pytest.fail("ran into a folder it should refuse"))
    step = LabStep("a lab", "11_setcomp_overlap.ipynb", {"models": ["bow"]}, timed=True)
    notes = _notes(tmp_path / labtime.lab_key(step))
    with pytest.raises(RunMixError, match="--force will not clear"):
        labtime.run_timed(tmp_path, [(studies.STUDIES[0], step)], log=lambda *_: None)
    assert notes.read_text() == "the user's notes"


def test_book_never_overwrites_the_source_notebook_or_a_folder_that_is_not_its_own(tmp_path, monkeypatch):
    import papermill

    from compsem.results import RunMixError

    monkeypatch.setattr(papermill, "execute_notebook", lambda src, dst, **kw: Path(dst).write_text("{}"))
    (tmp_path / "src").mkdir()
    nb = probe_notebook(tmp_path / "src" / "31_probe.ipynb", 'model = "a"', "x = 1")
    before = nb.read_bytes()
    with pytest.raises(RunMixError, match="is the folder of the source notebook"):
        run_notebook(nb, out=nb.parent, book=True, progress=False)
    assert nb.read_bytes() == before
    notes = _notes(tmp_path / "mine")
    (tmp_path / "mine" / "31_probe.ipynb").write_text("the user's own notebook")
    with pytest.raises(RunMixError, match="is not a compsem book folder of yours"):
        run_notebook(nb, out=tmp_path / "mine", book=True, progress=False)
    assert notes.read_text() == "the user's notes"
    assert (tmp_path / "mine" / "31_probe.ipynb").read_text() == "the user's own notebook"
    run_notebook(nb, out=tmp_path / "book", book=True, progress=False)  # a new folder: claimed, then reused
    run_notebook(nb, out=tmp_path / "book", book=True, progress=False)
    assert (tmp_path / "book" / "31_probe.ipynb").read_text() == "{}"


def test_stage_never_rewrites_the_sources_or_a_folder_that_is_not_its_own(tmp_path):
    from compsem.book.running.stage import stage
    from compsem.results import RunMixError
    from tests.helpers import ROOT

    executed = tmp_path / "executed"
    executed.mkdir()
    sources = tmp_path / "checkout"
    guide = _notes(sources / "book")
    with pytest.raises(RunMixError, match="is not a compsem stage folder of yours"):
        stage(ROOT, executed, sources)
    assert guide.read_text() == "the user's notes" and sorted(p.name for p in sources.iterdir()) == ["book"]
    with pytest.raises(RunMixError, match="the book's sources"):
        stage(sources, executed, sources / "book")
    assert guide.read_text() == "the user's notes"


# ---- item 5: a shared cache cannot steer a victim --------------------------------------------
def _unrelated_database(path: Path) -> bytes:
    """An SQLite file of the user's own that has nothing to do with the cache (a vector store of
    another program, with a ``vectors`` table of its own)."""
    import sqlite3

    con = sqlite3.connect(path)
    con.execute("CREATE TABLE vectors (id INTEGER, vec BLOB)")
    con.execute("CREATE TABLE notes (text TEXT)")
    con.executemany("INSERT INTO vectors VALUES (?, ?)", [(i, b"x" * 8) for i in range(3)])
    con.execute("INSERT INTO notes VALUES ('mine')")
    con.commit()
    con.close()
    return path.read_bytes()


def _cache_cli(action: str) -> tuple[int, str]:
    import contextlib
    import io

    from compsem.book import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        rc = cli.main(["cache", action])
    return rc, out.getvalue()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a link to another uid needs root")
def test_a_link_another_user_planted_in_a_shared_cache_is_never_followed(tmp_path, monkeypatch):
    from compsem.cachestore import EmbeddingCache
    from compsem.errors import UnsafeFolderError

    mine = tmp_path / "home" / "project.sqlite"
    mine.parent.mkdir()
    before = _unrelated_database(mine)
    shared = tmp_path / "shared"
    (shared / "embeddings").mkdir(parents=True)
    (shared / "embeddings").chmod(0o777)
    link = shared / "embeddings" / "embeddings.sqlite"
    link.symlink_to(mine)
    os.lchown(link, 3000, 3000)  # planted by uid 3000
    monkeypatch.setenv("COMPSEM_CACHE", str(shared))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    with pytest.raises(UnsafeFolderError, match="is a symbolic link made by uid 3000"):
        EmbeddingCache()  # what embed() and every cache command open
    rc, text = _cache_cli("clear")
    assert rc == 2 and "is a symbolic link made by uid 3000" in text, text
    assert mine.read_bytes() == before


def test_cache_clear_acts_only_on_a_file_the_cache_made(tmp_path, monkeypatch):
    path = tmp_path / "cache" / "embeddings" / "embeddings.sqlite"
    path.parent.mkdir(parents=True)
    before = _unrelated_database(path)
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    rc, text = _cache_cli("clear")
    assert rc == 2 and "is an SQLite database of something else" in text and "left as it is" in text, text
    assert path.read_bytes() == before


def test_cache_info_escapes_control_characters(tmp_path, monkeypatch):
    from compsem.cachestore import EmbeddingCache

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    store = EmbeddingCache()
    with store._connect() as con:  # a row as another user could write it
        con.execute("INSERT INTO models VALUES ('m', ?, ?, 8)", ("bow\x1b]0;owned\x07\x1b[2J", "id\x1b[31m\r\n"))
    rc, text = _cache_cli("info")
    assert rc == 0 and "\x1b" not in text and "\x07" not in text and "\r" not in text, repr(text)
    assert "bow\\x1b]0;owned\\x07\\x1b[2J" in text and "id\\x1b[31m\\r\\n" in text


# ---- item 6: make authors-check reads only regular files and fails in one line ----------------
def _authors_code(folder: Path) -> Path:
    (folder / "utils" / "sts").mkdir(parents=True)
    (folder / "run_sts.py").write_text("t = Trainer(\n        tokenizer=tokenizer,\n    )\nuse_auth_token=True,\n")
    (folder / "utils" / "sts" / "modeling_encoders.py").write_text("b = m(\n  use_auth_token=None,\n)\n")
    return folder


def _authors_main(monkeypatch, tmp_path, code: Path, seeds: str = "42,43") -> tuple[int, str]:
    import contextlib
    import io

    from compsem.csts import authors

    python = tmp_path / "fake-python"  # a Python that has every module the probe asks for
    python.write_text("#!/bin/sh\nexit 0\n")
    python.chmod(0o755)
    monkeypatch.setenv("CSTS_AUTHORS_CODE", str(code))
    monkeypatch.setenv("CSTS_AUTHORS_PYTHON", str(python))
    monkeypatch.setenv("CSTS_AUTHORS_SEEDS", seeds)
    monkeypatch.setattr(authors, "run_check", lambda *a, **k: pytest.fail("ran the check on a folder it should refuse"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = authors.main(["--out", str(tmp_path / "record.json")])
    return rc, err.getvalue()


@pytest.mark.parametrize("plant", ["link", "loop", "fifo", "big", "world-writable", "seeds"])
def test_authors_check_refuses_what_is_not_plain_code_with_exit_2_and_one_line(tmp_path, monkeypatch, plant):
    from compsem.csts import authors

    code = _authors_code(tmp_path / "code")
    (tmp_path / "secret.txt").write_text("another file of the user's")
    seeds = "42,43"
    if plant == "link":  # what a link to /dev/zero or to a secret does
        (code / "data.txt").symlink_to(tmp_path / "secret.txt")
    elif plant == "loop":
        (code / "a").symlink_to(code / "b")
        (code / "b").symlink_to(code / "a")
    elif plant == "fifo":
        os.mkfifo(code / "pipe")
    elif plant == "big":
        with open(code / "weights.bin", "wb") as f:  # sparse: no disk is used
            f.truncate(authors.MAX_FILE + 1)
    elif plant == "world-writable":
        (code / "utils").chmod(0o777)
    else:
        seeds = "42,x"
    rc, err = _authors_main(monkeypatch, tmp_path, code, seeds)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("authors-check failed: DataError"), err
    assert not (tmp_path / "record.json").exists()
    with pytest.raises(DataError):
        authors.patched_copy(code, tmp_path / f"copy-{plant}") if plant != "seeds" else authors.parse_seeds(seeds)
    assert not (tmp_path / f"copy-{plant}" / "data.txt").exists()


# ---- item 1: Ray's session tree lies below a 0700 root of the user's, checked after start -----
def _fake_ray(monkeypatch, init):
    """A stand-in for the ``ray`` package (whether or not Ray is installed): ``init`` acts as
    Ray's own start does on its temp folder."""
    import sys
    import types

    calls = []
    fake = types.ModuleType("ray")
    fake.init = lambda **kw: (calls.append(("init", kw)), init(Path(kw["_temp_dir"])))
    fake.shutdown = lambda: calls.append(("shutdown", {}))
    monkeypatch.setitem(sys.modules, "ray", fake)
    return calls


def _as_ray_does(temp: Path) -> None:
    """What Ray 2.x does at start: its temp folder and its session folders made 0777."""
    temp.chmod(0o777)
    (temp / "session_1" / "sockets").mkdir(parents=True)
    for p in (temp / "session_1", temp / "session_1" / "sockets"):
        p.chmod(0o777)
    (temp / "session_1" / "sockets" / "raylet").write_text("")
    (temp / "session_1" / "sockets" / "raylet").chmod(0o666)


def test_ray_runs_below_a_private_root_and_nothing_there_stays_writable_by_others(monkeypatch):
    from compsem.book.running import prefetch

    calls = _fake_ray(monkeypatch, _as_ray_does)
    prefetch.restore_env(prefetch.start_ray(None, num_cpus=1))
    temp = Path(calls[0][1]["_temp_dir"])
    try:
        root = temp.parent
        assert root.stat().st_uid == os.geteuid() and root.stat().st_mode & 0o777 == 0o700
        assert [p for p in [temp, *temp.rglob("*")] if p.lstat().st_mode & 0o022] == []
    finally:
        prefetch.remove_ray_roots()
    assert not temp.exists()


def test_ray_is_shut_down_when_its_root_is_opened_to_others(monkeypatch):
    from compsem.book.running import prefetch
    from compsem.errors import UnsafeFolderError

    calls = _fake_ray(monkeypatch, lambda temp: (_as_ray_does(temp), temp.parent.chmod(0o755)))
    with pytest.raises(UnsafeFolderError, match="is no longer a 0700 folder of yours"):
        prefetch.start_ray(None, num_cpus=1)
    assert [c for c, _ in calls] == ["init", "shutdown"] and not Path(calls[0][1]["_temp_dir"]).exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_ray_is_shut_down_when_another_user_owns_something_below_its_root(monkeypatch):
    from compsem.book.running import prefetch
    from compsem.errors import UnsafeFolderError

    def planted(temp):
        _as_ray_does(temp)
        os.chown(temp / "session_1" / "sockets" / "raylet", 3000, 3000)

    calls = _fake_ray(monkeypatch, planted)
    with pytest.raises(UnsafeFolderError, match="raylet in Ray's private root is not yours"):
        prefetch.start_ray(None, num_cpus=1)
    assert calls[-1][0] == "shutdown"


@pytest.mark.slow
def test_a_real_ray_instance_leaves_nothing_writable_by_others_below_its_root():
    ray = pytest.importorskip("ray")
    from compsem.book.running import prefetch

    saved = prefetch.start_ray(None, num_cpus=1)
    try:
        root = prefetch.RAY_ROOTS[-1]
        assert root.stat().st_mode & 0o777 == 0o700
        assert [str(p) for p in root.rglob("*") if not p.is_symlink() and p.lstat().st_mode & 0o022] == []
    finally:
        ray.shutdown()
        prefetch.restore_env(saved)
        prefetch.remove_ray_roots()


# ---- item 2: ONNX trust cannot be passed by an export crafted for fixed sentences ------------
@pytest.fixture(scope="module")
def tiny_st(tiny_bert, tmp_path_factory):
    """A sentence-transformers folder around the tiny BERT (as tests/compsem/encoders' fixture)."""
    from sentence_transformers import SentenceTransformer, models

    body = models.Transformer(str(tiny_bert), max_seq_length=32)
    folder = tmp_path_factory.mktemp("tiny_st") / "st"
    SentenceTransformer(modules=[body, models.Pooling(16, "mean"), models.Normalize()], device="cpu").save(str(folder))
    return folder


def test_an_export_crafted_to_pass_the_fixed_sentences_is_not_trusted(tiny_st, tmp_path, monkeypatch):
    import numpy as np

    from compsem.encoders import SentenceTransformerEncoder
    from compsem.encoders import onnx as ob
    from compsem.encoders import onnxtrust

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    monkeypatch.setattr(onnxtrust, "_SEEN", set())

    def enc():
        return SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")

    texts = [f"the {w} number {i} runs" for i, w in enumerate(["red car", "dog", "blue man", "cat"] * 5)]
    first = enc()
    torch_vectors = first.backend._torch(texts, 8)
    first.backend.encode_onnx(["a"])  # the export, written by "someone"
    for p in (tmp_path / "overlay" / "onnx").glob("verified-*.json"):
        p.unlink()  # ... not by this user: not vouched for
    monkeypatch.setattr(onnxtrust, "_SEEN", set())
    probe = {tuple(first.backend._features([t])["input_ids"][0].tolist()) for t in onnxtrust.PROBE}

    class Crafted:
        """An export whose vectors are torch's on the fixed sentences and turned around on any other."""

        def __init__(self, real):
            self.real = real

        def run(self, names, feeds):
            got = self.real.run(names, feeds)[0].copy()
            for i, (ids, mask) in enumerate(zip(feeds["input_ids"], feeds["attention_mask"])):
                if tuple(ids[mask == 1].tolist()) not in probe:
                    got[i] = -got[i]
            return [got]

    real_session, made = ob.OnnxBackend._session, []

    def session(path, ort, torch):
        made.append(path)
        s = real_session(path, ort, torch)
        return Crafted(s) if len(made) == 1 else s

    monkeypatch.setattr(ob.OnnxBackend, "_session", staticmethod(session))
    again = enc()
    with pytest.warns(UserWarning, match="not written or verified by you on this machine and differs from torch"):
        got = again.backend.encode_onnx(texts)
    assert np.abs(got - torch_vectors).max() <= ob.TOLERANCE  # made again, not served
    assert len(made) == 2


# ---- item 7: the smaller holes ----------------------------------------------------------------
@pytest.mark.parametrize("repo", ["https://[::1/r.git", "https://[x]y/r", "ssh://[fe80::zz]/r"])
def test_a_bracketed_repository_url_is_a_clear_usage_error(repo, capsys):
    from compsem.book.teaching import launch

    with pytest.raises(SystemExit) as exc:
        launch.main([f"--repo={repo}", "--commit", "0" * 40, "--", "notebooks/none.ipynb"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "is not a valid URL" in err or "is not an https:// or ssh URL" in err, err


def test_a_same_size_rewrite_with_the_mtime_set_back_changes_the_digest(tmp_path):
    import time

    from compsem.encoders.base import weights_digest

    (tmp_path / "model.bin").write_bytes(b"A" * 64)
    st = (tmp_path / "model.bin").stat()
    first = weights_digest(tmp_path)
    time.sleep(0.05)  # a later moment (ctime has jiffy resolution)
    (tmp_path / "model.bin").write_bytes(b"B" * 64)  # same size, other bytes ...
    os.utime(tmp_path / "model.bin", ns=(st.st_atime_ns, st.st_mtime_ns))  # ... and the old mtime
    assert weights_digest(tmp_path) != first


def test_a_run_keeps_torchs_compile_cache_private_and_removes_it(tmp_path, monkeypatch):
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    body = (
        "import os, pathlib\nd = pathlib.Path(os.environ['TORCHINDUCTOR_CACHE_DIR'])\nd.mkdir(parents=True)\n"
        "pathlib.Path(os.environ['COMPSEM_RESULTS']).mkdir(parents=True)\n"
        "(pathlib.Path(os.environ['COMPSEM_RESULTS']) / 'where.txt').write_text(str(d))\n"
    )
    nb = probe_notebook(tmp_path / "31_probe.ipynb", 'model = "a"', body)
    run_notebook(nb, {}, out=tmp_path / "run", progress=False)
    where = Path((tmp_path / "run" / "results" / "where.txt").read_text())
    assert where.name == "torchinductor" and where.parent.name.startswith("compsem-k-")
    assert not where.parent.exists()  # removed with the run's private folder
