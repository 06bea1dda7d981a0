"""``python -m compsem new-study NAME --part N --title ... --citation KEY``: a fifth study's skeleton.

It writes everything a study needs so that the contract test (``tests/compsem/test_contract.py``)
finds it, and nothing outside the study but its registry line, its ``_toc.yml`` part and its
placeholder citation:

* ``src/compsem/<name>/``: the five faces (:data:`compsem.studies.FACES`) and ``tryit.py``,
  with typed stubs that raise :class:`compsem.faces.NotWrittenYet`; ``study.resolve_models`` and
  ``study.planned_work`` and ``report.paper_table`` are written already (they are the same
  for every study);
* ``notebooks/<part>1_<name>_main.ipynb``: a parameters cell, the set-up cell of
  ``make launch-cell`` (:func:`compsem.book.launch.setup_cell`) and the calls into the faces;
* ``book/part<N>_<name>.md`` (the Part's opening page) and its part in ``_toc.yml``;
* ``data/<name>/DATASHEET.md`` (a template to fill in);
* ``tests/compsem/<name>/``: one test per face that fails until it is written;
* the :class:`~compsem.studies.Study` line in ``src/compsem/studies.py`` (worked example,
  exercises and paper tables declared absent until written), ``studies.mk`` regenerated, and a
  placeholder entry for the citation key in ``references.bib``.

Nothing is overwritten: a study, package or page that exists already is an error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import CompsemError
from ..fmt import plural
from ..studies import STUDIES, Study, makefile_include
from .launch import place_setup_cell, setup_cell

__all__ = ["new_study", "ROMAN"]

ROMAN = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")
_NAME = re.compile(r"[a-z][a-z0-9]{1,15}")
_KEY = re.compile(r"[A-Za-z][\w:-]*")
_PLACEHOLDER = "written by python -m compsem new-study: replace with the paper's entry"


def _stub(what: str) -> str:
    return f'raise NotWrittenYet("{what} is not written yet")'


def _files(s: Study) -> dict[str, str]:
    n, title = s.name, s.title
    pkg = f"src/compsem/{n}"
    chapter = f"{s.part}1_{n}_main"
    return {
        f"{pkg}/__init__.py": f'''"""Part {s.roman}: {title}.

The five faces of a study (the contract in CONTRIBUTING.md): :mod:`.data`, :mod:`.metrics`,
:mod:`.study`, :mod:`.tables`, :mod:`.report`; :mod:`.tryit` is its section of the try-it page.
"""
from __future__ import annotations

from . import data, metrics, report, study, tables, tryit

__all__ = ["data", "metrics", "study", "tables", "report", "tryit"]
''',
        f"{pkg}/data.py": f'''"""Part {s.roman}'s data: loaders of data/{n}/ (read through compsem.data.read_table) and their checks."""

from __future__ import annotations

import pandas as pd

from ..faces import NotWrittenYet

__all__ = ["load"]


def load() -> pd.DataFrame:
    """The study's shipped data (``data/{n}/``, described in its DATASHEET.md)."""
    {_stub(f"compsem.{n}.data.load")}
''',
        f"{pkg}/metrics.py": f'''"""Part {s.roman}'s maths: pure and vectorised, arrays in, arrays out (no embedding, no file I/O)."""

from __future__ import annotations

import numpy as np

from ..faces import NotWrittenYet

__all__ = ["score"]


