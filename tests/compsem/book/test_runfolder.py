"""compsem/book/running/runfolder.py: one run per --out folder, and its manifest (the refusals that
protect other people's files are in tests/compsem/security/test_run_folders.py)."""

import hashlib
import hmac
import json

import pytest

from compsem.book.running.runfolder import prepare_out, run_id, write_manifest
from compsem.results import RUN_MANIFEST, RunMixError


def test_the_run_id_is_a_keyed_hash_of_the_notebook_and_the_parameters_in_canonical_order(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    text = json.dumps({"notebook": "a.ipynb", "parameters": {"m": 1, "n": [2]}}, sort_keys=True)
    got = run_id("a.ipynb", {"n": [2], "m": 1})
    key = (tmp_path / "overlay" / "run-key").read_bytes()  # this user's secret, made at first use
    assert len(key) == 64 and (tmp_path / "overlay" / "run-key").stat().st_mode & 0o777 == 0o600
    assert got == hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[:16]
    assert got != hashlib.sha256(text.encode()).hexdigest()[:16]  # not the plain hash anyone can compute
    assert run_id("a.ipynb", {"m": 1, "n": [2]}) == got  # the same run again: the same id
    assert run_id("a.ipynb", {"m": 1}) != run_id("b.ipynb", {"m": 1})
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "another"))  # another user's secret
    assert run_id("a.ipynb", {"n": [2], "m": 1}) != got


def test_a_folder_takes_only_the_same_run_again_unless_forced(tmp_path):
    out = tmp_path / "run"
    assert prepare_out(out, run="r1", notebook="a.ipynb") == [] and out.is_dir()
    (out / "t.csv").write_text("x")
    (out / "sub").mkdir()
    (out / "sub" / "f.csv").write_text("y")
    write_manifest(out, run="r1", notebook="a.ipynb", parameters={"m": 1}, state="done", commit=None)
    man = json.loads((out / RUN_MANIFEST).read_text())
    assert man == {
        "run": "r1",
        "notebook": "a.ipynb",
        "parameters": {"m": 1},
        "commit": None,
        "state": "done",
        "files": ["sub/f.csv", "t.csv"],
    }
    assert prepare_out(out, run="r1", notebook="a.ipynb") == []  # the same run: kept
    with pytest.raises(RunMixError, match="holds another run"):
        prepare_out(out, run="r2", notebook="a.ipynb")
    removed = prepare_out(out, run="r2", notebook="a.ipynb", force=True)
    # the old run's files are gone; the folder is claimed at once by the new run's manifest
    assert removed == [RUN_MANIFEST, "sub/ (1 file)", "t.csv"] and [p.name for p in out.iterdir()] == [RUN_MANIFEST]
    assert json.loads((out / RUN_MANIFEST).read_text())["run"] == "r2"
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="is a file"):
        prepare_out(tmp_path / "file", run="r", notebook="a.ipynb")
