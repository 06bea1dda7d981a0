"""The teaching targets of the Makefile exist and call what they should."""

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
    assert f'JUPYTER_PATH="{ROOT}/.venv/share/jupyter"' in out     # the venv's kernelspec comes first
    assert "preferred_dir=notebooks" in out


def test_the_lab_kernel_is_the_environment_python():
    """With the venv's share/jupyter first on JUPYTER_PATH (as `make lab` sets it), the python3
    kernel found is the venv's, and it starts this environment's interpreter."""
    venv = Path(sys.prefix)
    code = ("from jupyter_client.kernelspec import KernelSpecManager; from jupyter_client import KernelManager; "
            "print(KernelSpecManager().get_kernel_spec('python3').resource_dir); "
            "print(KernelManager(kernel_name='python3').format_kernel_cmd()[0])")
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
    out = _dry_run("launch-cell", "LAUNCH_REPO=https://example.org/r.git", "LAUNCH_COMMIT=abc")
    assert "src/compsem/book/launch.py --repo \"https://example.org/r.git\" --commit \"abc\"" in out
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.name}" in out


@needs_make
def test_make_exercises_writes_the_student_copies():
    assert "src/compsem/book/exercises.py --root . --out _build/exercises" in _dry_run("exercises")
