"""Issue 49: the shared-machine holes of a third probe, one section per item (the items that need
several users are in ``test_issue49_users.py``, slow). Each test here failed on 956f5e4."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from compsem.book.running.runner import run_notebook
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
    for entry, target in (("31_probe.ipynb", "notebook.txt"), ("31_probe.runtime.json", "runtime.txt"),
                          ("results/probe/single_an.csv", "table.txt")):
        (out / entry).unlink()
        (out / entry).symlink_to(victim[target])
    run_notebook(nb, {"model": "a"}, out=out, progress=False)       # the same run again: the folder is reused
    assert {p.name: p.read_text() for p in victim.values()} == {n: f"the user's own {n}" for n in victim}
    for entry in ("31_probe.ipynb", "31_probe.runtime.json", "results/probe/single_an.csv"):
        assert not (out / entry).is_symlink() and (out / entry).is_file(), entry
    assert json.loads((out / "31_probe.ipynb").read_text())["cells"]                 # the executed copy
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

    old = os.umask(0o002)                       # a user-private-group umask would make it 0775
    try:
        prepare_out(tmp_path / "new", run="r", notebook="00_x.ipynb")
    finally:
        os.umask(old)
    assert (tmp_path / "new").stat().st_mode & 0o022 == 0
    assert json.loads((tmp_path / "new" / RUN_MANIFEST).read_text())["run"] == "r"
