"""Student copies of the exercises, without their solutions (``make exercises``).

Two kinds of source:

* the Parts' exercise pages ``book/part*_exercises.md`` (MyST): every ``{solution}`` block (back-tick
  or colon fence, any length, nested code blocks included) and every gated
  ``{solution-start}`` … ``{solution-end}`` span is dropped, and the page is written as plain
  Markdown, the handout. (It is built as a notebook with one Markdown cell per exercise, after a
  set-up cell, by :func:`page_notebook`; that notebook is not written: a Part's one student
  notebook is the gradeable one of :mod:`.assignments`, ``make release``.) Exercises are
  numbered as the book numbers them (chapter number from ``_toc.yml``, then the exercise's
  place: "Exercise 3.2"), and MyST roles that Jupyter cannot render (``{ref}``, ``{doc}``,
  ``{numref}``, …) become the text the book shows: the reference's own text, or the title of the
  section, page or exercise it points to;
* chapter notebooks: cells tagged ``solution`` are dropped (and outputs cleared); a chapter
  without such a cell has nothing to hide and is not copied.

``python -m compsem.book.teaching.exercises --out _build/exercises`` writes them (``make exercises``).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from compsem.errors import CompsemError
from compsem.fmt import plural
from compsem import notebooks
from compsem.book.executed import NOT_BUILT, glued_number, glued_numbers

__all__ = [
    "strip_solutions",
    "exercise_blocks",
    "chapter_numbers",
    "book_titles",
    "glued_numbers",
    "render_roles",
    "page_notebook",
    "page_markdown",
    "student_notebook",
    "student_setup",
    "unbuilt_values",
    "write_student_copies",
    "main",
]

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
            body = [ln for ln in lines[i + 1 : end] if not re.match(r"^:[\w-]+:", ln)]
            blocks.append((m.group(4).strip(), "\n".join(body).strip()))
            i = end + 1
            continue
        if not blocks:
            intro.append(lines[i])
        i += 1
    return "\n".join(intro).strip(), blocks


def _md_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


_TOC_FILE = re.compile(r"^(\s*)- file: (\S+)\s*$")


def chapter_numbers(toc: str) -> dict[str, int]:
    """``{file: chapter number}`` for a jupyter-book ``_toc.yml`` (text): chapters of numbered
    parts are counted in order, the numbers running on across parts, and a section gets its
    chapter's number (the number sphinx puts in front of the section's exercises and figures).
    Read line by line, so that it needs no YAML library."""
    numbers: dict[str, int] = {}
    n, numbered, chapter_indent, current = 0, False, None, None
    for line in toc.splitlines():
        stripped = line.strip()
        if re.match(r"^-?\s*caption:", stripped):
            numbered, chapter_indent, current = False, None, None
        elif re.match(r"^-?\s*numbered:\s*true\b", stripped, re.I):
            numbered = True
        elif stripped == "chapters:":
            chapter_indent = None
        m = _TOC_FILE.match(line)
        if not m:
            continue
        indent, file = len(m.group(1)), m.group(2)
        if chapter_indent is None:
            chapter_indent = indent
        if indent == chapter_indent:
            current = None
            if numbered:
                n += 1
                current = n
        if current is not None:
            numbers[file] = current
    return numbers


def _heading_after_label(lines: list[str], i: int) -> str | None:
    for line in lines[i + 1 : i + 4]:
        m = re.match(r"^#+\s+(.+?)\s*$", line)
        if m:
            return m.group(1)
        if line.strip():
            return None
    return None


def book_titles(root: Path) -> dict[str, str]:
    """What the book shows for each target a page can point to: ``label`` → the title of the
    section it stands before, ``doc:<path without suffix>`` → the page's first heading, and an
    exercise's label → "Exercise N.k" (numbered as :func:`chapter_numbers` and the page's order)."""
    titles: dict[str, str] = {}
    toc = root / "_toc.yml"
    numbers = chapter_numbers(toc.read_text(encoding="utf-8")) if toc.is_file() else {}
    sources: list[tuple[str, str]] = []
    for md in sorted((root / "book").glob("*.md")):
        sources.append((f"book/{md.stem}", md.read_text(encoding="utf-8")))
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        cells = notebooks.cells(nb)
        sources.append(
            (
                f"notebooks/{nb.stem}",
                "\n\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown"),
            )
        )
    for doc, text in sources:
        lines = text.splitlines()
        first = next((m.group(1) for m in map(re.compile(r"^#\s+(.+?)\s*$").match, lines) if m), None)
        if first:
            titles[f"doc:{doc}"] = first
        for i, line in enumerate(lines):
            m = re.match(r"^\(([\w.:-]+)\)=\s*$", line)
            if m and (title := _heading_after_label(lines, i)):
                titles[m.group(1)] = title
        k = 0
        for i, line in enumerate(lines):
            if _OPEN.match(line) and _OPEN.match(line).group(3) == "exercise":
                k += 1
                label = next(
                    (m.group(1) for m in map(re.compile(r"^:label:\s*(\S+)").match, lines[i + 1 : i + 4]) if m), None
                )
                if label:
                    titles[label] = f"Exercise {numbers[doc]}.{k}" if doc in numbers else f"Exercise {k}"
    return titles


_ROLE = re.compile(
    r"\{(ref|numref|doc|download|eq|cite|cite:p|cite:t|term|math|abbr|glue|glue:text|glue:md|glue:any)\}`([^`]*)`"
)


def render_roles(
    text: str, titles: dict[str, str], doc: str = "book/x", glued: dict[str, dict[str, str]] | None = None
) -> str:
    """``text`` with its MyST roles as the book would show them, in plain Markdown.

    ``{ref}`words <label>``` → *words*; ``{ref}`label``` → the target's title in italics;
    ``{numref}`` → the exercise's or section's name; ``{doc}`` → the page's title; ``{math}`` →
    ``$…$``; ``{cite}`` → ``[key]``; any other role → its text. ``doc`` is the page's own path
    (``book/part1_setcomp_exercises``), against which ``{doc}`` paths are read. A label that
    is not in ``titles`` is shown as written, never dropped. ``{glue}`` roles show the value of
    ``glued`` (:func:`glued_numbers`) in the role's format, or :data:`NOT_BUILT`."""

    def one(m: re.Match) -> str:
        role, body = m.group(1), m.group(2)
        if role.startswith("glue"):
            return glued_number(body, glued or {}, doc)
        explicit = re.match(r"^(.*?)\s*<([^>]+)>$", body, re.S)
        text, target = (explicit.group(1), explicit.group(2)) if explicit else (None, body)
        if role == "math":
            return f"${body}$"
        if role.startswith("cite"):
            return f"[{body}]"
        if role == "doc":
            path = (Path(doc).parent / target).as_posix()
            parts: list[str] = []
            for part in path.split("/"):
                if part == "..":
                    parts = parts[:-1]
                elif part not in ("", "."):
                    parts.append(part)
            return f"*{text or titles.get('doc:' + '/'.join(parts), target)}*"
        if role in ("ref", "numref"):
            if text:
                return f"*{text}*" if role == "ref" else text.replace("{number}", titles.get(target, target))
            name = titles.get(target, target)
            return name if name.startswith("Exercise ") else f"*{name}*"
        return text or target

    return _ROLE.sub(one, text)


