"""Every sentence of the book that states a result in words is produced or checked
(``make check-book``; :mod:`compsem.claims` holds the vocabulary and the checks).

Every page's prose is read through :mod:`compsem.book.myst` (chapters' Markdown cells and figure
captions, ``book/*.md``; headings, link texts, table rows, directive titles and bodies are prose).
A word of :data:`compsem.claims.CLAIM_WORDS` is a claim in its context (:func:`claim_spans`): a
number when it counts what the project holds as data (:data:`compsem.claims.DATA_NOUNS`: "three
models", "up to seven samples"), not an arity or a design ("the two margins", "its three words",
"ratio of two angles", "two-sided"); any other word when its clause asserts something about data
(no question, instruction, condition, modal, definition, relative clause, quotation or hedge).
Each claim word is **produced** (inside a glued value: **from findings** where one of the
sentence's values is a declared finding's or verdict rule's text, :class:`compsem.results.Found`,
glued only under a key of :data:`compsem.results.FOUND_KEYS`), **checked** (inside the quote of a
recorded :func:`compsem.claims.check` of the page: a hidden cell's, or the page's entry in
``CHECKS`` of a module of ``book/checks/``, which this module runs) or **marked** (inside a
fragment of the page's table in ``book/checks/not_claims.toml``, fragment = why it is no claim). A
mark never exempts a count of data, nor a conclusion written as fixed text beside a glued value
("better than {glue}"); any other claim word is **unchecked**, a problem. A failed check, a check or
a mark whose words the page no longer has, and a mark that covers no claim word are problems too.
Both modes of ``make check-book`` print ``claims: N found: F from findings, G produced, C checked,
M marked, U unchecked`` (:func:`claim_summary`).
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from compsem.claims import CLAIM_WORDS, DATA_NOUNS, NUMBER_WORDS, recorded_as, records
from compsem.paths import results_dir
from compsem.results import FOUND_KEYS
from compsem.encoders import PANEL
from compsem.book import myst
from compsem.book.executed import cells, glued_texts, notebooks, text
from compsem.book.teaching.courseguide import page_text

MARKS = "not_claims.toml"
KINDS = ("from findings", "produced", "checked", "marked", "unchecked")

__all__ = "MARKS KINDS Sentence prose_sentences claim_spans page_checks classify claim_check claim_summary".split()

_WORDS = re.compile("|".join(f"(?P<{k}>{p})" for k, p in CLAIM_WORDS.items()), re.I)
_ANY = re.compile("|".join(f"(?:{p})" for p in CLAIM_WORDS.values()), re.I)
_PLACE = re.compile(r"\{glue:[^}]+\}")
_ABBREV = re.compile(r"(?:\b(?:Eqs?|Figs?|e\.g|i\.e|al|cf|vs|approx|No|Sec|resp)\.)$")
_STOP = (
    r"(?:on|in|at|for|with|to|by|from|and|or|than|is|are|was|were|be|the|a|an|that|which|per|each|as|of|into|"
    r"between|across|over|under|among|about|within|without|after|before|against)\b"
)
_SINGULAR = [
    "hypothesis" if n == "hypotheses" else n[:-3] + "y" if n.endswith("ies") else n[: -2 if n.endswith("sses") else -1]
    for n in DATA_NOUNS
]


def _noun_after(nouns) -> re.Pattern:
    """Up to two modifiers ("open", "operator", "sentence"), then one of ``nouns``: what a count counts."""
    return re.compile(
        r"\s+(?:of\s+(?:the\s+|its\s+|their\s+)?(?:\w+\s+)?)?(?:(?!"
        + _STOP
        + r")[\w'-]+\s+){0,2}?(?:"
        + "|".join(nouns)
        + r")\b",
        re.I,
    )


_COUNTED, _ONE = _noun_after(DATA_NOUNS), _noun_after([*DATA_NOUNS, *_SINGULAR])
_HALF = _noun_after([*DATA_NOUNS, *_SINGULAR, "time"])
_BOUND = re.compile(r"^(?:up to|at most|at least|only|all but|just)\s")
#: Before a number: it gives an arity ("its three words", "each pair's two rows"), a generic case
#: ("any two sentences") or a threshold ("≠ 2 rows"); "the two" and "the first three" refer to a
#: design's members; "of two", "for three" give an arity or an example.
_ARITY = re.compile(
    r"(?:\b(?:its|their|each|every|whose|both|per|his|her|any|no|of each|of every|one of)\s+"
    r"|[≠<>≤≥=]\s*)$",
    re.I,
)
_BATCH = re.compile(r"\bbatch(?:es)?(?: size)?\b[^.;]{0,40}$", re.I)  # a batch's size is a design
_DEFINITE = re.compile(r"\b(?:the|these|those|our|first|last|other|next|same)\s+$", re.I)
_PREPOSITION = re.compile(r"\b(?:of|per|between|for|across|with|from|into|on|in|to|over|among|under|by)\s+$", re.I)
_MEMBER = re.compile(
    r"^\s*(?:of\s+(?:a|an|each|every|its|one|their|the same|the two)\b|per\b|(?:for )?each\b|"
    r"for every\b|at a time\b|apart\b)",
    re.I,
)
_NOT_ASSERTED = re.compile(
    r"\?|\b(?:if|unless|suppose|imagine|whenever|would|could|might|may|should|can|cannot|can't|must|expects?|"
    r"predicts?|hypothes\w*|whether|means?|meaning|defined?|definition|by construction|denotes?|stands? for|"
    r"is called|we call|i\.e\.|refers? to|given|says|states|writes|argues|asks|"
    r"(?:a|any)\s+(?:[\w-]+\s+){0,3}?(?:model|scorer|encoder)\s+that)\b",
    re.I,
)
#: Before a claim word in its segment: a relative clause, an indirect question, a purpose, a hedge.
_FRAMED = re.compile(
    r"\b(?:when|where|whenever|how often|how many|how much|in which|under which|on which|so that|"
    r"probably|perhaps|likely|possibly|reports)\b",
    re.I,
)
#: After "never"/"always": what a procedure does, not how often a result holds ("never reads").
_PROCEDURE = re.compile(
    r"^\s+(?:\w+\s+)?(?:reads?|sees?|looks?|enters?|uses?|used|writes?|call(?:s|ed)?|defines?|"
    r"touch(?:es)?|serve[sd]?|ships?|trains?|cached?|as|by|the|a|an)\b",
    re.I,
)
_IMPERATIVE = re.compile(
    r"^\W*(?:[IVX]+\s+)?(?:Compute|Run|Compare|Name|Give|Use|Try|Change|Pick|Write|Explain|Show|Check|Predict|"
    r"Consider|Repeat|Open|Rerun|Train|Plot|Find|Read|Count|Suppose|Take|Let|Add|Replace|Set|Ask|Choose|Describe|"
    r"List|Look|Keep|Do|Make|Derive|Prove|Argue|Measure|Estimate|Decide|Discuss|Edit|Execute|Go|Mark|Sketch|State|"
    r"Test|Imagine|Start|Draw|Fill|Work|Say|Report|Modify|Swap|Design|Build|Put|Expect|Identify|Record|Save|"
    r"Install|Clone|Type|Apply|Verify|Evaluate|Calculate|Think|Interpret|Why|What|Which|How|Where|Is|Are|Does)\b",
    re.I,
)
_MEASURED = (
    r"\{glue:|(?<![\w.$])\d|%|\b(?:shares?|accurac\w+|Spearman|Pearson|correlations?|C[1-6]|RSA|sparsity|"
    r"intervals?|significant\w*|p-values?|examples/s|seconds|minutes|hours|chance|results?|MiniLM|"
    + "|".join(re.escape(e) for e in PANEL)
    + r")\b"
)
#: What a clause must name to assert something about data: a measure, a glued value, a model, or
#: (but for a cause) a thing the project holds as data.
_ABOUT = {
    "cause": re.compile(_MEASURED[:-3] + r"|(?:model|encoder|scorer|LLM)s?)\b", re.I),
    None: re.compile(_MEASURED[:-3] + "|" + "|".join([*DATA_NOUNS, *_SINGULAR]) + r")\b", re.I),
}


@dataclass
class Sentence:
    page: str  # a chapter's stem ("10_setcomp_data") or "book/<name>.md"
    cell: int | None  # the chapter's cell
    text: str  # plain text; a glued value is ``{glue:key}``
    glued: dict  # key -> the value's text where known
    directive: str = ""  # the directive the sentence lies in ("glossary": a definition)
    read: str = ""  # the text as the check reads it: inline maths filled with "§"


def _split(block: str) -> list[str]:
    parts: list[str] = []
    for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(\"“{0-9*])", block):
        if parts and _ABBREV.search(parts[-1]) and s.strip():
            parts[-1] += " " + s.strip()  # "Eq. 5", "Fig. 2", "et al. (2024)": one sentence
        elif s.strip():
            parts.append(s.strip())
    return parts


def _sentences(md: str, page: str, cell: int | None, values: dict) -> list[Sentence]:
    """The sentences a reader reads in ``md``, each with the glued values it shows."""
    own = page if cell is not None else None
    out = []
    for b in myst.blocks(
        md,
        role=lambda name, content: f"{{glue:{content}}}" if name.startswith("glue") else myst.role_text(name, content),
        maths=True,
    ):
        if b.kind in ("code", "math"):
            continue
        for s in _split(b.text):
            glued = {}
            for body in re.findall(r"\{glue:([^}]+)\}", s):
                nb, sep, rest = body.partition("::")
                key, nb = (rest.split(":")[0], Path(nb).stem) if sep else (body.split(":")[0], own)
                if key in values.get(nb, {}):
                    glued[key] = values[nb][key].strip().strip("'\"")
            s = _norm(_PLACE.sub(lambda m: "{glue:" + m.group(0)[6:-1].split("::")[-1].split(":")[0] + "}", s))
            read = re.sub("\x01([^\x02]*)\x02", lambda m: "§" * len(m.group(1)), s)  # maths: no words
            out.append(Sentence(page, cell, re.sub("[\x01\x02]", "", s), glued, b.directive, read))
    return out


def prose_sentences(executed_dir: Path | None, book_dir: Path | None) -> list[Sentence]:
    """Every sentence of every page's prose, with the values its glue roles show."""
    nbs = notebooks(executed_dir) if executed_dir else []
    values = {nb.stem: glued_texts(nb) for nb in nbs}
    out = []
    for nb in nbs:
        for i, c in enumerate(cells(nb)):
            caption = c.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption", "")
            md = text(c.get("source", "")) if c.get("cell_type") == "markdown" else text(caption)
            out += _sentences(md, nb.stem, i, values)
    for p in sorted(Path(book_dir).glob("*.md")) if book_dir and Path(book_dir).is_dir() else []:
        out += _sentences(page_text(p), f"book/{p.name}", None, values)  # the course guide as the book shows it
    return out


