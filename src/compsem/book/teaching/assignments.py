"""Autograded assignments from the book's exercise pages (``make assignments``, ``make grade``).

The exercise pages stay the one source. An exercise that can be graded by a machine carries, in
its ``{solution}`` block, an *answer block*: a fenced ``python`` block whose first line is
``# autograded`` and whose other lines each set one name to a literal, with what the name means
as a comment::

    ```python
    # autograded
    ned_ab = 0.75       # NED(A, B)
    c1_holds = True     # does C1 hold at epsilon = 0?
    ```

``tests/teaching`` recomputes each of these values with the library (the checks that already
tie the page's printed numbers to ``compsem``), so the answer a notebook is graded against is the
one those checks hold. For each study of the registry with an exercises page, this module writes
an otter-grader master notebook (one question per answered exercise; its hidden test asserts
every name of the block, a float within half a unit of the last decimal written, anything else
exactly; the exercises without a block are shown with a Markdown cell for a written answer,
graded by hand) and runs ``otter assign`` on it: ``_build/assignments/<part>/student/`` (the
notebook to hand out: statements and ``name = ...`` cells, no solution, no test) and
``_build/assignments/<part>/autograder/`` (the solutions notebook and ``autograder.zip``). The
grading environment in the zip is the project's own: Python 3.11 and ``requirements-lock.txt``.

:func:`grade` grades a folder of submitted notebooks without Docker (otter's ``run`` in this
environment) into one CSV of scores. It runs each student's code as the user who grades: a
lecturer who does not trust the submissions grades as an unprivileged user, or with
``otter grade`` and Docker.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import io
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from compsem.book.running.runfolder import claim_output
from compsem.errors import CompsemError
from compsem.fmt import plural
from compsem.studies import STUDIES, Study
from compsem import notebooks
from compsem.book.teaching.exercises import book_titles, chapter_numbers, exercise_blocks, render_roles, strip_solutions

__all__ = [
    "Answer",
    "Question",
    "answer_blocks",
    "questions",
    "master_notebook",
    "assignment_parts",
    "write_assignment",
    "write_assignments",
    "grade",
    "main",
]

_FENCE = re.compile(r"^(\s*)(`{3,}|:{3,})\{(solution|exercise)\}\s*(\S*)")


@dataclass(frozen=True)
class Answer:
    """One name an autograded exercise asks for: its value as the page writes it."""

    name: str
    value: object
    text: str  # the literal as written (its decimals set the tolerance)
    meaning: str

    def check(self) -> str:
        """One line of the hidden test: an ``assert`` on the student's value."""
        v = self.value
        if isinstance(v, bool) or v is None:
            return f"assert {self.name} is {v!r} or (hasattr({self.name}, 'item') and {self.name}.item() is {v!r})"
        if isinstance(v, (int, float)):
            return f"assert abs(float({self.name}) - {v!r}) <= {_tolerance(self.text)!r}"
        if isinstance(v, str):
            return f"assert str({self.name}) == {v!r}"
        if isinstance(v, (tuple, list)) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            tol = max(_tolerance(t) for t in re.findall(r"-?\d+(?:\.\d+)?", self.text))
            return (
                f"assert len({self.name}) == {len(v)} and all(abs(float(a) - b) <= {tol!r} "
                f"for a, b in zip({self.name}, {list(v)!r}))"
            )
        raise CompsemError(f"answer {self.name}: a value of type {type(v).__name__} cannot be graded")


@dataclass(frozen=True)
class Question:
    """An exercise of a page: its label, title and statement, and its answers (empty: graded by hand)."""

    label: str
    title: str
    body: str
    answers: tuple[Answer, ...]

    @property
    def name(self) -> str:
        """The question's name in otter (a Python identifier)."""
        return self.label.replace("-", "_")

    @property
    def points(self) -> int:
        return len(self.answers)


