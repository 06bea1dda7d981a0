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
an otter-grader master notebook and runs ``otter assign`` on it. Each answered exercise is a
question worth one point per name: each name has a public test (its type and range, never its
value: a blank ``name = ...`` or a wrong type fails it) and a hidden test (its value: a number
within one unit of the last decimal its answer cell asks for, anything else exactly; the
built-ins called through ``builtins``). The student notebook has otter's set-up cell, a
``grader.check`` cell per question and a ``grader.check_all()`` cell; the exercises without a
block have a Markdown cell for a written answer, graded by hand. ``_build/assignments/<part>/``
gets ``student/`` (the notebook to hand out: statements and ``name = ...`` cells, no solution,
no hidden test) and ``autograder/`` (the solutions notebook and ``autograder.zip``, which also
holds the key ``make grade`` scores against, ``compsem-key.json``). The grading environment in
the zip is the project's own: Python 3.11 and ``requirements-lock.txt``. Glued numbers of a page
are filled from the executed chapters, as ``make exercises`` does; a number no build holds stops
``assign`` with the chapter to build.

``grade`` (:mod:`.grading`) grades a folder of submissions, each in its own bubblewrap sandbox,
scored outside it, into one CSV; Docker (``otter grade``) is the alternative.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from compsem import notebooks
from compsem.book.running.runfolder import claim_output
from compsem.errors import CompsemError
from compsem.fmt import plural
from compsem.studies import STUDIES, Study
from compsem.book.executed import glued_numbers
from compsem.book.teaching.grading import Limits, default_csv, grade
from compsem.book.teaching.exercises import (
    book_titles,
    chapter_numbers,
    exercise_blocks,
    page_markdown,
    page_notebook,
    render_roles,
    strip_solutions,
    unbuilt_values,
)

__all__ = [
    "Answer",
    "Question",
    "answer_blocks",
    "questions",
    "master_notebook",
    "assignment_parts",
    "answer_key",
    "read_key",
    "write_assignment",
    "write_assignments",
    "write_release",
    "grade",
    "main",
]

_FENCE = re.compile(r"^(\s*)(`{3,}|:{3,})\{(solution|exercise)\}\s*(\S*)")


