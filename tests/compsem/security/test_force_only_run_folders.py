"""Issue 27, finding 1: ``--force`` clears only a compsem run folder (its manifest says so, and
everything in it is that run's) or an empty one, and prints what it removes before removing it,
even when the run then fails. Every folder here is a temporary one."""

import json
import subprocess
import sys

import pytest

from compsem.book.running.runner import run_notebook
from compsem.results import RUN_MANIFEST, RunMixError
from tests.helpers.notebooks import probe_notebook


def _notebook(folder, body="x = 1"):
    return probe_notebook(folder / "31_probe.ipynb", 'model = "a"', body)


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "compsem", "run", *map(str, args), "--quiet", "--force"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _tree(folder):
    return sorted((p.relative_to(folder).as_posix(), p.read_bytes() if p.is_file() else b"") for p in folder.rglob("*"))


def test_a_folder_without_a_manifest_is_never_cleared(tmp_path):
    nb = _notebook(tmp_path)
    # a stand-in for notebooks/, data/ or ~/.cache: files, a sub-folder, no manifest
    for out in (tmp_path / "notebooks", tmp_path / "cache"):
        (out / "sub").mkdir(parents=True)
        (out / "10_chapter.ipynb").write_text("{}")
        (out / "sub" / "vectors.sqlite").write_bytes(b"\x00" * 10)
        before = _tree(out)
        proc = _cli(nb, "--out", out)
        assert proc.returncode == 2, proc.stdout
        assert f"--force will not clear {out}: it holds no {RUN_MANIFEST} of a compsem run" in proc.stderr
        assert _tree(out) == before


def test_a_copied_manifest_does_not_make_other_files_clearable(tmp_path):
    nb = _notebook(tmp_path)
    run = tmp_path / "run"
    run_notebook(nb, {"model": "a"}, out=run, progress=False)
    chapters = tmp_path / "chapters"  # a manifest copied into a folder of chapters
    chapters.mkdir()
    (chapters / RUN_MANIFEST).write_bytes((run / RUN_MANIFEST).read_bytes())
    (chapters / "20_other.ipynb").write_text("{}")
    before = _tree(chapters)
    proc = _cli(nb, "--out", chapters, "-p", "model", "b")
    assert proc.returncode == 2
    assert "that run did not write (20_other.ipynb)" in proc.stderr
    assert _tree(chapters) == before
    with pytest.raises(RunMixError, match="is not a run folder"):  # a manifest of something else
        (chapters / RUN_MANIFEST).write_text(json.dumps({"name": "not a run"}))
        run_notebook(nb, {"model": "b"}, out=chapters, force=True, progress=False)
    assert (chapters / "20_other.ipynb").is_file()


def test_the_list_is_printed_before_removal_even_when_the_run_fails(tmp_path):
    nb = _notebook(tmp_path)
    run = tmp_path / "run"
    run_notebook(nb, {"model": "a"}, out=run, progress=False)
    (tmp_path / "f").mkdir()
    failing = _notebook(tmp_path / "f", body="raise ValueError('boom')")
    proc = _cli(failing, "--out", run, "-p", "model", "b")
    assert proc.returncode == 2 and "boom" in proc.stderr
    assert (
        f"--force: removing from {run} before the run: 31_probe.ipynb, 31_probe.runtime.json, "
        f"{RUN_MANIFEST}" in proc.stdout
    )
    man = json.loads((run / RUN_MANIFEST).read_text())
    assert man["parameters"] == {"model": "b"} and man["state"] == "failed"


def test_an_empty_folder_and_a_finished_run_are_cleared(tmp_path):
    nb = _notebook(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    run_notebook(nb, {"model": "a"}, out=empty, force=True, progress=False)
    removed = []
    run_notebook(nb, {"model": "b"}, out=empty, force=True, progress=False, removed=removed)
    assert removed == ["31_probe.ipynb", "31_probe.runtime.json", RUN_MANIFEST]
    assert json.loads((empty / RUN_MANIFEST).read_text())["parameters"] == {"model": "b"}
