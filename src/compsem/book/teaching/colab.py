"""What a chapter's hidden set-up cell does outside a checkout (Colab, a downloaded notebook).

The cell (:func:`compsem.book.teaching.launch.setup_source`, at most 10 lines) clones the
repository into ``compsem-study/`` when that folder does not exist, reads *this file as the
pinned commit holds it* (``git show <commit>:src/compsem/book/teaching/colab.py``, never the
clone's working tree, which may have been edited) and runs it with its three values
``COMPSEM_REPO``, ``COMPSEM_COMMIT`` and ``COMPSEM_PIP_ARGS``. :func:`setup` then:

* refuses a ``compsem-study/`` with local changes or untracked files, or with ignored files (a
  cache, a build) that are another user's or that others may write: only a clean clone of your
  own is used;
* checks it out at the commit (fetched when missing) and refuses it unless it is then exactly
  there;
* ``pip install``\\ s it with the clone's ``requirements-lock.txt`` as constraints (every indirect
  dependency at the version the book was built with), puts a ``--target`` folder first on
  ``sys.path``, sets ``COMPSEM_ROOT`` to the clone and moves into its ``notebooks/`` folder, so
  that paths such as ``../benchmarks`` resolve as in the book.

Standard library only: nothing of the study is installed when it runs.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["setup", "unclean", "foreign"]


def _git(root: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", f"--git-dir={root / '.git'}", f"--work-tree={root}", *args], capture_output=True, text=True, **kw
    )


def unclean(root: Path) -> list[str]:
    """What makes ``root`` other than a clean clone: ``git status`` lines of changed or untracked
    files (ignored files are :func:`foreign`'s business)."""
    status = _git(root, "status", "--porcelain", "--ignored").stdout.splitlines()
    return [line for line in status if not line.startswith("!! ")]


def foreign(root: Path) -> list[str]:
    """The files of ``root`` and its ignored files and folders (walked) that are another user's or
    that others may write (a symbolic link's own mode aside)."""
    ignored = [
        root / line[3:].rstrip("/")
        for line in _git(root, "status", "--porcelain", "--ignored").stdout.splitlines()
        if line.startswith("!! ")
    ]
    seen = [root, *ignored]
    seen += [
        Path(d, n) for s in ignored if s.is_dir() and not s.is_symlink() for d, ds, fs in os.walk(s) for n in ds + fs
    ]
    return [
        str(q) for q in seen if q.lstat().st_uid != os.getuid() or (q.lstat().st_mode & 0o022 and not q.is_symlink())
    ]


def setup(
    repo: str, commit: str, pip_args: list[str] | tuple[str, ...] = (), root: str | Path = "compsem-study"
) -> Path:
    """Install the study from the clean clone ``root`` at ``commit`` (see the module docstring) and
    return the clone; a ``RuntimeError`` saying what to do when it cannot."""
    root = Path(root).absolute()
    if len(commit) != 40 or set(commit) - set("0123456789abcdef"):
        raise RuntimeError(
            f"this notebook names commit {commit!r}, not a full 40-hex commit: rerun "
            "`make launch-cell` with LAUNCH_COMMIT=<sha>"
        )
    if not (root / ".git").exists():
        raise RuntimeError(f"{root} exists but is not a clone of the study: move it away and rerun this cell")
    head = _git(root, "rev-parse", "HEAD").stdout.strip()
    if unclean(root):
        raise RuntimeError(
            f"{root} is at commit {head[:12]} with local changes, not a clean clone at "
            f"{commit[:12]} that this notebook was built from: move it away and rerun this cell"
        )
    bad = foreign(root)
    if bad:
        raise RuntimeError(
            f"{root} holds files that are another user's or that others may write "
            f"({', '.join(bad[:3])}): not a clean clone of your own; move it away and rerun this cell"
        )
    if head != commit:
        if _git(root, "cat-file", "-e", commit + "^{commit}").returncode:
            _git(root, "fetch", "--quiet", "origin", check=True)
        _git(root, "checkout", "--quiet", "--detach", commit, check=True)
        head = _git(root, "rev-parse", "HEAD").stdout.strip()
    if head != commit:
        raise RuntimeError(f"{root} could not be checked out at {commit[:12]}: move it away and rerun this cell")
    lock = root / "requirements-lock.txt"
    pip = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        *(["-c", str(lock)] if lock.is_file() else []),
        *pip_args,
        str(root),
    ]
    print(f"Installing the study from {repo} {commit[:12]} (a few minutes): {' '.join(pip[1:])}")
    subprocess.run(pip, check=True)
    if "--target" in pip_args:  # an install into a folder of its own (the tests) goes first on the path
        sys.path.insert(0, pip_args[list(pip_args).index("--target") + 1])
    importlib.invalidate_caches()
    os.environ["COMPSEM_ROOT"] = str(root)
    os.chdir(root / "notebooks")
    return root


if __name__ == "__main__" and "COMPSEM_COMMIT" in globals():  # run by the set-up cell with its three values
    setup(COMPSEM_REPO, COMPSEM_COMMIT, COMPSEM_PIP_ARGS)  # noqa: F821 - defined by the cell that runs this file
