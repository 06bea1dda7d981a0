"""The set-up cell that lets a chapter run outside a checkout (Colab, a downloaded notebook).

``make launch-cell`` writes one hidden code cell (tags ``remove-cell`` and ``compsem-setup``)
right after each chapter's ``parameters`` cell, which stays the first code cell for papermill.
The cell is plain Python with no import of ``compsem`` (which may not be installed yet):

* inside a checkout of the repository (``$COMPSEM_ROOT`` set, or a ``pyproject.toml`` beside
  ``src/compsem`` in the working directory or one of its parents, as :func:`compsem.paths.repo_root`
  looks for) it installs nothing: the book build, ``python -m compsem run``, JupyterLab and
  Binder all run inside one;
* elsewhere it clones the repository into ``compsem-study/`` (unless that folder exists) and
  runs :mod:`compsem.book.teaching.colab` *as the pinned commit holds it* (``git show
  <commit>:src/compsem/book/teaching/colab.py``, never the clone's working tree), which refuses a
  clone with local changes or with files of another user, checks it out at the commit, installs
  it with its ``requirements-lock.txt`` as constraints and moves into its ``notebooks/`` folder;
  a folder that is not a clone holding the commit, or a commit that is not a full SHA, stops the
  cell with a message;
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

__all__ = [
    "TAGS",
    "setup_source",
    "setup_cell",
    "place_setup_cell",
    "write_launch_cells",
    "is_full_sha",
    "public_url",
    "main",
]

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
    if "://" not in url:  # a path, or scp-like ``user[:secret]@host:path``
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
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError:  # a bracketed host that is no IPv6 address, an unclosed bracket
            return False
        return parts.scheme in ("https", "ssh", "git+ssh") and bool(host) and not host.startswith("-")
    user_host, colon, path = url.partition(":")
    return bool(colon and path and re.fullmatch(r"[A-Za-z0-9_.-]+@[A-Za-z0-9][A-Za-z0-9.-]*", user_host))


def _origin_url() -> str:
    try:
        return subprocess.run(
            ["git", "config", "--get", "remote.origin.url"], capture_output=True, text=True, timeout=20
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


#: Tags of the set-up cell: hidden in the book, and findable again by ``make launch-cell``.
TAGS = ["remove-cell", "compsem-setup"]
CELL_ID = "compsem-setup"

#: The set-up cell where a repository is named (at most 10 lines): outside a checkout it clones the
#: repository into ``compsem-study/`` and runs :mod:`compsem.book.teaching.colab` as the pinned
#: commit holds it (``git show``, never the clone's working tree), which checks the clone and installs.
_TEMPLATE = """\
# Set-up of a chapter opened outside a checkout (Colab, a download), hidden in the book; written by `make launch-cell`.
import importlib.util, os, pathlib, re, subprocess
COMPSEM_REPO = {repo!r}
COMPSEM_COMMIT = {commit!r}
COMPSEM_PIP_ARGS = {pip_args!r}
if not os.environ.get("COMPSEM_ROOT") and not any((d / "pyproject.toml").is_file() and (d / "src" / "compsem").is_dir() for d in (pathlib.Path.cwd(), *pathlib.Path.cwd().parents)):
    if not os.path.exists("compsem-study"): subprocess.run(["git", "clone", "--quiet", "--", COMPSEM_REPO, "compsem-study"], check=True)
    _colab = subprocess.run(["git", "--git-dir=compsem-study/.git", "show", (COMPSEM_COMMIT if re.fullmatch("[0-9a-f]{{40}}", COMPSEM_COMMIT) else "0" * 40) + ":{colab}"], capture_output=True, text=True)
    exec(_colab.stdout if not _colab.returncode else "raise RuntimeError(f'compsem-study is not a clone of the study holding commit {{COMPSEM_COMMIT!r}}, or that is not a full 40-hex commit: move the folder away and rerun this cell')", dict(globals()))
