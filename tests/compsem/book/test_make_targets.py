"""The teaching targets of the Makefile exist and call what they should."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compsem.paths import repo_root

ROOT = repo_root()
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(target, *args):
    r = subprocess.run(["make", "-n", "-C", str(ROOT), target, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@needs_make
def test_make_lab_opens_jupyterlab_with_the_venv_kernel():
    out = _dry_run("lab")
    assert ".venv/bin/jupyter lab" in out
    assert f'JUPYTER_PATH="{ROOT}/.venv/share/jupyter"' in out  # the venv's kernelspec comes first
    assert "preferred_dir=notebooks" in out


def test_the_lab_kernel_is_the_environment_python():
    """With the venv's share/jupyter first on JUPYTER_PATH (as `make lab` sets it), the python3
    kernel found is the venv's, and it starts this environment's interpreter."""
    venv = Path(sys.prefix)
    code = (
        "from jupyter_client.kernelspec import KernelSpecManager; from jupyter_client import KernelManager; "
        "print(KernelSpecManager().get_kernel_spec('python3').resource_dir); "
        "print(KernelManager(kernel_name='python3').format_kernel_cmd()[0])"
    )
    env = {**os.environ, "JUPYTER_PATH": str(venv / "share" / "jupyter")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    resource_dir, python = r.stdout.split()
    assert Path(resource_dir) == venv / "share" / "jupyter" / "kernels" / "python3"
    assert python == sys.executable


def test_jupyterlab_runs_in_the_environment_at_the_pinned_version():
    jupyter = Path(sys.executable).parent / "jupyter"
    r = subprocess.run([str(jupyter), "lab", "--version"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pinned = re.search(r'"jupyterlab==([^"]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert r.stdout.strip() == pinned


@needs_make
def test_make_launch_cell_is_one_command_over_every_notebook():
    sha = "0123456789abcdef0123456789abcdef01234567"
    out = _dry_run("launch-cell", "LAUNCH_REPO=https://user:TOKEN@example.org/r.git", f"LAUNCH_COMMIT={sha}")
    assert f'-m compsem.book.teaching.launch --commit "{sha}"' in out
    assert "TOKEN" not in out and "example.org" not in out  # the URL goes by the environment, never echoed
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.name}" in out


# ---- the teaching targets run for real, in a copy of the repository (a shown command must work) ----
def _copy_repository(tmp_path):
    """The files the teaching targets read, copied; a fresh stamp so that make reinstalls nothing,
    and the interpreter running the tests as the venv's (``BIN``)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("Makefile", "studies.mk", "pyproject.toml", "requirements-lock.txt", "_toc.yml"):
        shutil.copy2(ROOT / name, repo / name)
    for folder in ("src", "book", "notebooks"):
        shutil.copytree(ROOT / folder, repo / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".stamp").touch()
    return repo, ["STAMP=.stamp", f"BIN={Path(sys.executable).parent}"]


def _make(repo, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MAKEFLAGS", "MFLAGS")}
    return subprocess.run(["make", "-s", "-C", str(repo), *args], capture_output=True, text=True, timeout=300, env=env)


@needs_make
def test_make_exercises_writes_the_student_copies(tmp_path):
    repo, args = _copy_repository(tmp_path)
    r = _make(repo, "exercises", *args)
    # without a build the copies would show a placeholder for the glued numbers: refused, with why
    assert r.returncode != 0 and "make exercises refuses" in r.stderr and "22_csts_finetune::ft_n_runs" in r.stderr
    assert "compsem run notebooks/22_csts_finetune.ipynb" in r.stderr
    assert not (repo / "_build" / "exercises").exists()
    executed = repo / "_build" / "executed" / "notebooks"
    executed.mkdir(parents=True)
    outs = [
        {
            "output_type": "display_data",
            "metadata": {"scrapbook": {"name": k}},
            "data": {"application/papermill.record/text/plain": repr(v)},
        }
        for k, v in {"ft_n_runs": 4, "ft_train_minutes": 7.25}.items()
    ]
    (executed / "22_csts_finetune.ipynb").write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "metadata": {}, "outputs": outs}],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 4,
            }
        )
    )
    r = _make(repo, "exercises", *args)
    assert r.returncode == 0, r.stderr
    assert "[the number in the book]" not in (repo / "_build" / "exercises" / "part2_csts_exercises.md").read_text()
    pages = sorted(p.stem for p in (repo / "book").glob("*_exercises.md"))
    assert pages
    for page in pages:
        md = (repo / "_build" / "exercises" / f"{page}.md").read_text()
        # plain Markdown, the exercises numbered as the book numbers them, the solutions left out
        assert re.search(r"^## Exercise \d+\.1: ", md, flags=re.M) and "{solution}" not in md
        # the Part's one student notebook is the gradeable one (make release), not a copy here
        assert not (repo / "_build" / "exercises" / f"{page}.ipynb").exists()


@needs_make
def test_make_launch_cell_writes_the_set_up_cell_of_a_copied_notebook(tmp_path):
    repo, args = _copy_repository(tmp_path)
    nb = repo / "notebooks" / "11_setcomp_overlap.ipynb"
    original = nb.read_text()
    cells = json.loads(original)["cells"]
    without = [c for c in cells if "compsem-setup" not in c["metadata"].get("tags", [])]
    assert len(without) == len(cells) - 1
    nb.write_text(json.dumps({**json.loads(original), "cells": without}))
    sha = "0123456789abcdef0123456789abcdef01234567"
    r = _make(
        repo,
        "launch-cell",
        "LAUNCH_NOTEBOOKS=notebooks/11_setcomp_overlap.ipynb",
        "LAUNCH_REPO=https://example.org/r.git",
        f"LAUNCH_COMMIT={sha}",
        *args,
    )
    assert r.returncode == 0, r.stderr
    cells = json.loads(nb.read_text())["cells"]
    at = next(i for i, c in enumerate(cells) if "parameters" in c["metadata"].get("tags", []))
    setup = "".join(cells[at + 1]["source"])
    assert "compsem-setup" in cells[at + 1]["metadata"]["tags"]
    assert "COMPSEM_REPO = 'https://example.org/r.git'" in setup and f"COMPSEM_COMMIT = '{sha}'" in setup
    # no repository: the cell of the committed chapters, byte for byte
    r = _make(repo, "launch-cell", "LAUNCH_NOTEBOOKS=notebooks/11_setcomp_overlap.ipynb", "LAUNCH_REPO=", *args)
    assert r.returncode == 0, r.stderr
    assert nb.read_text() == original
