"""Staging the book: executed notebooks plus the prose pages, ready for jupyter-book.

``python -m compsem stage`` copies the book sources (``book/``, ``_static/`` with the book's CSS)
and the executed notebooks into ``_build/site-src`` and adds, after each chapter's opening cell, a
folded "Rerun this chapter" box with the exact ``python -m compsem run`` command, the papermill
equivalent and the chapter's parameters with their defaults. It also copies each Part's gradeable
student notebook from the release folder (``make release``) into ``exercises/``: the course
guide's downloads, the one student notebook of a Part.
Files are only rewritten when their content changed, so the book builder re-reads only what is new.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from compsem.book.running.runfolder import claim_output
from compsem import notebooks
from compsem.book.teaching.courseguide import page_text
from compsem.book.teaching.assignments import assignment_parts
from compsem.book.teaching.exercises import strip_solutions
from compsem.errors import CompsemError
from compsem.book.running.params import parse_value
from compsem.results import RunMixError
from compsem.store import write_below
from compsem.book.running.runner import parameters_of

__all__ = ["rerun_box", "rerun_example", "stage", "student_config", "STUDENT_SPHINX"]


def _default_literal(value) -> str:
    return "None" if value is None else str(value)


_EXAMPLE = re.compile(r"^#\s*python -m compsem run notebooks/\S+((?:\s+-p\s+\S+\s+.+?)+)\s*$", re.M)


def rerun_example(notebook: Path) -> str | None:
    """The ``-p`` arguments of the chapter's own rerun example, which its parameters cell's
    comment gives (``#   python -m compsem run notebooks/X.ipynb -p name 'value'``): a change
    that runs offline and changes a result. None when the chapter declares none (there is no
    generic fallback: ``tests/compsem/book/test_shown.py`` requires one of every
    chapter but those it names with a reason)."""
    cell = notebooks.parameters_cell(notebooks.read(notebook))
    m = _EXAMPLE.search(cell.source) if cell else None
    return " " + m.group(1).strip() if m else None


def _pairs(args: str) -> list[tuple[str, str]]:
    """``-p NAME VALUE`` pairs of a command line's arguments, as the shell splits them."""
    words = shlex.split(args)
    return [(words[i + 1], words[i + 2]) for i in range(len(words) - 2) if words[i] == "-p"]


def rerun_box(notebook: Path) -> str:
    """Markdown of the rerun admonition for ``notebook`` (source notebook, not executed): the
    command with the chapter's own example (:func:`rerun_example`), or with no ``-p`` when the
    chapter declares none."""
    params = parameters_of(notebook)
    name = notebook.name
    cli_p = rerun_example(notebook) or ""
    # papermill's -p reads a value as a number, a bool or a string (a list would arrive as text):
    # the same values go to -y as one JSON (that is, YAML) mapping
    values = {k: parse_value(v) for k, v in _pairs(cli_p)}
    pm_p = f" -y {shlex.quote(json.dumps(values, ensure_ascii=False))}" if values else ""
    rows = "\n".join(f"| `{k}` | `{_default_literal(v)}` |" for k, v in params.items())
    table = f"| parameter | default |\n| --- | --- |\n{rows}" if params else "This chapter has no parameters."
    return f"""````{{admonition}} Rerun this chapter
:class: dropdown tip

From the repository root, after `make book` (or `make venv`) created `.venv`:

```bash
.venv/bin/python -m compsem run notebooks/{name}{cli_p}
```

The executed copy and its result tables go to `runs/`; the book is not changed. The papermill
equivalent (the values as one YAML mapping):

```bash
mkdir -p runs
papermill notebooks/{name} runs/{name} --cwd notebooks{pm_p}
```

{table}
````"""


def _write_if_changed(out: Path, rel: Path | str, data: str | bytes) -> None:
    """``out/rel`` holds ``data`` afterwards; written (never through a link: write_below) only
    when it differs."""
    path = out / rel
    blob = data.encode("utf-8") if isinstance(data, str) else data
    if path.is_symlink() or not path.is_file() or path.read_bytes() != blob:
        write_below(out, rel, blob)


#: What the student build (``stage(..., student=True)``, ``make student-book``) sets in
#: ``_config.yml``: sphinx-exercise hides the solutions, no page source is published (no
#: ``_sources/``, no source link, no download button, which offers the page's source).
STUDENT_SPHINX = {"hide_solutions": True, "html_copy_source": False, "html_show_sourcelink": False}


def student_config(text: str) -> str:
    """``_config.yml`` (its text) for the student build: :data:`STUDENT_SPHINX` and the theme's
    download button off (it offers the page's source)."""
    import yaml

    config = yaml.safe_load(text) or {}
    sphinx = config.setdefault("sphinx", {})
    sphinx.setdefault("config", {}).update(STUDENT_SPHINX)
    # the theme's download button (jupyter-book 1 does not read html.use_download_button): merged
    # into the theme options jupyter-book writes, not replacing them
    sphinx["recursive_update"] = True
    sphinx["config"].setdefault("html_theme_options", {})["use_download_button"] = False
    return "# The student build (make student-book): no solution, no answer block, no page source.\n" + yaml.safe_dump(
        config, sort_keys=False, allow_unicode=True
    )


def _stage_downloads(root: Path, release: Path, out: Path) -> None:
    """Copy each Part's gradeable student notebook (``release/<part>/<part>.ipynb``, written by
    ``make release``) to ``out/exercises/<part>.ipynb``, the course guide's downloads: the one
    student notebook of a Part. A Part the release lacks is a :class:`CompsemError` naming the
    command that writes it."""
    parts = assignment_parts(root)
    missing = [part for part in parts if not (release / part / f"{part}.ipynb").is_file()]
    if missing:
        raise CompsemError(
            f"the course guide offers each Part's gradeable student notebook, and {release} lacks "
            f"{', '.join(f'{p}/{p}.ipynb' for p in missing)}: write them first with "
            f"`make release RELEASE={release}` (make book does)"
        )
    for part in parts:
        _write_if_changed(out, Path("exercises", f"{part}.ipynb"), (release / part / f"{part}.ipynb").read_bytes())


def stage(
    root: Path,
    executed: Path,
    out: Path,
    files: tuple[str, ...] = ("_config.yml", "_toc.yml", "references.bib"),
    folders: tuple[str, ...] = ("book", "_static"),
    *,
    student: bool = False,
    release: Path | None = None,
) -> list[Path]:
    """Assemble the book sources in ``out``; return the staged notebooks. ``out`` must be new,
    empty or a staged book of the caller's (its manifest says so:
    :func:`compsem.book.running.runfolder.claim_output`), never the sources or another folder.
    ``student``: the student build: every ``{solution}`` block of the pages (and with it each
    answer block) and every chapter cell tagged ``solution`` is left out, and
    :func:`student_config` is the configuration. ``release``: the folder ``make release`` wrote
    (default ``root/_build/release``), whose gradeable student notebooks the course guide offers
    for download (:func:`_stage_downloads`)."""
    here, top = Path(out).resolve(), Path(root).resolve()
    inside = here.relative_to(top).parts[:1] if top in here.parents else ()
    if here == top or set(inside) & {*folders, "notebooks", "src", "data"}:
        raise RunMixError(
            f"stage --out {out} is (or lies in) the book's sources in {root}: stage into another "
            "folder (_build/site-src)"
        )
    claim_output(out, kind="stage")
    for f in files:
        if (root / f).exists():
            text = (root / f).read_text(encoding="utf-8")
            _write_if_changed(out, f, student_config(text) if student and f == "_config.yml" else text)
    for folder in folders:
        src = root / folder
        for path in sorted(src.rglob("*")):
            if path.is_file() and not (folder == "book" and path.parent == src and path.suffix == ".md"):
                _write_if_changed(out, path.relative_to(root), path.read_bytes())
    # the course guide's sessions and tables, written from the registry (compsem.book.teaching.courseguide)
    for page in sorted((root / "book").glob("*.md")):
        text = page_text(page, root)
        _write_if_changed(out, Path("book", page.name), strip_solutions(text) if student else text)
    # the course guide's downloads: each Part's gradeable student notebook, as make release wrote it
    _stage_downloads(root, Path(release) if release is not None else root / "_build" / "release", out)
    staged = []
    for nb_path in sorted(executed.glob("*.ipynb")):
        nb = notebooks.read(nb_path)
        if student:
            nb["cells"] = [c for c in nb["cells"] if "solution" not in c.get("metadata", {}).get("tags", [])]
        source = root / "notebooks" / nb_path.name
        box = notebooks.from_dict(
            {
                "cell_type": "markdown",
                "id": "rerun-box",
                "metadata": {"tags": ["rerun-box"]},
                "source": rerun_box(source),
            }
        )
        cells = [c for c in nb["cells"] if "rerun-box" not in c.get("metadata", {}).get("tags", [])]
        first_md = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"), -1)
        cells.insert(first_md + 1, box)
        nb["cells"] = cells
        target = out / "notebooks" / nb_path.name
        _write_if_changed(out, Path("notebooks", nb_path.name), notebooks.dumps(nb))
        staged.append(target)
    return staged
