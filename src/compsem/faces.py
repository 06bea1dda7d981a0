"""What a study declares about itself for the pages that loop over every study.

The cross-study pages and the book tooling never name a study: they loop over
:data:`compsem.studies.STUDIES` and read these declarations from each study's faces.

* :class:`TryIt` (``report.TRY_IT``): the study's section of the try-it page (``91_try_it``):
  its default inputs, under the page's parameter names, in the order ``report.try_it`` takes
  them, and how to show and read a result. ``TRY_IT = None`` declares that the study has no
  section.
* :class:`PaperRun` (``study.PAPER_RUN``): the chapter and parameters that carry the study's
  work with the paper's own models at the paper's data sizes (chapter 98,
  ``compsem.book.appendices.paperscale``). ``PAPER_RUN = None`` declares that there is none.
* :class:`Lesson` (``report.LESSON``, from the study's ``lesson.py``): the study's session of the
  course guide (``book/course_guide.md``, expanded by ``compsem.book.teaching.courseguide``): its learning
  goals and the exercises that practise them, the lab's commands (:class:`LabStep`; the guide's
  prefetch line is written from them), and its expected result, glued from the chapter.
  ``LESSON = None`` declares that the study has no session.
  ``compsem.book.appendices.paperscale``). ``PAPER_RUN = None`` declares that there is none (a study
  without a paper, ``absent=("paper", ...)`` in the registry, always has None).
* :class:`Finding` (``report.FINDING``): the study's part of the synthesis (``90_synthesis``):
  the question its Part asks (the chapter's introduction), how its headlines are computed,
  and its paragraph of findings, produced from the profile's rows of its criteria.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .errors import CompsemError
from .stats import leader_sentence

__all__ = ["TryIt", "PaperRun", "Lesson", "LabStep", "Finding", "NotWrittenYet", "leader_paragraph"]


class NotWrittenYet(CompsemError, NotImplementedError):
    """A face of a scaffolded study (``python -m compsem new-study``) that is not written yet."""


def _frames(table: pd.DataFrame, models: Sequence[str]) -> list[pd.DataFrame]:
    return [table]


def _no_reading(table: pd.DataFrame) -> str:
    return ""


@dataclass(frozen=True)
class TryIt:
    """A study's section of the try-it page.

    Attributes
    ----------
    title : the section's title after "Part N: " (``"set-like operators"``).
    intro : Markdown that says what the criteria are and what to expect.
    inputs : ``{page parameter: default}``, in the order ``report.try_it`` takes them before
        ``models``; a reader overrides any of them with the page's ``inputs`` parameter. Names
        are unique across studies (the contract test checks).
    show : ``show(table, specs) -> [DataFrame, ...]``: the tables the page displays for the
        result of ``report.try_it``; by default the result itself.
    read : ``read(table) -> str``: one line of interpretation (Markdown, model names in
        backticks); by default none.
    """

    title: str
    intro: str
    inputs: Mapping[str, Any]
    show: Callable[[pd.DataFrame, Sequence[str]], list] = _frames
    read: Callable[[pd.DataFrame], str] = _no_reading


def _unscaled() -> tuple[float, float]:
    return 1.0, 1.0


@dataclass(frozen=True)
class PaperRun:
    """The paper-scale run of a study (chapter 98).

    Attributes
    ----------
    notebook : the chapter's file name in ``notebooks/`` (``"11_setcomp_overlap.ipynb"``).
    params : the parameters that run the paper's models on the paper's data (``{"models": "paper"}``).
    scale : ``scale() -> (texts factor, pairs factor)``: how much larger the paper's data is than
        the shipped one; ``(1, 1)`` when the study ships the paper's data.
    """

    notebook: str
    params: Mapping[str, Any] = field(default_factory=lambda: {"models": "paper"})
    scale: Callable[[], tuple[float, float]] = _unscaled


@dataclass(frozen=True)
class LabStep:
    """One run of a lab: a chapter with the parameters the students give it.

    Attributes
    ----------
    what : Markdown before the command ("{ref}`ex-ssm-4`, the metrics chapter with two encoders").
    notebook : the chapter's file name in ``notebooks/`` (``"42_ssm_metrics.ipynb"``).
    params : the ``-p`` parameters of the command, in order (``{"models": ["sbert-mini"]}``);
        ``None``: the students edit the chapter's parameters cell themselves, and the guide shows
        no command and no prefetch line (for a chapter whose texts are the students' own, such
        as the toolkit's; ``tests/compsem/book/test_courseguide.py`` checks that the planner
        has nothing to prefetch for it).
    timed : a run sized for a lab (a chapter too long for one, rerun on fewer items): the book
        build runs it as printed, from cold caches, and the guide states that run's time
        (:mod:`compsem.book.teaching.labtime`) instead of the chapter's.
    """

    what: str
    notebook: str
    params: Mapping[str, Any] | None = None
    timed: bool = False


@dataclass(frozen=True)
class Lesson:
    """A study's session of the course guide.

    Attributes
    ----------
    title : the session's title ("similarity under a condition").
    chapters : Markdown: the chapters the session reads (``{doc}`` roles).
    worked : Markdown: the worked example and what it practises.
    by_hand, discussion, homework : exercise labels done by hand in class, discussed in class,
        and given as homework.
    lab : the lab's runs (:class:`LabStep`), in order; each is prefetched.
    expected : Markdown: what the lab should show, every number glued from a chapter
        (``{glue:text}`../notebooks/NN_x.ipynb::key:.1f```).
    goals : ``((learning goal, (exercise labels, ...)), ...)``: the rows of the guide's table of
        learning goals.
    note : Markdown after the chapters line (a chapter's cost, what to read at home); optional.
    """

    title: str
    chapters: str
    worked: str
    by_hand: Sequence[str]
    discussion: Sequence[str]
    lab: Sequence[LabStep]
    expected: str
    goals: Sequence[tuple[str, Sequence[str]]]
    homework: Sequence[str] = ()
    note: str = ""


@dataclass(frozen=True)
class Finding:
    """A study's part of the synthesis chapter (``90_synthesis``), read by
    :func:`compsem.crossstudy.synthesis.findings` for every study of the registry.

    Attributes
    ----------
    topic : the paragraph's lead-in, a noun phrase (``"Set-like operators"``).
    question : what the Part asks of an encoder, as a clause after "whether"
        (``"an encoder treats sentences like sets of facts"``); the chapter's introduction
        lists every study's.
    method : Markdown: how the synthesis computes the study's headlines (which data, which
        reading, which setting), one or two sentences.
    sentences : ``sentences(rows, models, controls) -> str``: the paragraph (Markdown, model
        names in backticks), produced from ``rows``, the profile's rows of the study's criteria
        (columns ``model``, ``criterion``, ``value``, ``low``, ``high``, ``reference``, ``ties``,
        ``higher`` (the headline's direction) and ``degenerate``: a reason in words, or ``""``
        when the row may be ranked), for
        ``models`` (the real models, in order) and ``controls`` (the baselines of the run, also
        in ``rows``).

    Example
    -------
    A study with one headline ``"NEG"`` (higher is better) whose paragraph names the leader
    as far as the intervals allow::

        FINDING = Finding("Negation", "an encoder tells a sentence from its negation",
                          "The share of the shipped triples whose paraphrase is closer.",
                          leader_paragraph("NEG", "share of paraphrases closer", unit=" %", digits=1))
    """

    topic: str
    question: str
    method: str
    sentences: Callable[[pd.DataFrame, Sequence[str], Sequence[str]], str]


def leader_paragraph(key: str, what: str, *, digits: int = 2,
                     unit: str = "") -> Callable[[pd.DataFrame, Sequence[str], Sequence[str]], str]:
    """The simplest :attr:`Finding.sentences`: one :func:`compsem.stats.leader_sentence` on the
    criterion ``key`` over the real models ("highest", or "lowest" where the headline's
    ``higher`` is False, only where the leader's interval clears the others'; degenerate rows
    left out and named)."""

    def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
        g = rows[rows.criterion == key].set_index("model")
        g = g.loc[[m for m in models if m in g.index]]
        if g.empty:
            return f"No model has a value of {key} in this run."
        higher = bool(g["higher"].iloc[0]) if "higher" in g else True
        return leader_sentence(g["value"], g["low"], g["high"], list(g.index), what=what, higher=higher,
                               digits=digits, unit=unit,
                               excluded={m: why for m, why in g["degenerate"].items() if why})

    return sentences
