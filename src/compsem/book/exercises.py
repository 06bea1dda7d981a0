"""Student copies of the exercises, without their solutions (``make exercises``).

Two kinds of source:

* the Parts' exercise pages ``book/part*_exercises.md`` (MyST): every ``{solution}`` block (back-tick
  or colon fence, any length, nested code blocks included) and every gated
  ``{solution-start}`` … ``{solution-end}`` span is dropped. Each page is written twice: as
  Markdown, and as a notebook with one Markdown cell per exercise followed by an empty code cell
  for the answer (after a copy of the chapters' set-up cell, so that it also runs on Colab);
* chapter notebooks: cells tagged ``solution`` are dropped (and outputs cleared); a chapter
  without such a cell has nothing to hide and is not copied.

``python -m compsem.book.exercises --out _build/exercises`` writes them; the module uses only the
standard library, so ``python src/compsem/book/exercises.py`` works before the venv exists.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from ..fmt import plural

__all__ = ["strip_solutions", "exercise_blocks", "page_notebook", "student_notebook", "write_student_copies", "main"]

_OPEN = re.compile(r"^(\s*)(`{3,}|:{3,})\{(solution|solution-start|solution-end|exercise)\}(.*)$")


def _fence_end(lines: list[str], start: int, fence: str) -> int:
    """Index of the line closing the directive opened at ``start`` with ``fence``."""
    char, n = fence[0], len(fence)
    for j in range(start + 1, len(lines)):
        s = lines[j].strip()
        if s and set(s) == {char} and len(s) >= n:
            return j
    raise ValueError(f"line {start + 1}: the {fence} block opened here is never closed")


def strip_solutions(text: str) -> str:
    """MyST text without its solution blocks (the blank lines around a block collapse to one)."""
    lines = text.splitlines()
    out: list[str] = []
    i, gated = 0, False
    while i < len(lines):
        m = _OPEN.match(lines[i])
        kind = m.group(3) if m else None
        if kind in ("solution", "solution-start", "solution-end"):
            end = _fence_end(lines, i, m.group(2))
            if kind == "solution-start":
                gated = True
            elif kind == "solution-end":
                gated = False
            i = end + 1
            continue
        if not gated:
            out.append(lines[i])
        i += 1
    if gated:
        raise ValueError("a {solution-start} block has no {solution-end}")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def exercise_blocks(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first exercise and each exercise as ``(title, body)``; option lines
    (``:label:``, ``:class:``) are left out of the body."""
    lines = text.splitlines()
    intro: list[str] = []
    blocks: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if m and m.group(3) == "exercise":
            end = _fence_end(lines, i, m.group(2))
            body = [ln for ln in lines[i + 1:end] if not re.match(r"^:[\w-]+:", ln)]
            blocks.append((m.group(4).strip(), "\n".join(body).strip()))
            i = end + 1
            continue
        if not blocks:
            intro.append(lines[i])
        i += 1
    return "\n".join(intro).strip(), blocks


def _md_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def page_notebook(text: str, setup: dict | None = None) -> dict:
    """A notebook of a (solution-free) exercise page: the page's introduction, then per exercise
    its statement and an empty code cell for the answer. ``setup`` (the chapters' set-up cell)
    goes first, so that the copy also runs on Colab."""
    intro, blocks = exercise_blocks(text)
    intro = re.sub(r"^\([\w-]+\)=\s*\n", "", intro)          # MyST target labels mean nothing in Jupyter
    cells = [_md_cell(intro + "\n\n*Student copy: the solutions are in the book.*")]
    if setup is not None:
        cells.append({k: v for k, v in setup.items() if k != "id"})
    for k, (title, body) in enumerate(blocks, 1):
        cells.append(_md_cell(f"## Exercise {k}: {title}\n\n{body}"))
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {"tags": ["answer"]}, "outputs": [],
                      "source": ["# your answer"]})
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n:02d}"
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"}, "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def student_notebook(nb: dict) -> dict | None:
    """``nb`` without its cells tagged ``solution`` (outputs cleared), or ``None`` if it has none."""
    keep = [c for c in nb["cells"] if "solution" not in c.get("metadata", {}).get("tags", [])]
    if len(keep) == len(nb["cells"]):
        return None
    cells = [{**c, "outputs": [], "execution_count": None} if c["cell_type"] == "code" else c for c in keep]
    return {**nb, "cells": cells}


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def _write(path: Path, text: str) -> Path:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:   # unchanged files keep their time
        path.write_text(text, encoding="utf-8")
    return path


def _setup_cell(root: Path) -> dict | None:
    """The set-up cell of the toolkit chapter (its repository and commit as ``make launch-cell``
    wrote them), or ``None``."""
    path = root / "notebooks" / "00_toolkit.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"] if path.is_file() else []
    return next((c for c in cells if "compsem-setup" in c.get("metadata", {}).get("tags", [])), None)


def write_student_copies(root: Path, out: Path) -> list[Path]:
    """Write the student copies of ``root``'s exercise pages and chapters into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    setup = _setup_cell(root)
    for page in sorted((root / "book").glob("part*_exercises.md")):
        text = strip_solutions(page.read_text(encoding="utf-8"))
        written.append(_write(out / page.name, text))
        written.append(_write(out / page.with_suffix(".ipynb").name, _dump(page_notebook(text, setup))))
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        nb = student_notebook(json.loads(path.read_text(encoding="utf-8")))
        if nb is not None:
            written.append(_write(out / path.name, _dump(nb)))
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compsem.book.exercises", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="the repository (default: the working directory)")
    ap.add_argument("--out", default="_build/exercises")
    args = ap.parse_args(argv)
    written = write_student_copies(Path(args.root), Path(args.out))
    print(f"{plural(len(written), 'student file')} in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
