"""The output folder of ``python -m compsem run``: one run per folder, with a manifest.

A run folder holds one chapter run: the executed notebook, ``results/`` and the manifest
``compsem-run.json`` (:data:`compsem.results.RUN_MANIFEST`: notebook, parameters, commit, run id,
state and the files written). A rerun of the same chapter with the same parameters may reuse its
folder; any other non-empty folder is refused, unless ``--force`` clears it first (the runner
prints what it removed). The book build (``--book``) writes into a shared folder and keeps no
manifest.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ..paths import repo_root
from ..results import RUN_MANIFEST, RunMixError
from ..store import write_json

__all__ = ["run_id", "prepare_out", "write_manifest", "commit_of"]


def run_id(notebook: str, parameters: dict[str, Any]) -> str:
    """A short hash of the notebook's name and the parameters (canonical JSON)."""
    text = json.dumps({"notebook": notebook, "parameters": parameters}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def commit_of(root: Path | None = None) -> str | None:
    """``git rev-parse HEAD`` of the checkout (``+dirty`` when files differ from it), or ``None``."""
    root = root or repo_root()
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=20, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("+dirty" if dirty else "")


def _entries(folder: Path) -> list[str]:
    out = []
    for p in sorted(folder.iterdir()):
        if p.is_dir() and not p.is_symlink():
            n = sum(1 for q in p.rglob("*") if not q.is_dir())
            out.append(f"{p.name}/ ({n} file{'s' if n != 1 else ''})")
        else:
            out.append(p.name)
    return out


def _refuse_to_clear(folder: Path) -> str | None:
    """Why ``folder`` must never be emptied by ``--force`` (a checkout, a home, a parent of either)."""
    home = Path.home().resolve()
    for keep in (repo_root(), Path.cwd().resolve(), home):
        if folder == keep or folder in keep.parents:
            return f"it is {keep} or one of its parents"
    if (folder / ".git").exists():
        return "it holds a git repository"
    return None


def prepare_out(out: Path, *, run: str, notebook: str, force: bool = False, check: bool = True) -> list[str]:
    """Make ``out`` ready for run ``run``; return what ``--force`` removed (empty when nothing).

    Raises ``NotADirectoryError`` when ``out`` is a file and :class:`RunMixError` when it is a
    non-empty folder holding anything but an earlier run of the same notebook with the same
    parameters (``check=False``, the book build, skips this).
    """
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {out} is a file, not a folder: name a folder for the run (it is created)")
    removed: list[str] = []
    if check and out.is_dir() and any(out.iterdir()):
        man_path = out / RUN_MANIFEST
        try:
            same = json.loads(man_path.read_text(encoding="utf-8")).get("run") == run
        except (OSError, ValueError, AttributeError):
            same = False
        if not same:
            held = _entries(out)
            if not force:
                what = "another run" if man_path.is_file() else "files of no run of this chapter"
                raise RunMixError(f"--out {out} is not empty and holds {what} ({', '.join(held[:6])}"
                                  f"{', …' if len(held) > 6 else ''}), not an earlier run of {notebook} with these "
                                  "parameters: name an empty or new folder, or add --force to clear it first")
            why = _refuse_to_clear(out)
            if why:
                raise RunMixError(f"--force will not clear {out}: {why}")
            for p in list(out.iterdir()):
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink()
            removed = held
    out.mkdir(parents=True, exist_ok=True)
    return removed


def write_manifest(out: Path, *, run: str, notebook: str, parameters: dict[str, Any], state: str,
                   commit: str | None) -> Path:
    """Write ``out/compsem-run.json`` (atomically) with the files now in ``out``."""
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != RUN_MANIFEST
                   and not p.name.endswith(".tmp"))
    return write_json(out / RUN_MANIFEST, {"run": run, "notebook": notebook, "parameters": parameters,
                                           "commit": commit, "state": state, "files": files},
                      indent=1, sort_keys=True, default=str)