_SEGMENT = re.compile(r"[;:()—]|\s–\s")
_TOY = re.compile(r"\b(?:toy|example|by hand|tiny|imagined|pencil|this page)\b", re.I)


def _asserted(text_: str, a: int, b: int) -> bool:
    """Whether the claim word at ``a:b`` is asserted: no question, condition, modal or definition
    before it in its segment (between semicolons, colons, dashes, brackets), nor after it in its clause."""
    starts = [m.end() for m in _SEGMENT.finditer(text_[:a])]
    end = re.search(r",\s|" + _SEGMENT.pattern, text_[b:])
    before = text_[starts[-1] if starts else 0 : a]
    return not (
        _NOT_ASSERTED.search(before)
        or _FRAMED.search(before)
        or before.count('"') % 2
        or _NOT_ASSERTED.search(text_[a : b + end.start() if end else len(text_)])
    )


def _design(word: str, before: str, after: str, rest: str, text_: str, toy: bool = False) -> bool:
    """Whether a number that is no bound gives an arity or a design rather than a count of data
    (on a worked page, ``toy``, a number in words counts the toy's parts)."""
    if _MEMBER.match(rest) or _ARITY.search(before) or _BATCH.search(before):
        return True  # "samples of its quintuple", "its three words", "≠ 2 rows", "batches of 16 rows"
    if re.match(r"\s+consecutive\b", after):
        return True  # "three consecutive sentences": a window's size
    if word == "two":
        return not re.match(r"\s+of the\b", after)  # the arity of a pair, unless "two of the models"
    words = not word[-1].isdigit()
    return words and (
        toy
        or bool(_TOY.search(text_))
        or (word == "three" and bool(_DEFINITE.search(before) or _PREPOSITION.search(before)))
    )


