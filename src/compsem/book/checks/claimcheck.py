"""Every sentence of the book that states a result in words is produced, checked or marked
(``make check-book``; :mod:`compsem.claims` holds the vocabulary and the checks).

The prose of every page is read: the chapters' Markdown cells (from the executed notebooks,
whose glued values are known), and ``book/*.md`` (Part pages, worked examples, exercises and
their solutions, the course guide, the glossary, the cluster page). Code, maths blocks and
citations are left out; the text inside a directive (a note, an exercise, a solution) is prose.
Each sentence that carries a claim word (:data:`compsem.claims.CLAIM_WORDS`: a number word, a
bound, a frequency word, a winner, a direction, agreement with the paper) is one of:

* **produced** — every claim word lies in a glued value (``{glue}`key```), which code wrote;
* **checked** — every claim word outside the glue lies in the quote of a recorded check of the
  page (``results/claims/<page>.json``, written by :func:`compsem.claims.check` in a hidden cell
  of the chapter, or by the page's own check file ``book/checks/<page>.py``, whose ``check()``
  this module runs: a prose page's claims, and a chapter's claims about files other than its
  own run, such as the committed benchmarks or the paper's transcribed tables);
* **marked** — not a claim about data (a definition, an instruction, the design of a study):
  the page's check file ``book/checks/<page>.py`` lists it once in ``NOT_CLAIMS``, a fragment
  of the sentence that holds its claim words mapped to the reason (``book/checks/common.py``
  holds the phrases that are definitions on every page, such as "the three operator tables");
* **unchecked** — none of these: a problem.

A check that failed, a check whose quote its page no longer has and a mark that matches no
sentence are problems too. :func:`claim_summary` gives the one line ``make check-book``
prints: ``claims: N found, G produced, C checked, U unchecked, M marked``.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path

from compsem.claims import claim_word_pattern, recorded_as
from compsem.book.teaching.courseguide import page_text
from compsem.book.executed import cells, glued_texts, notebooks, text

#: The check file whose ``NOT_CLAIMS`` hold on every page: phrases that define the studies'
#: designs wherever they appear ("the three operator tables", "the two inputs").
COMMON = "common"

__all__ = [
    "COMMON",
    "Sentence",
    "prose_sentences",
    "page_checks",
    "classify",
    "claim_check",
    "claim_summary",
    "sibling",
]

_WORDS = claim_word_pattern()
_GLUE = re.compile(r"\{glue(?::[a-z]+)?\}`([^`]+)`")
_PLACE = re.compile(r"\{glue:([^}]+)\}")
_ABBREV = re.compile(r"(?:\b(?:Eqs?|Figs?|e\.g|i\.e|al|cf|vs|approx|No|Sec|resp)\.)$")
#: Directives whose body is prose a reader reads; any other fenced block is code or maths.
_PROSE_DIRECTIVES = {
    "note",
    "tip",
    "warning",
    "important",
    "admonition",
    "exercise",
    "solution",
    "rubric",
    "glossary",
    "dropdown",
    "figure",
    "seealso",
    "hint",
    "attention",
    "caution",
    "margin",
    "sidebar",
    "epigraph",
    "topic",
    "glue:figure",
}


@dataclass
class Sentence:
    page: str  # a chapter's stem ("10_setcomp_data") or "book/<name>.md"
    cell: int | None  # the Markdown cell of a chapter
    text: str  # plain text; a glued value is ``{glue:key}``
    glued: dict  # key -> the value's text where known


def _prose_lines(md: str) -> list[str]:
    """The lines of ``md`` a reader reads as prose: fenced code and maths dropped, the bodies of
    prose directives kept without their fences and options."""
    out, stack = [], []  # stack of (fence, keep)
    for line in md.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,}|:{3,})\s*(\{([\w:-]+)\})?", line)
        if (
            m
            and stack
            and m.group(1)[0] == stack[-1][0][0]
            and len(m.group(1)) >= len(stack[-1][0])
            and not m.group(2)
            and not line.strip()[len(m.group(1)) :].strip()
        ):
            stack.pop()
            continue
        if m and (m.group(2) or m.group(1)[0] != ":"):
            keep = m.group(3) in _PROSE_DIRECTIVES and all(k for _, k in stack)
            stack.append((m.group(1), keep))
            continue
        if stack and not all(k for _, k in stack):
            continue
        if stack and re.match(r"^\s*:[\w-]+:", line):
            continue
        out.append(line)
    return out


def _plain(md: str) -> str:
    """Inline Markdown as plain text; glue roles become ``{glue:key}``."""
    md = _GLUE.sub(lambda m: "{glue:" + m.group(1).split("::")[-1].split(":")[0] + "}", md)
    md = re.sub(r"\{cite(?::\w+)?\}`[^`]*`", "", md)
    md = re.sub(r"\{(?!glue:)[\w:-]+\}`([^`<]*?)\s*(?:<[^`]*>)?`", r"\1", md)  # {ref}`text <t>` -> text
    md = re.sub(r"`([^`]*)`", r"\1", md)
    md = re.sub(r"\$\$.*?\$\$", " ", md)
    md = re.sub(r"(?<!\\)\$([^$]+)\$", r"\1", md)
    md = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"<[^>]+>", "", md)
    md = re.sub(r"\*{1,2}", "", md)
    md = re.sub(r"(?<![\w\\])_{1,2}([^_\n]+?)_{1,2}(?![\w{])", r"\1", md)
    return " ".join(md.split())


def _sentences_of(md: str) -> list[str]:
    md = re.sub(r"<!--.*?-->", " ", md, flags=re.S)
    lines = [ln for ln in _prose_lines(md) if not re.match(r"^\s*(#|%|\(?[\w-]+\)=\s*$|\[\^?[\w-]+\]:)", ln)]
    blocks = re.split(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.|\|)\s)", "\n".join(lines))
    out = []
    for b in blocks:
        b = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", b)
        if re.match(r"^\s*\|", b):
            if re.match(r"^\s*\|[\s:|-]+\|\s*$", b):
                continue
            b = " ".join(c.strip() for c in b.strip().strip("|").split("|"))
        parts: list[str] = []
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(\"“{0-9*])", _plain(b)):
            if parts and _ABBREV.search(parts[-1]) and s.strip():
                parts[-1] += " " + s.strip()  # "Eq. 5", "Fig. 2", "et al. (2024)": one sentence
            elif s.strip():
                parts.append(s.strip())
        out += parts
    return out


def prose_sentences(executed_dir: Path | None, book_dir: Path | None) -> list[Sentence]:
    """Every sentence of every page's prose, with the values its glue roles show."""
    values = {nb.stem: glued_texts(nb) for nb in notebooks(executed_dir)} if executed_dir else {}
    out = []

    def resolve(md: str, own: str | None) -> dict:
        found = {}
        for body in _GLUE.findall(md):
            page, sep, rest = body.partition("::")
            key, nb = (rest.split(":")[0], Path(page).stem) if sep else (body.split(":")[0], own)
            if key in values.get(nb, {}):
                found[key] = values[nb][key].strip().strip("'\"")
        return found

    for nb in notebooks(executed_dir) if executed_dir else []:
        for i, c in enumerate(cells(nb)):
            if c.get("cell_type") == "markdown":
                md = text(c.get("source", ""))
                glued = resolve(md, nb.stem)
                out += [Sentence(nb.stem, i, s, glued) for s in _sentences_of(md)]
    for p in sorted(Path(book_dir).glob("*.md")) if book_dir and Path(book_dir).is_dir() else []:
        md = page_text(p)  # the course guide with its generated sessions, as the book shows it
        glued = resolve(md, None)
        out += [Sentence(f"book/{p.name}", None, s, glued) for s in _sentences_of(md)]
    return out


