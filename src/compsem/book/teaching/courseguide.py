"""The course guide's sessions and tables, written from the registry (``book/course_guide.md``).

The guide's source keeps its fixed prose and marks where the generated parts go, each with a
comment line of its own:

* ``<!-- compsem: downloads -->``: the table of gradeable student notebooks (one row per study with an
  exercises page);
* ``<!-- compsem: places -->``: where each lab command is typed (:data:`PLACES`) and how it starts;
* ``<!-- compsem: sessions -->``: one session per study that declares a ``report.LESSON``
  (:class:`compsem.faces.Lesson`), in the registry's order, then the closing synthesis;
* ``<!-- compsem: homework -->``: the exercises the lessons give as homework;
* ``<!-- compsem: goals -->``: the table of learning goals and the exercises that practise them.

:func:`expand` fills them in. ``compsem stage`` writes the expanded page for the book, and every
reader of the pages (the checks of shown commands, glue keys and prose) reads it through
:func:`page_text`, so that a new study's session is in the guide, and checked, without an edit.
Each lab step's prefetch line is written from the same parameters as its run command, so the
guide prefetches every chapter a lab runs.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compsem.book.teaching.labtime import glue_name
from compsem.faces import LabStep, Lesson
from compsem.sentences import join_names
from compsem.studies import STUDIES, Study

__all__ = [
    "MARKERS",
    "CLOSING",
    "lessons",
    "command",
    "session",
    "sessions",
    "downloads",
    "goals_table",
    "homework",
    "expand",
    "page_text",
]

#: The marker lines of the guide's source and what replaces each.
MARKERS = ("downloads", "places", "sessions", "homework", "goals")

#: The closing lab of the last session: the synthesis with the models of a lab (not a study's:
#: the synthesis runs every study).
CLOSING = LabStep(
    "then the synthesis with the same models, so that each pair sees its models' profile across every study",
    "90_synthesis.ipynb",
    {"models": ["sbert-mini", "glove-50d"]},
)

PY = ".venv/bin/python"

#: Where the guide sends students, where a lab command is typed there, and how it starts: the rest
#: of it (``-m compsem run notebooks/...``) is the same everywhere. A clone has the environment
#: ``make venv`` made (:data:`PY`); Binder and Colab have no ``.venv``: their own ``python`` holds
#: the study (Binder's ``binder/postBuild`` installs it; on Colab a chapter's set-up cell installs
#: it and leaves the notebook in the clone's ``notebooks/`` folder, hence the ``cd ..``).
PLACES = (
    ("a clone (their own machine, the hub)", "a terminal at the clone's root", PY),
    ("Binder", "a terminal (File, New, Terminal), at the repository's root", "python"),
    ("Colab", "a code cell, once a chapter's set-up cell has run", "!cd .. && python"),
)


def lessons() -> list[tuple[Study, Lesson]]:
    """``(study, report.LESSON)`` for every study of the registry that declares a session."""
    out = []
    for s in STUDIES:
        lesson = getattr(s.module("report"), "LESSON", None)
        if lesson is not None:
            out.append((s, lesson))
    return out


def _value(v: Any) -> str:
    """A ``-p`` value as the pages write it: a plain word as is, any other value as JSON (a string
    with spaces or braces in quotes, as the exercises write a template)."""
    return v if isinstance(v, str) and re.fullmatch(r"[\w.-]+", v) else json.dumps(v, ensure_ascii=False)


def command(verb: str, step: LabStep, python: str = PY) -> str:
    """The shell command of a lab step (``run`` or ``prefetch``), with the project's interpreter
    (``python``: how the command starts elsewhere, one of :data:`PLACES`)."""
    args = "".join(f" -p {k} {shlex.quote(_value(v))}" for k, v in (step.params or {}).items())
    return f"{python} -m compsem {verb} notebooks/{step.notebook}{args}"


def places(pairs: list[tuple[Study, Lesson]] | None = None) -> str:
    """The table of :data:`PLACES`: where each lab command is typed and the first timed lab (or
    the first lab with parameters) as it is typed there ("" when no lab has parameters)."""
    pairs = lessons() if pairs is None else pairs
    steps = [step for _, lesson in pairs for step in lesson.lab if step.params is not None]
    first = next((step for step in steps if step.timed), steps[0] if steps else None)
    if first is None:
        return ""
    rows = [f"| {where} | {typed} | `{command('run', first, python)}` |" for where, typed, python in PLACES]
    return (
        "| where | a lab command is typed in | the first timed lab there |\n| --- | --- | --- |\n"
        + "\n".join(rows)
        + "\n"
    )


def _runtime(step: LabStep) -> str:
    stem = Path(step.notebook).stem
    return f"{{glue:text}}`../notebooks/99_reproducibility.ipynb::runtime_min_{stem}:.1f` min"


def _refs(labels) -> str:
    return join_names([f"{{ref}}`{lab}`" for lab in labels], quote="")


def _lab_line(step: LabStep) -> str:
    if step.params is None:
        return f"{step.what} (the book's run: {_runtime(step)})"
    if step.timed:
        time = f"{{glue:text}}`../notebooks/99_reproducibility.ipynb::{glue_name(step)}:.1f` min"
        return (
            f"{step.what} (this very command, timed by the book's build from empty caches: {time}; "
            f"prefetched, it only reads its results):\n  `{command('run', step)}`"
        )
    return f"{step.what} (the book's run with its default parameters: {_runtime(step)}):\n  `{command('run', step)}`"


def _ready_line(step: LabStep, cross_study: bool) -> str:
    """The line that readies a lab step's chapter in the class cache: its ``prefetch``, or for the
    closing cross-study chapter (the synthesis: no study plans its work, so a prefetch computes
    nothing) the lab's run itself, once, by the lecturer."""
    if cross_study:
        return (
            f"  `{command('run', step)}` (a cross-study chapter has nothing to prefetch: the lecturer runs the "
            "lab once, and the run fills the class cache)"
        )
    return f"  `{command('prefetch', step)}`"


