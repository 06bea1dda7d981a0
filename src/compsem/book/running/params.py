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
``None``            anything, unless the line declares its types with a type comment or an
                    annotation (``pool_source = None  # type: str|None``: names among ``str``, ``int``,
                    ``float``, ``bool``, ``list``, ``dict``, ``None``, joined with ``|``)
==================  ===========================================================================

The cell is read by papermill's own inspection (:func:`compsem.notebooks.parameters`: names,
default texts, declared types); nothing here parses it again.

Before any of this, every value is checked on its own (:func:`check_value`): strings must be
encodable as UTF-8 (no lone surrogates such as ``"\ud800"``, which would leave a 0-byte notebook),
numbers finite, nesting at most :data:`MAX_DEPTH` deep, at most :data:`MAX_ITEMS` items and a
command-line value at most :data:`MAX_CHARS` characters. Errors are :class:`ParameterError`, a
:class:`~compsem.errors.CompsemError`; a file that is not a notebook is a :class:`NotANotebookError`.

``parse_parameters`` is the one entry point for every verb that takes ``-p`` (``run``, ``plan``,
``prefetch``); ``check_parameters`` is what :func:`compsem.book.running.runner.run_notebook` applies to
any mapping of parameters, from the command line or from Python.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from compsem import notebooks
from compsem.notebooks import NotANotebookError
from compsem.errors import CompsemError
from compsem.paths import repo_root
from compsem.fmt import noun

__all__ = [
    "find_notebook",
    "parse_value",
    "parameters_of",
    "parameter_defaults",
    "parameter_types",
    "check_value",
    "check_parameters",
    "parse_parameters",
    "ParameterError",
    "NotANotebookError",
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MAX_CHARS",
    "MISSING",
]

MISSING = notebooks.MISSING

#: How deep a parameter value may nest (lists and objects), how many items it may hold in all,
#: and how long a value given on the command line may be.
MAX_DEPTH, MAX_ITEMS, MAX_CHARS = 16, 100_000, 1_000_000


class ParameterError(CompsemError, ValueError):
    """A chapter parameter that is unknown, malformed, or not what the chapter accepts."""


def find_notebook(notebook: str | Path) -> Path:
    """``notebook`` resolved; a ``FileNotFoundError`` listing the chapters when it does not exist,
    a :class:`NotANotebookError` when it is not a notebook (``.ipynb`` JSON with cells)."""
    nb = Path(notebook).resolve()
    if not nb.is_file():
        avail = sorted(p.name for p in (repo_root() / "notebooks").glob("*.ipynb"))
        raise FileNotFoundError(f"no notebook {notebook}; available: {', '.join(avail)}")
    why = None
    if nb.suffix != ".ipynb":
        why = f"its name ends in {nb.suffix or 'no suffix'!r}, not '.ipynb'"
    else:
        try:
            notebooks.read(nb)
        except NotANotebookError as exc:
            why = exc.args[0]
    if why:
        raise NotANotebookError(
            f"{notebook} is not a Jupyter notebook ({why}): name a chapter such as notebooks/00_toolkit.ipynb"
        )
    return nb


def check_value(name: str, value: Any) -> None:
    """Raise :class:`ParameterError` when ``value`` cannot be written into a notebook safely: a
    string with lone surrogates, a non-finite number, a key that is not a string, nesting deeper
    than :data:`MAX_DEPTH` or more than :data:`MAX_ITEMS` items. Iterative: no recursion limit."""
    stack, items = [(value, 0)], 0
    while stack:
        v, depth = stack.pop()
        items += 1
        if items > MAX_ITEMS:
            raise ParameterError(f"parameter {name!r} holds more than {MAX_ITEMS:,} items: pass a file name instead")
        if depth > MAX_DEPTH:
            raise ParameterError(
                f"parameter {name!r} is nested more than {MAX_DEPTH} levels deep: no chapter takes such a value"
            )
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise ParameterError(
                    f"parameter {name!r} holds text that is not valid Unicode (a lone surrogate "
                    f"such as {ascii(v[:20])}): give UTF-8 text"
                ) from None
        elif isinstance(v, float) and not math.isfinite(v):
            raise ParameterError(f"parameter {name!r} holds {v!r}: give a finite number")
        elif isinstance(v, (list, tuple)):
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ParameterError(f"parameter {name!r} has a key {k!r} that is not a string")
                stack.append((k, depth + 1))
                stack.append((x, depth + 1))
        elif v is not None and not isinstance(v, (bool, int, float)):
            raise ParameterError(
                f"parameter {name!r} holds a {type(v).__name__}: give JSON values only (text, "
                "numbers, true/false, null, lists and objects)"
            )


