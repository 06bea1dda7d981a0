"""``python -m compsem new-study NAME --part N --title ... --citation KEY [--no-paper]``: a new study's skeleton.

It writes everything a study needs so that the contract test (``tests/compsem/test_contract.py``)
finds it, and nothing outside the study but its registry line (with ``studies.mk``), its
``_toc.yml`` part and its placeholder citation:

* ``src/compsem/<name>/``: the five faces (:data:`compsem.studies.FACES`), ``tryit.py`` and
  ``finding.py``: what every simple study shares written
  on the foundation, the study's own science as stubs that raise
  :class:`compsem.faces.NotWrittenYet`, each with a tiny example in its docstring;
* ``notebooks/<part>1_<name>_main.ipynb``: a complete chapter (parameters, the set-up cell of
  ``make launch-cell``, the run, its table, glued prose, its figure, a worked-example stub) that
  runs unchanged once the faces are written;
* ``book/part<N>_<name>.md`` (the Part's opening page) and its part in ``_toc.yml``;
* ``data/<name>/DATASHEET.md`` (a template to fill in);
* ``tests/compsem/<name>/``: one test per face that fails until it is written;
* the :class:`~compsem.studies.Study` line in ``src/compsem/studies.py`` (worked example,
  exercises, paper tables and the paper's models declared absent until written; with
  ``--no-paper`` also the paper itself, and ``PAPER_RUN = None``), ``studies.mk`` regenerated,
  and a placeholder entry for the citation key in ``references.bib``.

The arguments are data, never code (``repr()`` into Python, an escape into Markdown and YAML),
and everything is checked before the first file is written, against the registry of the
repository written to (``--root``): a name must be a lower-case identifier that is no Python
keyword, no module or package of ``compsem`` and no registered study; the Part must be free.
The files are written into a temporary folder inside the repository and then moved into place,
so a failure leaves the tree as it was. Nothing is overwritten.

The files are Jinja2 templates in :data:`TEMPLATES` (``templates/`` beside this module), each
readable as the file it becomes. Every value from the command line reaches a file as data, never
as code: into Python through the ``py`` filter (``repr()``), into Markdown through ``md``
(:func:`md`), into ``_toc.yml`` as a JSON (YAML) string; the study's name is a checked
identifier. The faces hold what is the same for every simple study (its table, glued values,
figure, paper-table reader, synthesis paragraph), written already on the foundation (:mod:`compsem.record`, :mod:`compsem.sentences`, :func:`compsem.figures.shown`),
and stubs that raise :class:`compsem.faces.NotWrittenYet` for the study's own science (its
data, its measure, what it embeds, its run, its try-it), each with a tiny working example in
its docstring. :data:`FILES` names every module a study gets, so that a later face (a course-guide
entry) is one more template file.
"""

from __future__ import annotations

import ast
import json
import keyword
import os
import pkgutil
import re
import shutil
import tempfile
import unicodedata
from pathlib import Path

import jinja2

import compsem

from compsem.errors import CompsemError
from compsem.fmt import plural
from compsem.studies import OPTIONAL, Study, makefile_include
from compsem import notebooks
from compsem.book.teaching.launch import place_setup_cell, setup_cell

__all__ = [
    "new_study",
    "registered",
    "check_arguments",
    "chapter",
    "ROMAN",
    "files",
    "toc_part",
    "registry_line",
    "bib_entry",
    "md",
    "chapter_name",
    "FILES",
    "TEMPLATES",
]

ROMAN = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")
_NAME = re.compile(r"[a-z][a-z0-9]{1,15}")
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_:.-]{0,63}")
_PLACEHOLDER = "written by python -m compsem new-study: replace with the paper's entry"
_REGISTRY = "src/compsem/studies.py"

#: The package's modules: the five faces, its try-it section, its synthesis paragraph and its
#: session of the course guide.
FILES = ("__init__", "data", "metrics", "study", "tables", "report", "tryit", "finding", "lesson")

#: The folder of templates (Jinja2): ``package/<module>.py.j2`` for each of :data:`FILES`, the
#: Part page, the datasheet and the failing test of a face.
TEMPLATES = Path(__file__).with_name("templates")


def md(text: str) -> str:
    """``text`` as literal Markdown (MyST): every character that could open markup escaped."""
    return re.sub(r"([\\`*_{}\[\]()<>#+\-.!|$~^:=&@%])", r"\\\1", text)


def chapter_name(s: Study) -> str:
    """The chapter's file stem: ``<part>1_<name>_main``."""
    return f"{s.part}1_{s.name}_main"