@dataclass(frozen=True)
class Answer:
    """One name an autograded exercise asks for: its value as the page writes it."""

    name: str
    value: object
    text: str  # the literal as written (its decimals are the precision asked for)
    meaning: str

    @property
    def decimals(self) -> int | None:
        """The decimals asked for: the most written in the literal's numbers (``0.1464`` -> 4),
        ``None`` for an answer that has no number or only whole numbers (graded exactly)."""
        places = [len(m.group(1)) for m in re.finditer(r"\d\.(\d+)", self.text)]
        return max(places) if places else None

    @property
    def tolerance(self) -> float:
        """One unit of the last decimal asked for (``0.1464`` -> 0.0001; a whole number: 0): the
        key is itself rounded to those decimals, so every correct rounding of the true value lies
        within one unit of it, and an unrounded correct value within half a unit."""
        return 0.0 if self.decimals is None else 10.0**-self.decimals

    def kind(self, optional: bool = False) -> str:
        """What the answer cell asks for, in words (``optional``: None is a possible answer)."""
        v = self.value
        if isinstance(v, bool):
            return "True or False"
        if isinstance(v, str):
            return "a string"
        precision = (
            f", {plural(self.decimals, 'decimal')}" + (" each" if isinstance(v, (tuple, list)) else "")
            if self.decimals is not None
            else ", a whole number"
        )
        if isinstance(v, (tuple, list)):
            return f"{len(v)} numbers in parentheses{precision}"
        if v is None or isinstance(v, (int, float)):
            return f"a number{precision}" + (", or None" if optional or v is None else "")
        raise CompsemError(f"answer {self.name}: a value of type {type(v).__name__} cannot be graded")

    def accepts(self, value: object) -> bool:
        """Whether ``value`` (as the sandbox's JSON reports it: bool, number, str, None, list)
        earns the answer's point: True/False, None and strings exactly, numbers within
        :attr:`tolerance`. Run by the grader, outside any submission's process."""
        return _accepts(self.value, value, self.tolerance)

    def check(self) -> str:
        """The hidden test of this name (in otter's ``autograder.zip``, for ``otter grade``): the
        rule of :meth:`accepts`, calling the built-ins through ``builtins`` so that a submission's
        ``abs = ...`` changes nothing. (``make grade`` does not run it: it scores outside.)"""
        v, n, tol = self.value, self.name, self.tolerance * (1 + 1e-9)
        head = "import builtins as _b, numbers as _numbers\nimport numpy as _np\n"
        number = (
            "(_b.isinstance({x}, _numbers.Real) and not _b.isinstance({x}, (_b.bool, _np.bool_)) and "
            "_b.abs(_b.float({x}) - {k!r}) <= {tol!r})"
        )
        if isinstance(v, bool):
            return head + f"assert _b.isinstance({n}, (_b.bool, _np.bool_)) and _b.bool({n}) is {v!r}"
        if v is None:
            return head + f"assert {n} is None"
        if isinstance(v, str):
            return head + f"assert _b.isinstance({n}, _b.str) and _b.str.__eq__({n}, {v!r}) is True"
        if isinstance(v, (tuple, list)):
            items = " and ".join(number.format(x=f"{n}[{i}]", k=float(k), tol=tol) for i, k in enumerate(v))
            return head + f"assert _b.isinstance({n}, (_b.tuple, _b.list)) and _b.len({n}) == {len(v)} and {items}"
        if isinstance(v, (int, float)):
            return head + "assert " + number.format(x=n, k=float(v), tol=tol)
        raise CompsemError(f"answer {self.name}: a value of type {type(v).__name__} cannot be graded")

    def public_check(self, optional: bool = False) -> str:
        """The public test of this name: its type and range, never its value. A blank
        (``name = ...``) or wrong-type answer fails it; a correct answer always passes."""
        v, n = self.value, self.name
        number = f"(_b.isinstance({n}, _numbers.Real) and not _b.isinstance({n}, (_b.bool, _np.bool_)) and _math.isfinite({n}))"
        head = "import builtins as _b, math as _math, numbers as _numbers\nimport numpy as _np\n"
        if isinstance(v, bool):
            return head + f"assert _b.isinstance({n}, (_b.bool, _np.bool_)), {f'{n} must be True or False'!r}"
        if isinstance(v, str):
            return head + f"assert _b.isinstance({n}, _b.str), {f'{n} must be a string'!r}"
        if isinstance(v, (tuple, list)):
            item = number.replace(f"({n},", "(_x,").replace(f"isfinite({n})", "isfinite(_x)")
            return head + (
                f"assert _b.isinstance({n}, (_b.tuple, _b.list)) and _b.len({n}) == {len(v)} and "
                f"_b.all({item} for _x in {n}), {f'{n} must be {len(v)} numbers'!r}"
            )
        lo, hi = _range(v, self.tolerance)
        rng = "" if lo is None else f" and {lo!r} <= {n}" + ("" if hi is None else f" <= {hi!r}")
        words = "a number" + ("" if lo is None else (" between 0 and 1" if hi is not None else " of at least 0"))
        cond = number + rng
        if optional or v is None:
            cond, words = f"{n} is None or ({cond})", words + " or None"
        return head + f"assert {cond}, {f'{n} must be {words}'!r}"


def _comment(a: Answer, optional: bool) -> str:
    """An answer line's comment in the student notebook: what the name means and what to give."""
    kind = a.kind(optional)
    if not a.meaning:
        return kind
    if kind in a.meaning:
        return a.meaning
    return f"{re.sub(r'[?]$', '', a.meaning)}: {kind}" + ("?" if a.meaning.endswith("?") else "")


