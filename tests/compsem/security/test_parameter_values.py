"""Issue 27, finding 10 (parameters): values are checked before anything is written, nesting
and size are bounded, a chapter's declared types are enforced, and a file that is not a
notebook is named as such. Each case is a one-line CompsemError, never a raw one."""

import subprocess
import sys

import pytest

from compsem.book.running.params import parse_parameters
from compsem.book.running.runner import run_notebook
from compsem.errors import CompsemError
from tests.helpers import ROOT
from tests.helpers.notebooks import probe_notebook

POOL = ROOT / "notebooks" / "40_ssm_pool.ipynb"


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "compsem", "run", *map(str, args), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _notebook(folder):
    return probe_notebook(folder / "31_probe.ipynb", 'label = "a"', "print(label)")


def test_a_lone_surrogate_leaves_no_notebook_behind(tmp_path):
    nb = _notebook(tmp_path)
    out = tmp_path / "run"
    proc = _cli(nb, "--out", out, "-p", "label", '"\\ud800"')  # JSON for a lone surrogate
    assert proc.returncode == 2
    assert "error: ParameterError: parameter 'label' holds text that is not valid Unicode" in proc.stderr
    assert not out.exists() or not any(out.iterdir())  # nothing written, no 0-byte notebook
    with pytest.raises(CompsemError, match="not valid Unicode"):  # the Python API checks the same
        run_notebook(nb, {"label": ["ok", {"k": "\udcff"}]}, out=tmp_path / "api", progress=False)
    assert not (tmp_path / "api").exists()


def test_deep_or_huge_values_are_bounded():
    deep = "[" * 50_000 + "]" * 50_000
    with pytest.raises(CompsemError, match="nested more than 16 levels deep"):
        parse_parameters([("pool_source", deep)], POOL)
    with pytest.raises(CompsemError, match="nested more than 16 levels deep"):
        parse_parameters([("pool_source", "[" * 20 + "]" * 20)], POOL)  # deep, yet readable by json
    with pytest.raises(CompsemError, match="finite number"):
        parse_parameters([("example_cluster", "NaN")], POOL)


def test_a_value_the_chapter_does_not_accept_is_refused_before_the_kernel():
    with pytest.raises(
        CompsemError,
        match=r"pool_source.*got \{\"a\": 1\} \(object\); this chapter accepts a "
        r"string or null",
    ):
        parse_parameters([("pool_source", '{"a":1}')], POOL)
    with pytest.raises(CompsemError, match=r"accepts a string or null"):
        parse_parameters([("pool_source", "[1, 2]")], POOL)
    assert parse_parameters([("pool_source", "my/pool.csv")], POOL) == {"pool_source": "my/pool.csv"}
    assert parse_parameters([("pool_source", "null")], POOL) == {"pool_source": None}


def test_a_file_that_is_not_a_notebook(tmp_path):
    proc = _cli(ROOT / "README.md", "--out", tmp_path / "r")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"error: NotANotebookError: {ROOT / 'README.md'} is not a Jupyter notebook (its "
        "name ends in '.md', not '.ipynb'): name a chapter such as "
        "notebooks/00_toolkit.ipynb"
    )
    bad = tmp_path / "x.ipynb"
    bad.write_text("not json")
    with pytest.raises(CompsemError, match="is not a Jupyter notebook"):
        parse_parameters([], bad)