def page_notebook(
    text: str,
    setup: dict | None = None,
    number: int | None = None,
    titles: dict[str, str] | None = None,
    doc: str = "book/x",
    glued: dict[str, dict[str, str]] | None = None,
) -> dict:
    """A notebook of a (solution-free) exercise page: the page's introduction, then per exercise
    its statement and an empty code cell for the answer. ``setup`` (a set-up cell) goes first,
    so that the copy also runs on Colab. ``number`` is the page's chapter number in the book
    (exercises read "Exercise 3.2"; without it, 1, 2, …); ``titles`` (:func:`book_titles`) turns
    MyST roles into text."""
    titles = titles or {}
    intro, blocks = exercise_blocks(text)
    intro = re.sub(r"^\([\w-]+\)=\s*\n", "", intro)  # MyST target labels mean nothing in Jupyter
    cells = [_md_cell(render_roles(intro, titles, doc, glued) + "\n\n*Student copy: the solutions are in the book.*")]
    if setup is not None:
        cells.append({k: v for k, v in setup.items() if k != "id"})
    for k, (title, body) in enumerate(blocks, 1):
        name = f"{number}.{k}" if number is not None else str(k)
        cells.append(
            _md_cell(
                f"## Exercise {name}: {render_roles(title, titles, doc, glued)}\n\n"
                f"{render_roles(body, titles, doc, glued)}"
            )
        )
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {"tags": ["answer"]},
                "outputs": [],
                "source": ["# your answer"],
            }
        )
    return notebooks.new(cells, number_ids=True)


