"""The one reader of MyST Markdown: every check and generator of the book that reads a page or a
chapter's Markdown cells reads it through this module, which parses it with myst-parser's own
parser (markdown-it-py with mdit-py-plugins, the extensions ``_config.yml`` enables).

:func:`blocks` turns a text into what a reader reads, in order, as :class:`Block` s: headings,
paragraphs and list items, table rows (a table's cells; its title is the ``{table}`` or
``{list-table}`` directive's argument), a directive's title (an admonition's, an exercise's) and
the prose of its body (a note, an exercise, a solution, a figure's caption), and code and maths
blocks by their source. Inline, a link reads as its text, a role by :func:`role_text` (or the
``role`` function a caller gives: a chapter's check puts the glued values in), inline code by
its text (and, in :attr:`Block.code`, on its own); maths, comments, targets and HTML are left
out. :func:`prose` joins the prose blocks, :func:`tables` gives the pipe tables,
:func:`roles` the roles. ``tests/compsem/book/test_myst.py`` fails when a second parser of
fences, directives or roles appears in ``src/compsem``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["Block", "blocks", "prose", "without_code", "tables", "roles", "role_text", "CODE_DIRECTIVES"]

#: Directives whose body is code, data or a file list, never prose.
CODE_DIRECTIVES = {
    "code-cell",
    "code-block",
    "code",
    "sourcecode",
    "math",
    "eval-rst",
    "raw",
    "literalinclude",
    "include",
    "toctree",
    "tableofcontents",
    "bibliography",
    "csv-table",
    "mermaid",
    "graphviz",
}
#: Directives whose argument is no title (an image, a glued key, an exercise's label).
_NO_TITLE = {
    "figure",
    "image",
    "glue:figure",
    "glue",
    "glue:any",
    "glue:md",
    "glue:text",
    "glue:math",
    "solution",
    "solution-start",
    "solution-end",
}
_DROPPED_ROLES = {"cite", "cite:p", "cite:t", "cite:ps", "cite:ts", "footcite", "math", "eq", "index"}


@dataclass
class Block:
    kind: str  # heading, text, row (a table's row), title (a directive's), code, math
    text: str  # what a reader reads (a code or maths block: its source)
    bare: str = ""  # the text without its inline code
    lang: str = ""  # a code block's language, or "{directive}"
    directive: str = ""  # the innermost directive the block lies in
    code: list[str] = field(default_factory=list)  # the inline code of a prose block
    cells: list[str] = field(default_factory=list)  # a row's cells
    bare_cells: list[str] = field(default_factory=list)  # a row's cells without their inline code


@lru_cache(maxsize=1)
def _parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    ext = {"amsmath", "colon_fence", "deflist", "dollarmath", "html_image", "substitution"}
    return create_md_parser(MdParserConfig(enable_extensions=ext), RendererHTML)


def role_text(name: str, content: str) -> str:
    """A role as a reader reads it: ``{ref}`words <label>``` → "words", a citation or maths → "",
    any other (a glue role: its key) → its text."""
    if name in _DROPPED_ROLES:
        return ""
    return content.split("<")[0].strip() if "<" in content and content.rstrip().endswith(">") else content


def _inline(tokens, role: Callable[[str, str], str], maths: bool = False) -> tuple[str, list[str], str]:
    """(the text, its inline code, the text without its inline code) of an inline token's children
    (``maths``: inline maths by its source, between the marks ``\\x01`` and ``\\x02``)."""
    out, code, bare = [], [], []
    for t in tokens or []:
        piece = (
            t.content
            if t.type in ("text", "substitution_inline", "code_inline")
            else "\x01" + t.content + "\x02"
            if maths and t.type == "math_inline"
            else role(t.meta.get("name", ""), t.content)
            if t.type == "myst_role"
            else " "
            if t.type in ("softbreak", "hardbreak")
            else ""
        )
        out.append(piece)
        bare.append(" " if t.type == "code_inline" else piece)
        if t.type == "code_inline":
            code.append(t.content)
    return " ".join("".join(out).split()), code, " ".join("".join(bare).split())


def _directive_body(content: str) -> str:
    """A directive's body without its options (``:name: x`` lines, or a ``---`` YAML block)."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        return "\n".join(lines[end + 1 :])
    while lines and lines[0].lstrip().startswith(":") and lines[0].lstrip()[1:2].isalpha():
        lines.pop(0)
    return "\n".join(lines)


