"""A claim is code: every sentence that states a result in words is produced from the result or
checked against it (issue 35).

**The vocabulary** produces the words from the numbers, with stated thresholds: :func:`frequency`
(a share as an adverb, :data:`FREQUENCY`), :func:`number_word`, :func:`count` and :func:`of_total`
("none of the 4 models": what a count counts, out of how many), :func:`comparative` ("about 29 %
slower").
:data:`CLAIM_WORDS` and :data:`DATA_NOUNS` are what :mod:`compsem.book.checks.claimcheck` reads.

**Checked claims** (:func:`check`, and :func:`check_count`, :func:`check_frequency`, which read
the claimed word out of the sentence): a check evaluated on the files the sentence speaks of,
recorded in ``results/claims/<page>.json`` (the appendix lists every record); when the claim does
not hold it raises :class:`ClaimError` and the build stops, but in a reader's rerun with other
parameters (``$COMPSEM_RUN``) it is said as a :class:`ClaimWarning` and the rerun finishes.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from pathlib import Path

from .errors import CompsemError
from .fmt import noun
from .paths import results_dir
from .store import write_below

__all__ = """ClaimError ClaimWarning FREQUENCY NUMBER_WORDS CLAIM_WORDS DATA_NOUNS frequency number_word count of_total
comparative said_number said_frequency check check_count check_frequency records recorded_as""".split()


class ClaimError(CompsemError, AssertionError):
    """A sentence of the book states a result its data do not support."""


class ClaimWarning(UserWarning):
    """In a reader's rerun (``python -m compsem run`` with other parameters), a sentence of the
    book does not hold for the rerun's numbers: said, not raised, so the rerun finishes."""


# ----------------------------------------------------------------------------- vocabulary

#: ``(word, high)``: the adverb :func:`frequency` writes for a share ``s < high`` above the row
#: before's ``high`` ("never" is exactly 0, "always" exactly 1; "about half the time" includes 60 %).
FREQUENCY = (
    ("almost never", 0.05),
    ("seldom", 0.20),
    ("sometimes", 0.40),
    ("about half the time", 0.60),
    ("usually", 0.95),
    ("almost always", 1.0),
)

#: The shares a frequency word may claim when a sentence is checked (:func:`check_frequency`):
#: the produced bands, plus the words people write ("rarely" is "seldom", "most" is over half).
_ACCEPTS = {
    "never": (0.0, 0.0),
    "almost never": (0.0, 0.05),
    "seldom": (0.0, 0.20),
    "rarely": (0.0, 0.20),
    "sometimes": (0.20, 0.40),
    "about half": (0.40, 0.60),
    "usually": (0.60, 0.95),
    "most": (0.5, 1.0),
    "mostly": (0.5, 1.0),
    "often": (0.40, 1.0),
    "almost always": (0.95, 1.0),
    "always": (1.0, 1.0),
}

NUMBER_WORDS = tuple(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split()
)

#: The words that may make a sentence a claim about data, by kind: what
#: :mod:`compsem.book.checks.claimcheck` looks for in every page's prose, and then reads in its
#: context (a number is a claim when it counts :data:`DATA_NOUNS`; the other kinds when the clause
#: asserts something about data). "sameness" and "cause" are the conclusions a template must not
#: carry as fixed text around a glued number.
CLAIM_WORDS = {
    "count": r"(?:up to|at most|at least|only|all but|just)\s+(?:one|a few|\d[\d,]*|"
    + "|".join(NUMBER_WORDS[2:])
    + r")\b|(?<![\d,.])\d[\d,]* of \d[\d,]*\b|"
    r"\b(?:" + "|".join(NUMBER_WORDS[2:]) + r"|thirty|forty|fifty|hundreds?|dozens?)\b(?!-)|"
    r"(?<![\w.,$/−-])\d{1,3}(?:,\d{3})+(?![\w.,])|(?<![\w.,$/=−^_-])\d+(?![\w.,%/-])",
    "frequency": r"\b(?:never|seldom|rarely|sometimes|often|usually|mostly|most of|most \w+s\b|always|"
    r"about half|half of|half the|majority|minority|none of)",
    "order": r"\b(?:beats?|beaten|tops|best|worst|better(?: than)?|worse(?: than)?|wins?|outperforms?|clear of|"
    r"far apart|ahead of|"
    r"closest|furthest|highest|lowest|ranks? first|ranks? last)\b",
    "direction": r"\b(?:faster|slower|sparser|denser|cheaper|costlier|stronger|weaker|more than|less than|"
    r"fewer than|more often|less often|more slowly|more quickly|larger than|smaller than|"
    r"higher than|lower than|closer than|closer together than|further apart than)\b",
    "paper": r"\b(?:match(?:es|ed)?|reproduc(?:es|ed|e)|agrees?|agreed|printed digits)\b",
    "sameness": r"\b(?:indistinguishable|no evidence of a difference|(?:do|does|did) not differ|"
    r"(?:the same|identical) (?:scores|results|ranking|rankings|numbers|accuracy|accuracies|shares))\b",
    "cause": r"\b(?:because|follows? from|due to|reflects?|(?<!as )explains?(?!\s+(?:why|how|what)\b|\s*[),.;])|"
    r"explained by|caused by|driven by|"
    r"favou?red by|ignores?|is why|thanks to)\b",
}

