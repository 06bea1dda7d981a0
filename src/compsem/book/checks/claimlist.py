"""The list of every checked claim of the book (:func:`claims_table`, from the records
:func:`compsem.claims.check` writes; :mod:`.appendix` re-exports it) and what the pages' check files
share: a chapter's glued number (:func:`glued_number`)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from compsem import claims
from compsem.errors import CompsemError
from compsem.labels import cell
from compsem.book.checks.claimcheck import page_checks
from compsem.book.executed import glued_values

__all__ = ["claims_table", "glued_number"]


def glued_number(executed: Path | None, notebook: str, key: str) -> float:
    """The number a chapter glued under ``key`` (its executed copy in ``executed``): what a page's
    check file reads to check a sentence against the chapter's own numbers."""
    path = Path(executed or ".") / f"{notebook}.ipynb"
    value = glued_values(path).get(key) if path.is_file() else None
    if value is None:
        raise CompsemError(f"{path} has no glued value {key!r}: run the chapter first (make book)")
    return float(value.strip().strip("'\""))


def claims_table(root: Path, executed: Path) -> pd.DataFrame:
    """Every checked claim of the book: its page, the sentence, the rule, the numbers it was
    judged on and the outcome (a glued value the sentence quotes shows as "…"). The pages' own
    check files (``book/checks/``) run first, on the executed chapters in ``executed``, so that
    their claims are listed beside the hidden cells'."""
    book = Path(root) / "book"
    pages = [f"book/{p.name}" for p in sorted(book.glob("*.md"))] + [
        p.stem for p in sorted(Path(executed).glob("*.ipynb"))
    ]
    _, problems = page_checks(book / "checks", pages, Path(executed))
    rows = [
        {
            "page": r["page"],
            "sentence": re.sub(r"\{glue:[^}]+\}", "…", r["sentence"]),
            "rule": r.get("rule", ""),
            "numbers": "; ".join(f"{k} = {cell(v)}" for k, v in r["numbers"].items()),
            "outcome": r["outcome"],
        }
        for r in claims.records()
    ]
    rows += [
        {"page": p.split(":", 1)[0], "sentence": p, "rule": "", "numbers": "", "outcome": "fails"} for p in problems
    ]
    return pd.DataFrame(rows, columns=["page", "sentence", "rule", "numbers", "outcome"])
