"""More prose checks of ``make check-book``: what leaks from the code into a rendered page.

Each function reads the executed notebooks (and, where it says so, the Markdown pages under
``book/``) and returns one line per problem, naming the page and the cell:

* :func:`python_literals` — ``True``, ``False``, ``None`` or ``nan`` where a reader reads a
  sentence (prose with its glued values, Markdown and text outputs) or as a whole table cell:
  the code that writes it knows what the value means and says it in words;
* :func:`raw_tex` — TeX a page cannot render: ``$…$`` or a control word (``\\equiv``) in a cell's
  output or a glued text (myst-nb renders outputs as plain CommonMark inside a ``mathjax_ignore``
  container, and ``{glue:text}`` as plain text), or a control word outside ``$…$`` in prose;
* :func:`nan_cells` — a table cell that reads NaN / None / <NA>, unless the column's header says
  why a cell may be empty ("NaN: …", "undefined", "not in the paper");
* :func:`dangling_tables` — "the table above" (or "below") where the nearest table in that
  direction is missing or has no rows;
* :func:`impossible_shares` — a share stated as "at least 100 %" (or more than 100 % of
  something): a share of rows is at most 100 %, and "at least 100 %" means "all";
* :func:`zero_p_values` — a p-value printed as zero ("0.0e+00", "p = 0"): a permutation p-value
  is at least 1/(n + 1); print it as "< 1/(n + 1)" (:func:`compsem.fmt.p_value`);
* :func:`container_cells` — a table cell that holds a Python dict, list, tuple or set (or a
  NumPy/pandas ``repr``): show its items as words (:func:`compsem.labels.cell`), or one column each;
* :func:`identifier_headers` — a column header, index name or row label that is a name of the
  code (``n_case``, ``test_spearman``): label it with words and units (:mod:`compsem.labels`).

The two table checks read every table a chapter shows: HTML tables and Markdown (pipe) tables in
its outputs.

The prose a reader reads is the Markdown with each ``{glue}`` role replaced by the glued value
(its Markdown for ``{glue:md}``, its plain text otherwise), code and maths left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from compsem.labels import is_container, is_identifier
from compsem.book.executed import cells as _cells
from compsem.book.executed import mime as _mime
from compsem.book.executed import notebooks as _notebooks
from compsem.book.executed import text as _text
from compsem.book.checks.prosecheck import _strip_code_blocks, _strip_html, _Tables
from compsem.book.teaching.courseguide import page_text

__all__ = [
    "python_literals",
    "raw_tex",
    "nan_cells",
    "dangling_tables",
    "impossible_shares",
    "zero_p_values",
    "container_cells",
    "identifier_headers",
    "render_check",
    "rendered_prose",
]

_ROLE = re.compile(r"\{glue(?::([a-z]+))?\}`([^`]+)`")
# a literal as a reader sees it; "None" only where it stands for a value (after ":", "=", "(" or
# before ")"), since "None of the models ..." is English
_LITERAL = re.compile(
    r"(?<![\w`'\"-])(True|False|nan|NaN)(?![\w`'\"-])"
    r"|(?:(?<=[:=(]\s)|(?<=[:=(]))None(?![\w`'\"-])|(?<![\w`'\"-])None(?=\))"
)
_TEX_WORD = r"\\(?:[a-zA-Z]{2,}|[,;!{}])"
_TEX_INLINE = re.compile(r"(?<![\\\w])\$[^$\n]*(?:\\[a-zA-Z]|[_^]\{?\w)[^$\n]*\$")
_TEX_CONTROL = re.compile(_TEX_WORD)
_EMPTY = {"nan", "none", "<na>", "nat", "null"}
_WHY = re.compile(r"nan|undefined|empty|not in the paper|not reported|none when|n/a", re.I)
_ABOVE = re.compile(r"\b(?:the|this) tables? (above|below)\b", re.I)
_SHARE = re.compile(r"at least\s+(\d+(?:\.\d+)?)\s?%|(?:more than|over|above)\s+(\d+(?:\.\d+)?)\s?% of\b", re.I)
_ZERO_P = re.compile(r"(?<![\w.])0(?:\.0+)?e[+-]?0+(?![\d])|\bp\s*=\s*0(?:\.0+)?(?![.\d])", re.I)


def _glued(nb: Path) -> dict[str, tuple[str, str]]:
    """``{key: (markdown, plain)}`` of every value a notebook glued."""
    out = {}
    for c in _cells(nb):
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                data = _mime(o)
                plain = _text(data.get("text/plain", ""))
                out[name] = (_text(data.get("text/markdown", plain)), plain)
    return out


def _substitute(markdown: str, glued: dict[str, tuple[str, str]]) -> str:
    """``markdown`` with each glue role of this page replaced by what the page shows."""

    def value(m):
        kind, body = m.group(1), m.group(2)
        if "::" in body:  # another page's value: left as it is
            return m.group(0)
        key = body.split(":")[0]
        if key not in glued:
            return m.group(0)
        md, plain = glued[key]
        return md if kind == "md" else plain.strip().strip("'\"")

    return _ROLE.sub(value, markdown)


_DIRECTIVE = re.compile(r"^(```+|~~~+)\{[\w:-]+\}[^\n]*\n((?:[ \t]*:[\w-]+:[^\n]*\n)*)(.*?)^\1\s*$", re.S | re.M)


_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(?:[^$\n]|\n(?![ \t]*\n))+?\$")


def _strip(md: str) -> str:
    """The running prose: a directive's body (an admonition's text) is kept, code and maths go."""
    md = _DIRECTIVE.sub(lambda m: m.group(3), md)
    md = re.sub(r"\$\$.*?\$\$", " ", md, flags=re.S)
    md = _INLINE_MATH.sub(" ", md)  # inline maths may run over a line break
    return _strip_code_blocks(md)


def rendered_prose(nb: Path) -> list[tuple[int, str]]:
    """(cell index, the cell's prose as rendered, code and maths left out) of each Markdown cell."""
    glued = _glued(nb)
    return [
        (i, _strip(_substitute(_text(c.get("source", "")), glued)))
        for i, c in enumerate(_cells(nb))
        if c.get("cell_type") == "markdown"
    ]


def _outputs(nb: Path):
    """(cell index, mime type, text) of each displayed output (glued values are not displayed)."""
    for i, c in enumerate(_cells(nb)):
        for o in c.get("outputs", []):
            if o.get("metadata", {}).get("scrapbook"):
                continue
            if o.get("output_type") == "stream":
                yield i, "stream", _text(o.get("text", ""))
                continue
            data = _mime(o)
            for key in ("text/markdown", "text/html"):
                if key in data:
                    yield i, key, _text(data[key])
            if "text/plain" in data and not ({"text/markdown", "text/html", "image/png", "image/svg+xml"} & set(data)):
                yield i, "text/plain", _text(data["text/plain"])


def _tables(html: str) -> list[dict]:
    p = _Tables()
    p.feed(html)
    return p.tables


def _no_tables(html: str) -> str:
    return _strip_html(re.sub(r"<table\b.*?</table>", " ", html, flags=re.S | re.I))


def python_literals(executed_dir: Path) -> list[str]:
    """Python literals a reader reads: in prose (glued values in place), in a Markdown, HTML
    (outside tables) or text output, and as a whole table cell ("True", "False", "None")."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, prose in rendered_prose(nb):
            for m in dict.fromkeys(x.group(0) for x in _LITERAL.finditer(prose)):
                problems.append(
                    f"{nb.name}: cell {i} renders the Python literal {m} in its prose: say what the "
                    "value means in words"
                )
        for i, kind, text in _outputs(nb):
            body = _strip(text) if kind == "text/markdown" else _no_tables(text) if kind == "text/html" else text
            found = [x.group(0) for x in _LITERAL.finditer(body)] if kind != "stream" else []
            for t in _tables(text) if kind == "text/html" else []:
                found += [v for r in t["rows"] for tag, v in r if tag == "td" and v in ("True", "False", "None")]
            for m in dict.fromkeys(found):
                problems.append(
                    f"{nb.name}: cell {i} shows the Python literal {m} in its output: say what the "
                    "value means in words (yes/no, a reason, '–')"
                )
    return problems


def raw_tex(executed_dir: Path, book_dir: Path | None = None) -> list[str]:
    """TeX a reader sees raw: ``$…$`` or a control word in an output (rendered without maths),
    in a glued value shown as text, or a control word outside maths in prose (chapters and
    ``book_dir``'s pages)."""
    problems = []
    for nb in _notebooks(executed_dir):
        glued = _glued(nb)
        for i, c in enumerate(_cells(nb)):
            if c.get("cell_type") != "markdown":
                continue
            src = _text(c.get("source", ""))
            for kind, body in _ROLE.findall(src):
                key = body.split(":")[0]
                if (
                    kind != "md"
                    and "::" not in body
                    and key in glued
                    and (_TEX_INLINE.search(glued[key][1]) or _TEX_CONTROL.search(glued[key][1]))
                ):
                    problems.append(
                        f"{nb.name}: cell {i} shows the glued text `{key}` with raw TeX: write it "
                        "without maths, or glue it as Markdown ({glue:md})"
                    )
            for m in dict.fromkeys(_TEX_CONTROL.findall(_strip(src))):
                problems.append(f"{nb.name}: cell {i} has the TeX control word {m} outside maths: put it in $…$")
        for i, kind, text in _outputs(nb):
            body = _strip_fences(text)
            m = _TEX_INLINE.search(body) or _TEX_CONTROL.search(body)
            if m:
                problems.append(
                    f"{nb.name}: cell {i} prints raw TeX {m.group(0)!r} in an output, where no maths is "
                    "rendered: write it as text (D_rel, ≡)"
                )
    for p in sorted(Path(book_dir).glob("*.md")) if book_dir is not None and Path(book_dir).is_dir() else []:
        for m in dict.fromkeys(_TEX_CONTROL.findall(_strip(page_text(p)))):
            problems.append(f"book/{p.name}: page has the TeX control word {m} outside maths: put it in $…$")
    return problems


def _strip_fences(text: str) -> str:
    return re.sub(r"^(```|~~~)[^\n]*\n.*?^\1\s*$", " ", text, flags=re.S | re.M)


def nan_cells(executed_dir: Path) -> list[str]:
    """Table cells that read NaN, None, <NA> or NaT, unless the column's header says why a cell
    may be empty (it mentions NaN, "undefined", "empty", "not in the paper", "not reported")."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, kind, text in _outputs(nb):
            if kind != "text/html":
                continue
            for k, t in enumerate(_tables(text), 1):
                head = [r for r in t["rows"] if r and all(tag == "th" for tag, _ in r)]
                body = [r for r in t["rows"] if any(tag == "td" for tag, _ in r)]
                width = max((len(r) for r in body), default=0)
                for j in range(width):
                    col = " / ".join(
                        dict.fromkeys(
                            r[len(r) - width + j][1] for r in head if len(r) >= width and r[len(r) - width + j][1]
                        )
                    )
                    label = " ".join(r[0][1] for r in body if len(r) == width and r[0][0] == "th")
                    empty = [
                        r[j][1]
                        for r in body
                        if len(r) == width and r[j][0] == "td" and r[j][1].strip().lower() in _EMPTY
                    ]
                    if empty and not _WHY.search(col + " " + t["caption"]):
                        problems.append(
                            f"{nb.name}: cell {i}, table {k}, column '{col or j + 1}' shows "
                            f"{len(empty)} '{empty[0]}' cell(s): write what the gap means ('–' with a note, "
                            "'not in the paper'), or say why in the column's name"
                            + (f" (rows {label[:60]})" if not col else "")
                        )
    return problems


def _table_rows(nb_cells: list[dict], i: int) -> int | None:
    """Body rows of the last table cell ``i`` shows, ``None`` when it shows none."""
    n = None
    for o in nb_cells[i].get("outputs", []):
        html = _text(_mime(o).get("text/html", ""))
        for t in _tables(html) if "<table" in html.lower() else []:
            n = sum(any(tag == "td" for tag, _ in r) for r in t["rows"])
    if n is None and nb_cells[i].get("cell_type") == "markdown":
        src = _text(nb_cells[i].get("source", ""))
        if re.search(r"^\s*\|.*\|\s*$", src, flags=re.M):  # a Markdown table
            n = max(0, len(re.findall(r"^\s*\|.*\|\s*$", src, flags=re.M)) - 2)
    return n


def _nearest_table(cs: list[dict], near) -> int | None:
    """Body rows of the first table among the cells ``near`` (in order), stopping at the first
    Markdown cell without one: the table a sentence points to lies between it and the next prose."""
    for j in near:
        n = _table_rows(cs, j)
        if n is not None:
            return n
        if cs[j].get("cell_type") == "markdown":
            return None
    return None


def dangling_tables(executed_dir: Path) -> list[str]:
    """ "The table above/below" in prose where the nearest table that way (between this prose and
    the next Markdown cell that way) is missing or has no rows."""
    problems = []
    for nb in _notebooks(executed_dir):
        cs = _cells(nb)
        for i, prose in rendered_prose(nb):
            for m in dict.fromkeys(x.group(1).lower() for x in _ABOVE.finditer(prose)):
                near = range(i - 1, -1, -1) if m == "above" else range(i + 1, len(cs))
                rows = _nearest_table(cs, near)
                if rows is None:
                    problems.append(f"{nb.name}: cell {i} speaks of the table {m}, but there is no table {m} it")
                elif rows == 0:
                    problems.append(
                        f"{nb.name}: cell {i} speaks of the table {m}, which has no rows: say that "
                        "nothing was found instead"
                    )
    return problems


def impossible_shares(executed_dir: Path) -> list[str]:
    """A share stated as "at least 100 %" or as more than 100 % of something, in prose."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, prose in rendered_prose(nb):
            for m in _SHARE.finditer(prose):
                x = float(m.group(1) or m.group(2))
                if x >= 100:
                    problems.append(
                        f"{nb.name}: cell {i} states '{m.group(0)}': a share is at most 100 %; say "
                        "'all' (or compute the smallest share)"
                    )
    return problems


def zero_p_values(executed_dir: Path) -> list[str]:
    """A p-value printed as zero ("0.0e+00", "p = 0") in prose, an output or a table."""
    problems = []
    for nb in _notebooks(executed_dir):
        texts = [(i, p) for i, p in rendered_prose(nb)] + [(i, t) for i, _, t in _outputs(nb)]
        for i, text in texts:
            m = _ZERO_P.search(text)
            if m:
                problems.append(
                    f"{nb.name}: cell {i} prints the p-value {m.group(0)!r}: a permutation p-value is at "
                    "least 1/(n + 1); print it as '< …' (compsem.fmt.p_value)"
                )
    return problems


_PIPE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_CODE_OR_MATH = re.compile(r"`[^`\n]*`|\$[^$\n]*\$")  # quoted code or maths in a Markdown cell: meant so
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _pipe_tables(markdown: str) -> list[dict]:
    """The pipe tables of a Markdown text in :class:`_Tables`' layout (header rows of ``th``)."""
    tables, lines = [], markdown.splitlines()
    for k in range(1, len(lines)):
        if _PIPE_RULE.match(lines[k]) and _PIPE_ROW.match(lines[k - 1]):

            def row(line, tag):
                return [
                    (tag, c.strip().strip("`*") if tag == "th" else _CODE_OR_MATH.sub(" ", c).strip())
                    for c in _PIPE_ROW.match(line).group(1).split("|")
                ]

            body = []
            for line in lines[k + 1 :]:
                if not _PIPE_ROW.match(line):
                    break
                body.append(row(line, "td"))
            tables.append({"caption": "", "rows": [row(lines[k - 1], "th"), *body]})
    return tables


def _shown_tables(nb: Path):
    """(cell index, table number, table) of every table a notebook's outputs show."""
    for i, kind, text in _outputs(nb):
        found = (
            _tables(text)
            if kind == "text/html" and "<table" in text.lower()
            else _pipe_tables(_strip_fences(text))
            if kind == "text/markdown"
            else []
        )
        for k, t in enumerate(found, 1):
            yield i, k, t


def container_cells(executed_dir: Path) -> list[str]:
    """Table cells that show a Python dict, list, tuple or set (``{'steps': 64}``, ``['avx2']``)
    or a NumPy/pandas ``repr``: a reader reads words (:func:`compsem.labels.cell`)."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, k, t in _shown_tables(nb):
            bad = [v for r in t["rows"] for tag, v in r if tag == "td" and is_container(v)]
            if bad:
                problems.append(
                    f"{nb.name}: cell {i}, table {k} shows {len(bad)} cell(s) holding Python "
                    f"containers, e.g. {bad[0][:60]!r}: write the items as words (compsem.labels.cell) "
                    "or give each its own column"
                )
    return problems


#: An index whose name says that its rows are names of things (a package, a file, a model):
#: its row labels are data, written as the thing is named (``huggingface_hub``), not headers.
NAME_INDEXES = {"package", "file", "model", "spec", "scorer", "generator", "encoder", "chapter"}


def identifier_headers(executed_dir: Path) -> list[str]:
    """Column headers, index names and row labels that are names of the code (``n_case``,
    ``test_spearman``) rather than words: label them (:mod:`compsem.labels`). The row labels of
    an index named for things that have names (:data:`NAME_INDEXES`) are left alone."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, k, t in _shown_tables(nb):
            head = [r for r in t["rows"] if r and all(tag == "th" for tag, _ in r)]
            names = {r[0][1].strip().lower() for r in head} & NAME_INDEXES
            heads = [
                v
                for r in t["rows"]
                for j, (tag, v) in enumerate(r)
                if tag == "th" and v and is_identifier(v) and not (names and j == 0 and r not in head)
            ]
            for v in dict.fromkeys(heads):
                problems.append(
                    f"{nb.name}: cell {i}, table {k} has the header {v!r}, a name of the code: "
                    "label it with words and units (compsem.labels.labelled)"
                )
    return problems


def render_check(executed_dir: Path, book_dir: Path | None = None) -> list[str]:
    """Every check of this module, in order."""
    executed_dir = Path(executed_dir)
    return (
        python_literals(executed_dir)
        + raw_tex(executed_dir, book_dir)
        + nan_cells(executed_dir)
        + dangling_tables(executed_dir)
        + impossible_shares(executed_dir)
        + zero_p_values(executed_dir)
        + container_cells(executed_dir)
        + identifier_headers(executed_dir)
    )