def _tolerance(literal: str) -> float:
    """Half a unit of the last decimal written (``0.1464`` -> 5e-05; ``2`` -> 0.5)."""
    m = re.search(r"\.(\d+)", literal)
    return 0.5 * 10 ** -(len(m.group(1)) if m else 0)


def _answer_lines(block: list[str], label: str) -> tuple[Answer, ...]:
    answers = []
    for line in block:
        if not line.strip() or line.strip().startswith("#"):
            continue
        code, _, meaning = line.partition("  #")
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*", code)
        if not m:
            raise CompsemError(f"{label}: answer line {line.strip()!r} is not `name = literal  # meaning`")
        try:
            value = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError) as e:
            raise CompsemError(f"{label}: the answer {m.group(1)} = {m.group(2)} is not a literal") from e
        answers.append(Answer(m.group(1), value, m.group(2), meaning.strip()))
    if not answers:
        raise CompsemError(f"{label}: its autograded block sets no name")
    return tuple(answers)


def answer_blocks(text: str) -> dict[str, tuple[Answer, ...]]:
    """``{exercise label: answers}`` of a page's ``# autograded`` blocks (inside ``{solution}`` blocks)."""
    lines = text.splitlines()
    out: dict[str, tuple[Answer, ...]] = {}
    label = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if m and m.group(3) == "solution":
            label = m.group(4)
        if re.match(r"^\s*```python\s*$", line) and i + 1 < len(lines) and lines[i + 1].strip() == "# autograded":
            if label is None:
                raise CompsemError(f"line {i + 1}: an autograded block outside a {{solution}} block")
            end = next(j for j in range(i + 2, len(lines)) if lines[j].strip() == "```")
            if label in out:
                raise CompsemError(f"{label}: two autograded blocks")
            out[label] = _answer_lines(lines[i + 2 : end], label)
    return out


def questions(text: str) -> tuple[str, list[Question]]:
    """A page's introduction and its exercises, each with the answers its solution declares."""
    answers = answer_blocks(text)
    labels = re.findall(r"^\s*(?:`{3,}|:{3,})\{exercise\}.*\n:label:\s*(\S+)", text, flags=re.M)
    intro, blocks = exercise_blocks(strip_solutions(text))
    if len(labels) != len(blocks):
        raise CompsemError(f"every exercise needs a :label: line first ({len(labels)} labels, {len(blocks)} exercises)")
    unknown = sorted(set(answers) - set(labels))
    if unknown:
        raise CompsemError(f"autograded blocks for exercises the page does not have: {unknown}")
    return intro, [Question(lab, title, body, answers.get(lab, ())) for lab, (title, body) in zip(labels, blocks)]