def _range(key: float | None, tol: float) -> tuple[float | None, float | None]:
    """The range a public test states for a number whose key is ``key``: between 0 and 1 for a
    key in [0, 1], at least 0 for a larger one, any number otherwise (two ``tol`` of slack, so
    that a correct answer, one unit off the key at most, never fails it)."""
    if key is None or key < 0:
        return None, None
    if key <= 1:
        return -2 * tol, 1 + 2 * tol
    return -2 * tol, None


def _accepts(key: object, value: object, tol: float) -> bool:
    """The grading rule (see :meth:`Answer.accepts`), in built-ins only."""
    if isinstance(key, bool) or key is None or isinstance(key, str):
        return type(value) is type(key) and value == key
    if isinstance(key, (tuple, list)):
        return (
            type(value) in (list, tuple)
            and len(value) == len(key)
            and all(_accepts(k, v, tol) for k, v in zip(key, value))
        )
    if type(value) not in (int, float) or not math.isfinite(value):
        return False
    return abs(float(value) - float(key)) <= tol * (1 + 1e-9)


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
        """One point per name."""
        return len(self.answers)

    @property
    def written(self) -> bool:
        """Whether the question is (also) answered in writing, graded by hand: it has no answer
        block, or its statement asks why or for an explanation."""
        return not self.answers or _ASKS_IN_WORDS.search(self.body) is not None

    @property
    def optional(self) -> bool:
        """Whether None is a possible answer of the question's numbers (one of its keys is None)."""
        return any(a.value is None for a in self.answers)


#: A statement that asks for an answer in words ("... and why?", "Explain ...").
_ASKS_IN_WORDS = re.compile(r"\b(?:why|explain)\b", re.I)


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


#: What the assignment's first cell says about its grading (the precision rule is stated here and
#: each answer cell's comment gives the decimals of its name).
GRADING_NOTE = """\
*Assignment: set the names in each answer cell; {points} are graded automatically (one per name),
written answers by hand.*

*How it is graded: give each number to the decimals its comment asks for (more decimals are
fine). A number counts when it lies within one unit of the last of those decimals of the key
(within 0.0001 for "4 decimals"): the key is itself rounded, so every correct rounding counts.
A whole number, True or False, None and a string count only when exact. The `grader.check`
cells check the type and range of your answers, never their values: passing them does not mean
an answer is right.*"""

#: The marked cell of a written answer (after the exercise, or after its autograded answer cell
#: when the exercise also asks why): its metadata ``compsem.written`` names the question, and the
#: grades file leaves the column ``<question> (written, by hand)`` for it.
WRITTEN_ANSWER = (
    "**Written answer to Exercise {ex}** (graded by hand, with the rubric of the course guide): "
    "replace this line with your answer."
)


def written_cell(q: Question, ex: str) -> dict:
    """The marked written-answer cell of question ``q`` (Exercise ``ex``)."""
    return _cell(
        "markdown",
        WRITTEN_ANSWER.format(ex=ex),
        metadata={"tags": ["written-answer"], "compsem": {"written": q.name}},
    )


