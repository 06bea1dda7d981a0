"""The set-up cell that lets a chapter run outside a checkout (Colab, a downloaded notebook).

``make launch-cell`` writes one hidden code cell (tags ``remove-cell`` and ``compsem-setup``)
right after each chapter's ``parameters`` cell, which stays the first code cell for papermill.
The cell is plain Python with no import of ``compsem`` (which may not be installed yet):

* inside a checkout of the repository (``$COMPSEM_ROOT`` set, or a ``pyproject.toml`` beside
  ``src/compsem`` in the working directory or one of its parents, as :func:`compsem.paths.repo_root`
  looks for) it installs nothing: the book build, ``python -m compsem run``, JupyterLab and
  Binder all run inside one;
* elsewhere it clones the repository at the commit the book was built from, ``pip install``\\ s
  it with the clone's ``requirements-lock.txt`` as constraints (every indirect dependency at the
  version the book was built with; the pinned dependencies include the offline model panel),
  sets ``COMPSEM_ROOT`` to the clone and moves into its ``notebooks/`` folder, so paths such as
  ``../benchmarks`` resolve as in the book. A ``compsem-study/`` folder left by an earlier run is
  used only when it is a clean clone (no local changes, no untracked files): it is checked out at
  the cell's commit (fetched when missing) and must then be at exactly that commit; one with local
  changes, or that is not a clone, is refused;
* in both cases it sets pandas' ``display.max_colwidth`` to ``None``, so that table cells show
  their whole text instead of ending in "..." (``make check-book`` flags a cut cell).

The repository URL and the commit are written into the cell: ``make launch-cell
LAUNCH_REPO=https://github.com/OWNER/REPO LAUNCH_COMMIT=<sha>`` (the Pages workflow passes its
own repository and commit, like the launch-button URLs; ``LAUNCH_COMMIT`` defaults to ``git
rev-parse HEAD`` when a repository is named). The commit must be a full 40-hex SHA: a branch or
tag name (``main``, ``v1.0``) can move, and a repository without a commit would clone whatever
the default branch holds that day; both are refused. The URL is written without credentials: a
user, password or token in it (``https://user:TOKEN@host/...``) and any query are removed, with
a warning. Without ``--repo`` (or with an empty one, as ``make launch-cell`` passes when
``LAUNCH_REPO`` is not set) the command reads the ``origin`` remote's URL, cleaned the same way,
and says so; with no origin either, the cells name no repository and no commit. An empty URL makes the cell stop with a message saying how to install by hand.

``python -m compsem.book.teaching.launch [--repo URL] [--commit SHA] [notebooks ...]`` is the command
behind the target; rewriting is idempotent (a notebook whose cell is already current is not
touched).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from compsem import notebooks
from compsem.fmt import plural

__all__ = ["TAGS", "setup_source", "setup_cell", "place_setup_cell", "write_launch_cells", "is_full_sha",
           "public_url", "main"]

_SHA = re.compile(r"[0-9a-f]{40}")


def is_full_sha(commit: str) -> bool:
    """Whether ``commit`` is a full 40-hex commit id (lower case, as ``git rev-parse`` writes it)."""
    return bool(_SHA.fullmatch(commit))


def public_url(url: str) -> tuple[str, list[str]]:
    """``url`` without credentials, and what was removed (empty when nothing).

    A password or token is removed from every form; a user name from http(s) URLs (an ssh user
    such as ``git@`` is kept); a query and a fragment from any URL with a scheme.
    """
    removed: list[str] = []
    if "://" not in url:        # a path, or scp-like ``user[:secret]@host:path``
        user, at, rest = url.rpartition("@")
        if at and ":" in user and "/" not in user:
            removed.append("a password or token")
            return f"{user.split(':', 1)[0]}@{rest}", removed
        return url, removed
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if at:
        user, colon, _secret = userinfo.partition(":")
        if colon:
            removed.append("a password or token")
        if parts.scheme in ("http", "https"):
            if user and not colon:
                removed.append("a user name (or token)")
            userinfo = ""
        else:
            userinfo = user
    netloc = f"{userinfo}@{host}" if userinfo else host
    if parts.query or parts.fragment:
        removed.append("the query" if parts.query else "the fragment")
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")), removed


def _clonable(url: str) -> bool:
    """Whether ``url`` is an address the set-up cell may clone: https, ssh (``ssh://`` or
    scp-like ``user@host:path``), never beginning with ``-`` (git would read it as an option)."""
    if url.startswith("-") or any(c.isspace() for c in url):
        return False
    if "://" in url:
        parts = urlsplit(url)
        return parts.scheme in ("https", "ssh", "git+ssh") and bool(parts.hostname) and not parts.hostname.startswith("-")
    user_host, colon, path = url.partition(":")
    return bool(colon and path and re.fullmatch(r"[A-Za-z0-9_.-]+@[A-Za-z0-9][A-Za-z0-9.-]*", user_host))


def _origin_url() -> str:
    try:
        return subprocess.run(["git", "config", "--get", "remote.origin.url"], capture_output=True, text=True,
                              timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""

#: Tags of the set-up cell: hidden in the book, and findable again by ``make launch-cell``.
TAGS = ["remove-cell", "compsem-setup"]
CELL_ID = "compsem-setup"

_TEMPLATE = '''\
# Set-up for a chapter opened outside a checkout (Colab, a download); hidden in the book.
# Inside a checkout, or with COMPSEM_ROOT set, it installs nothing. Elsewhere it clones the
# repository at the commit the book was built from (an existing clone is checked out there),
# installs it with the versions of its lock file and the offline model panel, and points
# COMPSEM_ROOT at the clone. Written by `make launch-cell`: do not edit by hand.
import importlib, os, subprocess, sys
from pathlib import Path

COMPSEM_REPO = {repo!r}
COMPSEM_COMMIT = {commit!r}
COMPSEM_PIP_ARGS = {pip_args!r}

def _compsem_checkout():
    if os.environ.get("COMPSEM_ROOT"):
        return Path(os.environ["COMPSEM_ROOT"])
    return next((d for d in (Path.cwd(), *Path.cwd().parents)
                 if (d / "pyproject.toml").is_file() and (d / "src" / "compsem").is_dir()), None)

if _compsem_checkout() is None:
    if not COMPSEM_REPO:
        raise RuntimeError("compsem is not installed and this notebook does not name its repository: clone "
                           "the study, run `pip install -e .` in it and set COMPSEM_ROOT to the clone")
    _root = Path.cwd() / "compsem-study"
    _git = ["git", "-C", str(_root)]
    if not _root.exists():
        if COMPSEM_REPO.startswith("-"):
            raise RuntimeError(f"this notebook names the repository {{COMPSEM_REPO!r}}, which git would read as an option")
        subprocess.run(["git", "clone", "--quiet", "--", COMPSEM_REPO, str(_root)], check=True)
    elif not (_root / ".git").exists():
        raise RuntimeError(f"{{_root}} exists but is not a clone of the study: move it away and rerun this cell")
    if len(COMPSEM_COMMIT) != 40 or set(COMPSEM_COMMIT) - set("0123456789abcdef"):
        raise RuntimeError(f"this notebook names commit {{COMPSEM_COMMIT!r}}, not a full 40-hex commit: rerun "
                           "`make launch-cell` with LAUNCH_COMMIT=<sha>")
    _head = subprocess.run([*_git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    _status = subprocess.run([*_git, "status", "--porcelain", "--ignored"], capture_output=True,
                             text=True).stdout.splitlines()
    if any(not line.startswith("!! ") for line in _status):
        raise RuntimeError(f"{{_root}} is at commit {{_head[:12]}} with local changes, not a clean clone at "
                           f"{{COMPSEM_COMMIT[:12]}} that this notebook was built from: move it away and rerun this cell")
    # ignored files (a cache, a build) count only when they are yours and no one else may write them
    _seen = [_root] + [_root / line[3:].rstrip("/") for line in _status]
    _seen += [Path(d, n) for s in _seen[1:] if s.is_dir() and not s.is_symlink() for d, ds, fs in os.walk(s)
              for n in ds + fs]
    _bad = [str(q) for q in _seen if q.lstat().st_uid != os.getuid() or q.lstat().st_mode & 0o022
            and not q.is_symlink()]
    if _bad:
        raise RuntimeError(f"{{_root}} holds files that are another user's or that others may write "
                           f"({{', '.join(_bad[:3])}}): not a clean clone of your own; move it away and rerun this cell")
    if _head != COMPSEM_COMMIT:
        if subprocess.run([*_git, "cat-file", "-e", COMPSEM_COMMIT + "^{{commit}}"]).returncode:
            subprocess.run([*_git, "fetch", "--quiet", "origin"], check=True)
        subprocess.run([*_git, "checkout", "--quiet", "--detach", COMPSEM_COMMIT], check=True)
        _head = subprocess.run([*_git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if _head != COMPSEM_COMMIT:
        raise RuntimeError(f"{{_root}} could not be checked out at {{COMPSEM_COMMIT[:12]}}: move it away and rerun "
                           "this cell")
    _lock = _root / "requirements-lock.txt"
    _pip = [sys.executable, "-m", "pip", "install", "--quiet", *(["-c", str(_lock)] if _lock.is_file() else []),
            *COMPSEM_PIP_ARGS, str(_root)]
    print(f"Installing the study from {{COMPSEM_REPO}} {{COMPSEM_COMMIT[:12]}} (a few minutes): {{' '.join(_pip[1:])}}")
    subprocess.run(_pip, check=True)
    if "--target" in COMPSEM_PIP_ARGS:   # an install into a folder of its own (the tests) goes first on the path
        sys.path.insert(0, COMPSEM_PIP_ARGS[COMPSEM_PIP_ARGS.index("--target") + 1])
    importlib.invalidate_caches()
    os.environ["COMPSEM_ROOT"] = str(_root)
    os.chdir(_root / "notebooks")

try:   # everywhere: table cells show their whole text (check-book flags cells cut with "...")
    import pandas as _pd
    _pd.set_option("display.max_colwidth", None)
except ImportError:
    pass
'''


def setup_source(repo: str = "", commit: str = "", pip_args: Sequence[str] = ()) -> str:
    """The set-up cell's code for repository ``repo`` at ``commit``.

    ``pip_args`` are extra ``pip install`` options (``["--no-deps", "--target", DIR]`` in the
    tests; a ``--target`` folder is put first on ``sys.path``).
    """
    return _TEMPLATE.format(repo=str(repo), commit=str(commit), pip_args=list(pip_args))


def setup_cell(repo: str = "", commit: str = "", pip_args: Sequence[str] = ()) -> dict:
    """The set-up cell as a notebook (nbformat 4.5) code cell."""
    return {"cell_type": "code", "execution_count": None, "id": CELL_ID, "metadata": {"tags": list(TAGS)},
            "outputs": [], "source": setup_source(repo, commit, pip_args).splitlines(keepends=True)}


def _is_setup(cell: dict) -> bool:
    return "compsem-setup" in cell.get("metadata", {}).get("tags", [])


def place_setup_cell(nb: dict, cell: dict) -> dict:
    """``nb`` with ``cell`` right after its ``parameters`` cell (any older set-up cell removed).

    Raises ``ValueError`` when the notebook has no code cell tagged ``parameters`` or when that
    cell is not the first code cell (papermill injects parameters after it).
    """
    cells = [c for c in nb["cells"] if not _is_setup(c)]
    code = [i for i, c in enumerate(cells) if c["cell_type"] == "code"]
    first = notebooks.parameters_cell({"cells": cells})
    if first is None:
        raise ValueError("no code cell tagged 'parameters'")
    at = next(i for i, c in enumerate(cells) if c is first)
    if at != code[0]:
        raise ValueError(f"the 'parameters' cell is code cell {code.index(at) + 1}, not the first")
    cells.insert(at + 1, cell)
    return {**nb, "cells": cells}


def write_launch_cells(paths: Sequence[str | Path], *, repo: str = "", commit: str = "") -> list[Path]:
    """(Re)write the set-up cell into each notebook; return the notebooks that changed."""
    cell = setup_cell(repo, commit)
    changed = []
    for path in map(Path, paths):
        try:
            nb = place_setup_cell(notebooks.read(path), cell)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        if notebooks.write(nb, path):
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compsem.book.teaching.launch", description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", help="default: notebooks/*.ipynb")
    ap.add_argument("--repo", default=os.environ.get("LAUNCH_REPO", ""), help="the repository's public URL (https or ssh); default $LAUNCH_REPO (how make passes it, "
                                   "so that no token is echoed in make's recipe line); when empty: the "
                                   "origin remote's URL, without credentials; none when there is no origin")
    ap.add_argument("--commit", default="", help="the full 40-hex commit the book is built from (required with "
                                                 "--repo)")
    args = ap.parse_args(argv)
    repo = args.repo
    if not repo:                 # make launch-cell passes --repo "" when LAUNCH_REPO is not set
        repo = _origin_url()
        if repo:
            print(f"warning: no --repo (LAUNCH_REPO) given: the cells name the origin remote's URL "
                  f"{public_url(repo)[0]}", file=sys.stderr)
    repo, removed = public_url(repo)
    if repo and not _clonable(repo):
        ap.error(f"--repo (LAUNCH_REPO) {repo!r} is not an https:// or ssh URL (ssh://HOST/PATH, USER@HOST:PATH); "
                 "a URL that begins with '-' would be read by git as an option")
    if removed:
        print(f"warning: removed {' and '.join(removed)} from the repository URL: the cells name {repo}",
              file=sys.stderr)
    if args.commit and not is_full_sha(args.commit):
        ap.error(f"--commit (LAUNCH_COMMIT) {args.commit!r} is not a full 40-hex commit id: a branch or tag name "
                 "can move; give `git rev-parse HEAD` or another full SHA")
    if repo and not args.commit:
        ap.error("--repo needs --commit: a set-up cell without one would clone whatever the default branch holds "
                 "(make launch-cell passes `git rev-parse HEAD` unless LAUNCH_COMMIT is set)")
    notebooks = args.notebooks or sorted(Path("notebooks").glob("*.ipynb"))
    # without a repository the cell only says how to install by hand: a commit would mean nothing
    changed = write_launch_cells(notebooks, repo=repo, commit=args.commit if repo else "")
    print(f"set-up cell current in {plural(len(notebooks), 'notebook')}; rewrote {len(changed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
