"""The one reader and writer of notebook files, and the one reader of a chapter's ``parameters``
cell. Every module opens a ``.ipynb`` through these (``tests/compsem/test_notebooks.py`` fails on
any other ``json.load`` of a notebook, and on a second reader of the parameters cell). It is part
of the foundation, so that a study can read a chapter's defaults from the chapter itself
(:func:`defaults`) instead of keeping a copy.

* :func:`read` is ``nbformat.read(path, as_version=4)``; with ``strict=True`` the notebook must
  also pass nbformat's schema. A file nbformat cannot read is a :class:`NotANotebookError`.
* :func:`dumps` / :func:`write` are ``nbformat.writes`` (sorted keys, one-space indent, lines
  split as Jupyter writes them) plus the final newline ``nbformat.write`` adds.
* :func:`parameters` is papermill's inspection of the cell tagged ``parameters`` (what
  ``papermill.inspect_notebook`` runs for a Python kernel): each name with its default as source
  text, its declared type (an annotation or a ``# type:`` comment) and its help comment;
  :func:`defaults` the default texts as Python values.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

from compsem.errors import CompsemError

__all__ = [
    "NotANotebookError",
    "read",
    "cells",
    "dumps",
    "write",
    "from_dict",
    "new",
    "parameters_cell",
    "parameters",
    "defaults",
    "MISSING",
]


class NotANotebookError(CompsemError, ValueError):
    """A file given as a chapter that is not a Jupyter notebook."""


def read(path: str | Path, *, strict: bool = False) -> NotebookNode:
    """The notebook at ``path`` (nbformat 4). ``strict``: it must also be valid against
    nbformat's schema. A :class:`NotANotebookError` gives the reason only (the caller names the
    file); a missing file is a ``FileNotFoundError``."""
    error: dict[str, Exception] = {}
    try:
        with warnings.catch_warnings():  # a 4.5 cell without an id: nbformat adds one as it reads
            warnings.simplefilter("ignore")
            nb = nbformat.read(str(path), as_version=4, capture_validation_error=error)
    except FileNotFoundError:
        raise
    except UnicodeDecodeError:
        raise NotANotebookError("it is not UTF-8 text") from None
    except Exception as exc:  # noqa: BLE001 - nbformat's many ways of refusing a file: named as not a notebook
        raise NotANotebookError(f"it is not notebook JSON: {_first_line(exc)}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotANotebookError("it holds no list of cells")
    if strict and error:
        raise NotANotebookError(f"it is not a valid nbformat 4 notebook: {_first_line(error['ValidationError'])}")
    return nb


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0] if lines else type(exc).__name__)[:160]


def cells(path: str | Path) -> list[NotebookNode]:
    """A notebook's cells (each cell's ``source`` one string)."""
    return list(read(path).cells)


def from_dict(nb: dict) -> NotebookNode:
    """A notebook built as a plain mapping, as nbformat's node."""
    return nbformat.from_dict(nb)


def new(cells: list[dict], *, number_ids: bool = False) -> dict:
    """A Python 3 notebook (nbformat 4.5) of ``cells``, as a plain mapping; with ``number_ids``
    the cells get the ids ``cell-00``, ``cell-01``, … in order."""
    if number_ids:
        for n, cell in enumerate(cells):
            cell["id"] = f"cell-{n:02d}"
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dumps(nb: dict) -> str:
    """The file text of ``nb`` as nbformat writes it."""
    return nbformat.writes(from_dict(nb) if not isinstance(nb, NotebookNode) else nb) + "\n"


def write(nb: dict, path: str | Path) -> bool:
    """Write ``nb`` to ``path`` unless the file already holds that text; whether it wrote."""
    path, text = Path(path), dumps(nb)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def parameters_cell(nb: dict) -> NotebookNode | None:
    """The first code cell tagged ``parameters`` (papermill's cell), or ``None``."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell
    return None


def parameters(path: str | Path) -> dict[str, dict[str, Any]]:
    """``{name: {"name", "inferred_type_name", "default", "help"}}`` of the notebook's parameters
    cell, from papermill's own inspection (``default`` is source text; ``inferred_type_name`` is
    the annotation or ``# type:`` comment, ``"None"`` when there is none). ``{}`` without a
    parameters cell. The notebook must be valid nbformat 4 and the cell valid Unicode: else a
    :class:`NotANotebookError` naming the file."""
    from papermill.translators import PythonTranslator  # papermill imports nbconvert: only when a cell is read

    name = Path(path).name
    try:
        nb = read(path, strict=True)
    except NotANotebookError as exc:
        raise NotANotebookError(f"{name} is not a Jupyter notebook ({exc.args[0]})") from None
    cell = parameters_cell(nb)
    if cell is None:
        return {}
    try:
        cell.source.encode("utf-8")
    except UnicodeEncodeError:
        raise NotANotebookError(
            f"{name}: its parameters cell holds text that is not valid Unicode (a lone surrogate)"
        ) from None
    return {p.name: p._asdict() for p in PythonTranslator.inspect(cell)}


#: The default of a parameter that is not a literal (an expression): it accepts any value.
MISSING = object()


def defaults(path: str | Path) -> dict[str, Any]:
    """``{name: default}`` of the notebook's parameters cell as Python values (papermill's default
    text read with :func:`ast.literal_eval`; :data:`MISSING` for a default that is not a literal)."""
    out: dict[str, Any] = {}
    for name, p in parameters(path).items():
        try:
            out[name] = ast.literal_eval(p["default"])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            out[name] = MISSING
    return out
