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

import numpy as np
import pandas as pd

from .errors import CompsemError
from .fmt import estimate
from .sentences import comparisons_words
from .stats import separation

__all__ = [
    "TryIt",
    "PaperRun",
    "Lesson",
    "LabStep",
    "Finding",
    "NotWrittenYet",
    "leader_paragraph",
    "ranked_sentence",
    "against_controls",
]


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


def _no_note() -> str:
    return ""


@dataclass(frozen=True)
class PaperRun:
    """The paper-scale run of a study (chapter 98).

    Attributes
    ----------
    notebook : the chapter's file name in ``notebooks/`` (``"11_setcomp_overlap.ipynb"``).
    params : the parameters that run the paper's models on the paper's data (``{"models": "paper"}``).
    scale : ``scale() -> (texts factor, pairs factor)``: how much larger the paper's data is than
        the shipped one; ``(1, 1)`` when the study ships the paper's data.
    note : ``note() -> str``: one sentence (Markdown) saying what the scaling counts and what it
        assumes, or what is costed at the book's size rather than the paper's; chapter 98 prints
        it after the study's Part. ``""`` for nothing to say.
    """

    notebook: str
    params: Mapping[str, Any] = field(default_factory=lambda: {"models": "paper"})
    scale: Callable[[], tuple[float, float]] = _unscaled
    note: Callable[[], str] = _no_note


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
        ``higher`` (the headline's direction, None where none is argued), ``degenerate``: a reason
        in words, or ``""`` when the row may be ranked; ``replicates``: the estimate on bootstrap
        resamples shared by every model, for paired tests; ``control_of``: the model a study's own
        control row belongs to, ``""`` otherwise; ``ranked`` and ``test``: whether the synthesis
        ranks the criterion and its separation test in words), for
        ``models`` (the real models, in order) and ``controls`` (the baselines of the run, also
        in ``rows``).

    Example
    -------
    A study with one headline ``"NEG"`` (higher is better) whose paragraph names the leader
    where the synthesis ranks it, as far as the paired intervals allow::

        FINDING = Finding("Negation", "an encoder tells a sentence from its negation",
                          "The share of the shipped triples whose paraphrase is closer.",
                          leader_paragraph("NEG", "share of paraphrases closer", unit=" %", digits=1))
    """

    topic: str
    question: str
    method: str
    sentences: Callable[[pd.DataFrame, Sequence[str], Sequence[str]], str]


def _controls_of(rows: pd.DataFrame, key: str, model: str, controls: Sequence[str]) -> pd.DataFrame:
    """The rows of ``model``'s controls on ``key``: the run's ``controls`` and the rows whose
    ``control_of`` is the model (a study's own control), degenerate ones left out."""
    g = rows[rows.criterion == key]
    own = g["control_of"] == model if "control_of" in g else pd.Series(False, index=g.index)
    run = g.model.isin(list(controls)) & ~(g["control_of"].astype(bool) if "control_of" in g else False)
    out = g[own | run]
    return out[out["degenerate"] == ""] if "degenerate" in out else out


def _pair(a, b, unit: str, digits: int) -> tuple[str, str]:
    """(``d [lo, hi]`` with its unit, the outcome) of the paired separation of rows a − b."""
    sep = separation(a.value, b.value, getattr(a, "replicates", None), getattr(b, "replicates", None))
    return estimate(sep.difference, sep.low, sep.high, digits) + (" points" if unit.strip() == "%" else ""), sep.outcome


def against_controls(
    rows: pd.DataFrame,
    key: str,
    models: Sequence[str],
    controls: Sequence[str],
    *,
    digits: int = 2,
    unit: str = "",
    items: str = "items",
) -> str:
    """One sentence: how each model's ``key`` compares with each of its controls on the same
    ``items``, by the paired bootstrap of the difference (:func:`compsem.stats.separation`).
    Every model above every control: "On the same items every model lies above each of its
    controls (the smallest paired difference: …)"; otherwise each pair that does not, with its
    difference and paired 95 % interval. ``""`` when no model has a control on ``key``."""
    g = rows[rows.criterion == key]
    mine = {m: g[(g.model == m) & ~(g["control_of"].astype(bool) if "control_of" in g else False)] for m in models}
    pairs = [
        (m, k, *_pair(mine[m].iloc[0], k, unit, digits))
        for m in models
        if not mine[m].empty
        for k in _controls_of(rows, key, m, controls).itertuples()
    ]
    if not pairs:
        return ""
    below = [p for p in pairs if p[3] != "higher"]
    if not below:
        seps = [
            (separation(mine[m].iloc[0].value, k.value, mine[m].iloc[0].replicates, k.replicates).low, m, k, d)
            for m, k, d, _ in pairs
        ]
        _, m, k, d = min(seps, key=lambda x: x[0])
        return (
            f"On the same {items} every model lies above each of its controls by a paired 95 % interval "
            f"({len(pairs)} comparison{'' if len(pairs) == 1 else 's'}; the smallest difference: `{m}` − `{k.model}` {d})."
        )
    words = {
        "lower": "below the control",
        "no evidence of a difference": "no evidence of a difference",
        "undefined": "the paired test is undefined",
    }
    verb = "does" if len(below) == 1 else "do"
    return (
        f"On the same {items}, {len(below)} of the {len(pairs)} paired comparisons of a model with a control "
        f"{verb} not lie above zero: "
        + "; ".join(f"`{m}` − `{k.model}` {d} ({words[o]})" for m, k, d, o in below)
        + "."
    )


def _why_not(test: str) -> str:
    """The reason of a separation test's words, without its numbers (the rank table has them):
    "does not separate encoders from the controls here (…)" → ": it does not separate encoders
    from the controls"; "not ranked: no direction (…)" → ": no direction"."""
    reason = test.removeprefix("not ranked: ")
    for stop in (" (", ";"):
        reason = reason.split(stop)[0]
    reason = reason.rstrip(".").removesuffix(" here")
    if not reason:
        return ""
    return f": it {reason}" if reason.startswith("does not") else f": {reason}"


def ranked_sentence(
    rows: pd.DataFrame,
    key: str,
    models: Sequence[str],
    *,
    what: str,
    digits: int = 2,
    unit: str = "",
    items: str = "items",
) -> str:
    """The leader of ``key`` among ``models``, or why there is none. Where the synthesis does not
    rank the criterion (``ranked`` False), the reason its test gives, without the numbers ("C1 is
    not ranked here: it does not separate encoders from the controls."). Where it does: the model with the best value (highest, or lowest where
    ``higher`` is False; degenerate rows left out), and over each other model the paired interval
    of its lead on the same ``items``: "above zero over every other model", or the ones with "no
    evidence of a difference"; the m comparisons are held together at 95 % by Bonferroni, and the
    sentence says how many it made (:func:`compsem.sentences.comparisons_words`)."""
    g = rows[(rows.criterion == key) & rows.model.isin(list(models))]
    if "control_of" in g:
        g = g[~g["control_of"].astype(bool)]
    if g.empty:
        return f"No model has a value of {key} in this run."
    first = g.iloc[0]
    if "ranked" in g and not bool(first["ranked"]):
        return f"{key} is not ranked here" + _why_not(str(first.get("test", "") or "")) + "."
    higher = first["higher"] if "higher" in g else True
    ok = g[(g["degenerate"] == "") if "degenerate" in g else slice(None)]
    ok = ok[np.isfinite(ok["value"].astype(float))].set_index("model")
    ok = ok.loc[[m for m in models if m in ok.index]]
    if higher is None or ok.empty:
        return f"{key} is not ranked here."
    left = {r.model: r.degenerate for r in g.itertuples() if getattr(r, "degenerate", "")}
    tail = "".join(f" `{m}` is left out of the ranking: {why}." for m, why in left.items())
    return _leader_words(ok, what, bool(higher), digits, unit, items) + tail


def _leader_words(ok: pd.DataFrame, what: str, higher: bool, digits: int, unit: str, items: str) -> str:
    """The leader of ``ok`` (rows indexed by model) and the paired intervals of its leads."""
    best = ok["value"].idxmax() if higher else ok["value"].idxmin()
    b = ok.loc[best]
    head = f"`{best}` has the {'highest' if higher else 'lowest'} {what} ({estimate(b.value, b.low, b.high, digits, unit=unit)})"
    others = [m for m in ok.index if m != best]
    if not others:
        return head + ", the only model that can be ranked here."
    m_ = len(others)
    level = 1 - 0.05 / m_  # Bonferroni: the m comparisons hold together at 95 %
    leads = []
    for m in others:
        o = ok.loc[m]
        sep = separation(b.value, o.value, b.get("replicates"), o.get("replicates"), level=level)
        lo, hi = (sep.low, sep.high) if higher else (-sep.high, -sep.low)
        leads.append((m, abs(sep.difference), lo, hi))
    tied = [x for x in leads if not (np.isfinite(x[2]) and x[2] > 0)]
    f = f".{digits}f"
    count = comparisons_words(m_, 0.05)
    if not higher:  # the lowest: its difference from each other model (lowest − other, below zero), never a "lead"
        leads = [(m, -d, -hi, -lo) for m, d, lo, hi in leads]
    if not tied:
        if higher:
            m, d, lo, hi = min(leads, key=lambda x: x[2])
            return (
                f"{head}; on the same {items} the paired interval of its lead lies above zero over every other "
                f"model (the smallest: {d:{f}} [{lo:{f}}, {hi:{f}}] over `{m}`; {count})."
            )
        m, d, lo, hi = max(leads, key=lambda x: x[3])
        return (
            f"{head}; on the same {items} it falls below every other model by a difference whose paired interval "
            f"lies below zero (the closest: {d:{f}} [{lo:{f}}, {hi:{f}}] from `{m}`; {count})."
        )
    none = [x for x in leads if x[0] in {t[0] for t in tied} and np.isfinite(x[2])]
    undefined = [x[0] for x in tied if not np.isfinite(x[2])]
    parts = []
    if none:
        shown = ", ".join(f"`{m}` ({d:{f}} [{lo:{f}}, {hi:{f}}])" for m, d, lo, hi in none)
        word, rel = ("over", "lead") if higher else ("from", "difference")
        parts.append(
            f"{word} {shown} the paired interval of its {rel} on the same {items} includes zero: no evidence of a "
            "difference"
        )
    if undefined:
        parts.append(
            f"over {', '.join(f'`{m}`' for m in undefined)} the paired test is undefined (no replicates, or "
            "none that vary)"
        )
    return f"{head}, but " + "; ".join(parts) + f" ({count})."


def leader_paragraph(
    key: str, what: str, *, digits: int = 2, unit: str = "", items: str = "items"
) -> Callable[[pd.DataFrame, Sequence[str], Sequence[str]], str]:
    """The simplest :attr:`Finding.sentences`: :func:`ranked_sentence` on the criterion ``key``
    over the real models (the leader only where the synthesis ranks the criterion, and only as far
    as the paired intervals allow), then :func:`against_controls`."""

    def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
        text = ranked_sentence(rows, key, models, what=what, digits=digits, unit=unit, items=items)
        more = against_controls(rows, key, models, controls, digits=digits, unit=unit, items=items)
        return text + (" " + more if more else "")

    return sentences
