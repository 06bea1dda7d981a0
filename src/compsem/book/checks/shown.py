"""Every command the project shows a reader, collected and checked.

:func:`collect` reads the commands of ``README.md``, ``CONTRIBUTING.md``, every page of
``book/`` (the course guide and the exercise pages among them), every chapter's Markdown cells
and the comments of its code cells, and every generated rerun box (:func:`.stage.rerun_box`):
the lines of ``bash``/``sh``/``console`` blocks and the inline code that starts like a command
(``make``, ``python -m``, ``papermill``, ``pip``, ...).

:func:`check` checks one of them without running anything long:

* ``python -m compsem run|plan|prefetch NOTEBOOK -p ...`` and the papermill equivalent go
  through :func:`.plan.plan` with the same parameters (typed as the runner types them; a model
  of the wrong kind is refused there);
* another ``python -m compsem`` verb is parsed by the command line's own parser;
* ``make TARGET`` must name a target of the Makefile and only its variables, and pass ``make -n``;
  the teaching targets (``make exercises``, ``make launch-cell``) also run for real in a copy of
  the repository in ``tests/compsem/book/test_make_targets.py``, and the light chapters'
  examples execute in the slow tests of ``tests/compsem/book/test_shown.py``;
* an installation, a test run or another command that cannot be checked here is in
  :data:`NOT_RUN`, with the reason and what is checked instead.

``make check-book`` reports each failing command as a problem of the page that shows it
(:func:`problems`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

from compsem.encoders import check_available
from compsem.notebooks import cells as notebook_cells
from compsem.studies import of_notebook
from compsem.book import myst
from compsem.book.teaching.courseguide import page_text
from compsem.book.cli import main
from compsem.book.running.params import check_parameters, parameter_defaults, parse_value
from compsem.book.running.plan import plan
from compsem.book.running.stage import rerun_box

__all__ = ["Shown", "collect", "check", "problems", "NOT_RUN", "make_targets"]


@dataclass(frozen=True)
class Shown:
    """A command as a page shows it: ``page`` (relative to the repository, or ``rerun box of
    notebooks/X.ipynb``) and the command, continuation lines joined, comments removed."""

    page: str
    command: str

    def __str__(self) -> str:
        return f"{self.page}: `{self.command}`"


_SHELL = ("bash", "sh", "shell", "console")
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_STARTS = re.compile(
    r"^(?:\.venv/bin/)?(?:python3?(?:\.\d+)?\s+-m\s+\S|make(?:\s|$)|papermill\s|pip\s+install\s|"
    r"pytest\s|conda\s|jupyter-book\s)"
)


def _lines(block: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comment lines and trailing
    comments dropped, a ``$ `` prompt removed."""
    out, pending = [], ""
    for raw in block.splitlines():
        line = raw.rstrip()
        if pending:
            line = pending + " " + line.strip()
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        line = re.sub(r"^\s*\$\s+", "", line)
        line = _strip_comment(line).strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _strip_comment(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` inside quotes stays)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _from_markdown(text: str) -> list[str]:
    """The commands of a MyST text, in reading order: the lines of its shell blocks (in a
    directive too), and its inline code that starts like a command."""
    found = []
    for b in myst.blocks(text):
        if b.kind == "code":
            found += _lines(b.text) if b.lang in _SHELL else []
        elif b.kind != "math":
            found += [c.strip() for c in b.code if _STARTS.match(c.strip())]
    return found


def _from_code_comments(source: str) -> list[str]:
    """Commands a code cell's comments show: ``#   python -m compsem run ...`` lines and
    backquoted commands."""
    found = []
    for line in source.splitlines():
        comment = line[len(_strip_comment(line)) :]  # the line's comment, after code or alone
        if not comment.startswith("#"):
            continue
        body = comment[1:].strip()
        if _STARTS.match(body) and "`" not in body:
            found.append(_strip_comment(body).strip())
        found += [c.strip() for c in _INLINE.findall(body) if _STARTS.match(c.strip())]
    return found


def collect(root: Path) -> list[Shown]:
    """Every command shown to a reader, once per page, in reading order."""
    root = Path(root)
    found: list[Shown] = []
    pages = [root / "README.md", root / "CONTRIBUTING.md", *sorted((root / "book").glob("*.md"))]
    for page in [p for p in pages if p.is_file()]:
        rel = page.relative_to(root).as_posix()
        found += [Shown(rel, c) for c in _from_markdown(page_text(page))]
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        rel = nb.relative_to(root).as_posix()
        for cell in notebook_cells(nb):
            if "compsem-setup" in cell.get("metadata", {}).get("tags", []):
                continue  # written by make launch-cell, never shown in the book
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cmds = _from_markdown(src) if cell["cell_type"] == "markdown" else _from_code_comments(src)
            found += [Shown(rel, c) for c in cmds]
        found += [Shown(f"rerun box of {rel}", c) for c in _from_markdown(rerun_box(nb))]
    return list(dict.fromkeys(found))


# -- checks ------------------------------------------------------------------------------------

#: Commands shown but not run by the tests: a pattern (matched at the start of the command,
#: after ``.venv/bin/``) and why. What is still checked: a make target must exist and pass
#: ``make -n`` (every make command, these and the others); a ``pip install -e`` extra must be
#: declared in pyproject.toml; a test file or a module must exist.
NOT_RUN: dict[str, str] = {
    "make book": "executes every chapter (about an hour): CI's `.ci/run` and the Pages workflow run it",
    "make check-book": "needs the built book: CI runs it after `make book`",
    "make check-offline": "executes every chapter inside a network namespace: CI's job",
    "make test": "the test suite itself: CI runs it",
    "make bench": "minutes of timing on the machine at hand: its runner is tested in test_bench.py",
    "make models-extra": "downloads about 390 MB from PyPI (it is itself the test of compsem.book.extra)",
    "make lab": "starts a JupyterLab server that does not end: test_make_targets.py checks its kernel",
    "make clean": "deletes the reader's build or cache",
    "make venv": "creates the virtual environment the tests already run in",
    "make": "with no target, prints the Makefile's help (its first target)",
    "pip install": "installs packages into the reader's environment",
    "conda ": "creates a conda environment: test_environment.py keeps environment.yml in step",
    "pytest ": "a test run: CI runs the suite",
    "python -m compsem.book.checkbook": "needs the executed chapters: CI's `make check-book` runs it",
    "mkdir -p ": "a folder for the output of the next shown command",
    # the course guide's hub set-up: tests/compsem/book/test_hub.py does the same as three users
    "git clone ": "a clone for the hub: tests/compsem/book/test_hub.py clones as lecturer and students",
    "cd ": "moves into the clone for the next shown command",
    "ln -s ": "links a student's clone to the one environment: test_hub.py runs students on one environment",
    "echo ": "sets the hub's class cache for every user: test_hub.py gives each user that one variable",
    "chmod ": "shares the class cache read-only: test_hub.py does so and checks the cache stays byte-identical",
    "git config --system ": "lets students clone the lecturer's repository (git's safe.directory): test_hub.py "
    "gives its users the same setting",
    "chown ": "gives the class clone and cache to the lecturer's account: test_hub.py runs as three uids",
}


def _bare(command: str) -> str:
    return re.sub(r"^\.venv/bin/", "", command.strip())


def _not_run(command: str) -> str | None:
    bare = _bare(command)
    keys = sorted(NOT_RUN, key=len, reverse=True)
    return next(
        (
            NOT_RUN[k]
            for k in keys
            if bare == k.strip()
            or bare.startswith(k if k.endswith(" ") else k + " ")
            or (k == "make" and bare == "make")
        ),
        None,
    )


def make_targets(makefile: Path) -> tuple[set[str], set[str]]:
    """The targets and the variables a Makefile defines."""
    text = Path(makefile).read_text(encoding="utf-8")
    targets = {t for line in re.findall(r"^([\w .$()/-]+?)\s*:(?!=)", text, re.M) for t in line.split()}
    variables = set(re.findall(r"^(?:export\s+)?([A-Z_][A-Z0-9_]*)\s*(?:\?|:)?=", text, re.M))
    return targets, variables


def _recipe(makefile_text: str, target: str) -> str:
    """The recipe lines (tab-indented) of ``target``'s rule."""
    m = re.search(rf"^{re.escape(target)}\s*:(?!=)[^\n]*\n((?:\t[^\n]*\n?)*)", makefile_text, re.M)
    return m.group(1) if m else ""


def _check_make(words: list[str], root: Path) -> str | None:
    targets, variables = make_targets(root / "Makefile")
    goals = [w for w in words[1:] if "=" not in w and not w.startswith("-")]
    for w in words[1:]:
        if "=" in w and w.split("=", 1)[0] not in variables:
            return f"the Makefile has no variable {w.split('=', 1)[0]}"
    for g in goals:
        if g not in targets:
            return f"the Makefile has no target {g}"
    text = (root / "Makefile").read_text(encoding="utf-8")
    if any("$(MAKE)" in _recipe(text, g) for g in goals):
        return None  # make -n would run a $(MAKE) line (check-offline's unshare): the target exists
    r = subprocess.run(["make", "-n", "-s", "-C", str(root), *words[1:]], capture_output=True, text=True, timeout=120)
    return None if r.returncode == 0 else f"`make -n` fails: {(r.stderr or r.stdout).strip()[-300:]}"


def _notebook_params(words: list[str], *, papermill: bool) -> tuple[str | None, list[tuple[str, object]]]:
    """The notebook of a run/plan/prefetch/papermill command and its parameters (typed)."""
    from papermill.cli import _resolve_type  # papermill: only when a command's values are read

    nb = next((w for w in words if w.endswith(".ipynb")), None)
    params: list[tuple[str, object]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-p", "--param", "--parameters") and i + 2 < len(words):
            params.append((words[i + 1], _resolve_type(words[i + 2]) if papermill else parse_value(words[i + 2])))
            i += 3
            continue
        if papermill and w in ("-y", "--parameters_yaml") and i + 1 < len(words):
            params += list((yaml.safe_load(words[i + 1]) or {}).items())
            i += 2
            continue
        i += 1
    return nb, params


def _papermill_text(words: list[str]) -> str | None:
    """A papermill ``-p`` value that papermill passes as text while it reads as a list, an
    object or a quoted string (papermill's ``-p`` knows only numbers, booleans and None)."""
    from papermill.cli import _resolve_type  # papermill: only when a command's values are read

    for i, w in enumerate(words[:-2]):
        if w in ("-p", "--parameters"):
            name, raw = words[i + 1], words[i + 2]
            if isinstance(_resolve_type(raw), str) and not isinstance(parse_value(raw), str):
                return (
                    f"papermill's -p passes {name} as the text {raw!r}, not as the value it reads as: give it with -y"
                )
            if isinstance(_resolve_type(raw), str) and raw.startswith('"'):
                return f"papermill's -p passes {name} with its quotes, {raw!r}: give it with -y"
    return None


def _check_chapter(nb: str | None, params: list[tuple[str, object]], root: Path, *, offline: bool) -> str | None:

    if nb is None:
        return "names no notebook"
    path = root / nb
    if not path.is_file():
        return f"no notebook {nb}"
    values = dict(params)
    check_parameters(parameter_defaults(path), values, notebook=path.name)
    table, _ = plan(path, values)  # refuses a model of the wrong kind
    if offline and len(table):
        study = of_notebook(path)
        check_available([m for m in table["model"] if m != "lexical"], study=study.name if study else None)
    return None


def _check_compsem(words: list[str], root: Path) -> str | None:
    """A ``python -m compsem`` verb: a chapter's run, plan or prefetch through the planner;
    ``models`` runs; any other (``cache``, ``bench``, a template with ``NOTEBOOK``) is parsed
    by the command line's own parser, never run (it reads or clears the reader's cache, or
    takes minutes; a template with ``<chapter>`` too)."""
    verb_at = words.index("compsem") + 1 if "compsem" in words else len(words)
    args = words[verb_at:]
    # a template: <chapter> is for the reader to fill in
    template = any(re.fullmatch(r"<[^<>]+>(\.ipynb)?|.*/<[^<>]+>\.ipynb", w) for w in args)
    if args and args[0] in ("run", "plan", "prefetch") and any(w.endswith(".ipynb") for w in args) and not template:
        nb, params = _notebook_params(args, papermill=False)
        return _check_chapter(nb, params, root, offline=False)
    if args == ["models"]:
        with contextlib.redirect_stdout(io.StringIO()):
            return None if main(["models"]) == 0 else "exits with an error"
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main([*args[:2], "--help"] if args else ["--help"])
        except SystemExit as exc:
            return None if exc.code in (0, None) else f"does not parse: {err.getvalue().strip()[-200:]}"
    return None


def check(shown: Shown, root: Path) -> str | None:
    """Why ``shown`` fails, or None when it passes its check (see the module's text)."""
    root = Path(root)
    command = _bare(shown.command)
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"the shell cannot split it: {exc}"
    if not words:
        return "is empty"
    rerun = shown.page.startswith("rerun box of ")  # a chapter's own example: it must also run offline
    try:
        if words[0] == "make":
            return _check_make(words, root)
        if words[0] == "papermill":
            text = _papermill_text(words)
            if text:
                return text
            nb, params = _notebook_params(words, papermill=True)
            return _check_chapter(nb, params, root, offline=rerun)
        if words[0].startswith("python") and words[1:3] == ["-m", "compsem"]:
            if rerun:
                nb, params = _notebook_params(words, papermill=False)
                return _check_chapter(nb, params, root, offline=True)
            return _check_compsem(words, root)
        if words[0].startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
            try:
                found = importlib.util.find_spec(words[2]) is not None
            except ModuleNotFoundError:
                found = False
            if not found:
                return f"no module {words[2]}"
        if _not_run(command) is None:
            return "no check is known for this command: add one to compsem.book.checks.shown, or a reason to NOT_RUN"
        if words[0] == "pytest":
            missing = [w for w in words[1:] if not w.startswith("-") and not (root / w.split("::")[0]).exists()]
            return f"no test file {missing[0]}" if missing else None
        extra = re.search(r"\[(\w+)\]", command)
        if words[:2] == ["pip", "install"] and extra:
            declared = tomllib.loads((root / "pyproject.toml").read_text())["project"].get("optional-dependencies", {})
            return None if extra.group(1) in declared else f"pyproject.toml declares no extra [{extra.group(1)}]"
        return None
    except Exception as exc:  # noqa: BLE001 - a failing command is a problem of its page, not a crash
        return f"{type(exc).__name__}: {str(exc)[:300]}"


def problems(root: Path) -> list[str]:
    """One line per shown command that fails its check, naming the page (for ``make check-book``)."""
    out = []
    for shown in collect(root):
        why = check(shown, root)
        if why:
            out.append(f"{shown.page}: shown command `{shown.command}` fails: {why}")
    return out