def master_notebook(
    text: str,
    *,
    name: str,
    number: int | None = None,
    titles: dict[str, str] | None = None,
    doc: str = "book/x",
    requirements: str = "requirements.txt",
    glued: dict[str, dict[str, str]] | None = None,
) -> dict:
    """The otter-grader master notebook of an exercise page (``text``: its MyST source)."""
    titles = titles or {}
    intro, qs = questions(text)
    intro = re.sub(r"^\([\w-]+\)=\s*\n", "", intro)
    config = (
        f"# ASSIGNMENT CONFIG\nname: {name}\nrequirements: {requirements}\noverwrite_requirements: true\n"
        "python_version: '3.11'\ninit_cell: true\ncheck_all_cell: true\nexport_cell: false\n"
        "run_tests: false\ngenerate:\n  pdf: false\n  zips: false\n"
    )
    n_auto = sum(q.points for q in qs)
    cells = [
        _cell("raw", config),
        _cell(
            "markdown",
            render_roles(intro, titles, doc, glued) + "\n\n" + GRADING_NOTE.format(points=plural(n_auto, "point")),
        ),
    ]
    for k, q in enumerate(qs, 1):
        ex = f"{number}.{k}" if number is not None else str(k)
        statement = (
            f"## Exercise {ex}: {render_roles(q.title, titles, doc, glued)}\n\n"
            f"{render_roles(q.body, titles, doc, glued)}"
        )
        if not q.answers:
            cells += [_cell("markdown", statement), written_cell(q, ex)]
            continue
        wanted = ", ".join(f"`{a.name}`" for a in q.answers)
        tests = []
        for a in q.answers:
            tests += [
                _cell(
                    "code", f'""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\n{a.public_check(q.optional)}'
                ),
                _cell("code", f'""" # BEGIN TEST CONFIG\nhidden: true\npoints: 1\n""" # END TEST CONFIG\n{a.check()}'),
            ]
        cells += [
            _cell("raw", f"# BEGIN QUESTION\nname: {q.name}\npoints: {q.points}\n"),
            _cell(
                "markdown",
                f"{statement}\n\n*Autograded: set {wanted} in the cell below "
                f"({plural(q.points, 'point')}, one per name).*",
            ),
            _cell("raw", "# BEGIN SOLUTION"),
            _cell(
                "code", "\n".join(f"# {_comment(a, q.optional)}\n{a.name} = {a.text}  # SOLUTION" for a in q.answers)
            ),
            _cell("raw", "# END SOLUTION"),
            _cell("raw", "# BEGIN TESTS"),
            *tests,
            _cell("raw", "# END TESTS"),
            _cell("raw", "# END QUESTION"),
        ]
        if q.written:  # it also asks why: the words are graded by hand
            cells.append(written_cell(q, ex))
    return notebooks.new(cells, number_ids=True)


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


def answer_key(text: str, part: str) -> dict:
    """The key ``make grade`` scores against (``compsem-key.json`` in the autograder zip): per
    question its answers (name, value, tolerance, one point each), and the labels of the
    exercises answered in writing (graded by hand)."""
    _, qs = questions(text)
    return {
        "part": part,
        "questions": [
            {
                "name": q.name,
                "answers": [
                    {"name": a.name, "value": a.value, "tolerance": a.tolerance, "points": 1} for a in q.answers
                ],
            }
            for q in qs
            if q.answers
        ],
        "written": [q.name for q in qs if q.written],
    }


KEY_FILE = "compsem-key.json"