def claim_spans(text_: str, directive: str = "", toy: bool = False) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of each claim word of ``text_`` that is a claim in its context (see
    the module's docstring); kind ``count`` is a count of data. Glue placeholders are skipped;
    ``toy``: the sentence is on a worked page (``*_worked.md``)."""
    masked = _PLACE.sub(lambda m: "\0" * len(m.group(0)), text_)
    if _IMPERATIVE.match(masked) or masked.rstrip().endswith("?") or directive == "glossary":
        return []
    out = []
    for m in _WORDS.finditer(masked):
        a, b, kind, word = m.start(), m.end(), m.lastgroup, m.group(0).lower()
        if not _asserted(masked, a, b):
            continue
        if kind == "count":
            before, bound = masked[:a], bool(_BOUND.match(word))
            noun = (_ONE if word.endswith(" one") else _COUNTED).match(masked[b:])
            if not noun or (
                _design(word, before, masked[b:], masked[b + noun.end() :], masked, toy)
                if not bound
                else word.endswith(" one") and re.match(r"\s+of the two\b", masked[b:])
            ):
                continue
            b += noun.end()
        elif (
            not _ABOUT.get(kind, _ABOUT[None]).search(text_)
            or (word in ("never", "always") and _PROCEDURE.match(masked[b:]))
            or ((word.startswith(("half", "about half")) or word == "none of") and not _HALF.match(masked[b:]))
            or (kind == "paper" and re.search(r"\bTables? [\d, and]+\s*$", masked[:a]))
            or (kind == "direction" and re.match(r"\s+(?:\d|(?:" + "|".join(NUMBER_WORDS) + r")\b)", masked[b:]))
        ):
            continue  # "never reads", "half their length", "Table 7 reproduced" (a name)
        out.append((a, b, kind))
    return out


def page_checks(
    checks_dir: Path, pages: list[str], executed_dir: Path | None = None
) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Run the check of every page (``CHECKS[stem](executed_dir)`` of the modules of ``checks_dir``,
    keyed by the page's file stem; the records of an earlier run of them go first) and read every
    page's marks (:data:`MARKS`: a table per page stem); return
    ``({page: {fragment: reason}}, problems)``."""
    problems, stems = [], {Path(p).stem: p for p in pages}
    for old in results_dir("claims").glob("*.checks.json"):
        old.unlink()  # the checks run afresh: a removed check leaves no record
    path = Path(checks_dir) / MARKS
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except tomllib.TOMLDecodeError as e:
        table, problems = {}, [f"book/checks/{MARKS} is no valid TOML: {e}"]
    marks = {stems.get(k, k): dict(v) for k, v in table.items() if k in stems}
    for path in sorted(Path(checks_dir).glob("*.py")):
        try:
            spec = importlib.util.spec_from_file_location(f"_compsem_page_checks_{path.stem}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except Exception as e:  # a broken check file: the build says which
            problems.append(f"book/checks/{path.name} fails to load: {type(e).__name__}: {e}")
            continue
        for stem, check in [(k, f) for k, f in getattr(mod, "CHECKS", {}).items() if k in stems]:
            try:
                with recorded_as("checks"):
                    check(Path(executed_dir) if executed_dir else None)
            except Exception as e:  # a failed claim: the build says which
                problems.append(f"{stems[stem]}: its check file {path.name} fails: {type(e).__name__}: {e}")
    return marks, problems


def _norm(s: str) -> str:
    return " ".join(s.replace("*", "").split())


def _spans(text_: str, quotes) -> list[tuple[int, int, str]]:
    return [(*m.span(), q) for q in quotes if _norm(q) for m in re.finditer(re.escape(_norm(q)), text_, re.I)]


def _inside(a: int, b: int, spans) -> list[str]:
    return [q for x, y, q in spans if x <= a and b <= y]


#: The kinds of claim word that conclude (what only a glued value may say beside a glued number).
_CONCLUSIONS = ("order", "direction", "sameness", "cause")


def _around_glue(masked: str, a: int, b: int) -> bool:
    """Whether the claim word at ``a:b`` is fixed text around a glued value: in its bracket, or
    (outside brackets) in its clause between semicolons."""
    inner = [m.group(0) for m in re.finditer(r"\([^()]*\)", masked) if m.start() < a and b <= m.end()]
    if inner:
        return "\0" in inner[-1]
    start, end = masked.rfind(";", 0, a) + 1, masked.find(";", b) % (len(masked) + 1)
    return "\0" in re.sub(r"\([^()]*\)", " ", masked[start : end or len(masked)])


def classify(sentences: list[Sentence], checks: dict[str, list[dict]], marks: dict[str, dict[str, str]]):
    """``(kind, sentence, loose words, marks used)`` for every sentence that states a claim: kind
    is one of :data:`KINDS`; the loose words are those of a finding, with why no mark covers them."""
    out = []
    for s in sentences:
        text_ = s.text
        found = claim_spans(s.read or text_, s.directive, s.page.endswith("_worked.md"))
        masked = _PLACE.sub(lambda m: "\0" * len(m.group(0)), s.read or text_)
        if not found:
            claimed = [k for k, v in s.glued.items() if _ANY.search(v)]
            if claimed:
                out.append(
                    ("from findings" if any(k.startswith(FOUND_KEYS) for k in claimed) else "produced", s, [], [])
                )
            continue
        checked = _spans(text_, [r["sentence"] for r in checks.get(s.page, [])])
        marked = _spans(text_, list(marks.get(s.page, {})))
        loose, used = [], []
        for a, b, kind in found:
            if _inside(a, b, checked):
                continue
            by = _inside(a, b, marked)
            why = (
                "a count of data: glue it"
                if kind == "count"
                else "a conclusion around a glued value: produce it with the value"
                if kind in _CONCLUSIONS and _around_glue(masked, a, b)
                else ""
            )
            if by and not why:
                used += by
            else:
                loose.append(f"{text_[a:b]}" + (f" ({why})" if by and why else ""))
        kind = "unchecked" if loose else "marked" if used else "checked"
        out.append((kind, s, loose, used))
    return out


def claim_check(executed_dir: Path | None, book_dir: Path | None, results: Path, checks_dir: Path):
    """``(counts, problems)``: the counts of :func:`classify` and one problem per unchecked claim,
    failed check, check without its sentence, mark without its sentence and mark that covers no claim."""
    sentences = prose_sentences(executed_dir, book_dir)
    pages = list(dict.fromkeys(s.page for s in sentences))
    marks, problems = page_checks(checks_dir, pages, executed_dir)
    checks: dict[str, list[dict]] = {}
    for r in records(results):
        checks.setdefault(r["page"], []).append(r)
    kinds = classify(sentences, checks, marks)
    counts = {k: sum(1 for kind, *_ in kinds if kind == k) for k in KINDS}
    used = {f for *_, u in kinds for f in u}
    for kind, s, loose, _ in kinds:
        if kind == "unchecked":
            where = f"cell {s.cell}" if s.cell is not None else "page"
            problems.append(
                f"{s.page}: {where} states a result in words ({', '.join(dict.fromkeys(loose))}) that "
                f'is neither produced nor checked: "{s.text[:200]}" (produce it with compsem.claims or '
                f"a finding, or check it in a module of book/checks/)"
            )
    texts: dict[str, list[str]] = {}
    for s in sentences:
        texts.setdefault(s.page, []).append(_norm(s.text))
    for page, rows in checks.items():
        for r in rows if page in texts else []:
            if r.get("outcome") != "holds":
                problems.append(f'{page}: the check of "{r["sentence"]}" failed ({r.get("rule", "")})')
            if not any(_norm(r["sentence"]) in t for t in texts[page]):
                problems.append(f'{page}: a check quotes "{r["sentence"]}", which the page no longer says')
    for page, fragments in marks.items():
        for f in fragments:
            if not any(_norm(f) in t for t in texts.get(page, [])):
                problems.append(f'{page}: book/checks/{MARKS} marks "{f}", which the page no longer says')
            elif f not in used:
                problems.append(
                    f'{page}: book/checks/{MARKS} marks "{f}", which covers no claim word that a mark may exempt: '
                    "delete the line"
                )
    return counts, problems


def claim_summary(counts: dict[str, int]) -> str:
    """``claims: N found: F from findings, G produced, C checked, M marked, U unchecked``."""
    return f"claims: {sum(counts.values())} found: " + ", ".join(f"{counts[k]} {k}" for k in KINDS)