def score(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The paper's measure for each row pair of ``X`` and ``Y`` (shape ``(n, d)`` each) -> ``(n,)``.

    References
    ----------
    The paper ({s.citation}), its equation.
    """
    {_stub(f"compsem.{n}.metrics.score")}
''',
        f"{pkg}/study.py": f'''"""Part {s.roman}: resolve the models, plan the work, embed and run."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..encoders import check_available
from ..encoders import resolve_models as resolve_specs
from ..encoders.kinds import ModelSlot
from ..faces import NotWrittenYet, PaperRun
from ..work import WorkUnit, embed_units

__all__ = ["STUDY", "PAPER_RUN", "MODEL_SLOTS", "resolve_models", "planned_texts", "planned_work", "run", "Run"]

STUDY = "{n}"
#: The kind of model each chapter's ``models`` takes, by chapter number (compsem.encoders.kinds).
MODEL_SLOTS = {{"{s.part}1": ModelSlot("encoder")}}
#: The paper's panel at the paper's data size (chapter 98); None when the study has none.
PAPER_RUN: PaperRun | None = PaperRun("{chapter}.ipynb", {{"models": "paper"}})


@dataclass
class Run:
    """The raw results of a run: the models and what they produced."""

    models: list[str]
    params: dict = field(default_factory=dict)

    def provenance(self) -> dict:
        """Models, their identities, data checksums and parameters."""
        {_stub(f"compsem.{n}.study.Run.provenance")}


def resolve_models(models, *, trust_remote_code: bool = False) -> list[str]:
    """A chapter's ``models`` parameter as specs (``"panel"``, ``"paper"`` or a list), checked to
    be loadable before any work."""
    specs = resolve_specs(models, study=STUDY, trust_remote_code=trust_remote_code)
    check_available(specs, trust_remote_code=trust_remote_code, study=STUDY)
    return specs


def planned_texts(params: dict) -> dict[str, list[str]]:
    """``{{spec: texts}}`` a chapter with these parameters embeds; nothing loaded."""
    {_stub(f"compsem.{n}.study.planned_texts")}


def planned_work(params: dict, *, rates=None, chunk=None) -> list[WorkUnit]:
    """The chapter's embeddings as units of work (``python -m compsem prefetch``)."""
    return embed_units(STUDY, planned_texts(params), chunk=chunk, rates=rates,
                       trust_remote_code=params.get("trust_remote_code", False) is True)


def run(models: list[str], *, trust_remote_code: bool = False) -> Run:
    """Embed the study's data with ``models`` and compute the paper's measures."""
    {_stub(f"compsem.{n}.study.run")}
''',
        f"{pkg}/tables.py": f'''"""Part {s.roman}'s tidy tables: bootstrap intervals, one row per model x cell."""

from __future__ import annotations

import pandas as pd

from ..faces import NotWrittenYet
from .study import Run

__all__ = ["main_table"]


def main_table(run: Run, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per model: the measure with its bootstrap interval."""
    {_stub(f"compsem.{n}.tables.main_table")}
''',
        f"{pkg}/report.py": f'''"""What Part {s.roman}'s chapter shows: values to glue, the paper's tables, the synthesis' headlines, try-it."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .. import reference
from ..faces import NotWrittenYet
from ..results import Headline
from .tryit import TRY_IT

__all__ = ["TRY_IT", "HEADLINES", "values", "paper_table", "headlines", "try_it"]

#: The study's criteria in the cross-study synthesis.
HEADLINES: tuple[Headline, ...] = (
    Headline("{n.upper()}", "{s.roman}", "{title}", "%", 50.0, "items", "what a value above the reference means"),
)


def paper_table(name: str) -> pd.DataFrame:
    """``data/reference/{n}_<name>.csv``."""
    return reference.paper_table("{n}", name)


def values(view: str, *args, **kwargs) -> dict[str, object]:
    """``{{glue name: value}}`` of one chapter view, glued with ``compsem.results.glue_all``."""
    {_stub(f"compsem.{n}.report.values")}


def headlines(models: Sequence[str], *, trust_remote_code: bool = False, n_boot: int = 1000,
              seed: int = 0) -> list[dict]:
    """The rows of :data:`HEADLINES` for ``models`` (``compsem.results.bootstrap_headline``)."""
    {_stub(f"compsem.{n}.report.headlines")}


def try_it(text: str, models: Sequence[str], *, trust_remote_code: bool = False) -> pd.DataFrame:
    """The study's criteria on a reader's text, one tidy table."""
    {_stub(f"compsem.{n}.report.try_it")}
''',
        f"{pkg}/tryit.py": f'''"""Part {s.roman}'s section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

from ..faces import TryIt

__all__ = ["TRY_IT"]

TRY_IT = TryIt(
    title="{title[0].lower() + title[1:]}",
    intro="What the criteria ask of the reader's text, and what to expect.",
    inputs={{"{n}_text": "A sentence to try."}},
)
''',
        f"book/part{s.part}_{n}.md": f'''(part{s.part}-{n})=
# Part {s.roman}: {title}

This Part re-implements {{cite:t}}`{s.citation}`. What the paper asks, what this Part computes,
and where its data, models or procedure differ from the paper's (one table of differences).
''',
        f"data/{n}/DATASHEET.md": f'''# Datasheet: Part {s.roman}'s data (`data/{n}/`)

## What it is
The files, their columns and what one row is.

## Who wrote it and how
Who wrote or collected it, when, from what sources, with what licence.

## What it is not
Its limits: size, annotators, agreement, what the paper had that this does not.
''',
        f"tests/compsem/{n}/__init__.py": "",
        **{f"tests/compsem/{n}/test_{face}.py": f'''"""compsem.{n}.{face}: checked on tiny inputs worked out by hand."""

import pytest


def test_{face}_is_written():
    pytest.fail("compsem.{n}.{face} is not tested yet: check it on a tiny input worked out by hand")
''' for face in ("data", "metrics", "study", "tables", "report")},
    }


def _chapter(s: Study) -> dict:
    """The chapter notebook: title, parameters, the set-up cell, the calls into the faces."""
    def cell(kind, source, tags=None, id=None):
        c = {"cell_type": kind, "id": id, "metadata": {"tags": tags} if tags else {},
             "source": source.splitlines(keepends=True)}
        return {**c, "execution_count": None, "outputs": []} if kind == "code" else c
    cells = [
        cell("markdown", f"# {s.title}\n\nWhat this chapter computes, the paper's equation and what to expect.",
             id="title"),
        cell("code", "# Parameters: change these, or rerun with e.g.\n"
                     f"#   python -m compsem run notebooks/{s.part}1_{s.name}_main.ipynb -p models '[\"bow\"]'\n"
                     'models = "panel"   # "panel", "paper" or a list of specs\n'
                     "trust_remote_code = False   # passed to the model loaders; True only for code you trust\n"
                     "n_boot = 1000   # bootstrap draws per interval\n"
                     "seed = 0", ["parameters"], "parameters"),
        cell("code", f"from compsem import results\nfrom compsem.{s.name} import report, study, tables\n\n"
                     "specs = study.resolve_models(models, trust_remote_code=trust_remote_code)\n"
                     "run = study.run(specs, trust_remote_code=trust_remote_code)\n"
                     "table = tables.main_table(run, n_boot=n_boot, seed=seed)\n"
                     f'_ = results.save_table(table, "{s.name}", "main", models=specs, n_boot=n_boot, seed=seed)\n'
                     'results.glue_all(report.values("main", table))\ntable', ["hide-input"], "run"),
    ]
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                       "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return place_setup_cell(nb, setup_cell())


def _toc_part(s: Study, chapter: str) -> str:
    return (f'  - caption: "Part {s.roman}: {s.title}"\n    numbered: true\n    chapters:\n'
            f"      - file: {s.page()}\n        sections:\n          - file: notebooks/{chapter}\n\n")


def _registry(text: str, s: Study) -> str:
    """``studies.py``'s text with ``s`` appended to ``STUDIES``."""
    m = re.search(r"^STUDIES: tuple\[Study, \.\.\.\] = \(\n(.*?)^\)\n", text, re.M | re.S)
    if m is None:
        raise CompsemError("src/compsem/studies.py has no 'STUDIES: tuple[Study, ...] = (' block to add the study to")
    line = (f"    Study({s.name!r}, {s.part}, {s.roman!r}, {s.title!r}, {s.citation!r}, "
            f"absent={s.absent!r}),\n").replace("'", '"')
    return text[:m.end(1)] + line + text[m.end(1):]


def new_study(root: str | Path, name: str, *, part: int, title: str, citation: str) -> list[Path]:
    """Write a new study's skeleton into the repository at ``root``; return the files written or
    changed (see the module's docstring). Refuses a name, Part or file that exists already."""
    root = Path(root)
    if not _NAME.fullmatch(name or ""):
        raise CompsemError(f"study name {name!r} must be 2-16 lower-case letters or digits, starting with a letter "
                           "(it becomes the package compsem.<name> and the folder data/<name>)")
    taken = [s for s in STUDIES if s.name == name or s.part == part]
    if taken:
        raise CompsemError(f"the registry has {taken[0].name!r} as Part {taken[0].part} already; the studies are "
                           f"{', '.join(f'{x.name} (Part {x.part})' for x in STUDIES)}")
    if not isinstance(part, int) or not 1 <= part <= 8:
        raise CompsemError(f"--part must be a whole number from 1 to 8 (9 holds the cross-study pages), not {part!r}")
    if not title.strip() or "\n" in title:
        raise CompsemError("--title must be one line of text")
    if not _KEY.fullmatch(citation or ""):
        raise CompsemError(f"--citation {citation!r} is not a BibTeX key (letters, digits, _ : -)")
    study = Study(name, part, ROMAN[part], title.strip(), citation, absent=("worked", "exercises", "paper_tables"))
    files = _files(study)
    chapter = f"{part}1_{name}_main"
    files[f"notebooks/{chapter}.ipynb"] = json.dumps(_chapter(study), indent=1, ensure_ascii=False) + "\n"
    exist = [f for f in files if (root / f).exists()] + [f"src/compsem/{name}"] * (root / "src" / "compsem" / name).exists()
    if exist:
        n = len(set(exist))
        raise CompsemError(f"{plural(n, 'file')} of the new study {'exists' if n == 1 else 'exist'} already, nothing written: "
                           f"{', '.join(sorted(set(exist)))}")
    registry = root / "src" / "compsem" / "studies.py"
    new_registry = _registry(registry.read_text(encoding="utf-8"), study)
    toc_path = root / "_toc.yml"
    toc = toc_path.read_text(encoding="utf-8")
    anchor = re.search(r"^  - caption: Synthesis\n", toc, re.M)
    if anchor is None:
        raise CompsemError("_toc.yml has no '  - caption: Synthesis' part to put the new Part before")
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    toc_path.write_text(toc[:anchor.start()] + _toc_part(study, chapter) + toc[anchor.start():], encoding="utf-8")
    registry.write_text(new_registry, encoding="utf-8")
    (root / "studies.mk").write_text(makefile_include((*STUDIES, study)), encoding="utf-8")
    bib = root / "references.bib"
    text = bib.read_text(encoding="utf-8") if bib.is_file() else ""
    if f"{{{citation}," not in text:
        bib.write_text(text.rstrip("\n") + f"\n\n@misc{{{citation},\n  title = {{{title.strip()}}},\n"
                                           f"  note = {{{_PLACEHOLDER}}}\n}}\n", encoding="utf-8")
        written.append(bib)
    return written + [toc_path, registry, root / "studies.mk"]