def page_markdown(nb: dict) -> str:
    """The plain-Markdown student copy: the notebook's Markdown cells, in order."""
    return "\n\n".join("".join(c["source"]).strip() for c in nb["cells"] if c["cell_type"] == "markdown") + "\n"


def student_notebook(nb: dict) -> dict | None:
    """``nb`` without its cells tagged ``solution`` (outputs cleared), or ``None`` if it has none."""
    keep = [c for c in nb["cells"] if "solution" not in c.get("metadata", {}).get("tags", [])]
    if len(keep) == len(nb["cells"]):
        return None
    cells = [{**c, "outputs": [], "execution_count": None} if c["cell_type"] == "code" else c for c in keep]
    return {**nb, "cells": cells}


def _dump(nb: dict) -> str:
    return notebooks.dumps(nb)


def _write(path: Path, text: str) -> Path:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:  # unchanged files keep their time
        path.write_text(text, encoding="utf-8")
    return path


def _setup_cell(root: Path) -> dict | None:
    """The set-up cell of the toolkit chapter (its repository and commit as ``make launch-cell``
    wrote them), or ``None``."""
    path = root / "notebooks" / "00_toolkit.ipynb"
    cells = notebooks.cells(path) if path.is_file() else []
    return next((c for c in cells if "compsem-setup" in c.get("metadata", {}).get("tags", [])), None)


#: The set-up cell of a student copy when no repository is configured: it finds a checkout as the
#: chapters' cell does, and otherwise says in one line what to do, without stopping the notebook
#: (the by-hand exercises need nothing installed).
NO_REPO_SETUP = """\
# Set-up: finds the study's checkout (COMPSEM_ROOT, or a folder above this notebook). The by-hand
# exercises need nothing installed; the reruns need the study.
import os
from pathlib import Path

_compsem_root = os.environ.get("COMPSEM_ROOT") or next(
    (str(d) for d in (Path.cwd(), *Path.cwd().parents) if (d / "pyproject.toml").is_file() and (d / "src" / "compsem").is_dir()),
    None)
if _compsem_root:
    os.environ["COMPSEM_ROOT"] = _compsem_root
    print(f"The study's checkout: {_compsem_root}")
else:
    print("No checkout of the study found: the by-hand exercises need none; for the reruns, open this "
          "notebook in a clone's JupyterLab (make lab) or set COMPSEM_ROOT to a clone.")
try:   # table cells show their whole text
    import pandas as _pd
    _pd.set_option("display.max_colwidth", None)
except ImportError:
    pass
"""


def _configured_repo(cell: dict) -> str:
    """The ``COMPSEM_REPO`` a chapters' set-up cell names ("" when none or unreadable)."""
    m = re.search(r"^COMPSEM_REPO = (.+)$", "".join(cell.get("source", "")), flags=re.M)
    try:
        value = ast.literal_eval(m.group(1)) if m else ""
    except (ValueError, SyntaxError):
        return ""
    return value if isinstance(value, str) else ""


