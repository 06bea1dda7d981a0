"""Imports from the shared foundation, with small stand-ins while it is not merged."""
from __future__ import annotations

from pathlib import Path

try:  # the foundation's error type names file, row and column
    from compsem.errors import DataError  # noqa: F401
except ImportError:  # pragma: no cover - only before the foundation is merged
    class DataError(ValueError):
        def __init__(self, message, *, file=None, row=None, column=None):
            self.file, self.row, self.column = file, row, column
            where = [w for w in (file and f"file {file}", row and f"row {row}", column and f"column {column!r}") if w]
            super().__init__(f"{', '.join(where)}: {message}" if where else message)

try:
    from compsem.paths import cache_dir as cache_root  # noqa: F401
    from compsem.paths import data_dir  # noqa: F401
except ImportError:  # pragma: no cover
    import os

    def data_dir(*parts: str) -> Path:
        return Path(__file__).resolve().parents[3].joinpath("data", *parts)

    def cache_root(*parts: str) -> Path:
        root = os.environ.get("COMPSEM_CACHE")
        return (Path(root) if root else Path(__file__).resolve().parents[3] / ".cache").joinpath(*parts)
