"""The prose checks of ``make check-book``: what a reader reads around the tables.

Run on the executed notebooks (``_build/executed/notebooks``) and the Markdown pages under
``book/``; each function returns one line per problem, naming the page and the cell:

* :func:`stderr_outputs` — anything a cell wrote to stderr (warnings, logging): a published
  page shows none; fix the call that warns, never hide the warning;
* :func:`progress_bars` — tqdm lines or progress widgets in any output (the book sets
  ``TQDM_DISABLE``; see :mod:`compsem.progress`);
* :func:`plural_templates` — "scorer(s)" in prose, a glued text or a table: the code that writes
  the sentence knows the count (:func:`compsem.fmt.plural`);
* :func:`missing_paths` — a repository path named in prose (``tests/...``, ``src/...``) that does
  not exist;
* :func:`interval_mismatches` — an estimate printed outside its own printed interval
  ("0.999 [1.00, 1.00]"), in prose or in a table;
* :func:`negative_zeros` — "-0.0000" in a sentence or an output other than a table;
* :func:`table_formats` — a table column whose numbers carry different numbers of decimals
  ("0.0" beside "0.0000"), or a negative zero in a table, naming the table and the column;
* :func:`typed_numbers` — a decimal number or a percentage typed into a chapter's Markdown rather
  than glued, and, when a table of the same page prints a number within one unit of its last
  place that does not round to it, the disagreement.

Sentences that state a result in words (a number word, "seldom", "most", a winner, "faster",
agreement with the paper) are found by :mod:`.claimcheck`, with the claim vocabulary of
:mod:`compsem.claims`; ``make check-book`` runs both.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from compsem.fmt import plural
from compsem.book.executed import cells as _cells
from compsem.book.executed import mime as _mime
from compsem.book.executed import notebooks as _notebooks
from compsem.book.executed import text as _text
from compsem.book.checks.gluecheck import undefined_glue
from compsem.book.teaching.courseguide import page_text

__all__ = [
    "stderr_outputs",
    "progress_bars",
    "plural_templates",
    "missing_paths",
    "interval_mismatches",
    "negative_zeros",
    "typed_numbers",
    "table_formats",
    "prose_check",
]

# "  2%|▏         | 1024/48385 [00:25<19:40, 40.1text/s]" and its variants
_TQDM = re.compile(r"\d+%\|.*\|\s*[\d.]+[kMG]?/[\d.?]+[kMG]?\s*\[|\d+(?:\.\d+)?(?:it|text|pair)s?/s\]")
_WIDGET = "application/vnd.jupyter.widget-view+json"
_PLURAL = re.compile(r"\b[A-Za-z]+\(s\)")
_PATH = re.compile(r"(?<![\w./<-])((?:tests|src|notebooks|benchmarks|book|binder|data|_static)/[\w.\-/]*[\w/])")
_NUM = r"[-−]?\d+(?:\.\d+)?"
_INTERVAL = re.compile(rf"(?<![\w.])({_NUM})\s*%?\s*[\[(]({_NUM})\s*%?\s*[,–-]\s*({_NUM})\s*%?[\])]")
_DECIMAL = re.compile(r"(?<![\w.\-/])(-?\d+\.\d+)(?![\w.]*\d)(?!\.\d)")
_PERCENT = re.compile(r"(?<![\w.\-/])(\d+(?:\.\d+)?)\s?%")
# a number after these words is a reference to a section, figure, equation or version, not a result
_REF_WORDS = re.compile(
    r"(?:Fig(?:ure)?s?\.?|Tables?|Sections?|§|Eqs?\.?|Equations?|[Cc]hapters?|Parts?|version|"
    r"v|Python|PEP|jupyter-book|Sphinx|sphinx)\s*$"
)


def stderr_outputs(executed_dir: Path) -> list[str]:
    """Cells whose output includes a stderr stream (warnings, logging, progress)."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, c in enumerate(_cells(nb)):
            for o in c.get("outputs", []):
                if o.get("output_type") == "stream" and o.get("name") == "stderr":
                    first = next((ln for ln in _text(o.get("text", "")).splitlines() if ln.strip()), "")
                    problems.append(f"{nb.name}: cell {i} writes to stderr: {first.strip()[:120]}")
                    break
    return problems


