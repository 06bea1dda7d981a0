"""What a study declares about itself for the pages that loop over every study.

The cross-study pages and the book tooling never name a study: they loop over
:data:`compsem.studies.STUDIES` and read these declarations from each study's faces.

* :class:`TryIt` (``report.TRY_IT``): the study's section of the try-it page (``91_try_it``):
  its default inputs, under the page's parameter names, in the order ``report.try_it`` takes
  them, and how to show and read a result. ``TRY_IT = None`` declares that the study has no
  section.
* :class:`PaperRun` (``study.PAPER_RUN``): the chapter and parameters that carry the study's
  work with the paper's own models at the paper's data sizes (chapter 98,
  ``compsem.book.paperscale``). ``PAPER_RUN = None`` declares that there is none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .errors import CompsemError

__all__ = ["TryIt", "PaperRun", "NotWrittenYet"]


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