def blocks(
    md: str, role: Callable[[str, str], str] = role_text, directive: str = "", *, maths: bool = False
) -> list[Block]:
    """What a reader reads in ``md``, block by block (see the module's docstring; ``maths``: inline
    maths by its source between the marks ``\\x01`` and ``\\x02``, as a check's quote gives it)."""
    out: list[Block] = []
    kind, row = "text", None
    for t in _parser().parse(md):
        if t.type == "heading_open":
            kind = "heading"
        elif t.type in ("paragraph_open", "dt_open", "dd_open"):
            kind = "heading" if kind == "heading" else "text"
        elif t.type == "tr_open":
            row = Block("row", "", directive=directive)
        elif t.type == "tr_close" and row is not None:
            row.text, row.bare = " ".join(c for c in row.cells if c), " ".join(c for c in row.bare_cells if c)
            out.append(row)
            row = None
        elif t.type == "inline":
            text, code, bare = _inline(t.children, role, maths)
            if row is not None:
                row.cells.append(text)
                row.bare_cells.append(bare)
                row.code += code
            elif text:
                out.append(Block(kind, text, bare, directive=directive, code=code))
            kind = "text"
        elif t.type in ("math_block", "math_block_label", "amsmath"):
            out.append(Block("math", t.content, directive=directive))
        elif t.type in ("fence", "colon_fence", "code_block"):
            info = t.info.strip()
            if not info.startswith("{"):
                out.append(Block("code", t.content, lang=info.split(" ")[0], directive=directive))
                continue
            name, _, arg = info[1:].partition("}")
            if name in CODE_DIRECTIVES:
                out.append(Block("code", t.content, lang="{" + name + "}", directive=name))
                continue
            if arg.strip() and name not in _NO_TITLE:
                text, code, bare = _inline(_parser().parseInline(arg.strip())[0].children, role, maths)
                out.append(Block("title", text, bare, directive=name, code=code))
            out += blocks(_directive_body(t.content), role, name, maths=maths)
    return out


def prose(md: str, role: Callable[[str, str], str] = role_text, *, code: bool = True) -> str:
    """The prose of ``md`` (its prose blocks, one a line), code and maths blocks left out (and,
    with ``code=False``, inline code too)."""
    return "\n".join(b.text if code else b.bare for b in blocks(md, role) if b.kind not in ("code", "math"))


def without_code(md: str) -> str:
    """``md`` as written, but for its fenced and indented code blocks (a directive's fence stays)."""
    lines = md.split("\n")
    for t in _parser().parse(md):
        if t.type in ("fence", "code_block") and not t.info.strip().startswith("{") and t.map:
            lines[t.map[0] : t.map[1]] = [""] * (t.map[1] - t.map[0])
    return "\n".join(lines)


def tables(md: str) -> list[list[Block]]:
    """The pipe tables of ``md``, each as its rows (the first is the header)."""
    out: list[list[Block]] = []
    last = None
    for i, b in enumerate(blocks(md)):
        if b.kind == "row":
            if last != i - 1:
                out.append([])
            out[-1].append(b)
            last = i
    return out


def roles(md: str) -> list[tuple[str, str]]:
    """``(name, content)`` of every role of ``md``'s prose, in order."""
    found: list[tuple[str, str]] = []

    def keep(name, content):
        found.append((name, content))
        return ""

    blocks(md, keep)
    return found