def parse_value(text: str, name: str = "value") -> Any:
    """A command-line parameter value: JSON when it parses (``3``, ``true``, ``["a", "b"]``,
    ``'"text"'``), else the plain string; a :class:`ParameterError` when it is longer than
    :data:`MAX_CHARS` or nested too deep to read."""
    if len(text) > MAX_CHARS:
        raise ParameterError(
            f"parameter {name!r} is {len(text):,} characters long, more than {MAX_CHARS:,}: pass a file name instead"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
    except ValueError:  # Python's limit on the digits of an integer (4,300)
        raise ParameterError(
            f"parameter {name!r} is a number of {len(text.strip()):,} digits: no chapter takes such a value"
        ) from None
    except RecursionError:
        raise ParameterError(
            f"parameter {name!r} is nested more than {MAX_DEPTH} levels deep: no chapter takes such a value"
        ) from None


def parameters_of(notebook: str | Path) -> dict[str, str]:
    """The names and default values (as source text) of a notebook's ``parameters`` cell
    (papermill's inspection, through :func:`compsem.notebooks.parameters`)."""
    return {k: v["default"] for k, v in notebooks.parameters(notebook).items()}


def parameter_defaults(notebook: str | Path) -> dict[str, Any]:
    """The defaults of the ``parameters`` cell as Python values (no kernel;
    :func:`compsem.notebooks.defaults`); a default that is not a literal (an expression,
    :data:`MISSING`) accepts any value."""
    return notebooks.defaults(notebook)


_TYPE_KINDS = {
    "str": ("string",),
    "Path": ("string",),
    "int": ("int",),
    "float": ("int", "float"),
    "bool": ("bool",),
    "None": ("null",),
    "list": ("list",),
    "dict": ("object",),
}


def parameter_types(notebook: str | Path) -> dict[str, tuple[str, ...]]:
    """The kinds of value each parameter accepts where its line declares types, by a comment
    (``pool_source = None  # type: str|None`` gives ``("string", "null")``) or an annotation
    (``n: int = 3``), as papermill reads them; a :class:`ParameterError` for a type name not in
    ``str``, ``Path``, ``int``, ``float``, ``bool``, ``None``, ``list``, ``dict``."""
    out: dict[str, tuple[str, ...]] = {}
    for name, p in notebooks.parameters(notebook).items():
        declared = p["inferred_type_name"]
        if declared == "None":  # papermill's word for "no type given"
            continue
        kinds: list[str] = []
        for part in declared.replace(" ", "").split("|"):
            base = part.split("[", 1)[0]
            if base not in _TYPE_KINDS:
                raise ParameterError(
                    f"{Path(notebook).name}: the type of {name!r} names {part!r}; known: {', '.join(_TYPE_KINDS)}"
                )
            kinds.extend(_TYPE_KINDS[base])
        out[name] = tuple(dict.fromkeys(kinds))
    return out


_KIND_WORDS = {
    "string": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "null": "null",
    "list": "a list",
    "object": "an object",
}


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

_EXPECT = {
    "bool": "a JSON bool (true or false)",
    "int": "an integer or null",
    "float": "a number or null",
    "string": "a string, a list, an object or null",
    "list": "a list or a string",
    "object": "a JSON object",
}


def check_parameters(
    defaults: Mapping[str, Any],
    parameters: Mapping[str, Any],
    *,
    notebook: str = "",
    types: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Raise :class:`ParameterError` (a ``ValueError``, one line) for a malformed value (see
    :func:`check_value`), an unknown name, or a value whose kind does not fit its default (see
    :data:`ACCEPTED`) or the kinds its line declares (``types``, from :func:`parameter_types`)."""
    where = f" of {notebook}" if notebook else ""
    for name, value in parameters.items():
        check_value(name, value)
    unknown = sorted(set(parameters) - set(defaults))
    if unknown:
        raise ParameterError(
            f"{notebook or 'the notebook'} has no {noun(len(unknown), 'parameter')} {unknown}; its parameters are: "
            f"{', '.join(defaults)}"
        )
    for name, value in parameters.items():
        declared = (types or {}).get(name)
        if declared and _kind(value) not in declared:
            raise ParameterError(
                f"parameter {name!r}{where}: got {json.dumps(value, default=str)[:200]} "
                f"({_kind(value)}); this chapter accepts "
                f"{' or '.join(_KIND_WORDS.get(k, k) for k in declared)}"
            )
        default = defaults[name]
        if default is MISSING or default is None:
            continue
        want = _kind(default)
        if _kind(value) not in ACCEPTED.get(want, (want,)):
            hint = " (JSON: write true or false, lower case)" if want == "bool" and isinstance(value, str) else ""
            raise ParameterError(
                f"parameter {name!r}{where}: got {json.dumps(value, default=str)[:200]} "
                f"({_kind(value)}); expected {_EXPECT.get(want, want)} like its default "
                f"{default!r}{hint}"
            )


def parse_parameters(pairs: Iterable[tuple[str, str]] | None, notebook: str | Path) -> dict[str, Any]:
    """``-p NAME VALUE`` pairs as a checked mapping for ``notebook`` (see :func:`check_parameters`)."""
    nb = find_notebook(notebook)
    params = {name: parse_value(value, name) for name, value in (pairs or [])}
    check_parameters(parameter_defaults(nb), params, notebook=nb.name, types=parameter_types(nb))
    return params