def progress_bars(executed_dir: Path) -> list[str]:
    """Outputs that are progress bars: tqdm text lines or a Jupyter widget."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, c in enumerate(_cells(nb)):
            lines, widgets = 0, 0
            for o in c.get("outputs", []):
                if o.get("output_type") == "stream":
                    lines += sum(bool(_TQDM.search(ln)) for ln in re.split(r"[\r\n]", _text(o.get("text", ""))))
                widgets += _WIDGET in _mime(o)
            if lines or widgets:
                what = plural(lines, "progress-bar line") if lines else plural(widgets, "progress widget")
                problems.append(f"{nb.name}: cell {i} shows {what} (TQDM_DISABLE must reach the cause)")
    return problems


def _visible_texts(executed_dir: Path, *, tables: bool = True):
    """(page, cell index, kind, text) for every text a reader may see: Markdown cells, stream and
    plain/HTML/Markdown outputs, glued values (``tables=False``: HTML tables left out)."""
    for nb in _notebooks(executed_dir):
        for i, c in enumerate(_cells(nb)):
            if c.get("cell_type") == "markdown":
                yield nb.name, i, "prose", _text(c.get("source", ""))
            for o in c.get("outputs", []):
                if o.get("output_type") == "stream":
                    yield nb.name, i, "output", _text(o.get("text", ""))
                data = _mime(o)
                for key in ("text/markdown", "text/html"):
                    if key in data:
                        html = _text(data[key])
                        if not tables:
                            html = re.sub(r"<table\b.*?</table>", " ", html, flags=re.S | re.I)
                        yield nb.name, i, "output", _strip_html(html)
                if "text/plain" in data and not ({"text/markdown", "text/html"} & set(data)):
                    yield nb.name, i, "output", _text(data["text/plain"])


def _pages(book_dir: Path | None):
    if book_dir is None or not Path(book_dir).is_dir():
        return
    for p in sorted(Path(book_dir).glob("*.md")):
        yield f"{Path(book_dir).name}/{p.name}", None, "prose", page_text(p)


def plural_templates(executed_dir: Path, book_dir: Path | None = None) -> list[str]:
    """ "word(s)" anywhere a reader looks (prose, outputs, glued texts)."""
    problems = []
    for page, i, _, text in [*_visible_texts(executed_dir), *_pages(book_dir)]:
        for m in dict.fromkeys(_PLURAL.findall(_strip_code_blocks(text))):
            where = f"cell {i}" if i is not None else "page"
            problems.append(f"{page}: {where} has a pluralisation template '{m}': say the count's own form")
    return problems


def missing_paths(executed_dir: Path, root: Path, book_dir: Path | None = None) -> list[str]:
    """Repository paths named in prose (``tests/...``, ``src/...``, ...) that do not exist under
    ``root``. Patterns with ``*``, ``<…>`` or ``{…}`` are not paths and are skipped."""
    problems = []
    prose = [(p, i, t) for p, i, k, t in _visible_texts(executed_dir) if k == "prose"]
    prose += [(p, i, t) for p, i, _, t in _pages(book_dir)]
    for page, i, text in prose:
        for m in dict.fromkeys(_PATH.findall(text)):
            end = text.find(m) + len(m)
            if text[end : end + 1] in ("*", "<", "{") or (Path(root) / m).exists():
                continue
            where = f"cell {i}" if i is not None else "page"
            problems.append(f"{page}: {where} names {m}, which does not exist in the repository")
    return problems


def _num(s: str) -> float:
    return float(s.replace("−", "-"))


def interval_mismatches(executed_dir: Path) -> list[str]:
    """ "estimate [low, high]" as printed, with the estimate outside the printed interval."""
    problems = []
    for page, i, kind, text in _visible_texts(executed_dir):
        if kind == "prose":
            text = _strip_code_blocks(text)
        for v, lo, hi in _INTERVAL.findall(text):
            if not _num(lo) <= _num(v) <= _num(hi) and _num(lo) <= _num(hi):
                problems.append(
                    f"{page}: cell {i} prints {v} outside its own interval [{lo}, {hi}]: print the "
                    "estimate and its interval at precisions where it lies inside"
                )
    return problems


class _Strip(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th", "br", "tr", "p", "li"):
            self.parts.append(" ")


def _strip_html(html: str) -> str:
    p = _Strip()
    p.feed(html)
    return " ".join(p.parts)


def _strip_code_blocks(md: str) -> str:
    """Markdown without fenced code, inline code, maths, roles, links' targets, labels and
    directive options: what remains is the running prose."""
    md = re.sub(r"^(```|~~~)[^\n]*\n.*?^\1\s*$", " ", md, flags=re.S | re.M) if "```" in md or "~~~" in md else md
    md = re.sub(r"\$\$.*?\$\$", " ", md, flags=re.S)
    md = re.sub(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", " ", md, flags=re.S)
    md = re.sub(r"(?<!\\)\$[^$\n]+\$", " ", md)
    md = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", md)  # roles ({glue:text}`x`, {ref}`y`)
    md = re.sub(r"`[^`]*`", " ", md)
    md = re.sub(r"\]\([^)]*\)", "]", md)
    md = re.sub(r"^\s*\(?[\w-]+\)=\s*$", " ", md, flags=re.M)
    md = re.sub(r"^\s*:[\w-]+:.*$", " ", md, flags=re.M)
    md = re.sub(r"<!--.*?-->", " ", md, flags=re.S)
    return md


def _decimals(s: str) -> int:
    return len(s.split(".", 1)[1]) if "." in s else 0


def _table_numbers(cells: list[dict]) -> set[str]:
    out: set[str] = set()
    for c in cells:
        for o in c.get("outputs", []):
            html = _text(_mime(o).get("text/html", ""))
            if "<table" in html:
                out.update(re.findall(r"-?\d+(?:\.\d+)?", _strip_html(html)))
    return out


#: Round constants a text uses as levels or thresholds, never as results.
_CONSTANTS = {"0.25", "0.75", "0.05", "0.01", "0.001", "0.95", "0.975", "0.025", "0.50", "1.00", "0.00", "2.5", "97.5"}
# a number after these is a threshold, a tolerance or an example, not a result
_NOT_A_RESULT = re.compile(
    r"(?:[<>≤≥]|<=|>=|within|such as|e\.g\.|for example|say|level|margin|threshold|"
    r"ε|epsilon|lr|rate)\s*=?\s*$",
    re.I,
)


def typed_numbers(executed_dir: Path) -> list[str]:
    """Numbers typed into a chapter's Markdown that look like results: decimals with two or more
    places and percentages with a decimal point, outside code, maths, roles and references
    ("Table 3.2"), not round constants (0.25, 0.05, …) and not thresholds, tolerances or
    examples ("≤ 0.25", "within 0.001", "such as 0.55"). A typed number is reported as a
    disagreement when a table of the same page prints a number that, rounded to the typed
    precision, differs from it by one unit in the last place (0.53 typed, 0.520 in the table);
    else as a number to glue. A constant or a made-up example can be written as maths ($0.55$).
    """
    problems = []
    for nb in _notebooks(executed_dir):
        cells = _cells(nb)
        tables = _table_numbers(cells)
        for i, c in enumerate(cells):
            if c.get("cell_type") != "markdown":
                continue
            prose = _strip_code_blocks(_text(c.get("source", "")))
            seen: set[int] = set()
            for m in [*_PERCENT.finditer(prose), *_DECIMAL.finditer(prose)]:
                s = m.group(1)
                before = prose[max(0, m.start() - 16) : m.start()]
                if m.start() in seen or _REF_WORDS.search(before) or _NOT_A_RESULT.search(before):
                    continue
                seen.add(m.start())
                d = _decimals(s)
                if s in _CONSTANTS or (d < 2 and not (d == 1 and m.re is _PERCENT)):
                    continue
                x, ulp = float(s), 10.0**-d
                near = [
                    t
                    for t in tables
                    if _decimals(t) >= d and t != s and abs(abs(round(float(t), d) - x) - ulp) < ulp / 10
                ]
                if near:
                    problems.append(
                        f"{nb.name}: cell {i} types {s} where a table of the page prints "
                        f"{sorted(near, key=lambda t: abs(float(t) - x))[0]}: glue the computed value"
                    )
                elif s not in tables:
                    problems.append(
                        f"{nb.name}: cell {i} types the number {s} into the prose: glue it from the "
                        "value the code computed (or read it from data/reference/)"
                    )
    return problems


def negative_zeros(executed_dir: Path) -> list[str]:
    """ "-0.000" printed anywhere a reader looks outside a table (:func:`table_formats` names a
    table's column): a value that rounds to zero prints as zero (:func:`compsem.fmt.number`)."""
    problems = []
    for page, i, _, text in _visible_texts(executed_dir, tables=False):
        for m in dict.fromkeys(re.findall(r"(?<![\w.])[-−]0\.0+(?![\d])", text)):
            problems.append(f"{page}: cell {i} prints {m}: print a value that rounds to zero as zero")
    return problems


class _Tables(HTMLParser):
    """The tables of an HTML fragment: caption, header rows and body rows, each row a list of
    ``(tag, text)`` laid out on the table's grid (``colspan``/``rowspan`` expanded)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._stack: list[dict] = []  # nested tables
        self._cell: list | None = None  # [tag, text, colspan, rowspan]
        self._caption = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._stack.append({"caption": "", "rows": [], "spans": {}})
        elif not self._stack:
            return
        elif tag == "caption":
            self._caption = True
        elif tag == "tr":
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th"):

            def span(k):
                try:
                    return max(1, int(a.get(k) or 1))
                except ValueError:
                    return 1

            self._cell = [tag, "", span("colspan"), span("rowspan")]
        elif tag == "br" and self._cell is not None:
            self._cell[1] += " "

    def handle_endtag(self, tag):
        if not self._stack:
            return
        t = self._stack[-1]
        if tag == "caption":
            self._caption = False
        elif tag in ("td", "th") and self._cell is not None:
            if not t["rows"]:
                t["rows"].append([])
            row, (ctag, text, cs, rs) = t["rows"][-1], self._cell
            r = len(t["rows"]) - 1
            while (r, len(row)) in t["spans"]:  # cells a rowspan above still covers
                row.append(t["spans"].pop((r, len(row))))
            for _ in range(cs):
                col = len(row)
                row.append((ctag, text.strip()))
                for k in range(1, rs):
                    t["spans"][(r + k, col)] = ("th", "")  # a spanned label: not a data cell
            self._cell = None
        elif tag == "table":
            self.tables.append(self._stack.pop())

    def handle_data(self, data):
        if self._stack and self._caption:
            self._stack[-1]["caption"] += data
        elif self._cell is not None:
            self._cell[1] += data


_NA_CELLS = {"", "n/a", "na", "nan", "none", "<na>", "nat", "–", "—", "-"}
_NUMERIC_CELL = re.compile(
    r"^[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*%?"
    r"(?:\s*±\s*[-−]?\d+(?:\.\d+)?)?(?:\s*[\[(].*[\])])?$"
)


def _decimal_places(text: str) -> tuple[int, str] | None:
    """Decimals and unit of a numeric cell's leading number ("0.55 [0.50, 0.60]" → (2, ""),
    "49.6 % [40.8, 59.2]" → (1, "%"), "0.412 ± 0.1" → (3, "")), ``None`` when the cell is not a
    number."""
    if not _NUMERIC_CELL.match(text):
        return None
    lead = re.match(r"[-−+]?[\d,]+(?:\.(\d+))?(\s*%)?", text)
    return (len(lead.group(1)) if lead.group(1) else 0), ("%" if lead.group(2) else "")


def table_formats(executed_dir: Path) -> list[str]:
    """Every HTML table a page shows, column by column: the numbers of a column carry one number
    of decimals ("0.0" beside "0.0000" is a problem; empty, "n/a", NaN and whole-number cells,
    such as counts, are left out; cells marked "%" are compared among themselves, so that a
    column of a criteria × models table may hold percentages beside correlations when each
    cell says which it is), and no cell prints a negative zero. A problem names the page,
    the cell, the table (its caption, else its place in the cell's output) and the column."""
    problems = []
    for nb in _notebooks(executed_dir):
        for i, c in enumerate(_cells(nb)):
            k = 0
            for o in c.get("outputs", []):
                html = _text(_mime(o).get("text/html", ""))
                if "<table" not in html.lower():
                    continue
                parser = _Tables()
                parser.feed(html)
                for t in parser.tables:
                    k += 1
                    name = f"table {k}" + (f" ('{' '.join(t['caption'].split())}')" if t["caption"].strip() else "")
                    head = [r for r in t["rows"] if r and all(tag == "th" for tag, _ in r)]
                    body = [r for r in t["rows"] if any(tag == "td" for tag, _ in r)]
                    width = max((len(r) for r in body), default=0)
                    for j in range(width):
                        parts = [r[len(r) - width + j][1] for r in head if len(r) >= width and r[len(r) - width + j][1]]
                        col = " / ".join(dict.fromkeys(parts)) or f"column {j + 1}"
                        cells = [r[j][1] for r in body if len(r) == width and r[j][0] == "td"]
                        for z in dict.fromkeys(m for v in cells for m in re.findall(r"(?<![\w.])[-−]0\.0+(?!\d)", v)):
                            problems.append(
                                f"{nb.name}: cell {i}, {name}, column '{col}' prints {z}: print a value "
                                "that rounds to zero as zero (compsem.fmt.number)"
                            )
                        by_unit: dict[str, dict[int, str]] = {}
                        for v in cells:
                            d = None if v.lower() in _NA_CELLS else _decimal_places(v)
                            if d and d[0]:  # whole numbers (counts) are left out
                                by_unit.setdefault(d[1], {}).setdefault(d[0], v)
                        for by_places in by_unit.values():
                            if len(by_places) > 1:
                                shown = ", ".join(f"'{by_places[d]}'" for d in sorted(by_places))
                                problems.append(
                                    f"{nb.name}: cell {i}, {name}, column '{col}' mixes numbers of "
                                    f"decimals ({shown}): one format per column (compsem.fmt.formatter)"
                                )
    return problems


def prose_check(executed_dir: Path, root: Path, book_dir: Path | None = None) -> list[str]:
    """Every check of this module, in order."""
    executed_dir = Path(executed_dir)
    return (
        stderr_outputs(executed_dir)
        + progress_bars(executed_dir)
        + plural_templates(executed_dir, book_dir)
        + missing_paths(executed_dir, root, book_dir)
        + interval_mismatches(executed_dir)
        + negative_zeros(executed_dir)
        + table_formats(executed_dir)
        + typed_numbers(executed_dir)
        + undefined_glue(executed_dir, book_dir)
    )