#: What the project holds as data, in the plural: a number counting one of these is a count of
#: data, which a page glues (or checks) and a mark never exempts.
DATA_NOUNS = tuple(
    "models encoders scorers LLMs generators panels cells samples pairs phrases chapters triples "
    "quintuples sentences adjectives nouns classes configurations settings seeds rows items annotators "
    "papers studies categories tables checkpoints clusters premises hypotheses conditions variants "
    "judgements".split()
)


def frequency(share: float) -> str:
    """The adverb of :data:`FREQUENCY` for a share in [0, 1] ("seldom" for 0.12)."""
    s = float(share)
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"a share lies in [0, 1], got {share!r}")
    if s in (0.0, 1.0):
        return "always" if s else "never"
    return next(word for word, hi in FREQUENCY if s < hi or (word == "about half the time" and s == hi))


def number_word(n: int) -> str:
    """ "nine" for 9: words from zero to twenty, digits above."""
    n = int(n)
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def count(n: int, singular: str, plural_form: str | None = None, *, words: bool = True) -> str:
    """ "three models", "one model" (``words=False``: "3 models")."""
    return f"{number_word(n) if words else int(n)} {noun(int(n), singular, plural_form)}"


def of_total(k: int, n: int, singular: str, plural_form: str | None = None) -> str:
    """ "none of the 4 models", "1 of 4 models", "all 4 models", "both models", "0 of 1 model":
    a count with what it counts and out of how many."""
    k, n = int(k), int(n)
    if not 0 <= k <= n:
        raise ValueError(f"a count of {k} out of {n}")
    many = noun(n, singular, plural_form)
    if n == 0:
        return f"no {many}"
    if n == 1:
        return f"{k} of 1 {singular}"
    if k == 0:
        return f"none of the {n} {many}"
    if k == n:
        return f"{'both' if n == 2 else 'all ' + str(n)} {many}"
    return f"{k} of {n} {many}"


def comparative(
    a: float, b: float, *, more: str = "faster", less: str = "slower", same: str = "as fast as", tol: float = 0.05
) -> str:
    """How ``a`` compares with ``b``: "about 29 % slower" (the relative difference to ``b``,
    rounded), or ``same`` when they differ by at most ``tol`` of ``b``."""
    a, b = float(a), float(b)
    if b <= 0 or math.isnan(a) or math.isnan(b):
        raise ValueError(f"compare a positive reference, got {a!r} against {b!r}")
    rel = a / b - 1.0
    if abs(rel) <= tol:
        return same
    return f"about {round(abs(rel) * 100):d} % {more if rel > 0 else less}"


# ----------------------------------------------------------------------------- reading a sentence

_NUMBER = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r"|\d+)\b(?!-)", re.I)


def said_number(sentence: str) -> int:
    """The one number a sentence states (a word or digits); :class:`ClaimError` when it states
    none or several."""
    found = [m.group(1).lower() for m in _NUMBER.finditer(sentence)]
    if len(found) != 1:
        raise ClaimError(
            f"the claim {sentence!r} must state exactly one number to be checked as a count, found {found or 'none'}"
        )
    w = found[0]
    return int(w) if w.isdigit() else NUMBER_WORDS.index(w)


def said_frequency(sentence: str) -> str:
    """The frequency word a sentence states (the longest of :data:`_ACCEPTS` it contains)."""
    low = sentence.lower()
    found = [w for w in sorted(_ACCEPTS, key=len, reverse=True) if re.search(rf"\b{w}\b", low)]
    found = [w for w in found if not any(w != o and w in o for o in found)]
    if len(found) != 1:
        raise ClaimError(
            f"the claim {sentence!r} must state exactly one frequency word to be checked, found {found or 'none'}"
        )
    return found[0]