if importlib.util.find_spec("pandas"): __import__("pandas").set_option("display.max_colwidth", None)   # whole table cells
"""

#: The set-up cell where no repository is named: nothing to clone; outside a checkout it says how to install.
_NO_REPO_TEMPLATE = """\
# Set-up of a chapter opened outside a checkout (Colab, a download), hidden in the book; written by `make launch-cell`.
import importlib.util, os, pathlib
COMPSEM_REPO = {repo!r}
COMPSEM_COMMIT = {commit!r}
if not os.environ.get("COMPSEM_ROOT") and not any((d / "pyproject.toml").is_file() and (d / "src" / "compsem").is_dir() for d in (pathlib.Path.cwd(), *pathlib.Path.cwd().parents)):
    raise RuntimeError("compsem is not installed and this notebook does not name its repository: clone the study, run `pip install -e .` in it and set COMPSEM_ROOT to the clone")
if importlib.util.find_spec("pandas"): __import__("pandas").set_option("display.max_colwidth", None)   # whole table cells
"""

#: Where the set-up cell finds what it runs, in the pinned commit.
COLAB_SCRIPT = "src/compsem/book/teaching/colab.py"


def setup_source(repo: str = "", commit: str = "", pip_args: Sequence[str] = ()) -> str:
    """The set-up cell's code for repository ``repo`` at ``commit`` (at most 10 lines).

    ``pip_args`` are extra ``pip install`` options (``["--no-deps", "--target", DIR]`` in the
    tests; a ``--target`` folder is put first on ``sys.path``).
    """
    template = _TEMPLATE if repo else _NO_REPO_TEMPLATE
    return template.format(repo=str(repo), commit=str(commit), pip_args=list(pip_args), colab=COLAB_SCRIPT)


def setup_cell(repo: str = "", commit: str = "", pip_args: Sequence[str] = ()) -> dict:
    """The set-up cell as a notebook (nbformat 4.5) code cell."""
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": CELL_ID,
        "metadata": {"tags": list(TAGS)},
        "outputs": [],
        "source": setup_source(repo, commit, pip_args).splitlines(keepends=True),
    }


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
    ap.add_argument(
        "--repo",
        default=os.environ.get("LAUNCH_REPO", ""),
        help="the repository's public URL (https or ssh); default $LAUNCH_REPO (how make passes it, "
        "so that no token is echoed in make's recipe line); when empty: the "
        "origin remote's URL, without credentials; none when there is no origin",
    )
    ap.add_argument("--commit", default="", help="the full 40-hex commit the book is built from (required with --repo)")
    args = ap.parse_args(argv)
    repo = args.repo
    if not repo:  # make launch-cell passes --repo "" when LAUNCH_REPO is not set
        repo = _origin_url()
        if repo:
            print(
                f"warning: no --repo (LAUNCH_REPO) given: the cells name the origin remote's URL {public_url(repo)[0]}",
                file=sys.stderr,
            )
    try:
        repo, removed = public_url(repo)
    except ValueError:  # urlsplit: an unclosed or malformed [IPv6] host
        repo, removed = repo, []
        ap.error(
            "--repo (LAUNCH_REPO) is not a valid URL (an unclosed or malformed [host]; not shown, it may hold "
            "a token): give an https:// or ssh URL"
        )
    if repo and not _clonable(repo):
        ap.error(
            f"--repo (LAUNCH_REPO) {repo!r} is not an https:// or ssh URL (ssh://HOST/PATH, USER@HOST:PATH); "
            "a URL that begins with '-' would be read by git as an option"
        )
    if removed:
        print(
            f"warning: removed {' and '.join(removed)} from the repository URL: the cells name {repo}", file=sys.stderr
        )
    if args.commit and not is_full_sha(args.commit):
        ap.error(
            f"--commit (LAUNCH_COMMIT) {args.commit!r} is not a full 40-hex commit id: a branch or tag name "
            "can move; give `git rev-parse HEAD` or another full SHA"
        )
    if repo and not args.commit:
        ap.error(
            "--repo needs --commit: a set-up cell without one would clone whatever the default branch holds "
            "(make launch-cell passes `git rev-parse HEAD` unless LAUNCH_COMMIT is set)"
        )
    notebooks = args.notebooks or sorted(Path("notebooks").glob("*.ipynb"))
    # without a repository the cell only says how to install by hand: a commit would mean nothing
    changed = write_launch_cells(notebooks, repo=repo, commit=args.commit if repo else "")
    print(f"set-up cell current in {plural(len(notebooks), 'notebook')}; rewrote {len(changed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