def _cell(kind: str, source: str, **extra) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True), **extra}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def master_notebook(
    text: str,
    *,
    name: str,
    number: int | None = None,
    titles: dict[str, str] | None = None,
    doc: str = "book/x",
    requirements: str = "requirements.txt",
) -> dict:
    """The otter-grader master notebook of an exercise page (``text``: its MyST source)."""
    titles = titles or {}
    intro, qs = questions(text)
    intro = re.sub(r"^\([\w-]+\)=\s*\n", "", intro)
    config = (
        f"# ASSIGNMENT CONFIG\nname: {name}\nrequirements: {requirements}\noverwrite_requirements: true\n"
        "python_version: '3.11'\ninit_cell: false\ncheck_all_cell: false\nexport_cell: false\n"
        "run_tests: false\ngenerate:\n  pdf: false\n  zips: false\n"
    )
    n_auto = sum(q.points for q in qs)
    cells = [
        _cell("raw", config),
        _cell(
            "markdown",
            render_roles(intro, titles, doc)
            + f"\n\n*Assignment: set the names in each answer cell; {plural(n_auto, 'point')} are graded "
            "automatically, written answers by hand.*",
        ),
    ]
    for k, q in enumerate(qs, 1):
        ex = f"{number}.{k}" if number is not None else str(k)
        statement = f"## Exercise {ex}: {render_roles(q.title, titles, doc)}\n\n{render_roles(q.body, titles, doc)}"
        if not q.answers:
            cells += [_cell("markdown", statement), _cell("markdown", "*Your written answer (graded by hand):*")]
            continue
        wanted = ", ".join(f"`{a.name}`" for a in q.answers)
        cells += [
            _cell("raw", f"# BEGIN QUESTION\nname: {q.name}\npoints: {q.points}\ncheck_cell: false\n"),
            _cell("markdown", f"{statement}\n\n*Autograded: set {wanted} in the cell below.*"),
            _cell("raw", "# BEGIN SOLUTION"),
            _cell(
                "code",
                "\n".join(
                    f"# {a.meaning}\n{a.name} = {a.text}  # SOLUTION"
                    if a.meaning
                    else f"{a.name} = {a.text}  # SOLUTION"
                    for a in q.answers
                ),
            ),
            _cell("raw", "# END SOLUTION"),
            _cell("raw", "# BEGIN TESTS"),
            _cell(
                "code",
                '""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
                + "\n".join(a.check() for a in q.answers),
            ),
            _cell("raw", "# END TESTS"),
            _cell("raw", "# END QUESTION"),
        ]
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n:02d}"
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def assignment_parts(root: Path) -> dict[str, Path]:
    """``{part: exercises page}`` for every study of the registry that has an exercises page
    (``part<N>_<study>`` -> ``book/part<N>_<study>_exercises.md``)."""
    out = {}
    for s in STUDIES:
        page = root / f"{s.page('exercises')}.md"
        if "exercises" not in s.absent and page.is_file():
            out[Path(s.page()).name] = page
    return out


def _study_of(part: str) -> Study:
    for s in STUDIES:
        if Path(s.page()).name == part:
            return s
    raise CompsemError(
        f"unknown assignment {part!r}; the assignments are {', '.join(Path(s.page()).name for s in STUDIES)}"
    )


