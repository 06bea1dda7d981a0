"""A glued number the prose shows must be defined: ``make check-book`` flags a ``{glue}`` role
(on its own page, or another page's ``path::key``) whose value is NaN, infinite or None, and a
``path::key`` role without a format (myst-nb would read ``path:`` as the key).

Such a value reaches the page as the word "nan": a rate that a renamed benchmark field left
undefined once printed "Part II's fine-tuning runs its nan hours". The fix belongs where the
value is computed, or in a sentence that says why it is undefined.
"""

from __future__ import annotations

import re
from pathlib import Path

from compsem.book.executed import cells, glued_values, notebooks
from compsem.book.teaching.courseguide import page_text

__all__ = ["UNDEFINED", "undefined_glue"]

#: How an undefined value reads as text (``repr`` of NaN, infinities, None, pandas' NA).
UNDEFINED = {"nan", "inf", "-inf", "none", "<na>", "nat"}
_ROLE = re.compile(r"\{glue(?::[a-z]+)?\}`([^`]+)`")


def _refs(markdown: str) -> list[tuple[str | None, str]]:
    """``(notebook name or None for this page, key)`` of each glue role in ``markdown``."""
    refs = []
    for body in _ROLE.findall(markdown):
        page, sep, rest = body.partition("::")
        refs.append((Path(page).stem, rest.split(":")[0]) if sep else (None, body.split(":")[0]))
    return refs


def undefined_glue(executed_dir: Path, book_dir: Path | None = None) -> list[str]:
    """Problems: each glue role of a chapter (its markdown cells) or of a prose page in
    ``book_dir`` whose value is undefined (:data:`UNDEFINED`)."""
    values = {nb.stem: glued_values(nb) for nb in notebooks(executed_dir)}
    pages = [
        (nb.name, nb.stem, "".join("".join(c.get("source", [])) for c in cells(nb) if c.get("cell_type") == "markdown"))
        for nb in notebooks(executed_dir)
    ]
    if book_dir is not None:
        pages += [(f"book/{p.name}", None, page_text(p)) for p in sorted(Path(book_dir).glob("*.md"))]
    problems = []
    for label, own, text in pages:
        # myst-nb splits a role at its last colon: another page's path::key needs a format after it
        problems += [
            f"{label}: the glue role `{body}` names another page's key without a format "
            "(myst-nb reads 'path:' as the key): add one, e.g. ':.0f'"
            for body in _ROLE.findall(text)
            if "::" in body and ":" not in body.partition("::")[2]
        ]
        for page, key in _refs(text):
            value = values.get(page or own, {}).get(key)
            if value is not None and value.strip().strip("'\"").lower() in UNDEFINED:
                problems.append(
                    f"{label}: the glued value `{key}`{f' of {page}' if page else ''} is "
                    f"{value.strip()} where the prose shows it: compute it, or say why it is undefined"
                )
    return problems
