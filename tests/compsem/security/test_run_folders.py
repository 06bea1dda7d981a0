"""Finding 3: one run per ``--out`` folder; a manifest names it; ``save_table`` will not mix runs."""

import json
import subprocess
import sys

import nbformat
import pandas as pd
import pytest

from compsem.book.running.runner import run_notebook
from compsem.results import RUN_MANIFEST, RunMixError, save_table

WRITE = """
import pandas as pd
from compsem.results import save_table
for name in names:
    save_table(pd.DataFrame({"model": [model]}), "probe", name)
"""


@pytest.fixture(scope="module")
def chapter(tmp_path_factory):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('model = "a"\nnames = ["single_an", "single_aan"]')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(WRITE)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path_factory.mktemp("nb") / "31_probe.ipynb"
    nbformat.write(nb, path)
    return path


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "compsem", "run", *map(str, args), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_second_run_with_other_parameters_is_refused_then_forced(chapter, tmp_path):
    out = tmp_path / "run"
    run_notebook(chapter, {"model": "a"}, out=out, progress=False)
    man = json.loads((out / RUN_MANIFEST).read_text())
    assert man["notebook"] == "31_probe.ipynb" and man["parameters"] == {"model": "a"} and man["state"] == "done"
    assert {"31_probe.ipynb", "results/probe/single_an.csv", "results/probe/single_aan.json"} <= set(man["files"])
    assert man["commit"] is None or len(man["commit"].split("+")[0]) == 40

    run_notebook(chapter, {"model": "a"}, out=out, progress=False)  # the same run again: allowed

    proc = _cli(chapter, "--out", out, "-p", "model", "b", "-p", "names", '["single_an"]')
    assert proc.returncode == 2
    assert f"--out {out} is not empty and holds another run" in proc.stderr and "--force" in proc.stderr
    assert pd.read_csv(out / "results/probe/single_an.csv").model.tolist() == ["a"]  # untouched

    proc = _cli(chapter, "--out", out, "-p", "model", "b", "-p", "names", '["single_an"]', "--force")
    assert proc.returncode == 0, proc.stderr
    assert (
        f"--force: removing from {out} before the run: 31_probe.ipynb, 31_probe.runtime.json, {RUN_MANIFEST}, "
        "results/ (4 files)" in proc.stdout
    )
    assert pd.read_csv(out / "results/probe/single_an.csv").model.tolist() == ["b"]
    assert not (out / "results/probe/single_aan.csv").exists()  # nothing of run "a" left beside it


def test_out_naming_a_file_or_a_foreign_folder(chapter, tmp_path):
    (tmp_path / "f.txt").write_text("x")
    proc = _cli(chapter, "--out", tmp_path / "f.txt")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == f"error: NotADirectoryError: --out {tmp_path / 'f.txt'} is a file, not a folder: "
        "name a folder for the run (it is created)"
    )
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.md").write_text("keep me")
    with pytest.raises(RunMixError, match=r"holds files of no run of this chapter \(notes.md\)"):
        run_notebook(chapter, {}, out=foreign, progress=False)
    assert (foreign / "notes.md").read_text() == "keep me" and len(list(foreign.iterdir())) == 1


def test_force_never_clears_a_checkout_or_the_working_folder(chapter, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").write_text("x")
    with pytest.raises(RunMixError, match="will not clear"):
        run_notebook(chapter, {}, out=tmp_path, force=True, progress=False)
    assert (tmp_path / "x").exists()


def test_save_table_refuses_a_folder_of_another_run(tmp_path, monkeypatch):
    (tmp_path / RUN_MANIFEST).write_text(
        json.dumps({"run": "r1", "notebook": "31_x.ipynb", "parameters": {"models": ["bow"]}})
    )
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("COMPSEM_RUN", "r2")
    with pytest.raises(RunMixError, match=r"holds the results of another run \(31_x.ipynb"):
        save_table(pd.DataFrame({"a": [1]}), "s", "t")
    monkeypatch.delenv("COMPSEM_RUN")
    with pytest.raises(RunMixError):
        save_table(pd.DataFrame({"a": [1]}), "s", "t")
    assert not (tmp_path / "results" / "s" / "t.csv").exists()
    monkeypatch.setenv("COMPSEM_RUN", "r1")
    assert save_table(pd.DataFrame({"a": [1]}), "s", "t").is_file()


def test_book_results_take_every_chapter_of_a_study(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "results"))
    monkeypatch.delenv("COMPSEM_RUN", raising=False)
    save_table(pd.DataFrame({"a": [1]}), "montague", "single_an")
    save_table(pd.DataFrame({"a": [2]}), "montague", "pairs")  # another chapter, same study: fine
    assert sorted(p.name for p in (tmp_path / "results" / "montague").glob("*.csv")) == ["pairs.csv", "single_an.csv"]
