"""The files ``python -m compsem new-study`` writes but its chapter (:mod:`compsem.book.authoring.scaffold`
checks the arguments, writes the chapter, stages these files and moves them into place).

Every value from the command line reaches a file as data, never as code: into Python through
``repr()``, into Markdown through :func:`md`, into ``_toc.yml`` as a JSON (YAML) string; the
study's name is a checked identifier. The faces hold what is the same for every simple study
(its table, glued values, figure, paper-table reader, synthesis paragraph), written already on
the foundation (:mod:`compsem.record`, :mod:`compsem.sentences`, :func:`compsem.figures.shown`),
and stubs that raise :class:`compsem.faces.NotWrittenYet` for the study's own science (its
data, its measure, what it embeds, its run, its try-it), each with a tiny working example in
its docstring. :data:`FILES` names every file a study gets, so that a later face (a course-guide
entry) is one more template.
"""

from __future__ import annotations

import json
import re

from compsem.studies import Study

__all__ = ["files", "toc_part", "registry_line", "bib_entry", "md", "chapter_name", "FILES"]

#: The package's modules: the five faces, its try-it section, its synthesis paragraph and its
#: session of the course guide.
FILES = ("__init__", "data", "metrics", "study", "tables", "report", "tryit", "finding", "lesson")


def md(text: str) -> str:
    """``text`` as literal Markdown (MyST): every character that could open markup escaped."""
    return re.sub(r"([\\`*_{}\[\]()<>#+\-.!|$~^:=&@%])", r"\\\1", text)


def chapter_name(s: Study) -> str:
    """The chapter's file stem: ``<part>1_<name>_main``."""
    return f"{s.part}1_{s.name}_main"


def _stub(s: Study, where: str) -> str:
    return f"raise NotWrittenYet({f'compsem.{s.name}.{where} is not written yet'!r})"


