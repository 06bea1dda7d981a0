"""The registry of the study's Parts: each one declared once.

Everything that needs to know which studies exist (the planner, the cross-study pages, the
Makefile through ``studies.mk``, the benchmarks and the contract test) reads :data:`STUDIES`.
``studies.mk`` is written from here (``python -m compsem.studies > studies.mk``) and committed,
so that ``make`` reads the studies on a fresh clone before any package is installed;
``tests/compsem/test_studies.py`` fails when it is out of date. Adding a fifth paper is one :class:`Study` entry here plus one package
``compsem.<name>`` with the five faces (CONTRIBUTING.md lists them);
``python -m compsem new-study NAME --part N --title ... --citation KEY`` writes both, and the
rest the contract test asks for.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .errors import CompsemError

__all__ = ["Study", "STUDIES", "NAMES", "get", "by_part", "of_notebook", "FACES", "OPTIONAL", "makefile_include"]

#: The modules every study package holds (CONTRIBUTING.md: "The faces of a study").
FACES: tuple[str, ...] = ("data", "metrics", "study", "tables", "report")

#: What a study may declare it does not have (``Study.absent``): a worked-example page, an
#: exercises page, transcribed paper tables (``data/reference/<name>_*.csv``), the paper's
#: models (``data/reference/paper_models/<name>.csv``), or a paper at all (``"paper"``: a study
#: of the project's own; it then lacks the paper's tables and models too, and its
#: ``study.PAPER_RUN`` is None).
OPTIONAL: tuple[str, ...] = ("worked", "exercises", "paper_tables", "paper_models", "paper")


@dataclass(frozen=True)
class Study:
    """One Part of the book.

    Attributes
    ----------
    name : the package under ``compsem`` and the folder under ``data/`` and ``results/``.
    part : the Part's number (1-9); chapters of the Part are ``notebooks/<part>x_*.ipynb``.
    roman : the Part as the book numbers it (``"I"``).
    title : a short title for tables and menus.
    citation : the BibTeX key of the paper in ``references.bib``.
    absent : what the study declares it does not have, from :data:`OPTIONAL` (the contract test
        then does not ask for it).
    """

    name: str
    part: int
    roman: str
    title: str
    citation: str
    absent: tuple[str, ...] = ()

    def __post_init__(self):
        unknown = [a for a in self.absent if a not in OPTIONAL]
        if unknown:
            raise CompsemError(
                f"study {self.name!r} declares unknown absences {unknown}; a study may lack only {', '.join(OPTIONAL)}"
            )
        if "paper" in self.absent and not {"paper_tables", "paper_models"} <= set(self.absent):
            raise CompsemError(
                f"study {self.name!r} declares no paper, so it lacks the paper's tables and models "
                'too: absent must hold "paper_tables" and "paper_models" as well'
            )

    @property
    def package(self) -> str:
        """The dotted name of the study's package."""
        return f"compsem.{self.name}"

    @property
    def chapter_prefix(self) -> str:
        """The first digit of the study's chapter files (``"1"`` for ``1x_*.ipynb``)."""
        return str(self.part)

    @property
    def data_folder(self) -> str:
        """The study's shipped data, relative to the data root (``data/<name>``)."""
        return self.name

    @property
    def reference_prefix(self) -> str:
        """The prefix of its transcribed paper tables in ``data/reference/`` (``<name>_``)."""
        return f"{self.name}_"

    def page(self, kind: str | None = None) -> str:
        """A page of the Part in ``book/``, without its suffix: the Part's opening page
        (``book/part1_setcomp``) or its ``"worked"`` example or ``"exercises"``."""
        return f"book/part{self.part}_{self.name}" + (f"_{kind}" if kind else "")

    def module(self, face: str | None = None) -> ModuleType:
        """The study's package, or one of its faces (``study.module("report")``)."""
        return importlib.import_module(self.package if face is None else f"{self.package}.{face}")

    def chapters(self, notebooks: Path) -> list[Path]:
        """The study's chapter notebooks in ``notebooks``, in order."""
        return sorted(notebooks.glob(f"{self.chapter_prefix}[0-9]_*.ipynb"))


#: The studies in the book's order.
STUDIES: tuple[Study, ...] = (
    Study("setcomp", 1, "I", "Set operations on sentence embeddings", "bansal2025setcomp"),
    Study("csts", 2, "II", "Conditional semantic textual similarity", "deshpande2023csts"),
    Study("montague", 3, "III", "Montague semantics of adjective-noun phrases", "carvalho2022montague"),
    Study("ssm", 4, "IV", "Sentence-space metrics", "lin2024ssm"),
)

#: Their names, in order.
NAMES: tuple[str, ...] = tuple(s.name for s in STUDIES)


def get(name: str) -> Study:
    """The study called ``name``; an unknown name is a :class:`~compsem.errors.CompsemError`
    listing the registered ones."""
    for s in STUDIES:
        if s.name == name:
            return s
    raise CompsemError(f"unknown study {name!r}; the studies are {', '.join(NAMES)}")


def by_part(part: int | str) -> Study | None:
    """The study of Part ``part`` (a number or its digit), or None (the cross-study pages)."""
    for s in STUDIES:
        if str(s.part) == str(part):
            return s
    return None


def of_notebook(notebook: str | Path) -> Study | None:
    """The study a chapter belongs to, from its number (``11_setcomp_overlap`` -> setcomp)."""
    m = re.match(r"(\d)\d_", Path(notebook).name)
    return by_part(m.group(1)) if m else None


def makefile_include(studies: tuple[Study, ...] | None = None) -> str:
    """The text of ``studies.mk``: the studies' names and Part numbers as Make variables
    (``STUDIES``, ``STUDY_PART_<name>``), from which the Makefile builds each study's
    prerequisites; of :data:`STUDIES` unless ``studies`` is given (``new-study`` writes it for
    the registry it is about to write)."""
    studies = STUDIES if studies is None else studies
    lines = [
        "# The studies of compsem/studies.py for the Makefile. Generated: do not edit; after a change",
        "# to the registry run `.venv/bin/python -W ignore -m compsem.studies > studies.mk`",
        "# (tests/compsem/test_studies.py fails while this file is out of date).",
        f"STUDIES := {' '.join(s.name for s in studies)}",
    ]
    lines += [f"STUDY_PART_{s.name} := {s.part}" for s in studies]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(makefile_include(), end="")