def _environment() -> jinja2.Environment:
    """The templates' environment: nothing is escaped but through the two filters, ``py``
    (``repr()``, a Python literal) and ``md`` (:func:`md`, literal Markdown); an unknown
    variable is an error, not an empty string."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(py=repr, md=md)
    return env


def files(s: Study, *, paper: bool) -> dict[str, str]:
    """``{path relative to the repository: text}`` of every new file of the study but its chapter,
    rendered from :data:`TEMPLATES`."""
    env, n = _environment(), s.name
    values = {
        "name": n,
        "part": s.part,
        "roman": s.roman,
        "key": n.upper(),
        "chapter": chapter_name(s),
        "paper": paper,
        "title": s.title,
        "title_lower": s.title[:1].lower() + s.title[1:],
        "citation": s.citation,
    }
    out = {f"src/compsem/{n}/{m}.py": env.get_template(f"package/{m}.py.j2").render(values) for m in FILES}
    out[f"book/part{s.part}_{n}.md"] = env.get_template("part.md.j2").render(values)
    out[f"data/{n}/DATASHEET.md"] = env.get_template("DATASHEET.md.j2").render(values)
    out[f"tests/compsem/{n}/__init__.py"] = ""
    for face in ("data", "metrics", "study", "tables", "report", "finding"):
        out[f"tests/compsem/{n}/test_{face}.py"] = env.get_template("test_face.py.j2").render(values, face=face)
    return out


def toc_part(s: Study) -> str:
    """The study's part of ``_toc.yml`` (its caption a YAML string)."""
    return (
        f"  - caption: {json.dumps(f'Part {s.roman}: {s.title}', ensure_ascii=False)}\n    numbered: true\n"
        f"    chapters:\n      - file: {s.page()}\n        sections:\n          - file: notebooks/{chapter_name(s)}\n\n"
    )


def registry_line(s: Study) -> str:
    """The study's line in ``STUDIES`` (every value through ``repr``)."""
    return f"    Study({s.name!r}, {s.part!r}, {s.roman!r}, {s.title!r}, {s.citation!r}, absent={s.absent!r}),\n"


def bib_entry(s: Study, placeholder: str) -> str:
    """A placeholder ``references.bib`` entry (the title has no braces or backslashes: checked)."""
    return f"\n\n@misc{{{s.citation},\n  title = {{{s.title}}},\n  note = {{{placeholder}}}\n}}\n"


def registered(root: str | Path) -> list[Study]:
    """The studies of the registry at ``root`` (``src/compsem/studies.py``), read as data (its
    ``STUDIES`` tuple of ``Study(...)`` calls with literal arguments), never imported."""
    path = Path(root) / _REGISTRY
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        raise CompsemError(f"cannot read the registry {path}: {exc}") from exc
    for node in tree.body:
        target = (
            node.targets[0]
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            else getattr(node, "target", None)
        )
        if isinstance(target, ast.Name) and target.id == "STUDIES" and isinstance(node.value, ast.Tuple):
            try:
                return [
                    Study(*map(ast.literal_eval, c.args), **{k.arg: ast.literal_eval(k.value) for k in c.keywords})
                    for c in node.value.elts
                ]
            except (ValueError, TypeError, AttributeError, CompsemError) as exc:
                raise CompsemError(
                    f"the registry {path} holds a STUDIES entry that is not a Study(...) of literal values: {exc}"
                ) from exc
    raise CompsemError(f"the registry {path} has no 'STUDIES = (...)' tuple to add the study to")


def _taken_modules(root: Path) -> set[str]:
    """The modules and packages of ``compsem``: the target's ``src/compsem`` and the running one."""
    names = {m.name for m in pkgutil.iter_modules(compsem.__path__)}
    src = root / "src" / "compsem"
    if src.is_dir():
        names |= {
            p.stem if p.suffix == ".py" else p.name
            for p in src.iterdir()
            if (p.suffix == ".py" or (p / "__init__.py").is_file())
        }
    return names


def _check_title(title) -> str:
    if not isinstance(title, str):
        raise CompsemError(f"--title must be text, not {title!r}")
    text = title.strip()
    odd = [c for c in text if unicodedata.category(c)[0] == "C" or unicodedata.category(c) in ("Zl", "Zp")]
    if not text or len(text) > 80 or odd:
        raise CompsemError(f"--title {title!r} must be one line of 1 to 80 printable characters")
    if set(text) & set("{}\\"):
        raise CompsemError(f"--title {title!r} may not hold braces or backslashes (it goes into references.bib)")
    return text


