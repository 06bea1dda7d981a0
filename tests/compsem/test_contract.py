"""The study contract (CONTRIBUTING.md, "The contract of a study"), checked for every study of
the registry: the five face modules, the signatures of their public functions, a package that
exports its modules, one paper-table reader, the declarations the cross-study pages read
(``report.TRY_IT``, ``study.PAPER_RUN``), chapters that import only the study's faces and the
foundation and glue only through ``compsem.results.glue_all``, and what the repository holds
for the study: its citation, its transcribed tables (or their declared absence), its data's
datasheet, chapter names, the Part's pages and their ``_toc.yml`` entries, its tests folder.

Each test collects every problem of a study and fails with one message that lists them (never
a traceback), so a contributor adding a fifth study reads what is still missing: every face
that still raises ``NotWrittenYet`` (a stub of ``new-study``, found in the source), and every face
with a generic tiny input (``resolve_models`` and ``planned_texts`` with ``bow``, ``try_it`` on
``TRY_IT``'s own inputs, ``FINDING.sentences`` on a made-up profile; for a study whose ``run``
returns the foundation's ``RunRecord``, as ``new-study`` writes it, also ``run``,
``tables.main_table``, ``report.values`` and ``report.headlines`` with ``bow``) called on it.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import pkgutil
import re
import sys
import types
import typing
from pathlib import Path

import pandas as pd
import pytest
import yaml

import compsem
from compsem import reference
from compsem.book.authoring.scaffold import new_study
from compsem.faces import Finding, NotWrittenYet, PaperRun, TryIt
from compsem.record import RunRecord
from compsem.errors import CompsemError
from compsem.studies import FACES, NAMES, STUDIES, Study
from compsem.verdicts import Claims
from tests.helpers import ROOT

#: compsem's own layers a chapter may not import (the book's tooling, the cross-study pages).
NOT_FOUNDATION = {"book", "crossstudy", *NAMES}
FOUNDATION = {m.name for m in pkgutil.iter_modules(compsem.__path__)} - NOT_FOUNDATION

ids = [s.name for s in STUDIES]


def _fail(study: Study, problems: list[str]) -> None:
    if problems:
        pytest.fail(
            f"compsem.{study.name} does not follow the study contract (CONTRIBUTING.md):\n  - "
            + "\n  - ".join(problems),
            pytrace=False,
        )


def _face(study: Study, face: str | None, problems: list[str]):
    """The study's package or one of its faces, or None with the reason in ``problems`` (never a
    traceback: a contributor reads the list of what is missing)."""
    name = study.package if face is None else f"{study.package}.{face}"
    try:
        return study.module(face)
    except ModuleNotFoundError as exc:
        if exc.name == study.package:
            problems.append(
                f"no package {study.package}: create src/compsem/{study.name}/ "
                f"(python -m compsem new-study {study.name} ... writes it)"
            )
        elif exc.name == name:
            problems.append(f"no module {name}: every study has the faces {', '.join(FACES)}")
        else:
            problems.append(f"{name} cannot be imported: {exc}")
    except Exception as exc:  # an error while importing the face: said, not raised
        problems.append(f"{name} cannot be imported: {type(exc).__name__}: {exc}")
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
    params = [
        p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if not params or params[0].name != name:
        problems.append(
            f"{fn.__module__}.{fn.__name__}: the first argument must be {name!r} "
            f"(it is {params[0].name if params else 'missing'!r})"
        )
        return False
    return True


def _returns(fn, problems: list[str]) -> tuple:
    """The classes ``fn`` is annotated to return (the members of a union)."""
    where = f"{fn.__module__}.{fn.__name__}"
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception as exc:  # an annotation naming something the module does not hold
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
    pkg = _face(study, None, problems)
    if pkg is None:
        _fail(study, problems)
    for face in FACES:
        _face(study, face, problems)
    exported = list(getattr(pkg, "__all__", []))
    missing = [f for f in FACES if f not in exported]
    if missing:
        problems.append(f"{study.package}.__all__ lacks the faces {missing}")
    not_modules = [n for n in exported if not inspect.ismodule(getattr(pkg, n, None))]
    if not_modules:
        problems.append(
            f"{study.package}.__all__ exports names that are not its modules: {not_modules} "
            "(import them from the face that defines them)"
        )
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
                problems.append(
                    f"{cls.__qualname__} (returned by {mod.__name__}.run) has no provenance() "
                    "(models, identities, data checksums, parameters)"
                )
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
    if mod is not None and not isinstance(getattr(mod, "FINDING", None), Finding):
        problems.append(
            f"{mod.__name__} declares no FINDING: its paragraph of the synthesis (compsem.faces.Finding: "
            "topic, question, method, sentences)"
        )
    _checked(mod, "headlines", problems, first="models", remote_code=True)
    if (fn := _checked(mod, "try_it", problems, remote_code=True)) is not None:
        if [c for c in _returns(fn, problems) if c is not pd.DataFrame]:
            problems.append(f"{mod.__name__}.try_it must return a tidy pandas.DataFrame (annotate -> pd.DataFrame)")
    if mod is not None:
        if not hasattr(mod, "TRY_IT"):
            problems.append(
                f"{mod.__name__} declares no TRY_IT: its section of the try-it page "
                "(compsem.faces.TryIt), or TRY_IT = None for none"
            )
        elif mod.TRY_IT is not None:
            if not isinstance(mod.TRY_IT, TryIt):
                problems.append(f"{mod.__name__}.TRY_IT must be a compsem.faces.TryIt or None")
            elif fn is not None:
                taken = [
                    p
                    for p in inspect.signature(fn).parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
                if [p.name for p in taken][len(mod.TRY_IT.inputs) :][:1] != ["models"]:
                    problems.append(
                        f"{mod.__name__}.try_it must take the {len(mod.TRY_IT.inputs)} inputs of TRY_IT "
                        f"({', '.join(mod.TRY_IT.inputs)}), then models"
                    )
                clash = [
                    (n, o.name)
                    for o in STUDIES
                    if o is not study
                    for n in getattr(getattr(_face(o, "report", []), "TRY_IT", None), "inputs", {})
                    if n in mod.TRY_IT.inputs
                ]
                if clash:
                    problems.append(
                        f"TRY_IT inputs {sorted({n for n, _ in clash})} are also another study's: "
                        "the try-it page reads them by name, so name them apart"
                    )
    _fail(study, problems)


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_the_study_declares_its_paper_scale_run(study):
    problems: list[str] = []
    mod = _face(study, "study", problems)
    if mod is not None:
        if not hasattr(mod, "PAPER_RUN"):
            problems.append(
                f"{mod.__name__} declares no PAPER_RUN: the chapter and parameters of its paper-scale "
                "work for chapter 98 (compsem.faces.PaperRun), or PAPER_RUN = None for none"
            )
        elif mod.PAPER_RUN is not None and "paper" in study.absent:
            problems.append(
                f"{mod.__name__}.PAPER_RUN must be None: the registry declares that {study.name} has no paper"
            )
        elif mod.PAPER_RUN is not None:
            run = mod.PAPER_RUN
            if not isinstance(run, PaperRun):
                problems.append(f"{mod.__name__}.PAPER_RUN must be a compsem.faces.PaperRun or None")
            elif run.notebook not in {p.name for p in study.chapters(ROOT / "notebooks")}:
                problems.append(f"{mod.__name__}.PAPER_RUN names {run.notebook}, which is not one of its chapters")
    _fail(study, problems)


# ------------------------------------------------------------------------------------ the repository


def repository_problems(study: Study, root) -> list[str]:
    """What the repository at ``root`` lacks for ``study``: its citation, transcribed tables (or
    their declared absence), data with a datasheet, chapters named ``<part><k>_<name>_*.ipynb``,
    the Part's pages (opening, worked example, exercises, or their declared absence), its
    entries in ``_toc.yml`` and its tests folder."""
    problems = []
    bib = (root / "references.bib").read_text(encoding="utf-8") if (root / "references.bib").is_file() else ""
    if f"{{{study.citation}," not in bib:
        problems.append(f"references.bib has no entry {study.citation!r} (the registry's citation key)")
    tables = sorted((root / "data" / "reference").glob(f"{study.reference_prefix}*.csv"))
    if "paper_tables" in study.absent and tables:
        problems.append(
            f"the registry says {study.name} has no paper tables, but data/reference holds "
            f"{', '.join(t.name for t in tables)}"
        )
    elif "paper_tables" not in study.absent and not tables:
        problems.append(
            f"no transcribed paper tables data/reference/{study.reference_prefix}*.csv: add them, or "
            'declare absent=("paper_tables",) in the registry'
        )
    models = root / "data" / "reference" / "paper_models" / f"{study.name}.csv"
    if "paper_models" in study.absent and models.is_file():
        problems.append(
            f"the registry says {study.name} has no paper models, but data/reference/paper_models/"
            f"{study.name}.csv exists"
        )
    elif "paper_models" not in study.absent and not models.is_file():
        problems.append(
            f"no data/reference/paper_models/{study.name}.csv (the paper's models): add it, or declare "
            'absent=("paper_models",) in the registry'
        )
    if not (root / "data" / study.data_folder / "DATASHEET.md").is_file():
        problems.append(f"no data/{study.data_folder}/DATASHEET.md")
    chapters = sorted((root / "notebooks").glob(f"{study.chapter_prefix}[0-9]_*.ipynb"))
    if not chapters:
        problems.append(f"no chapters notebooks/{study.chapter_prefix}x_{study.name}_*.ipynb")
    for c in chapters:
        if not re.fullmatch(rf"{study.chapter_prefix}\d_{study.name}_[a-z0-9_]+\.ipynb", c.name):
            problems.append(f"notebooks/{c.name} is not named {study.chapter_prefix}<k>_{study.name}_<topic>.ipynb")
    toc_text = (root / "_toc.yml").read_text(encoding="utf-8") if (root / "_toc.yml").is_file() else ""
    toc = yaml.safe_load(toc_text) or {}
    entries = {
        e.get("file"): [x.get("file") for x in e.get("sections", [])]
        for part in toc.get("parts", [])
        for e in part.get("chapters", [])
    }
    opening = study.page()
    pages = [opening] + [study.page(k) for k in ("worked", "exercises") if k not in study.absent]
    for page in pages:
        if not (root / f"{page}.md").is_file():
            what = "the Part's opening page" if page == opening else "a page the registry does not declare absent"
            problems.append(f"no {page}.md ({what})")
    if opening not in entries:
        problems.append(f"_toc.yml does not list {opening} as the chapter of a part")
    else:
        listed = entries[opening]
        for page in [*pages[1:], *(f"notebooks/{c.stem}" for c in chapters)]:
            if page not in listed:
                problems.append(f"_toc.yml does not list {page} under {opening}")
    folder = root / "tests" / "compsem" / study.name
    if not (folder / "__init__.py").is_file() or not list(folder.glob("test_*.py")):
        problems.append(f"no tests folder tests/compsem/{study.name}/ (with __init__.py and test_<module>.py files)")
    return problems


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_the_repository_holds_what_the_study_needs(study):
    _fail(study, repository_problems(study, ROOT))


def test_the_repository_check_lists_everything_missing(tmp_path):
    """On an empty folder every requirement is named, once, and nothing raises."""
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/intro\n")
    s = Study("nova", 5, "V", "A study that is not there", "nova2030", absent=("worked",))
    problems = repository_problems(s, tmp_path)
    expected = [
        "references.bib has no entry 'nova2030'",
        "no transcribed paper tables",
        "no data/reference/paper_models/nova.csv",
        "no data/nova/DATASHEET.md",
        "no chapters notebooks/5x_nova_",
        "no book/part5_nova.md",
        "no book/part5_nova_exercises.md",
        "_toc.yml does not list book/part5_nova",
        "no tests folder tests/compsem/nova/",
    ]
    assert len(problems) == len(expected) and all(p.startswith(e) for p, e in zip(problems, expected)), problems
    assert not any("worked" in p for p in problems)  # declared absent


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_paper_tables_are_read_through_compsem_reference(study, monkeypatch):
    """``report.paper_table(name)`` reads ``data/reference/<study>_<name>.csv`` by calling
    :func:`compsem.reference.paper_table` (a spy counts the calls), for every table of the study."""
    problems: list[str] = []
    report = _face(study, "report", problems)
    if report is None:
        _fail(study, problems)
    fn = _function(report, "paper_table", problems)
    if fn is None or not _first(fn, "name", problems):
        _fail(
            study,
            problems
            + [
                f"{report.__name__}.paper_table(name) reads {study.name}_<name>.csv through "
                f"compsem.reference.paper_table({study.name!r}, name)"
            ],
        )
    calls: list[tuple] = []
    real = reference.paper_table

    def spy(s, name, **kw):
        calls.append((s, name))
        return real(s, name, **kw)

    monkeypatch.setattr(reference, "paper_table", spy)
    for name, module in list(sys.modules.items()):  # the same function imported by name in the study
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
        elif (
            not isinstance(got, pd.DataFrame)
            or list(got.columns) != list(expected.columns)
            or len(got) != len(expected)
        ):
            problems.append(f"{report.__name__}.paper_table({name!r}) is not the table {study.name}_{name}.csv")
    _fail(study, problems)


# ------------------------------------------------------------------------------------ every face written


def stubs(study: Study) -> list[str]:
    """``compsem.<study>.<module>.<function>`` of every function (or method) in the study's
    package whose body raises ``NotWrittenYet``: a stub ``new-study`` wrote that is not written
    yet (found in the source, so a face no test calls is found too)."""
    found = []
    pkg = study.module()
    for path in sorted(Path(pkg.__path__[0]).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                raised = [
                    r
                    for r in ast.walk(node)
                    if isinstance(r, ast.Raise)
                    and isinstance(r.exc, ast.Call)
                    and getattr(r.exc.func, "id", getattr(r.exc.func, "attr", None)) == "NotWrittenYet"
                ]
                if raised:
                    found.append(f"{study.package}.{path.stem}.{node.name}")
    return found


def _tiny_rows(report) -> pd.DataFrame:
    """A made-up profile of two models on every headline of ``report`` (what FINDING.sentences reads)."""
    return pd.DataFrame(
        [
            {
                "model": m,
                "criterion": h.key,
                "value": v,
                "low": v - 1,
                "high": v + 1,
                "reference": h.reference,
                "ties": 0.0,
                "higher": h.higher,
                "degenerate": "",
            }
            for h in report.HEADLINES
            for m, v in (("one", 1.0), ("two", 5.0))
        ]
    )


def _calls(study: Study, problems: list[str]) -> list[tuple[str, object, object]]:
    """(face, call, check of its result) of every face with a generic tiny input."""
    st, rep = _face(study, "study", problems), _face(study, "report", problems)
    calls = []
    if st is not None:
        calls += [
            (
                "study.resolve_models",
                lambda: st.resolve_models(["bow"]),
                lambda r: isinstance(r, list) and r == ["bow"],
            ),
            (
                "study.planned_texts",
                lambda: st.planned_texts({"models": ["bow"]}),
                lambda r: isinstance(r, dict) and all(isinstance(t, str) for v in r.values() for t in v),
            ),
        ]
    if rep is not None and isinstance(getattr(rep, "TRY_IT", None), TryIt):
        calls.append(
            (
                "report.try_it",
                lambda: rep.try_it(*rep.TRY_IT.inputs.values(), ["bow"]),
                lambda r: isinstance(r, pd.DataFrame) and len(r) > 0,
            )
        )
    run = getattr(st, "run", None)
    try:
        on_record = callable(run) and typing.get_type_hints(run).get("return") is RunRecord
    except Exception:  # an annotation that does not resolve: test_the_study_face_... says so
        on_record = False
    if rep is not None and on_record:
        # a study on the foundation's run record (what new-study writes): its whole chain on bow
        tables = _face(study, "tables", problems)
        calls += [
            ("study.run", lambda: run(["bow"]), lambda r: isinstance(r, RunRecord) and r.models == ["bow"]),
            (
                "tables.main_table",
                lambda: tables.main_table(run(["bow"]), n_boot=20),
                lambda r: isinstance(r, pd.DataFrame) and list(r.model) == ["bow"],
            ),
            (
                "report.values",
                lambda: rep.values("main", run(["bow"]), tables.main_table(run(["bow"]), n_boot=20), n_boot=20),
                lambda r: isinstance(r, dict) and r,
            ),
            (
                "report.headlines",
                lambda: rep.headlines(["bow"], n_boot=20),
                lambda r: (
                    isinstance(r, list)  # one row per headline, and any rows of the study's own controls
                    and len([x for x in r if not x.get("control_of")]) == len(rep.HEADLINES)
                ),
            ),
        ]
    if rep is not None and isinstance(getattr(rep, "FINDING", None), Finding) and getattr(rep, "HEADLINES", None):
        calls.append(
            (
                "report.FINDING.sentences",
                lambda: rep.FINDING.sentences(_tiny_rows(rep), ["one", "two"], []),
                lambda r: isinstance(r, str) and r.strip() != "",
            )
        )
    return calls


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_every_face_is_written_and_answers_a_tiny_input(study):
    """The bare skeleton of ``new-study`` fails here, with one list of every face still to write."""
    problems: list[str] = []
    missing = stubs(study)
    for where, call, good in _calls(study, problems):
        name = f"{study.package}.{where}"
        try:
            result = call()
        except NotWrittenYet as exc:  # the stub that raised (a face may call another one)
            raised = str(exc).split(" is not written yet")[0] if " is not written yet" in str(exc) else name
            if raised not in missing:
                missing.append(raised)
            continue
        except Exception as exc:  # a face that fails on a tiny input: said, not raised
            problems.append(f"{name} fails on a tiny input: {type(exc).__name__}: {exc}")
            continue
        if not good(result):
            problems.append(f"{name} on a tiny input returned {type(result).__name__}, not what the contract says")
    problems = [
        f"{m} is not written yet (it raises NotWrittenYet; its docstring has an example)" for m in missing
    ] + problems
    _fail(study, problems)


def test_the_face_check_finds_every_stub_of_a_new_skeleton(tmp_path, monkeypatch):
    """On a skeleton ``new-study`` writes, every stub is listed, once, by name (worked out from
    the scaffold's templates: data.load, metrics.score, study.planned_texts, study.run,
    report.try_it)."""
    for rel in ("src/compsem/studies.py", "_toc.yml", "references.bib", "studies.mk"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes((ROOT / rel).read_bytes())
    part = max(s.part for s in STUDIES) + 1
    new_study(tmp_path, "tinyskel", part=part, title="A skeleton", citation="skel2030")
    fake = types.ModuleType("compsem.tinyskel")
    fake.__path__ = [str(tmp_path / "src" / "compsem" / "tinyskel")]
    monkeypatch.setitem(sys.modules, "compsem.tinyskel", fake)
    s = Study("tinyskel", part, "X", "A skeleton", "skel2030")
    assert stubs(s) == [
        "compsem.tinyskel.data.load",
        "compsem.tinyskel.metrics.score",
        "compsem.tinyskel.report.try_it",
        "compsem.tinyskel.study.planned_texts",
        "compsem.tinyskel.study.run",
    ]


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
                problems.append(
                    f"{path.name} calls glue(...) by hand: glue through compsem.results.glue_all(report.values(...))"
                )
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
                    problems.append(
                        f"{path.name} imports compsem.resolve_models: a chapter resolves its models "
                        f"with {study.package}.study.resolve_models"
                    )
                    continue
                problems.append(
                    f"{path.name} imports {t}: a chapter imports only its study's faces "
                    f"({', '.join(f'{study.package}.{f}' for f in FACES)}) and the foundation"
                )
    return problems


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_chapters_import_only_the_study_faces_and_glue_through_glue_all(study):
    chapters = study.chapters(ROOT / "notebooks")
    assert chapters, f"no chapters notebooks/{study.chapter_prefix}x_*.ipynb for {study.name}"
    _fail(study, [p for path in chapters for p in chapter_problems(study, path)])


def test_the_chapter_check_catches_what_it_should(tmp_path):
    """The import rule on a hand-written chapter: two allowed imports, four refused ones."""
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": [
                    "from compsem.ssm import report, study\n",
                    "from compsem import figures\n",
                    "from compsem.ssm import plots\n",
                    "from compsem.setcomp import study as other\n",
                    "from myst_nb import glue\n",
                    "glue('x', 1)\n",
                ],
            }
        ]
    }
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


# ------------------------------------------------------------------------------------ the paper's claims


def claims_problems(study: Study, root: Path) -> list[str]:
    """What a study with transcribed paper tables lacks of its claims: ``report.CLAIMS`` (a
    :class:`compsem.verdicts.Claims` of the study) reading a valid ``data/reference/<study>_claims.csv``,
    the Part's last chapter gluing ``CLAIMS.values()``, the Part page opening with the glued
    verdict table and the introduction showing the study's summary line."""
    problems: list[str] = []
    rep = _face(study, "report", problems)
    claims = getattr(rep, "CLAIMS", None) if rep is not None else None
    if not isinstance(claims, Claims) or claims.study != study.name:
        problems.append(
            f"{study.package}.report.CLAIMS is not compsem.verdicts.Claims({study.name!r}): declare the "
            f"paper's claims (data/reference/{study.name}_claims.csv)"
        )
    else:
        try:
            claims.table()
        except CompsemError as exc:
            problems.append(f"data/reference/{study.name}_claims.csv: {exc}")
    chapters = study.chapters(root / "notebooks")
    if not chapters:
        return problems + [f"no chapter of Part {study.roman} glues its verdicts"]
    last = chapters[-1]
    sources = ["".join(c.get("source", [])) for c in json.loads(last.read_text(encoding="utf-8"))["cells"]]
    if not any("CLAIMS.values()" in s and "glue_all" in s for s in sources):
        problems.append(f"the Part's last chapter {last.name} does not glue report.CLAIMS.values() (glue_all)")
    page = root / f"{study.page()}.md"
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    directive = f"```{{glue}} verdicts_table\n:doc: ../notebooks/{last.name}\n```"
    rubrics = [m.start() for m in re.finditer(r"```\{rubric\}", text)]
    if directive not in text or not rubrics or text.index(directive) > (rubrics[1] if len(rubrics) > 1 else len(text)):
        problems.append(
            f"{study.page()}.md does not open with the verdict table ({directive!r} under its first rubric)"
        )
    intro = (root / "book" / "intro.md").read_text(encoding="utf-8")
    if f"../notebooks/{last.name}::verdicts_summary" not in intro:
        problems.append(
            f"book/intro.md does not show Part {study.roman}'s verdict summary "
            f"({{glue:text}}`../notebooks/{last.name}::verdicts_summary:s`)"
        )
    return problems


@pytest.mark.parametrize("study", STUDIES, ids=ids)
def test_every_study_declares_its_papers_claims(study):
    """A study whose paper's tables are transcribed also transcribes its claims, with a verdict each."""
    if "paper_tables" in study.absent:
        pytest.skip(f"{study.name} declares no transcribed paper tables, so no claims either")
    _fail(study, claims_problems(study, ROOT))


def test_the_claims_check_finds_what_is_missing(tmp_path):
    """In an empty repository copy every requirement is named."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    problems = claims_problems(STUDIES[0], tmp_path)
    assert problems == [f"no chapter of Part {STUDIES[0].roman} glues its verdicts"]
    nb = tmp_path / "notebooks" / f"{STUDIES[0].part}9_fake.ipynb"
    nb.parent.mkdir()
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["x = 1"]}]}))
    problems = claims_problems(STUDIES[0], tmp_path)
    assert (
        len(problems) == 3
        and "does not glue" in problems[0]
        and "does not open" in problems[1]
        and "intro.md" in problems[2]
    ), problems