def _check_file(checks_dir: Path, page: str) -> Path:
    return Path(checks_dir) / f"{Path(page).stem}.py"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_compsem_page_checks_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sibling(check_file: str | Path, name: str):
    """A helper module beside a check file (``book/checks/<name>.py``), loaded by path: the
    check files are no package."""
    return _load(Path(check_file).with_name(f"{name}.py"))


def page_checks(
    checks_dir: Path, pages: list[str], executed_dir: Path | None = None
) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Run ``check(executed_dir)`` of each prose page's check file (``book/checks/<page>.py``;
    ``executed_dir`` holds the executed chapters, whose glued values and run times a check may
    read) and read every page's ``NOT_CLAIMS``; return ``({page: {fragment: reason}}, problems)``."""
    marks, problems = {}, []
    for page in [COMMON, *pages]:
        path = _check_file(checks_dir, page)
        if not path.is_file():
            continue
        try:
            mod = _load(path)
            marks[page] = dict(getattr(mod, "NOT_CLAIMS", {}))
            if page != COMMON and hasattr(mod, "check"):
                with recorded_as("checks"):
                    mod.check(Path(executed_dir) if executed_dir else None)
        except Exception as e:  # a failed claim or a broken check file: the build says which
            problems.append(f"{page}: its check file {path.name} fails: {type(e).__name__}: {e}")
    return marks, problems


