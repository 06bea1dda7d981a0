"""Reading a word-vector file (``vec:PATH``): word2vec binary, word2vec text or GloVe text.

Every defect is named with the file and the line (text) or the vector number (binary): a line
that is not a word followed by numbers, a number that does not parse, a non-finite component
(``nan``, ``inf``: it would spread into every text that uses the word), a row of another width, a
``count dim`` header that the rows do not match or that announces more than the file can hold,
an empty or truncated file. Errors name positions (line, field, vector), never the file's text:
``vec:`` may be pointed at any file, and its first line must not end up in a message. A word that
occurs twice keeps its first vector, with one warning naming how many and where (emitted only
once the whole file has been read as word vectors).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from ..errors import DataError
from ..fmt import plural

__all__ = ["read_word_vectors", "DuplicateWordWarning"]


class DuplicateWordWarning(UserWarning):
    """A word-vector file lists a word more than once (the first vector is used)."""


def _duplicates(path: Path, dups: list[tuple[str, str, str]]) -> None:
    if dups:
        shown = "; ".join(f"{w!r} at {where} (first at {first})" for w, where, first in dups[:5])
        warnings.warn(
            f"{path}: {plural(len(dups), 'duplicate word')}, the first vector of each is used: {shown}"
            f"{' …' if len(dups) > 5 else ''}",
            DuplicateWordWarning,
            stacklevel=3,
        )


def _read_bin(path: Path) -> tuple[dict[str, int], np.ndarray]:
    words: dict[str, int] = {}
    dups: list[tuple[str, str, str]] = []
    with open(path, "rb") as f:
        first = f.readline(200)
        head = first.split()
        if len(head) != 2 or not all(x.isdigit() for x in head):
            what = "the file is empty" if not head else "its first line is not two whole numbers"
            raise DataError(f"line 1: a word2vec binary file starts with 'count dim'; {what}", file=str(path))
        n, dim = (int(x) for x in head)
        if n == 0 or dim == 0:
            raise DataError(f"line 1: header says {n} vectors of {dim} numbers: no word vectors", file=str(path))
        room = os.fstat(f.fileno()).st_size - len(first)
        if dim > 1_000_000 or n * (4 * dim + 1) > room:  # each vector: a word, a space, 4 bytes a number
            raise DataError(
                f"line 1: the header announces {n:,} vectors of {dim:,} numbers, more than the "
                f"{room:,} bytes after it can hold (or over 1,000,000 numbers a vector)",
                file=str(path),
            )
        out = np.empty((n, dim), dtype=np.float32)
        width = 4 * dim
        for i in range(n):
            word = bytearray()
            while (ch := f.read(1)) not in (b" ", b""):
                if ch != b"\n":
                    word += ch
            blob = f.read(width)
            if len(blob) < width:
                raise DataError(f"truncated after {i} of the {n} vectors the header announces", file=str(path))
            out[i] = np.frombuffer(blob, dtype="<f4")
            text = word.decode("utf-8", errors="replace")
            if text in words:
                dups.append((text, f"vector {i + 1}", f"vector {words[text] + 1}"))
            else:
                words[text] = i
    bad = np.flatnonzero(~np.isfinite(out).all(axis=1))
    if bad.size:
        i = int(bad[0])
        raise DataError(
            f"vector {i + 1} has a non-finite component ({plural(bad.size, 'such vector')})", file=str(path)
        )
    _duplicates(path, dups)
    return words, out


def _read_text(path: Path) -> tuple[dict[str, int], np.ndarray]:
    words: dict[str, int] = {}
    dups: list[tuple[str, str, str]] = []
    rows: list[np.ndarray] = []
    line_of: list[int] = []
    dim = header = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip().split(" ")
            if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                header = (int(parts[0]), int(parts[1]))  # word2vec text header
                dim = header[1]
                continue
            if not line.strip():
                continue
            if len(parts) < 2:
                raise DataError(
                    f"line {lineno}: a word and its numbers expected, got one field without spaces", file=str(path)
                )
            dim = dim or len(parts) - 1
            if len(parts) - 1 != dim:
                raise DataError(f"line {lineno}: {len(parts) - 1} numbers, expected {dim}", file=str(path))
            try:
                with np.errstate(over="ignore"):  # beyond float32 becomes inf: refused just below
                    vec = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                field = next(k for k, p in enumerate(parts[1:], 2) if not _is_number(p))
                raise DataError(
                    f"line {lineno}: field {field} is not a number (a word and {dim} numbers expected)", file=str(path)
                ) from None
            if not np.isfinite(vec).all():
                raise DataError(
                    f"line {lineno}: a non-finite component (nan, inf, or beyond float32's range)", file=str(path)
                )
            if parts[0] in words:
                dups.append((parts[0], f"line {lineno}", f"line {line_of[words[parts[0]]]}"))
            else:
                words[parts[0]] = len(rows)
            rows.append(vec)
            line_of.append(lineno)
    if not rows:
        raise DataError("no word vectors found", file=str(path))
    if header is not None and header[0] != len(rows):
        raise DataError(f"line 1: the header announces {header[0]} vectors, the file holds {len(rows)}", file=str(path))
    _duplicates(path, dups)
    return words, np.vstack(rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_word_vectors(path: str | Path) -> tuple[dict[str, int], np.ndarray]:
    """``(word -> row, (n, dim) float32 matrix)`` of a ``.bin`` word2vec file or a text file with
    or without a ``count dim`` header (word2vec text, GloVe); a :class:`DataError` names the
    file and line of any defect."""
    path = Path(path)
    return _read_bin(path) if path.suffix == ".bin" else _read_text(path)