def grading_requirements(root: Path) -> str:
    """The grading environment's pip requirements: the project's lock, pin for pin."""
    lock = root / "requirements-lock.txt"
    pins = [ln for ln in lock.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    return (
        "# The project's grading environment (Python 3.11): requirements-lock.txt, written by "
        "make assignments\n" + "\n".join(pins) + "\n"
    )


def write_assignment(root: Path, part: str, out: Path, *, quiet: bool = True) -> Path:
    """Write one Part's assignment into ``out/<part>/{student,autograder}`` with ``otter assign``;
    returns the autograder zip. ``out/<part>`` is emptied first only when its manifest says it is
    an assignment folder of the caller's (:func:`compsem.book.running.runfolder.claim_output`);
    a folder holding anything else is refused."""
    study = _study_of(part)
    numbers = chapter_numbers((root / "_toc.yml").read_text(encoding="utf-8")) if (root / "_toc.yml").is_file() else {}
    folder = out / part
    claim_output(folder, kind="assignment", clear=True)  # never a folder that is not this user's assignment
    with tempfile.TemporaryDirectory(prefix="compsem-assign-") as tmp:
        return _assign(root, study, part, folder, Path(tmp), numbers, quiet)


def _assign(root: Path, study: Study, part: str, folder: Path, src: Path, numbers: dict, quiet: bool) -> Path:
    page = root / f"{study.page('exercises')}.md"
    (src / "requirements.txt").write_text(grading_requirements(root), encoding="utf-8")
    nb = master_notebook(
        page.read_text(encoding="utf-8"),
        name=part,
        number=numbers.get(study.page("exercises")),
        titles=book_titles(root),
        doc=study.page("exercises"),
    )
    master = src / f"{part}.ipynb"
    master.write_text(notebooks.dumps(nb), encoding="utf-8")
    dist = src / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "otter", "assign", "--no-pdfs", str(master), str(dist)], capture_output=True, text=True
    )
    if r.returncode != 0:
        raise CompsemError(f"otter assign failed on {master}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    for kind in ("student", "autograder"):
        shutil.move(str(dist / kind), str(folder / kind))
    zips = sorted((folder / "autograder").glob("*-autograder_*.zip"))
    if len(zips) != 1:
        raise CompsemError(f"otter assign wrote {len(zips)} autograder zips in {folder / 'autograder'}")
    target = zips[0].rename(folder / "autograder" / "autograder.zip")
    if not quiet:
        print(f"{part}: {folder / 'student' / master.name} and {target}")
    return target


def write_assignments(root: Path, out: Path, parts: list[str] | None = None, *, quiet: bool = True) -> list[Path]:
    """Every Part's assignment (or those named in ``parts``); returns the autograder zips."""
    return [write_assignment(root, part, out, quiet=quiet) for part in (parts or list(assignment_parts(root)))]


def grade(autograder: Path, submissions: Path, csv_path: Path) -> list[dict]:
    """Grade every ``*.ipynb`` in ``submissions`` with ``autograder`` (otter's non-containerised
    run, in this environment) and write one row per submission to ``csv_path``: the file, each
    question's score, the total and the points possible. A submission that cannot be run at all
    is a row with its error, never a crash of the whole grading."""
    from otter.run import main as otter_run  # otter-grader is the `teaching` extra, imported when grading

    files = sorted(Path(submissions).glob("*.ipynb"))
    if not files:
        raise CompsemError(f"no notebook (*.ipynb) in {submissions} to grade")
    rows, names = [], []
    for path in files:
        log = io.StringIO()
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                result = otter_run(str(path), autograder=str(autograder), output_dir=None, no_logo=True)
            scores = {k: float(v.score or 0) for k, v in result.results.items()}
            row = {
                "submission": path.name,
                **scores,
                "total": float(result.total),
                "possible": float(result.possible),
                "error": "",
            }
        except Exception as e:  # noqa: BLE001 - one broken submission is a row, not the end of the grading
            row = {"submission": path.name, "total": 0.0, "possible": float("nan"), "error": f"{type(e).__name__}: {e}"}
        names += [k for k in row if k not in names]
        rows.append(row)
    questions_ = [n for n in names if n not in ("submission", "total", "possible", "error")]
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["submission", *questions_, "total", "possible", "error"], restval=0.0)
        w.writeheader()
        w.writerows(rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m compsem.book.teaching.assignments", description=__doc__.splitlines()[0]
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("assign", help="write the assignments (make assignments)")
    a.add_argument("--root", default=".")
    a.add_argument("--out", default="_build/assignments")
    a.add_argument("parts", nargs="*", help="the Parts (default: every Part with an exercises page)")
    g = sub.add_parser("grade", help="grade a folder of submissions (make grade)")
    g.add_argument(
        "assignment", help="a Part's name (part<N>_<study>, a folder of _build/assignments) or an autograder zip"
    )
    g.add_argument("submissions")
    g.add_argument("--out", default="_build/assignments")
    g.add_argument("--csv", default=None, help="default: OUT/<part>/grades.csv")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "assign":
            zips = write_assignments(Path(args.root), Path(args.out), args.parts, quiet=False)
            print(f"{plural(len(zips), 'assignment')} in {args.out}")
            return 0
        zip_ = Path(args.assignment)
        if not zip_.is_file():
            _study_of(args.assignment)
            zip_ = Path(args.out) / args.assignment / "autograder" / "autograder.zip"
            if not zip_.is_file():
                raise CompsemError(f"{zip_} does not exist: run `make assignments` first")
        target = Path(args.csv) if args.csv else zip_.parent.parent / "grades.csv"
        rows = grade(zip_, Path(args.submissions), target)
        print(f"{plural(len(rows), 'submission')} graded: {target}")
        return 0
    except CompsemError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
