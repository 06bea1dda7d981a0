"""One convention for the study's result stores on disk: write atomically, read or say it is broken.

A store file (a finished C-STS run, a Part IV score matrix's metadata, a result table) is
written to a temporary file beside its final place and moved there with :func:`os.replace`,
so a reader sees the old file or the new one, never half of one. A file that cannot be read
back (truncated by a full disk, edited by hand) raises :class:`BrokenStoreError`, which names
it; callers that can recompute catch it and do so.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import CompsemError

__all__ = ["BrokenStoreError", "write_atomic", "write_json", "read_json", "save_npy", "load_npy"]


class BrokenStoreError(CompsemError, ValueError):
    """A stored result file exists but cannot be read back."""

    def __init__(self, path: Path, why: str):
        self.path = Path(path)
        super().__init__(f"{path} is broken ({why}); delete it and the next run recomputes it")


def write_atomic(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary file in ``path``'s folder, then move it to ``path``.

    The folder is created. On any error the temporary file is removed and ``path`` is left as it
    was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_json(path: str | Path, obj: Any, **dumps) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically (``dumps`` goes to :func:`json.dumps`)."""
    text = json.dumps(obj, **dumps)
    return write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_json(path: str | Path) -> Any:
    """The JSON object in ``path``.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    BrokenStoreError
        It exists but is not valid JSON (or not UTF-8).
    """
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BrokenStoreError(path, f"not valid JSON: {e}") from None


def save_npy(path: str | Path, array) -> Path:
    """Save a NumPy array to ``path`` atomically (no pickles)."""
    import numpy as np

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.save(f, array, allow_pickle=False)

    return write_atomic(path, write)


def load_npy(path: str | Path):
    """The array in ``path`` (never unpickled); a truncated file is a :class:`BrokenStoreError`."""
    import numpy as np

    path = Path(path)
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError) as e:
        raise BrokenStoreError(path, f"not a readable .npy file: {e}") from None
