"""The study contract (CONTRIBUTING.md, "The contract of a study"), checked for every study of
the registry: the five face modules, the signatures of their public functions, a package that
exports its modules, one paper-table reader, and chapters that import only the study's faces
and the foundation and glue only through ``compsem.results.glue_all``.

Each test collects every problem of a study and fails with one message that lists them, so a
contributor adding a fifth study reads what is still missing.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import pkgutil
import sys
import types
import typing

import pandas as pd
import pytest

import compsem
from compsem import reference
from compsem.studies import FACES, NAMES, STUDIES, Study
from tests.helpers import ROOT

#: compsem's own layers a chapter may not import (the book's tooling, the cross-study pages).
NOT_FOUNDATION = {"book", "crossstudy", *NAMES}
FOUNDATION = {m.name for m in pkgutil.iter_modules(compsem.__path__)} - NOT_FOUNDATION

ids = [s.name for s in STUDIES]


def _fail(study: Study, problems: list[str]) -> None:
    if problems:
        pytest.fail(f"compsem.{study.name} does not follow the study contract (CONTRIBUTING.md):\n  - "
                    + "\n  - ".join(problems), pytrace=False)


def _face(study: Study, face: str, problems: list[str]):
    try:
        return study.module(face)
    except ModuleNotFoundError as exc:
        if exc.name != f"{study.package}.{face}":
            raise
        problems.append(f"no module {study.package}.{face}: every study has the faces {', '.join(FACES)}")
        return None


def _function(module, name: str, problems: list[str]):
    fn = getattr(module, name, None) if module is not None else None
    if module is not None and not callable(fn):
        problems.append(f"{module.__name__} has no function {name}()")
        return None
    return fn


def _checked(module, name: str, problems: list[str], *, first: str | None = None, remote_code: bool = False):
    """The function ``name`` of ``module`` (or None), its first argument and its
    ``trust_remote_code`` checked as asked."""
    fn = _function(module, name, problems)
    if fn is not None:
        if first:
            _first(fn, first, problems)
        if remote_code:
            _keyword_false(fn, "trust_remote_code", problems)
    return fn


def _keyword_false(fn, name: str, problems: list[str]) -> None:
    p = inspect.signature(fn).parameters.get(name)
    where = f"{fn.__module__}.{fn.__name__}"
    if p is None:
        problems.append(f"{where} does not take {name}: add `*, {name}: bool = False`")
    elif p.kind is not inspect.Parameter.KEYWORD_ONLY or p.default is not False:
        problems.append(f"{where}: {name} must be keyword-only with the default False")


def _first(fn, name: str, problems: list[str]) -> None:
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not params or params[0].name != name:
        problems.append(f"{fn.__module__}.{fn.__name__}: the first argument must be {name!r} "
                        f"(it is {params[0].name if params else 'missing'!r})")
        return False
    return True


def _returns(fn, problems: list[str]) -> tuple:
    """The classes ``fn`` is annotated to return (the members of a union)."""
    where = f"{fn.__module__}.{fn.__name__}"
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception as exc:   # an annotation naming something the module does not hold
        problems.append(f"{where}: its return annotation cannot be resolved ({exc})")
        return ()
    if hint is None:
        problems.append(f"{where} has no return annotation")
        return ()
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


# ------------------------------------------------------------------------------------ the package


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_the_package_holds_the_faces_and_exports_modules_only(study):
    problems: list[str] = []
    for face in FACES:
        _face(study, face, problems)
    pkg = study.module()
    exported = list(getattr(pkg, "__all__", []))
    missing = [f for f in FACES if f not in exported]
    if missing:
        problems.append(f"{study.package}.__all__ lacks the faces {missing}")
    not_modules = [n for n in exported if not inspect.ismodule(getattr(pkg, n, None))]
    if not_modules:
        problems.append(f"{study.package}.__all__ exports names that are not its modules: {not_modules} "
                        "(import them from the face that defines them)")
    _fail(study, problems)


# ------------------------------------------------------------------------------------ study face


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_the_study_face_resolves_plans_and_runs(study):
    problems: list[str] = []
    mod = _face(study, "study", problems)
    if (fn := _checked(mod, "resolve_models", problems, first="models", remote_code=True)) is not None:
        if [c for c in _returns(fn, problems) if typing.get_origin(c) is not list and c is not list]:
            problems.append(f"{mod.__name__}.resolve_models must be annotated -> list[str]")
    if (fn := _checked(mod, "planned_texts", problems, first="params")) is not None:
        ret = _returns(fn, problems)
        if ret and not all(c is dict or typing.get_origin(c) is dict for c in ret):
            problems.append(f"{mod.__name__}.planned_texts must return dict[str, list[str]] ({{spec: texts}})")
    if (fn := _function(mod, "run", problems)) is not None:
        for cls in _returns(fn, problems):
            if not (inspect.isclass(cls) and dataclasses.is_dataclass(cls)):
                problems.append(f"{mod.__name__}.run must return a dataclass (a <Study>Run), not {cls!r}")
            elif not callable(getattr(cls, "provenance", None)):
                problems.append(f"{cls.__qualname__} (returned by {mod.__name__}.run) has no provenance() "
                                "(models, identities, data checksums, parameters)")
    _fail(study, problems)


# ------------------------------------------------------------------------------------ report face


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_the_report_face_has_values_paper_table_headlines_and_try_it(study):
    problems: list[str] = []
    mod = _face(study, "report", problems)
    _function(mod, "values", problems)
    _checked(mod, "paper_table", problems, first="name")
    if mod is not None and not getattr(mod, "HEADLINES", None):
        problems.append(f"{mod.__name__} has no HEADLINES (the synthesis' criteria of the study)")
    _checked(mod, "headlines", problems, first="models", remote_code=True)
    if (fn := _checked(mod, "try_it", problems, remote_code=True)) is not None:
        if [c for c in _returns(fn, problems) if c is not pd.DataFrame]:
            problems.append(f"{mod.__name__}.try_it must return a tidy pandas.DataFrame (annotate -> pd.DataFrame)")
    _fail(study, problems)


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_paper_tables_are_read_through_compsem_reference(study, monkeypatch):
    """``report.paper_table(name)`` reads ``data/reference/<study>_<name>.csv`` by calling
    :func:`compsem.reference.paper_table` (a spy counts the calls), for every table of the study."""
    report = study.module("report")
    problems: list[str] = []
    fn = _function(report, "paper_table", problems)
    if fn is None or not _first(fn, "name", problems):
        _fail(study, problems + [f"{report.__name__}.paper_table(name) reads {study.name}_<name>.csv through "
                                 f"compsem.reference.paper_table({study.name!r}, name)"])
    calls: list[tuple] = []
    real = reference.paper_table

    def spy(s, name, **kw):
        calls.append((s, name))
        return real(s, name, **kw)

    monkeypatch.setattr(reference, "paper_table", spy)
    for name, module in list(sys.modules.items()):   # the same function imported by name in the study
        if name == study.package or name.startswith(study.package + "."):
            for attr, value in list(vars(module).items()):
                if value is real:
                    monkeypatch.setattr(module, attr, spy)
    for name in reference.paper_tables(study.name):
        calls.clear()
        got = report.paper_table(name)
        expected = real(study.name, name)
        if (study.name, name) not in calls:
            problems.append(f"{report.__name__}.paper_table({name!r}) does not call compsem.reference.paper_table")
        elif not isinstance(got, pd.DataFrame) or list(got.columns) != list(expected.columns) or len(got) != len(expected):
            problems.append(f"{report.__name__}.paper_table({name!r}) is not the table {study.name}_{name}.csv")
    _fail(study, problems)


# ------------------------------------------------------------------------------------ chapters


def _code_cells(path):
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "compsem-setup" not in cell.get("metadata", {}).get("tags", []):
            yield "".join(cell["source"])


def chapter_problems(study: Study, path) -> list[str]:
    """What a chapter imports or glues against the contract (used on every chapter of the study)."""
    problems = []
    for src in _code_cells(path):
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "glue":
                problems.append(f"{path.name} calls glue(...) by hand: glue through "
                                "compsem.results.glue_all(report.values(...))")
                continue
            else:
                continue
            for t in targets:
                if t.startswith("myst_nb"):
                    problems.append(f"{path.name} imports {t}: glue through compsem.results.glue_all")
                parts = t.split(".")
                if parts[0] != "compsem" or len(parts) == 1:
                    continue
                if parts[1] in FOUNDATION:
                    continue
                if parts[1] == study.name and len(parts) >= 3 and parts[2] in FACES:
                    continue
                if t == "compsem.resolve_models":
                    problems.append(f"{path.name} imports compsem.resolve_models: a chapter resolves its models "
                                    f"with {study.package}.study.resolve_models")
                    continue
                problems.append(f"{path.name} imports {t}: a chapter imports only its study's faces "
                                f"({', '.join(f'{study.package}.{f}' for f in FACES)}) and the foundation")
    return problems


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_chapters_import_only_the_study_faces_and_glue_through_glue_all(study):
    chapters = study.chapters(ROOT / "notebooks")
    assert chapters, f"no chapters notebooks/{study.chapter_prefix}x_*.ipynb for {study.name}"
    _fail(study, [p for path in chapters for p in chapter_problems(study, path)])


def test_the_chapter_check_catches_what_it_should(tmp_path):
    """The import rule on a hand-written chapter: two allowed imports, four refused ones."""
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": [
        "from compsem.ssm import report, study\n", "from compsem import figures\n",
        "from compsem.ssm import plots\n", "from compsem.setcomp import study as other\n",
        "from myst_nb import glue\n", "glue('x', 1)\n"]}]}
    path = tmp_path / "49_fake.ipynb"
    path.write_text(json.dumps(nb))
    problems = chapter_problems(STUDIES[NAMES.index("ssm")], path)
    assert len(problems) == 4, problems
    assert any("compsem.ssm.plots" in p for p in problems) and any("compsem.setcomp.study" in p for p in problems)


def test_the_registry_matches_the_packages_and_data():
    """Every registered study has a package, a data folder and chapters; every study-like package
    under compsem is registered."""
    packages = {m.name for m in pkgutil.iter_modules(compsem.__path__) if m.ispkg} - {"book", "crossstudy", "encoders"}
    assert packages == set(NAMES), f"register every study package in compsem/studies.py: {packages ^ set(NAMES)}"
    for s in STUDIES:
        assert (ROOT / "data" / s.data_folder).is_dir(), f"no data/{s.data_folder}/ for {s.name}"
        assert importlib.util.find_spec(s.package) is not None