def _package(s: Study, paper: bool) -> dict[str, str]:
    n, r = s.name, s.roman
    key, chapter = n.upper(), chapter_name(s)
    paper_run = (
        f'PaperRun({chapter + ".ipynb"!r}, {{"models": "paper"}})'
        if paper
        else 'None   # the study re-implements no paper (absent=("paper", ...) in the registry)'
    )
    return {
        "__init__": f'''"""Part {r} of the book (its title and citation are in compsem.studies).

The five faces of a study (the contract in CONTRIBUTING.md): :mod:`.data`, :mod:`.metrics`,
:mod:`.study`, :mod:`.tables`, :mod:`.report`; :mod:`.tryit` is its section of the try-it page,
:mod:`.finding` its paragraph of the synthesis, :mod:`.lesson` its session of the course guide.
"""
from __future__ import annotations

from . import data, finding, lesson, metrics, report, study, tables, tryit

__all__ = ["data", "metrics", "study", "tables", "report", "tryit", "finding", "lesson"]
''',
        "data": f'''"""Part {r}'s data: loaders of data/{n}/ (read through compsem.data.read_table) and their checks."""

from __future__ import annotations

import pandas as pd

from ..data import read_table  # noqa: F401  (load reads through it)
from ..faces import NotWrittenYet
from ..paths import data_dir  # noqa: F401  (the study's folder: data_dir(STUDY, "items.csv"))

__all__ = ["load"]


def load() -> pd.DataFrame:
    """The study's shipped data (``data/{n}/``, described in its DATASHEET.md), one row per item.

    Example (a file of sentence pairs; a bad row is a DataError naming file, row and column)::

        return read_table(data_dir("{n}", "pairs.csv"), required=["sentence", "negated"],
                          text_columns=["sentence", "negated"])
    """
    {_stub(s, "data.load")}
''',
        "metrics": f'''"""Part {r}'s maths: pure and vectorised, arrays in, arrays out (no embedding, no file I/O)."""

from __future__ import annotations

import numpy as np

from ..faces import NotWrittenYet

__all__ = ["score"]


def score(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The paper's measure for each row pair of ``X`` and ``Y`` (shape ``(n, d)`` each) -> ``(n,)``.

    Example (the row-wise cosine; by hand, ``score([[1, 0]], [[1, 1]])`` is ``[0.7071...]``)::

        X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
        return (X * Y).sum(1) / (np.linalg.norm(X, axis=1) * np.linalg.norm(Y, axis=1))

    References
    ----------
    The paper ({{citation}}), its equation.
    """
    {_stub(s, "metrics.score")}
''',
        "study": f'''"""Part {r}: resolve the models, plan the work, embed and run."""

from __future__ import annotations

from ..cache import embed  # noqa: F401  (run embeds through it)
from ..encoders import check_available
from ..encoders import resolve_models as resolve_specs
from ..encoders.kinds import ModelSlot
from ..faces import NotWrittenYet, PaperRun
from ..paths import data_dir  # noqa: F401  (the files a RunRecord checksums)
from ..record import RunRecord
from ..work import WorkUnit, embed_units
from . import data, metrics  # noqa: F401  (run reads and scores through them)

__all__ = ["STUDY", "PAPER_RUN", "MODEL_SLOTS", "resolve_models", "planned_texts", "planned_work", "run"]

STUDY = {n!r}
#: The kind of model each chapter's ``models`` takes, by chapter number (compsem.encoders.kinds).
MODEL_SLOTS = {{{chapter[:2]!r}: ModelSlot("encoder")}}
#: The paper's panel at the paper's data size (chapter 98); None when the study has none.
PAPER_RUN: PaperRun | None = {paper_run}


def resolve_models(models, *, trust_remote_code: bool = False) -> list[str]:
    """A chapter's ``models`` parameter as specs (``"panel"``, ``"paper"`` or a list), checked to
    be loadable before any work."""
    specs = resolve_specs(models, study=STUDY, trust_remote_code=trust_remote_code)
    check_available(specs, trust_remote_code=trust_remote_code, study=STUDY)
    return specs


def planned_texts(params: dict) -> dict[str, list[str]]:
    """``{{spec: texts}}`` a chapter with these parameters embeds; nothing loaded.

    Example (every distinct text of the data, for every model of the ``models`` parameter)::

        rows = data.load()
        texts = list(dict.fromkeys([*rows.sentence, *rows.negated]))
        return {{m: texts for m in resolve_specs(params.get("models", "panel"), study=STUDY)}}
    """
    {_stub(s, "study.planned_texts")}


def planned_work(params: dict, *, rates=None, chunk=None) -> list[WorkUnit]:
    """The chapter's embeddings as units of work (``python -m compsem prefetch``)."""
    return embed_units(STUDY, planned_texts(params), chunk=chunk, rates=rates,
                       trust_remote_code=params.get("trust_remote_code", False) is True)


def run(models: list[str], *, trust_remote_code: bool = False) -> RunRecord:
    """Embed the study's data with ``models`` and score every item: a
    :class:`compsem.record.RunRecord` whose ``scores[model]`` are per-item values on the same
    items for every model (what the ranking sentence of ``report.values`` pairs).

    Example::

        rows = data.load()
        scores = {{m: metrics.score(embed(list(rows.sentence), m, trust_remote_code=trust_remote_code),
                                   embed(list(rows.negated), m, trust_remote_code=trust_remote_code))
                  for m in models}}
        return RunRecord.of(models, scores, files=[data_dir(STUDY, "pairs.csv")],
                            trust_remote_code=trust_remote_code)
    """
    {_stub(s, "study.run")}
''',
        "tables": f'''"""Part {r}'s tidy tables: bootstrap intervals, one row per model."""

from __future__ import annotations

import pandas as pd

from ..record import RunRecord, bootstrap_table

__all__ = ["MEASURE", "SCALE", "main_table"]

#: The measure's name in the table, and the factor its per-item scores are shown at (100: shares as %).
MEASURE = "score"
SCALE = 1.0


def main_table(run: RunRecord, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per model: the mean score with its bootstrap interval (``model``, :data:`MEASURE`,
    ``low``, ``high``, ``n``)."""
    return bootstrap_table(run.scores, measure=MEASURE, scale=SCALE, n_boot=n_boot, seed=seed)
''',
        "report": f'''"""What Part {r}'s chapter shows: values to glue, its figure, the paper's tables, the
synthesis' headlines, try-it."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .. import figures, reference
from ..cache import embed  # noqa: F401  (try_it embeds through it)
from ..faces import NotWrittenYet
from ..fmt import plural
from ..record import RunRecord
from ..results import Headline, PlainText, Prose, bootstrap_headline
from ..sentences import paired_leader
from . import metrics, study  # noqa: F401  (try_it scores through metrics)
from .finding import FINDING
from .lesson import LESSON
from .tables import MEASURE, SCALE
from .tryit import TRY_IT

__all__ = ["TRY_IT", "FINDING", "LESSON", "HEADLINES", "values", "figure", "paper_table", "headlines", "try_it"]

#: The study's criteria in the cross-study synthesis (one per headline number; ``reference`` is the
#: chance or no-effect value, ``higher`` whether a higher value is better).
HEADLINES: tuple[Headline, ...] = (
    Headline({key!r}, {r!r}, {{title!r}}, "", float("nan"), "items", "what the mean score says"),
)


def paper_table(name: str) -> pd.DataFrame:
    """``data/reference/{n}_<name>.csv``."""
    return reference.paper_table({n!r}, name)


def values(view: str, run: RunRecord, table: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> dict[str, object]:
    """``{{glue name: value}}`` of the chapter's ``view``, glued with ``compsem.results.glue_all``:
    how many models and items, and the ranking sentence. A sentence that ranks models needs the
    per-item scores of every model on the same items (``run.scores``): the paired bootstrap of
    :func:`compsem.sentences.paired_leader` says "clear of" only where the difference's interval
    excludes zero."""
    n_items = len(next(iter(run.scores.values()), []))
    return {{"n_models": PlainText(plural(len(run.models), "model")), "n_items": PlainText(plural(n_items, "item")),
            "leader_sentence": Prose(paired_leader(run.scores, what=f"mean {{MEASURE}}", scale=SCALE,
                                                   n_boot=n_boot, seed=seed))}}


def figure(table: pd.DataFrame):
    """Each model's mean score with its interval (the chapter's figure, shown once)."""
    figures.set_theme()
    ax = figures.interval_plot(table, x="model", y=MEASURE, low="low", high="high", horizontal=True, xlabel=MEASURE,
                               ylabel="")
    return figures.shown(ax.figure)


def headlines(models: Sequence[str], *, trust_remote_code: bool = False, n_boot: int = 1000,
              seed: int = 0) -> list[dict]:
    """The rows of :data:`HEADLINES` for ``models``: each model's mean score with its bootstrap
    interval over the items (``compsem.results.bootstrap_headline``)."""
    run = study.run(list(models), trust_remote_code=trust_remote_code)
    return [bootstrap_headline(HEADLINES[0], m, run.scores[m], n_boot=n_boot, seed=seed, scale=SCALE)
            for m in run.models]


def try_it(text: str, models: Sequence[str], *, trust_remote_code: bool = False) -> pd.DataFrame:
    """The study's criteria on a reader's text (the inputs of ``TRY_IT``, in order, then
    ``models``), one tidy table with a row per model.

    Example (the cosine between the text and its negation)::

        other = "It is not true that " + text
        return pd.DataFrame([{{"model": m, "cosine": float(metrics.score(
            embed([text], m, trust_remote_code=trust_remote_code),
            embed([other], m, trust_remote_code=trust_remote_code))[0])}} for m in models])
    """
    {_stub(s, "report.try_it")}
''',
        "tryit": f'''"""Part {r}'s section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import TryIt
from ..fmt import number

__all__ = ["TRY_IT"]


def _read(table: pd.DataFrame) -> str:
    """One line that reads ``report.try_it``'s table: each model's value of its last column."""
    column = table.columns[-1]
    return "; ".join(f"`{{m}}` gives {{number(v, 2)}}" for m, v in zip(table["model"], table[column])) + f" ({{column}})."


def _show(table: pd.DataFrame, specs: Sequence[str]) -> list[pd.DataFrame]:
    """The tables the page shows: the result itself."""
    return [table]


#: ``inputs`` are ``report.try_it``'s arguments before ``models``, named apart from every other study's.
TRY_IT = TryIt(
    title={{title_lower!r}},
    intro="What the criteria ask of the reader's text, and what to expect.",
    inputs={{{n + "_text"!r}: "A sentence to try."}},
    show=_show,
    read=_read,
)
''',
        "finding": f'''"""Part {r}'s paragraph of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from ..faces import Finding, leader_paragraph

__all__ = ["FINDING"]

#: ``question`` follows "Part {r} asks whether" in chapter 90's introduction; ``sentences``
#: writes the paragraph from the profile's rows (here: the leader of the headline, as far as
#: the intervals allow).
FINDING = Finding(
    topic={{title!r}},
    question="an encoder does what this Part measures",
    method="Part {r}'s headline is the mean score over the shipped items.",
    sentences=leader_paragraph({key!r}, "mean score"),
)
''',
        "lesson": f'''"""Part {r}'s session of the course guide: ``report.LESSON`` (:class:`compsem.faces.Lesson`)."""

from __future__ import annotations

from ..faces import LabStep, Lesson

__all__ = ["LESSON"]

#: The lab reruns the chapter with two models; the guide writes its run and prefetch lines from
#: the LabStep. ``expected`` glues from the chapter (see Part IV's ``lesson.py`` for a fuller one).
LESSON = Lesson(
    title={{title_lower!r}},
    chapters="{{doc}}`../notebooks/{chapter}`.",
    worked="the chapter's worked example (one item followed by hand).",
    by_hand=(), discussion=(),
    lab=(LabStep("the chapter with two encoders", {chapter + ".ipynb"!r}, {{"models": ["sbert-mini", "bow"]}}),),
    expected="the table scores {{glue:text}}`../notebooks/{chapter}.ipynb::n_items` for each model.",
    goals=(),
)
''',
    }


