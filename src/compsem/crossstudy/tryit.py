"""Every criterion of every study, for sentences a reader types in (the try-it page, ``91_try_it``).

The page loops over the registry (:data:`compsem.studies.STUDIES`): each study declares its
section as ``report.TRY_IT`` (a :class:`compsem.faces.TryIt`: a title, what the criteria are,
its default inputs under the page's parameter names, how to show and read a result), and its
``report.try_it`` computes the section's table with the same functions the chapters use. A
study with ``TRY_IT = None`` has no section.

The page's ``inputs`` parameter overrides any default by name (``{"sentence_a": "..."}``);
:func:`page_inputs` checks each value against the kind of its default. ``trust_remote_code``
must be the literal ``True`` or ``False`` (:func:`compsem.errors.check_trust_remote_code`) and
is passed through to the study (every ``try_it`` takes it: the contract test checks); the
default loaders never run remote code.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from ..errors import CompsemError, check_trust_remote_code
from ..faces import TryIt
from ..fmt import noun
from ..studies import STUDIES, Study

__all__ = ["sections", "page_inputs", "compute", "heading", "remote_code_kwargs"]


def remote_code_kwargs(fn: Callable, trust_remote_code: bool) -> dict:
    """``{"trust_remote_code": True}`` for ``fn`` when asked for, else ``{}``; a ``ValueError``
    when ``fn`` cannot take it (rather than silently loading without it)."""
    if not check_trust_remote_code(trust_remote_code, where=f"{fn.__module__}.{fn.__name__}"):
        return {}
    if "trust_remote_code" not in inspect.signature(fn).parameters:
        raise ValueError(
            f"{fn.__module__}.{fn.__name__} does not take trust_remote_code: "
            "run this study's own chapter with trust_remote_code = True instead"
        )
    return {"trust_remote_code": True}


def sections() -> list[tuple[Study, TryIt]]:
    """``(study, its TryIt)`` for every study of the registry with a section, in the book's order."""
    out = []
    for s in STUDIES:
        declared = getattr(s.module("report"), "TRY_IT", None)
        if declared is not None:
            out.append((s, declared))
    return out


def _fits(default, value) -> bool:
    if isinstance(default, str):
        return isinstance(value, str)
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    return isinstance(value, type(default))


def page_inputs(inputs: Mapping[str, object] | None = None) -> dict[str, dict[str, object]]:
    """``{study: {input: value}}``: every section's declared defaults, with the reader's
    ``inputs`` (``{name: value}``) put in their place. A name no section declares, or a value of
    another kind than its default (a list where a sentence is expected), is a
    :class:`~compsem.errors.CompsemError` naming the accepted ones."""
    inputs = dict(inputs or {})
    out = {s.name: dict(t.inputs) for s, t in sections()}
    known = {name: study for study, values in out.items() for name in values}
    unknown = sorted(set(inputs) - set(known))
    if unknown:
        raise CompsemError(
            f"the try-it page has no {noun(len(unknown), 'input')} {', '.join(unknown)}; "
            f"its inputs are {', '.join(known)}"
        )
    for name, value in inputs.items():
        default = out[known[name]][name]
        if not _fits(default, value):
            kind = "a list of texts" if isinstance(default, (list, tuple)) else f"a {type(default).__name__}"
            raise CompsemError(
                f"the try-it input {name!r} must be {kind} like its default "
                f"{json.dumps(default, ensure_ascii=False)}, not {value!r}"
            )
        out[known[name]][name] = value
    return out


def compute(
    study: Study, values: Mapping[str, object], models: Sequence[str], *, trust_remote_code: bool = False
) -> pd.DataFrame:
    """The study's ``report.try_it`` on ``values`` (its inputs, in the declared order) and ``models``."""
    trc = check_trust_remote_code(trust_remote_code, where=f"the try-it page ({study.name})")
    return study.module("report").try_it(*values.values(), models, trust_remote_code=trc)


def heading(study: Study, section: TryIt, values: Mapping[str, object]) -> str:
    """The section's opening (Markdown): its Part and title, what it computes and the inputs it
    was given, under their parameter names."""
    given = "; ".join(f"`{k}` = {json.dumps(v, ensure_ascii=False)}" for k, v in values.items())
    return f"**Part {study.roman}: {section.title}.** {section.intro}\n\nInputs: {given}."