def check_arguments(root: str | Path, name, part, title, citation, *, paper: bool = True) -> Study:
    """The new :class:`~compsem.studies.Study`, once every argument is checked against the
    repository at ``root`` and its registry; else a :class:`~compsem.errors.CompsemError`
    naming the argument. Nothing is written."""
    root = Path(root)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise CompsemError(
            f"study name {name!r} must be 2-16 lower-case letters or digits, starting with a letter "
            "(it becomes the package compsem.<name> and the folder data/<name>)"
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise CompsemError(f"study name {name!r} is a Python keyword: `from compsem.{name} import ...` would not parse")
    if isinstance(part, bool) or not isinstance(part, int) or not 1 <= part <= 8:
        raise CompsemError(f"--part must be a whole number from 1 to 8 (9 holds the cross-study pages), not {part!r}")
    studies = registered(root)
    taken = [s for s in studies if s.name == name or s.part == part]
    if taken:
        raise CompsemError(
            f"the registry has {taken[0].name!r} as Part {taken[0].part} already; the studies are "
            f"{', '.join(f'{x.name} (Part {x.part})' for x in studies)}"
        )
    if name in _taken_modules(root):
        raise CompsemError(
            f"study name {name!r} is a module or package of compsem already (compsem.{name}): "
            "a study of that name would shadow it"
        )
    text = _check_title(title)
    if not isinstance(citation, str) or not _KEY.fullmatch(citation):
        raise CompsemError(
            f"--citation {citation!r} is not a BibTeX key (up to 64 ASCII letters, digits, _ : . -, "
            "starting with a letter)"
        )
    if not isinstance(paper, bool):
        raise CompsemError(f"paper must be True or False, not {paper!r}")
    absent = tuple(a for a in OPTIONAL if a != "paper") if paper else OPTIONAL
    return Study(name, part, ROMAN[part], text, citation, absent=absent)


def chapter(s: Study) -> dict:
    """The chapter notebook: title, parameters, the set-up cell, the run, its table, glued prose,
    its figure and a worked-example stub; it runs unchanged once the faces are filled."""
    n, name = s.name, chapter_name(s)

    def cell(kind, source, tags=None, id=None, meta=None):
        c = {
            "cell_type": kind,
            "id": id,
            "metadata": {**({"tags": tags} if tags else {}), **(meta or {})},
            "source": source.splitlines(keepends=True),
        }
        return {**c, "execution_count": None, "outputs": []} if kind == "code" else c

    cells = [
        cell(
            "markdown",
            f"# {md(s.title)}\n\nWhat this chapter computes, the measure's equation and what to expect. "
            "The table and the figure below show each model's mean score with its 95 % bootstrap "
            "interval.",
            id="title",
        ),
        cell(
            "code",
            "# Parameters: change these, or rerun with\n"
            f"#   python -m compsem run notebooks/{name}.ipynb -p models '[\"bow\"]'\n"
            'models = "panel"   # "panel", "paper" or a list of specs\n'
            "trust_remote_code = False   # passed to the model loaders; True only for code you trust\n"
            "n_boot = 1000   # bootstrap draws per interval\n"
            "seed = 0",
            ["parameters"],
            "parameters",
        ),
        cell(
            "code",
            f"from compsem import results\nfrom compsem.{n} import data, report, study, tables\n\n"
            "specs = study.resolve_models(models, trust_remote_code=trust_remote_code)\n"
            "run = study.run(specs, trust_remote_code=trust_remote_code)\n"
            "table = tables.main_table(run, n_boot=n_boot, seed=seed)\n"
            f'_ = results.save_table(table, {n!r}, "main", **run.provenance(n_boot=n_boot, seed=seed))\n'
            'results.glue_all(report.values("main", run, table, n_boot=n_boot, seed=seed))\ntable',
            ["hide-input"],
            "run",
        ),
        cell(
            "markdown",
            "## Results\n\nThe table above scores {glue:text}`n_items` for {glue:text}`n_models`. "
            "{glue:md}`leader_sentence`",
            id="results",
        ),
        cell(
            "code",
            "report.figure(table)",
            ["hide-input"],
            "figure",
            {
                "mystnb": {
                    "figure": {
                        "caption": "Each model's mean score, with its 95 % bootstrap interval.",
                        "name": f"fig-{n}-main",
                    }
                }
            },
        ),
        cell(
            "markdown",
            "## A worked example\n\nOne item of the data, followed by hand: its texts, the measure's "
            "value for one model, and what it means.",
            id="worked",
        ),
        cell("code", "data.load().head(1)", ["hide-input"], "worked-item"),
    ]
    nb = notebooks.new(cells)
    return place_setup_cell(nb, setup_cell())


def _registry(text: str, s: Study) -> str:
    """``studies.py``'s text with ``s`` appended to ``STUDIES``."""
    m = re.search(r"^STUDIES: tuple\[Study, \.\.\.\] = \(\n(.*?)^\)\n", text, re.M | re.S)
    if m is None:
        raise CompsemError(f"{_REGISTRY} has no 'STUDIES: tuple[Study, ...] = (' block to add the study to")
    return text[: m.end(1)] + registry_line(s) + text[m.end(1) :]


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompsemError(f"cannot read {what} {path}: {exc}") from exc


def _units(study: Study) -> list[str]:
    """The new study's own folders, moved into place whole."""
    return [f"src/compsem/{study.name}", f"tests/compsem/{study.name}", f"data/{study.name}"]


def _plan(root: Path, study: Study, paper: bool) -> tuple[dict[str, str], dict[str, str]]:
    """The new files and the new texts of the shared files (registry, ``studies.mk``,
    ``_toc.yml``, ``references.bib``), every one checked to be writable as planned."""
    new = files(study, paper=paper)
    new[f"notebooks/{chapter_name(study)}.ipynb"] = notebooks.dumps(chapter(study))
    units = _units(study)
    exist = sorted(
        {u for u in units if os.path.lexists(root / u)}
        | {f for f in new if not any(f.startswith(u + "/") for u in units) and os.path.lexists(root / f)}
    )
    if exist:
        k = len(exist)
        raise CompsemError(
            f"{plural(k, 'path')} of the new study {'exists' if k == 1 else 'exist'} already, nothing "
            f"written: {', '.join(exist)}"
        )
    toc = _read(root / "_toc.yml", "the table of contents")
    anchor = re.search(r"^  - caption: Synthesis\n", toc, re.M)
    if anchor is None:
        raise CompsemError("_toc.yml has no '  - caption: Synthesis' part to put the new Part before")
    bib_path = root / "references.bib"
    bib = _read(bib_path, "the bibliography") if bib_path.is_file() else ""
    edits = {
        _REGISTRY: _registry(_read(root / _REGISTRY, "the registry"), study),
        "studies.mk": makefile_include((*registered(root), study)),
        "_toc.yml": toc[: anchor.start()] + toc_part(study) + toc[anchor.start() :],
    }
    if f"{{{study.citation}," not in bib:
        edits["references.bib"] = bib.rstrip("\n") + bib_entry(study, _PLACEHOLDER)
    return new, edits


def _move_into_place(
    root: Path, stage: Path, units: list[str], new: dict[str, str], edits: dict[str, str]
) -> list[Path]:
    """Move the staged files into ``root``: the study's own folders whole, its other new files,
    then the shared files (each replaced in one rename); on a failure every move made is undone."""
    singles = [f for f in new if not any(f.startswith(u + "/") for u in units)]
    done: list[tuple[Path, Path | None]] = []  # (placed path, its original's backup or None)
    try:
        for rel in [*units, *singles]:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            os.rename(stage / "new" / rel, root / rel)
            done.append((root / rel, None))
        for rel in edits:
            target, backup = root / rel, stage / "old" / rel
            if target.exists():
                backup.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(target, backup)
            os.replace(stage / "edit" / rel, target)
            done.append((target, backup if backup.exists() else None))
    except OSError as exc:
        for path, backup in reversed(done):
            if backup is not None:
                os.replace(backup, path)
            elif path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        raise CompsemError(f"could not move the new study into {root} ({exc}); nothing was changed") from exc
    return [root / f for f in new] + [root / f for f in edits]


def new_study(root: str | Path, name: str, *, part: int, title: str, citation: str, paper: bool = True) -> list[Path]:
    """Write a new study's skeleton into the repository at ``root``; return the files written or
    changed (see the module's docstring). Every argument and every path is checked first
    (:func:`check_arguments`), against ``root``'s own registry; the files are staged in a
    temporary folder in ``root`` and moved into place, so on any error nothing is left behind.
    ``paper=False`` (``--no-paper``): a study of the project's own, ``PAPER_RUN = None``."""
    root = Path(root)
    study = check_arguments(root, name, part, title, citation, paper=paper)
    new, edits = _plan(root, study, paper)
    try:
        stage = Path(tempfile.mkdtemp(prefix=".new-study-", dir=root))
    except OSError as exc:
        raise CompsemError(f"cannot write into {root}: {exc}") from exc
    try:
        for kind, texts in (("new", new), ("edit", edits)):
            for rel, text in texts.items():
                path = stage / kind / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        return _move_into_place(root, stage, _units(study), new, edits)
    except OSError as exc:
        raise CompsemError(f"could not stage the new study in {stage} ({exc}); nothing was changed") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)