def files(s: Study, *, paper: bool) -> dict[str, str]:
    """``{path relative to the repository: text}`` of every new file of the study but its chapter."""
    n = s.name
    values = {"title": s.title, "citation": s.citation, "title_lower": s.title[:1].lower() + s.title[1:]}
    out = {}
    for module, text in _package(s, paper).items():
        # the second pass fills the command line's values, as repr() or Markdown, never as code
        out[f"src/compsem/{n}/{module}.py"] = _fill(text, values)
    chapter = chapter_name(s)
    out[f"book/part{s.part}_{n}.md"] = (
        f"(part{s.part}-{n})=\n# Part {s.roman}: {md(s.title)}\n\nThis Part re-implements {{cite:t}}`{s.citation}`"
        if paper
        else f"(part{s.part}-{n})=\n# Part {s.roman}: {md(s.title)}\n\nThis Part is a study of the project's own "
        f"(its registry entry declares no paper; {{cite:t}}`{s.citation}` describes it)"
    ) + (
        ". What it asks, what it computes, and where its data, models or procedure differ from what it builds on "
        f"(one table of differences). Its chapter is {{doc}}`../notebooks/{chapter}`.\n"
    )
    out[f"data/{n}/DATASHEET.md"] = (
        f"# Datasheet: Part {s.roman}'s data (`data/{n}/`)\n\n## What it is\nThe files, their columns and what one "
        "row is.\n\n## Who wrote it and how\nWho wrote or collected it, when, from what sources, with what "
        "licence.\n\n## What it is not\nIts limits: size, annotators, agreement, what the paper had that this does "
        "not.\n"
    )
    out[f"tests/compsem/{n}/__init__.py"] = ""
    for face in ("data", "metrics", "study", "tables", "report", "finding"):
        out[f"tests/compsem/{n}/test_{face}.py"] = (
            f'"""compsem.{n}.{face}: checked on tiny inputs worked out by hand."""\n\nimport pytest\n\n\n'
            f"def test_{face}_is_written():\n    pytest.fail({f'compsem.{n}.{face} is not tested yet: check it on a tiny input worked out by hand'!r})\n"
        )
    return out


