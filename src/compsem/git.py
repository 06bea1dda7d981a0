"""The checkout's commit, for the records a run or a benchmark writes (what code produced them)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from compsem.paths import repo_root

__all__ = ["commit_of"]


def commit_of(root: Path | None = None) -> str | None:
    """``git rev-parse HEAD`` of the checkout (``+dirty`` when files differ from it), or ``None``."""
    root = root or repo_root()
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("+dirty" if dirty else "")