def read_key(zip_: Path) -> dict:
    """The answer key inside an autograder zip that ``make assignments`` wrote."""
    import zipfile

    try:
        with zipfile.ZipFile(zip_) as z:
            key = json.loads(z.read(KEY_FILE).decode("utf-8"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as e:
        raise CompsemError(f"{zip_} holds no answer key ({KEY_FILE}): write it with `make assignments` ({e})") from e
    for q in key["questions"]:
        for a in q["answers"]:
            if isinstance(a["value"], list):
                a["value"] = tuple(a["value"])
    return key


def _replace_folder(folder: Path) -> None:
    """Empty ``folder`` (a Part's assignment folder) for a new ``otter assign``: the one place
    where ``assign`` removes anything, and only when its manifest says it is an assignment folder
    of the caller's (:func:`compsem.book.running.runfolder.claim_output`); a folder holding
    anything else is refused."""
    claim_output(folder, kind="assignment", clear=True)  # never a folder that is not this user's assignment


def write_assignment(root: Path, part: str, out: Path, *, quiet: bool = True, executed: Path | None = None) -> Path:
    """Write one Part's assignment into ``out/<part>/{student,autograder}`` with ``otter assign``;
    returns the autograder zip. Glued numbers of the page come from the executed chapters in
    ``executed`` (default ``root/_build/executed/notebooks``); a number no build holds is a
    :class:`CompsemError` naming the chapter to build, before anything is written."""
    study = _study_of(part)
    numbers = chapter_numbers((root / "_toc.yml").read_text(encoding="utf-8")) if (root / "_toc.yml").is_file() else {}
    executed = executed if executed is not None else root / "_build" / "executed" / "notebooks"
    glued = glued_numbers(executed)
    page = root / f"{study.page('exercises')}.md"
    missing = unbuilt_values(strip_solutions(page.read_text(encoding="utf-8")), glued, study.page("exercises"))
    if missing:
        chapters = sorted({m.split("::")[0] for m in missing})
        raise CompsemError(
            f"{part}: the assignment would show numbers that no executed chapter in {executed} holds "
            f"({', '.join(missing)}); build them first (make book, or "
            + ", ".join(
                f"`.venv/bin/python -m compsem run notebooks/{c}.ipynb --book --out {executed}`" for c in chapters
            )
            + ")"
        )
    folder = out / part
    _replace_folder(folder)
    with tempfile.TemporaryDirectory(prefix="compsem-assign-") as tmp:
        return _assign(root, study, part, folder, Path(tmp), numbers, quiet, glued)


def _assign(
    root: Path, study: Study, part: str, folder: Path, src: Path, numbers: dict, quiet: bool, glued: dict
) -> Path:
    import zipfile

    page = root / f"{study.page('exercises')}.md"
    text = page.read_text(encoding="utf-8")
    (src / "requirements.txt").write_text(grading_requirements(root), encoding="utf-8")
    nb = master_notebook(
        text,
        name=part,
        number=numbers.get(study.page("exercises")),
        titles=book_titles(root),
        doc=study.page("exercises"),
        glued=glued,
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
    with zipfile.ZipFile(target, "a") as z:
        z.writestr(KEY_FILE, json.dumps(answer_key(text, part), indent=1) + "\n")
    if not quiet:
        print(f"{part}: {folder / 'student' / master.name} and {target}")
    return target


def write_assignments(root: Path, out: Path, parts: list[str] | None = None, *, quiet: bool = True) -> list[Path]:
    """Every Part's assignment (or those named in ``parts``); returns the autograder zips."""
    return [write_assignment(root, part, out, quiet=quiet) for part in (parts or list(assignment_parts(root)))]


RELEASE_MARKER = ".compsem-release"


def write_release(root: Path, out: Path, *, executed: Path | None = None, quiet: bool = True) -> list[Path]:
    """One folder that is safe to hand out (``make release``): per Part, ``<part>/<part>.ipynb``
    (the gradeable student notebook, with its public tests) and ``<part>/<part>_exercises.md``
    (the handout: the exercise page without its solutions, glued numbers filled), and nothing
    else. ``out`` is replaced only when it is empty or an earlier release (its marker file);
    before anything is written, every file is checked for a solution line, an answer line of the
    key and a hidden test."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not (out / RELEASE_MARKER).is_file():
        raise CompsemError(f"{out} exists and is not a release folder: name another (RELEASE=...)")
    executed = executed if executed is not None else root / "_build" / "executed" / "notebooks"
    glued = glued_numbers(executed)
    toc = root / "_toc.yml"
    numbers = chapter_numbers(toc.read_text(encoding="utf-8")) if toc.is_file() else {}
    titles = book_titles(root)
    with tempfile.TemporaryDirectory(prefix="compsem-release-") as tmp:
        stage = Path(tmp) / "release"
        stage.mkdir()
        for part, page in assignment_parts(root).items():
            zip_ = write_assignment(root, part, Path(tmp) / "assignments", executed=executed)
            (stage / part).mkdir()
            shutil.copy(zip_.parent.parent / "student" / f"{part}.ipynb", stage / part / f"{part}.ipynb")
            doc = f"book/{page.stem}"
            nb = page_notebook(
                strip_solutions(page.read_text(encoding="utf-8")), None, numbers.get(doc), titles, doc, glued
            )
            (stage / part / page.name).write_text(page_markdown(nb), encoding="utf-8")
            _check_release(stage / part, page.read_text(encoding="utf-8"))
        (stage / RELEASE_MARKER).write_text("written by make release\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(stage, out)
    written = sorted(p for p in out.rglob("*") if p.is_file() and p.name != RELEASE_MARKER)
    if not quiet:
        print(f"{plural(len(written), 'file')} to hand out in {out}")
    return written


def _check_release(folder: Path, page: str) -> None:
    """No file of ``folder`` holds a line of the page's solutions, an answer line of its key, or a hidden test."""
    solution_lines = {
        ln.strip() for ln in set(page.splitlines()) - set(strip_solutions(page).splitlines()) if len(ln.strip()) > 25
    }
    answers = [f"{a.name} = {a.text}" for q in questions(page)[1] for a in q.answers]
    for path in folder.rglob("*"):
        text = path.read_text(encoding="utf-8")
        bad = (
            [ln for ln in solution_lines if ln in text]
            + [a for a in answers if a in text]
            + [m for m in ("# SOLUTION", '"hidden": true', "_b.abs(", "# autograded") if m in text]
        )
        if bad:
            raise CompsemError(f"{path.name} would hand out a solution or a test: {bad[0]!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m compsem.book.teaching.assignments", description=__doc__.splitlines()[0]
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("assign", help="write the assignments (make assignments)")
    a.add_argument("--root", default=".")
    a.add_argument("--out", default="_build/assignments")
    a.add_argument("parts", nargs="*", help="the Parts (default: every Part with an exercises page)")
    r = sub.add_parser("release", help="one folder to hand out: student notebooks and handouts (make release)")
    r.add_argument("--root", default=".")
    r.add_argument("--out", default="_build/release")
    g = sub.add_parser("grade", help="grade a folder of submissions, each in its own sandbox (make grade)")
    g.add_argument(
        "assignment", help="a Part's name (part<N>_<study>, a folder of _build/assignments) or an autograder zip"
    )
    g.add_argument("submissions", help="a folder of <student-id>.ipynb (submitted/<part>/)")
    g.add_argument("--out", default="_build/assignments")
    g.add_argument("--csv", default=None, help="the grades file (default: grades-<part>.csv in the working folder)")
    g.add_argument("--roster", default=None, help="a CSV with a student_id column")
    g.add_argument("--force", action="store_true", help="overwrite an existing grades file")
    g.add_argument("--timeout", type=float, default=Limits.wall_s, help="seconds per submission (default %(default)s)")
    g.add_argument(
        "--memory-gb",
        type=float,
        default=Limits.memory_bytes / 2**30,
        help="address space per submission in GiB (default %(default)s)",
    )
    args = ap.parse_args(argv)
    try:
        if args.cmd == "assign":
            zips = write_assignments(Path(args.root), Path(args.out), args.parts, quiet=False)
            print(f"{plural(len(zips), 'assignment')} in {args.out}")
            return 0
        if args.cmd == "release":
            write_release(Path(args.root), Path(args.out), quiet=False)
            return 0
        zip_ = Path(args.assignment)
        if zip_.is_file():
            part = read_key(zip_)["part"]
        else:
            _study_of(args.assignment)
            part = args.assignment
            zip_ = Path(args.out) / args.assignment / "autograder" / "autograder.zip"
            if not zip_.is_file():
                raise CompsemError(f"{zip_} does not exist: run `make assignments` first")
        target = Path(args.csv) if args.csv else default_csv(part)
        limits = Limits(wall_s=args.timeout, memory_bytes=int(args.memory_gb * 2**30))
        rows = grade(
            zip_,
            Path(args.submissions),
            target,
            roster=Path(args.roster) if args.roster else None,
            force=args.force,
            limits=limits,
            quiet=False,
        )
        flagged = sum(bool(r["error"]) for r in rows)
        print(
            f"{plural(len(rows), 'submission')} graded: {target}"
            + (f" ({plural(flagged, 'row')} with an error: see its error column)" if flagged else "")
        )
        return 0
    except CompsemError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