def student_setup(setup: dict | None) -> dict:
    """The set-up cell of a student copy: the chapters' own cell when it names a repository (it
    clones and installs the study on Colab), else :data:`NO_REPO_SETUP`, which never raises."""
    if setup is not None and _configured_repo(setup).strip():
        return setup
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"tags": ["remove-cell", "compsem-setup"]},
        "outputs": [],
        "source": NO_REPO_SETUP.splitlines(keepends=True),
    }


def unbuilt_values(text: str, glued: dict[str, dict[str, str]], doc: str) -> list[str]:
    """The ``chapter::key`` of every ``{glue}`` role of ``text`` whose value ``glued`` lacks."""
    missing = []
    for m in _ROLE.finditer(text):
        if m.group(1).startswith("glue") and glued_number(m.group(2), glued, doc) == NOT_BUILT:
            page, sep, rest = m.group(2).partition("::")
            missing.append(f"{Path(page).stem}::{rest.partition(':')[0]}" if sep else m.group(2).partition(":")[0])
    return missing


def write_student_copies(root: Path, out: Path, executed: Path | None = None, *, strict: bool = False) -> list[Path]:
    """Write the student copies of ``root``'s exercise pages (the Markdown handouts; the Part's
    student notebook is the gradeable one, ``make release``) and chapters into ``out``; glued
    numbers come from the executed chapters in ``executed`` (default: ``root``'s
    ``_build/executed/notebooks``, when a build exists). With ``strict`` (``make exercises``), a
    number the build lacks is a :class:`~compsem.errors.CompsemError` naming the page, the
    chapter and the value, before anything is written; otherwise it reads :data:`NOT_BUILT`."""
    written = []
    setup = student_setup(_setup_cell(root))
    toc = root / "_toc.yml"
    numbers = chapter_numbers(toc.read_text(encoding="utf-8")) if toc.is_file() else {}
    titles = book_titles(root)
    executed = executed if executed is not None else root / "_build" / "executed" / "notebooks"
    glued = glued_numbers(executed)
    pages = sorted((root / "book").glob("part*_exercises.md"))
    if strict:
        missing = [
            f"{p.name}: {v}"
            for p in pages
            for v in unbuilt_values(strip_solutions(p.read_text(encoding="utf-8")), glued, f"book/{p.stem}")
        ]
        if missing:
            chapters = sorted({m.split(": ", 1)[1].split("::")[0] for m in missing})
            raise CompsemError(
                f"the student copies would show numbers that no executed chapter in {executed} holds "
                f"({'; '.join(missing)}); build them first (make book, or for each chapter "
                + ", ".join(
                    f"`.venv/bin/python -m compsem run notebooks/{c}.ipynb --book --out {executed}`" for c in chapters
                )
                + ")"
            )
    out.mkdir(parents=True, exist_ok=True)
    for page in pages:
        doc = f"book/{page.stem}"
        text = strip_solutions(page.read_text(encoding="utf-8"))
        nb = page_notebook(text, setup, numbers.get(doc), titles, doc, glued)
        written.append(_write(out / page.name, page_markdown(nb)))
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        nb = student_notebook(notebooks.read(path))
        if nb is not None:
            written.append(_write(out / path.name, _dump(nb)))
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compsem.book.teaching.exercises", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="the repository (default: the working directory)")
    ap.add_argument("--out", default="_build/exercises")
    ap.add_argument(
        "--executed",
        default=None,
        help="the executed chapters whose glued numbers the copies show (default: ROOT/_build/executed/notebooks)",
    )
    args = ap.parse_args(argv)
    try:
        written = write_student_copies(
            Path(args.root), Path(args.out), Path(args.executed) if args.executed else None, strict=True
        )
    except CompsemError as e:
        print(f"make exercises refuses: {e}", file=sys.stderr)
        return 2
    print(f"{plural(len(written), 'student file')} in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