def _norm(s: str) -> str:
    return " ".join(s.replace("*", "").split())


def _recorded(results: Path) -> dict[str, list[dict]]:
    by_page: dict[str, list[dict]] = {}
    for p in sorted(Path(results).glob("*.json")) if Path(results).is_dir() else []:
        for r in json.loads(p.read_text(encoding="utf-8")):
            by_page.setdefault(r["page"], []).append(r)
    return by_page


def _spans(text_: str, quotes) -> list[tuple[int, int]]:
    return [m.span() for q in quotes if _norm(q) for m in re.finditer(re.escape(_norm(q)), text_, re.I)]


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def classify(sentences: list[Sentence], checks: dict[str, list[dict]], marks: dict[str, dict[str, str]]):
    """``(kind, sentence, loose words)`` for every sentence with a claim word: kind is
    ``produced``, ``checked``, ``marked`` or ``unchecked`` (see the module's docstring); the
    loose words are those of an unchecked sentence that no glue, check or mark covers."""
    out = []
    for s in sentences:
        text_ = _norm(s.text)
        outside = [m.span() for m in _WORDS.finditer(_PLACE.sub(lambda m: "\0" * len(m.group(0)), text_))]
        in_glue = any(_WORDS.search(v) for v in s.glued.values())
        if not outside:
            if in_glue:
                out.append(("produced", s, []))
            continue
        checked = _spans(text_, [r["sentence"] for r in checks.get(s.page, [])])
        marked = _spans(text_, [*marks.get(s.page, {}), *marks.get(COMMON, {})])
        loose = [text_[a:b] for a, b in outside if not _inside((a, b), checked + marked)]
        if loose:
            out.append(("unchecked", s, loose))
        else:
            out.append(("checked" if any(_inside(w, checked) for w in outside) else "marked", s, []))
    return out


def claim_check(executed_dir: Path | None, book_dir: Path | None, results: Path, checks_dir: Path):
    """``(counts, problems)``: the counts of :func:`classify` and one problem per unchecked
    sentence, failed check, check without its sentence, and mark without its sentence."""
    sentences = prose_sentences(executed_dir, book_dir)
    pages = list(dict.fromkeys(s.page for s in sentences))
    marks, problems = page_checks(checks_dir, pages, executed_dir)
    checks = _recorded(results)
    kinds = classify(sentences, checks, marks)
    counts = {k: sum(1 for kind, *_ in kinds if kind == k) for k in ("produced", "checked", "unchecked", "marked")}
    for kind, s, loose in kinds:
        if kind == "unchecked":
            words = ", ".join(dict.fromkeys(w.lower() for w in loose))
            where = f"cell {s.cell}" if s.cell is not None else "page"
            problems.append(
                f"{s.page}: {where} states a result in words ({words}) with neither a glue nor a check: "
                f'"{s.text[:160]}" (produce it with compsem.claims, check it, or mark it in '
                f"book/checks/{Path(s.page).stem}.py)"
            )
    texts = {}
    for s in sentences:
        texts.setdefault(s.page, []).append(_norm(s.text))
    for page, rows in checks.items():
        if page not in texts:
            continue
        for r in rows:
            if r.get("outcome") != "holds":
                problems.append(f'{page}: the check of "{r["sentence"]}" failed ({r.get("rule", "")})')
            if not any(_norm(r["sentence"]) in t for t in texts[page]):
                problems.append(f'{page}: a check quotes "{r["sentence"]}", which the page no longer says')
    for page, fragments in marks.items():
        for f in fragments:
            among = [t for ts in texts.values() for t in ts] if page == COMMON else texts.get(page, [])
            if not any(_norm(f) in t for t in among):
                problems.append(f'{page}: book/checks/{Path(page).stem}.py marks "{f}", which the page no longer says')
    return counts, problems


def claim_summary(counts: dict[str, int]) -> str:
    """``claims: N found, G produced, C checked, U unchecked, M marked``."""
    n = sum(counts.values())
    return (
        f"claims: {n} found, {counts['produced']} produced, {counts['checked']} checked, "
        f"{counts['unchecked']} unchecked, {counts['marked']} marked"
    )