# ----------------------------------------------------------------------------- checked claims

_STARTED: set[str] = set()
_SOURCE = [""]


@contextmanager
def recorded_as(source: str):
    """Record the checks made inside the block in their own files (``<page>.<source>.json``):
    a page's check file (``book/checks/``) then never replaces the records of the page's hidden
    cells."""
    _SOURCE.append(source)
    try:
        yield
    finally:
        _SOURCE.pop()


def _record_file(page: str):
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", page) + (f".{_SOURCE[-1]}" if _SOURCE[-1] else "")
    return results_dir("claims") / f"{name}.json"


def _record(entry: dict) -> None:
    path = _record_file(entry["page"])
    rows = []
    if path in _STARTED and path.is_file():  # a record file's first check in a process starts it afresh
        rows = json.loads(path.read_text(encoding="utf-8"))
    _STARTED.add(path)
    rows = [r for r in rows if r["sentence"] != entry["sentence"]] + [entry]
    root = results_dir()  # never through a link inside a run folder (compsem.store.write_below)
    write_below(
        root.parent, path.relative_to(root.parent), json.dumps(rows, indent=1, ensure_ascii=False, default=float)
    )


def check(
    sentence: str, *, page: str, holds: bool | Callable[[], bool], numbers: Mapping[str, object], rule: str = ""
) -> dict:
    """Check one sentence of ``page`` (a chapter's file stem, or ``book/<name>.md``).

    ``holds`` (a bool, or a function of nothing) says whether the claim holds on ``numbers``,
    the values it was judged on (they are recorded as they are); ``rule`` says in words what was
    required. The check is recorded in ``results/claims/<page>.json``; when it does not hold,
    :class:`ClaimError` quotes the sentence, its page, the rule and the numbers (a
    :class:`ClaimWarning` in a reader's rerun, where ``$COMPSEM_RUN`` is set).
    """
    ok = bool(holds() if callable(holds) else holds)
    entry = {
        "page": page,
        "sentence": " ".join(sentence.split()),
        "rule": rule,
        "numbers": {str(k): (v.item() if hasattr(v, "item") else v) for k, v in numbers.items()},
        "outcome": "holds" if ok else "fails",
    }
    _record(entry)
    if not ok:
        shown = ", ".join(f"{k} = {v}" for k, v in entry["numbers"].items())
        message = f"{page}: the sentence {entry['sentence']!r} does not hold{': ' + rule if rule else ''} ({shown})."
        if os.environ.get("COMPSEM_RUN"):  # a reader's rerun (compsem.book.running.runner sets it): say so
            warnings.warn(
                f"{message} The book's text describes the book's own run, not this one.", ClaimWarning, stacklevel=2
            )
        else:
            raise ClaimError(
                f"{message} Reword it to what the data say, or produce the words from the numbers (compsem.claims)"
            )
    return entry


def check_count(sentence: str, value: int, *, page: str, what: str = "count") -> dict:
    """The one number ``sentence`` states (digits or a word: "nine") equals ``value``."""
    said = said_number(sentence)
    return check(
        sentence,
        page=page,
        holds=said == int(value),
        numbers={f"{what} said": said, what: int(value)},
        rule=f"the number it states is the data's {what}",
    )


def check_frequency(sentence: str, shares: Mapping[str, float] | float, *, page: str, what: str = "share") -> dict:
    """The frequency word of ``sentence`` ("seldom", "about half", "most", …) fits every share
    of ``shares`` (one share, or one per model), by the bands of :data:`_ACCEPTS`."""
    word = said_frequency(sentence)
    lo, hi = _ACCEPTS[word]
    shares = {what: shares} if not isinstance(shares, Mapping) else dict(shares)
    fits = all(lo <= float(s) <= hi for s in shares.values())
    band = f"exactly {lo:.0%}" if lo == hi else f"{lo:.0%}–{hi:.0%}"
    return check(
        sentence,
        page=page,
        holds=fits,
        numbers={k: round(float(v), 4) for k, v in shares.items()},
        rule=f"'{word}' means a {what} of {band}",
    )


def records(folder=None) -> list[dict]:
    """Every recorded check under ``folder`` (default ``results/claims/``), by page."""
    paths = sorted(Path(folder or results_dir("claims")).glob("*.json"))
    return [r for p in paths for r in json.loads(p.read_text(encoding="utf-8"))]