def _fill(text: str, values: dict[str, str]) -> str:
    """``{title!r}``-style fields of a template filled with ``repr`` of the value; ``{citation}``
    (inside a docstring) with the BibTeX key, which is checked to be letters, digits and ``_:.-``."""
    for k, v in values.items():
        text = text.replace("{" + k + "!r}", repr(v))
    return text.replace("{citation}", values["citation"])


def toc_part(s: Study) -> str:
    """The study's part of ``_toc.yml`` (its caption a YAML string)."""
    return (
        f"  - caption: {json.dumps(f'Part {s.roman}: {s.title}', ensure_ascii=False)}\n    numbered: true\n"
        f"    chapters:\n      - file: {s.page()}\n        sections:\n          - file: notebooks/{chapter_name(s)}\n\n"
    )


def registry_line(s: Study) -> str:
    """The study's line in ``STUDIES`` (every value through ``repr``)."""
    return f"    Study({s.name!r}, {s.part!r}, {s.roman!r}, {s.title!r}, {s.citation!r}, absent={s.absent!r}),\n"


def bib_entry(s: Study, placeholder: str) -> str:
    """A placeholder ``references.bib`` entry (the title has no braces or backslashes: checked)."""
    return f"\n\n@misc{{{s.citation},\n  title = {{{s.title}}},\n  note = {{{placeholder}}}\n}}\n"