def session(k: int, study: Study, lesson: Lesson, closing: LabStep | None = None) -> str:
    """The Markdown of one session."""
    steps = [*lesson.lab, *([closing] if closing else [])]
    prefetch = "\n".join(_ready_line(s, s is closing) for s in steps if s.params is not None)
    labs = ";\n  ".join(_lab_line(s) for s in steps)
    lines = [
        f"### Session {k}: {lesson.title} (Part {study.roman})",
        "",
        f"* **Chapters**: {lesson.chapters}" + (f" {lesson.note}" if lesson.note else ""),
        f"* **Worked example**: {lesson.worked}",
        *(
            [
                "* **Exercises**: "
                + "; ".join(
                    ([f"{_refs(lesson.by_hand)} by hand"] if lesson.by_hand else [])
                    + ([f"{_refs(lesson.discussion)} for discussion"] if lesson.discussion else [])
                )
                + "."
            ]
            if lesson.by_hand or lesson.discussion
            else []
        ),  # a new study may have no exercises page yet
        f"* **Prefetch** (before the session, as the lecturer, one line per chapter the lab runs with a command):"
        f"\n{prefetch}",
        f"* **Lab**: {labs}.",
        f"* **Expected**: {lesson.expected}",
    ]
    if closing:
        lines.append(
            "  In the synthesis, compare each model's rows with the chapters' numbers for the same model; the "
            "synthesis says on which data and settings each of its numbers is computed."
        )
    return "\n".join(lines) + "\n"


def sessions(pairs: list[tuple[Study, Lesson]] | None = None) -> str:
    """Every study's session, the last one closing with the synthesis (:data:`CLOSING`)."""
    pairs = lessons() if pairs is None else pairs
    return "\n".join(
        session(k, s, lesson, CLOSING if k == len(pairs) else None) for k, (s, lesson) in enumerate(pairs, 1)
    )


def downloads(root: Path) -> str:
    """The table of student notebooks: one row per study with an exercises page, linking the
    gradeable notebook that ``make release`` writes and the book's staging copies
    (``exercises/<part>.ipynb``, :func:`compsem.book.running.stage.stage`)."""
    rows = [
        f"| {s.roman} | {{download}}`{Path(s.page()).name}.ipynb <../exercises/{Path(s.page()).name}.ipynb>` |"
        for s in STUDIES
        if "exercises" not in s.absent and (root / f"{s.page('exercises')}.md").is_file()
    ]
    return "| Part | student notebook (the one handed in) |\n| --- | --- |\n" + "\n".join(rows) + "\n"


def homework(pairs: list[tuple[Study, Lesson]] | None = None) -> str:
    pairs = lessons() if pairs is None else pairs
    labels = [lab for _, lesson in pairs for lab in lesson.homework]
    if not labels:
        return ""
    return (
        f"The rerun exercises left out above ({_refs(labels)}) make good homework: each asks for one rerun and a "
        "short written answer.\n"
    )


def goals_table(pairs: list[tuple[Study, Lesson]] | None = None) -> str:
    pairs = lessons() if pairs is None else pairs
    rows = [
        f"| {s.roman} | {goal} | {', '.join(f'{{ref}}`{x}`' for x in exercises)} |"
        for s, lesson in pairs
        for goal, exercises in lesson.goals
    ]
    return "| Part | learning goal (short) | exercises |\n| --- | --- | --- |\n" + "\n".join(rows) + "\n"


def expand(text: str, root: Path, pairs: list[tuple[Study, Lesson]] | None = None) -> str:
    """``text`` with each marker line replaced by its generated Markdown."""
    pairs = lessons() if pairs is None else pairs
    parts: Mapping[str, Any] = {
        "downloads": lambda: downloads(root),
        "places": lambda: places(pairs),
        "sessions": lambda: sessions(pairs),
        "homework": lambda: homework(pairs),
        "goals": lambda: goals_table(pairs),
    }

    def one(m: re.Match) -> str:
        return parts[m.group(1)]().rstrip("\n")

    return re.sub(r"^<!-- compsem: (" + "|".join(MARKERS) + r") -->$", one, text, flags=re.M)


def page_text(path: Path, root: Path | None = None) -> str:
    """A prose page's text as the book shows it: the course guide expanded, any other page as is."""
    text = Path(path).read_text(encoding="utf-8")
    if "<!-- compsem: " not in text:
        return text
    return expand(text, Path(root) if root is not None else Path(path).resolve().parent.parent)
