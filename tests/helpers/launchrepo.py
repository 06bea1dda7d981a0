"""A tiny installable git repository (holding the set-up cell's script, as the study does) and a runner for the launch set-up cell (the pinned-launch
tests of issues 19 and 27)."""

import subprocess
import sys

from compsem.book.teaching import launch
from tests.helpers import ROOT

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def tiny_origin(tmp_path, lock="tinystudy==0.1\n"):
    """A tiny installable repository with two commits; return (folder, first commit)."""
    origin = tmp_path / "origin"
    (origin / "tinystudy").mkdir(parents=True)
    (origin / "notebooks").mkdir()
    (origin / "notebooks" / "keep").write_text("")
    (origin / "tinystudy" / "__init__.py").write_text("")
    (origin / "pyproject.toml").write_text(
        '[project]\nname = "tinystudy"\nversion = "0.1"\n[tool.setuptools]\npackages = ["tinystudy"]\n'
    )
    (origin / "requirements-lock.txt").write_text(lock)
    colab = origin / launch.COLAB_SCRIPT  # what the set-up cell runs, as the commit holds it
    colab.parent.mkdir(parents=True)
    colab.write_text((ROOT / launch.COLAB_SCRIPT).read_text())
    subprocess.run(["git", "init", "-q", str(origin)], check=True)
    subprocess.run([*GIT, "-C", str(origin), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(origin), "commit", "-qm", "first"], check=True)
    first = subprocess.run(
        ["git", "-C", str(origin), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (origin / "LATER").write_text("x")
    subprocess.run([*GIT, "-C", str(origin), "add", "LATER"], check=True)
    subprocess.run([*GIT, "-C", str(origin), "commit", "-qm", "later"], check=True)
    return origin, first


def run_setup_cell(tmp_path, origin, commit):
    site = tmp_path / "site"
    src = launch.setup_source(
        repo=str(origin), commit=commit, pip_args=["--no-deps", "--no-build-isolation", "--target", str(site)]
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", src], cwd=tmp_path / "work", capture_output=True, text=True, env=env, timeout=300
    )


def head_of(folder):
    return subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
