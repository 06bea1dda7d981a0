"""Reading tables that readers bring (CSV, JSONL, parquet) with errors that point at the cell.

``read_table(path, required=["sentence1", "sentence2"], text_columns=["sentence1", "sentence2"])``
checks that the file exists, that every required column is there, and that text cells are
non-empty; a failure raises :class:`compsem.errors.DataError` naming the file, the row (1-based
data row, the header not counted), the column and, for text files, the physical line.

Every study's loader reads through :func:`read_table`, so every file gets the same checks:

* text files are decoded as UTF-8, a leading byte-order mark (as Excel writes) is dropped, and a
  byte that is not UTF-8 is named with its line;
* a CSV cell may hold up to :data:`FIELD_LIMIT` bytes (16 MiB; Python's own limit is 128 KiB),
  a longer one is an error naming its line;
* a header that names a column twice, a row with more cells than the header, and a file with a
  header but no rows are errors (``allow_empty=True`` accepts the last);
* ``as_text=True`` keeps every cell as the text written (an empty cell is ``""``), so a loader
  reports the value the file holds, not pandas' reading of it (``"1"``, not ``1.0``).

The physical line on which each record starts is kept in ``df.attrs["lines"]`` (a
:class:`LineNumbers`: pandas deep-copies ``attrs`` into every frame derived from this one, so
the numbers are an immutable tuple that such a copy shares rather than rebuilds).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import DataError
from .fmt import noun

__all__ = [
    "FIELD_LIMIT",
    "LineNumbers",
    "read_table",
    "read_text",
    "require_columns",
    "require_text",
    "require_numeric",
    "file_sha256",
]

#: The largest CSV cell, in characters (16 MiB). Set process-wide, so every csv reader agrees.
FIELD_LIMIT = 16 * 1024 * 1024
csv.field_size_limit(FIELD_LIMIT)


def read_text(path: str | Path) -> str:
    """The file as UTF-8 text, a leading byte-order mark dropped; a :class:`DataError` naming the
    line of the first byte that is not UTF-8."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(
            f"line {line}: byte 0x{raw[exc.start]:02x} is not UTF-8; save the file as UTF-8", file=str(path)
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _csv_records(text: str, path: Path, delimiter: str) -> tuple[list[str], list[int]]:
    """The header and the physical start line of each data record (blank lines skipped)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    lines: list[int] = []
    prev = 0
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            line = prev + 1
            why = (
                f"a cell longer than {FIELD_LIMIT:,} characters (the limit, compsem.data.FIELD_LIMIT)"
                if "field larger" in str(exc)
                else str(exc)
            )
            raise DataError(f"line {line}: {why}", file=str(path)) from None
        start, prev = prev + 1, reader.line_num
        if not rec:
            continue
        if header is None:
            header = rec
            dups = [name for name, n in Counter(header).items() if n > 1]
            if dups:
                raise DataError(
                    f"line {start}: the header names {noun(len(dups), 'column')} {dups} more than once", file=str(path)
                )
            continue
        if len(rec) > len(header):
            raise DataError(
                f"line {start}: {len(rec)} cells but the header has {len(header)}", file=str(path), row=len(lines) + 1
            )
        lines.append(start)
    if header is None:
        raise DataError("empty file: no header and no rows", file=str(path))
    return header, lines


class LineNumbers(tuple):
    """The file line of each row: a tuple whose deep copy is itself (it cannot change), so that
    pandas, which deep-copies ``attrs`` into each column or frame taken from a table, does not
    copy thousands of numbers on every column access."""

    __slots__ = ()

    def __deepcopy__(self, memo):
        return self


def read_table(
    path: str | Path,
    *,
    required: Sequence[str] = (),
    text_columns: Iterable[str] = (),
    numeric_columns: Iterable[str] = (),
    as_text: bool = False,
    allow_empty: bool = False,
):
    """Load ``path`` (``.csv``, ``.tsv``, ``.jsonl``, ``.json`` lines or array, ``.parquet``) as a
    DataFrame and validate it (see the module docstring)."""
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", file=str(path))
    suffix = path.suffix.lower()
    lines = None
    try:
        if suffix in (".csv", ".tsv", ".tab"):
            sep = "," if suffix == ".csv" else "\t"
            text = read_text(path)
            _, lines = _csv_records(text, path, sep)
            df = pd.read_csv(
                io.StringIO(text),
                sep=sep,
                keep_default_na=False,
                na_values=[""],
                dtype=str if as_text else None,
                skip_blank_lines=True,
            )
        elif suffix in (".jsonl", ".json"):
            text = read_text(path)
            as_lines = suffix == ".jsonl" or not text.lstrip().startswith("[")
            if as_lines:
                physical = text.splitlines()
                lines = [i for i, t in enumerate(physical, 1) if t.strip()]
                for i in lines:
                    try:
                        json.loads(physical[i - 1])
                    except ValueError as exc:
                        raise DataError(f"line {i}: not a JSON record ({exc})", file=str(path)) from None
            df = pd.read_json(io.StringIO(text), lines=as_lines, dtype=False if as_text else None)
        elif suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            raise DataError(f"unsupported format {suffix!r}; use .csv, .tsv, .jsonl or .parquet", file=str(path))
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - parser errors carry the line themselves
        raise DataError(f"cannot parse: {exc}", file=str(path)) from exc
    if as_text:
        df = df.fillna("").astype(str) if len(df) else df
    if lines is not None and len(lines) == len(df):
        df.attrs["lines"] = LineNumbers(lines)
    if len(df) == 0 and not allow_empty:
        raise DataError("no rows: the file has a header but no data rows", file=str(path))
    require_columns(df, required, file=str(path))
    require_text(df, text_columns, file=str(path))
    require_numeric(df, numeric_columns, file=str(path))
    return df


def _line(df, i: int) -> str:
    lines = df.attrs.get("lines")
    return f" (line {lines[i]})" if lines and i < len(lines) else ""


def require_columns(df, columns: Sequence[str], *, file: str | None = None) -> None:
    """Raise :class:`DataError` listing the missing columns and the ones present."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(
            f"missing {noun(len(missing), 'column')} {missing}; found {list(df.columns)}", file=file, column=missing[0]
        )


def require_text(df, columns: Iterable[str], *, file: str | None = None) -> None:
    """Every cell of ``columns`` must be a non-empty string."""
    for col in columns:
        for i, val in enumerate(df[col].tolist()):
            if not isinstance(val, str) or not val.strip():
                raise DataError(f"empty or non-text value {val!r}{_line(df, i)}", file=file, row=i + 1, column=col)


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
                raise DataError(f"not a finite number: {val!r}{_line(df, i)}", file=file, row=i + 1, column=col)


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file (data checksums for the reproducibility appendix)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
