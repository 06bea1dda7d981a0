"""The files ``python -m compsem new-study`` writes but its chapter (:mod:`compsem.book.authoring.scaffold`
checks the arguments, writes the chapter, stages these files and moves them into place).

The files are Jinja2 templates in :data:`TEMPLATES` (``templates/`` beside this module), each
readable as the file it becomes. Every value from the command line reaches a file as data, never
as code: into Python through the ``py`` filter (``repr()``), into Markdown through ``md``
(:func:`md`), into ``_toc.yml`` as a JSON (YAML) string; the study's name is a checked identifier. The faces hold what is the same for every simple study
(its table, glued values, figure, paper-table reader, synthesis paragraph), written already on
the foundation (:mod:`compsem.record`, :mod:`compsem.sentences`, :func:`compsem.figures.shown`),
and stubs that raise :class:`compsem.faces.NotWrittenYet` for the study's own science (its
data, its measure, what it embeds, its run, its try-it), each with a tiny working example in
its docstring. :data:`FILES` names every module a study gets, so that a later face (a course-guide
entry) is one more template file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2

from compsem.studies import Study

__all__ = ["files", "toc_part", "registry_line", "bib_entry", "md", "chapter_name", "FILES", "TEMPLATES"]

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
