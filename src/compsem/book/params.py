"""Chapter parameters from the command line, checked against the notebook's ``parameters`` cell.

A value given with ``-p NAME VALUE`` is JSON when it parses (``true``, ``3``, ``["bow"]``,
``'"text"'``), else the plain string. Each value must then fit the kind of its default, so that
a typo cannot flip a switch: ``-p trust_remote_code False`` is the *string* ``"False"`` (JSON's
booleans are ``true``/``false``), which Python would read as true; it is refused here.

==================  ===========================================================================
default             accepted values
==================  ===========================================================================
``True``/``False``  a JSON bool only
an int              an int (not a bool), or ``null`` (``None``: "all", "skip")
a float             an int or a float (not a bool), or ``null``
a string            a string, a list (``models = "panel"`` or a list of specs), an object
                    (``data`` may name its splits), or ``null``
a list              a list, or a string (``"paper"``)
a dict              an object
``None``            anything
==================  ===========================================================================

``parse_parameters`` is the one entry point for every verb that takes ``-p`` (``run``, ``plan``,
``prefetch``); ``check_parameters`` is what :func:`compsem.book.runner.run_notebook` applies to
any mapping of parameters, from the command line or from Python.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..paths import repo_root
from ..fmt import noun

__all__ = ["find_notebook", "parse_value", "parameters_of", "parameter_defaults", "check_parameters", "parse_parameters"]

_MISSING = object()


def find_notebook(notebook: str | Path) -> Path:
    """``notebook`` resolved; a ``FileNotFoundError`` listing the chapters when it does not exist."""
    nb = Path(notebook).resolve()
    if not nb.is_file():
        avail = sorted(p.name for p in (repo_root() / "notebooks").glob("*.ipynb"))
        raise FileNotFoundError(f"no notebook {notebook}; available: {', '.join(avail)}")
    return nb


def parse_value(text: str) -> Any:
    """A command-line parameter value: JSON when it parses (``3``, ``true``, ``["a", "b"]``,
    ``'"text"'``), else the plain string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parameters_of(notebook: str | Path) -> dict[str, Any]:
    """The names and default values (as source text) of a notebook's ``parameters`` cell
    (papermill's inspection)."""
    import papermill as pm

    params = pm.inspect_notebook(str(notebook))
    return {k: v.get("default") for k, v in params.items()}


def parameter_defaults(notebook: str | Path) -> dict[str, Any]:
    """The defaults of the ``parameters`` cell as Python values, read with :mod:`ast` (no kernel);
    a default that is not a literal (an expression) accepts any value."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    cell = next((c for c in nb.get("cells", []) if c.get("cell_type") == "code"
                 and "parameters" in c.get("metadata", {}).get("tags", [])), None)
    if cell is None:
        return {}
    source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
    out: dict[str, Any] = {}
    try:
        body = ast.parse(source).body
    except SyntaxError:   # e.g. an IPython magic: papermill's own reading of the cell
        for name, text in parameters_of(notebook).items():
            try:
                out[name] = ast.literal_eval(text) if isinstance(text, str) else text
            except (ValueError, SyntaxError, TypeError):
                out[name] = _MISSING
        return out
    for node in body:
        targets = (node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign)
                   and node.value is not None else [])
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    out[target.id] = ast.literal_eval(node.value)
                except (ValueError, SyntaxError, TypeError):
                    out[target.id] = _MISSING
    return out


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


#: Kinds of value accepted for each kind of default (see the module docstring).
ACCEPTED: dict[str, tuple[str, ...]] = {
    "bool": ("bool",),
    "int": ("int", "null"),
    "float": ("int", "float", "null"),
    "string": ("string", "list", "object", "null"),
    "list": ("list", "string"),
    "object": ("object",),
}

_EXPECT = {"bool": "a JSON bool (true or false)", "int": "an integer or null", "float": "a number or null",
           "string": "a string, a list, an object or null", "list": "a list or a string", "object": "a JSON object"}


def check_parameters(defaults: Mapping[str, Any], parameters: Mapping[str, Any], *, notebook: str = "") -> None:
    """Raise ``ValueError`` (one line) for an unknown name or a value whose kind does not fit its
    default (see :data:`ACCEPTED`)."""
    where = f" of {notebook}" if notebook else ""
    unknown = sorted(set(parameters) - set(defaults))
    if unknown:
        raise ValueError(f"{notebook or 'the notebook'} has no {noun(len(unknown), 'parameter')} {unknown}; its parameters are: "
                         f"{', '.join(defaults)}")
    for name, value in parameters.items():
        default = defaults[name]
        if default is _MISSING or default is None:
            continue
        want = _kind(default)
        if _kind(value) not in ACCEPTED.get(want, (want,)):
            hint = " (JSON: write true or false, lower case)" if want == "bool" and isinstance(value, str) else ""
            raise ValueError(f"parameter {name!r}{where}: got {json.dumps(value, default=str)} "
                             f"({_kind(value)}); expected {_EXPECT.get(want, want)} like its default "
                             f"{default!r}{hint}")


def parse_parameters(pairs: Iterable[tuple[str, str]] | None, notebook: str | Path) -> dict[str, Any]:
    """``-p NAME VALUE`` pairs as a checked mapping for ``notebook`` (see :func:`check_parameters`)."""
    nb = find_notebook(notebook)
    params = {name: parse_value(value) for name, value in (pairs or [])}
    check_parameters(parameter_defaults(nb), params, notebook=nb.name)
    return params
