"""Reading tables that readers bring (CSV, JSONL, parquet) with errors that point at the cell.

``read_table(path, required=["sentence1", "sentence2"], text_columns=["sentence1", "sentence2"])``
checks that the file exists, that every required column is there, and that text cells are
non-empty; a failure raises :class:`compsem.errors.DataError` naming the file, the row (1-based
data row, the header not counted) and the column.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import DataError

__all__ = ["read_table", "require_columns", "require_text", "require_numeric", "file_sha256"]


def read_table(path: str | Path, *, required: Sequence[str] = (), text_columns: Iterable[str] = (),
               numeric_columns: Iterable[str] = ()):
    """Load ``path`` (``.csv``, ``.tsv``, ``.jsonl``/``.json``, ``.parquet``) as a DataFrame and validate it."""
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", file=str(path))
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            df = pd.read_csv(path, keep_default_na=False, na_values=[""], comment=None)
        elif suffix in (".tsv", ".tab"):
            df = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
        elif suffix in (".jsonl", ".json"):
            df = pd.read_json(path, lines=suffix == ".jsonl")
        elif suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            raise DataError(f"unsupported format {suffix!r}; use .csv, .tsv, .jsonl or .parquet", file=str(path))
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - parser errors carry the line themselves
        raise DataError(f"cannot parse: {exc}", file=str(path)) from exc
    require_columns(df, required, file=str(path))
    require_text(df, text_columns, file=str(path))
    require_numeric(df, numeric_columns, file=str(path))
    return df


def require_columns(df, columns: Sequence[str], *, file: str | None = None) -> None:
    """Raise :class:`DataError` listing the missing columns and the ones present."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(f"missing column(s) {missing}; found {list(df.columns)}", file=file, column=missing[0])


def require_text(df, columns: Iterable[str], *, file: str | None = None) -> None:
    """Every cell of ``columns`` must be a non-empty string."""
    for col in columns:
        for i, val in enumerate(df[col].tolist()):
            if not isinstance(val, str) or not val.strip():
                raise DataError(f"empty or non-text value {val!r}", file=file, row=i + 1, column=col)


def require_numeric(df, columns: Iterable[str], *, file: str | None = None) -> None:
    """Every cell of ``columns`` must parse as a finite number."""
    import math

    for col in columns:
        for i, val in enumerate(df[col].tolist()):
            try:
                ok = math.isfinite(float(val))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise DataError(f"not a finite number: {val!r}", file=file, row=i + 1, column=col)


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file (data checksums for the reproducibility appendix)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
