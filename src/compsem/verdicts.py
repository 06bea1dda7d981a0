"""What each paper claims, and our verdict: one rule set that turns a claim's statistic into a word.

Each study lists its paper's claims in ``data/reference/<study>_claims.csv`` (one row per claim,
in our own words: where the paper makes it, the result file of ours that tests it, the row and
columns of that file, the rule, the paper's number) and declares them as ``CLAIMS =
Claims("<study>")`` in its own package (``report.CLAIMS``). The Part's last chapter glues
:meth:`Claims.values` (the verdict table and a one-line summary); the Part page opens with the
table and the introduction with the summaries.

A verdict is computed from the result files the chapters write (``results/<study>/*.csv``),
never typed. The rules and their thresholds are data (:data:`RULES`, :data:`AGREEMENT_PARTLY`):

* ``agree`` (our model and data are the paper's): every selected cell lies within one unit of
  the paper's last printed decimal (``|ours - paper| < 10**-decimals``, which holds whether the
  paper rounded or cut its numbers) -> *reproduced*; at least :data:`AGREEMENT_PARTLY` of the
  cells do, or the paper's number lies inside our 95 % interval -> *partly*; else *not
  reproduced*. The largest difference is stated.
* ``above`` / ``below`` (a direction, where our model or data differ, so that only the sign of a
  comparison can be carried over): the estimate against a fixed level (chance) or a control
  row of the same file. The whole 95 % interval on the claimed side of the level (of the
  control's whole interval) -> *reproduced*; the estimate on that side but the intervals
  touching -> *partly* (right direction, not separated); the estimate at or beyond the level ->
  *not reproduced*. Two marginal intervals that do not overlap are a conservative test of a
  difference; overlapping ones show no difference, and are never read as sameness. With a
  ``margin`` (a claim of a large gap, "well above") the level is the reference or the control
  moved by the margin on the claimed side.
* ``paired_above`` / ``paired_below`` (a comparison of two things scored on the same items: two
  configurations on the same test pairs, a model and its control on the same samples): the row
  holds the paired difference (ours minus the comparison) with its paired bootstrap interval, and
  the rule reads it against zero (or against ``margin``) as ``above`` / ``below`` read a level:
  the whole paired interval on the claimed side -> *reproduced*; the difference on that side but
  its interval reaching zero -> *partly*; the difference at zero or beyond -> *not reproduced*.
  Where the paper's number is another statistic than the difference (a share of samples, where we
  decide on ours minus a control's share), the optional columns :data:`SHOWN` name ours (shown in
  "ours", beside the paper's) and ``reference_select`` the control's row (its share shown in
  "compared with", before the paired difference that decides).
* ``within`` (the paper claims a value near a level: an equivalence test with a declared
  margin): the whole interval within ``reference ± margin`` -> *reproduced*; the estimate within
  but not the interval -> *partly*; the estimate outside -> *not reproduced*.
* ``significant`` / ``not_significant`` (the paper claims the outcome of a test, e.g. "no
  significant difference between classes"): our test of the same null hypothesis, its p-value
  against :data:`ALPHA` -> *reproduced* when the outcome is the paper's, else *not reproduced*; a
  test whose outcome cannot vary (every item passes, all ties) is undefined -> *not testable
  here*. "Not significant" is no evidence of a difference, never a claim of sameness.
* ``untestable``: *not testable here*, for the reasons the row declares: its ``why`` opens with
  one or more keys of :data:`UNTESTABLE` (``"model: ..."``, ``"model, quantity: ..."``) before
  its own explanation. The rule's text under a table names the reasons its rows use, with the
  claims of each (:func:`rules_text`), so that it never states a reason no row gives.

The words a claims file shows (``claim_text``, ``paper_value``, ``compared_with``, ``differs``,
``why``) may quote a cell of the study's transcribed tables instead of typing it, as a Jinja2
expression ``{{ paper('table2_zeroshot', 'split') }}`` or ``{{ paper('table8_best_settings',
'objective', model='SimCSE-base', encoding='bi') }}``: the distinct values of that column of
``data/reference/<study>_<table>.csv`` in the rows the keywords select (as printed in the file,
several joined by "and"). A quotation that selects nothing, or names no such table or column, is a
:class:`VerdictError`.

A study may declare how a selected row is named (``Claims(study, describe=...)``: a function of
the result's name, the one selected row and the results folder, returning words such as "sbert-mini,
condition read as a text pair"): the verdict table then says which row of the result each number
comes from, produced from that row, never typed beside it.

A claim may declare a second reading of the same result file (columns ``also_select`` and
``also_label``, :data:`OPTIONAL_COLUMNS`): the verdict is the first reading's, and the row's
*what differs* states the second reading's number and verdict, and says whether the direction
depends on the choice between the two (Part I reads at ε = 0 and states the pooled ε grid
average as its second reading).

A claim read against a fixed level (rules ``above`` / ``below``, say "a positive correlation") may
name the controls that the same level would also pass (columns ``control_select`` and
``control_label``, and ``control_name``, the column that names each control row): the row's
*compared with* then gives each control's number as well, and a
*reproduced* or *partly* is at most *partly* unless our whole interval lies beyond every control's
whole interval on the claimed side (:data:`CONTROLLED`): passing a level that a control passes as
well does not show the property the claim names.

A claim the paper makes of more cases than one row tests (every model of the paper, every kind of
input) declares them in the optional column ``scope``: ``column=value|value; column=...`` in the
result file's own values (``value:words`` gives the words a page shows; ``model=paper`` stands for
the study's paper models, ``data/reference/paper_models/<study>.csv``, a model of ours counting
only where it loads the paper's very weights). The row then says which of them it tested, produced
from the rows its selection picked, and why each other one is not tested (not run here; or its
test undefined, read from the file). Whatever the rule, a *reproduced* on fewer cases than the claim
names is *partly* (:data:`NARROWER`); a *not reproduced* stands, since one tested case contradicts a
claim made of every case.

A claims file that names a result file, a column or a row the results do not have is a
:class:`VerdictError`; in a reader's rerun (a run folder holding only some chapters' results) a
claim whose result file that run did not write is *not testable here* and says which file.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

import jinja2

from . import fmt
from .errors import CompsemError
from .paths import results_dir
from .reference import paper_match, paper_models, paper_table
from .results import Found, run_manifest
from .studies import get as get_study

__all__ = [
    "VERDICTS",
    "RULES",
    "ALPHA",
    "AGREEMENT_PARTLY",
    "COLUMNS",
    "OPTIONAL_COLUMNS",
    "SECOND_READING_RULES",
    "SHOWN",
    "VerdictError",
    "Verdict",
    "Claims",
    "agreement_verdict",
    "direction_verdict",
    "equivalence_verdict",
    "test_verdict",
    "summary_line",
    "rules_text",
    "second_reading_words",
    "NARROWER",
    "CONTROLLED",
    "scope_of",
    "UNTESTABLE",
    "untestable_reasons",
]

#: The verdicts, in the order a summary counts them.
VERDICTS: tuple[str, ...] = ("reproduced", "partly", "not reproduced", "not testable here")

#: Each rule a claim may name, and what it compares (the words under the verdict table).
RULES: dict[str, str] = {
    "agree": "same model and data as the paper: reproduced when every cell lies within one unit of the paper's "
    "last printed decimal; partly when at least half the cells do, or the paper's number lies inside our "
    "95 % interval",
    "above": "our model or data differ, so only the direction is carried over: reproduced when our whole 95 % "
    "interval lies on the claimed side of the level (or of the control's whole interval); partly when "
    "the estimate does but the intervals touch or no interval is recorded (which is no test of sameness); not reproduced when the "
    "estimate does not; a claimed large gap moves the level by its declared margin. Two marginal intervals that do not "
    "overlap are a conservative stand-in for a paired test where the paired difference is not recorded",
    "below": "the rule 'above' with the direction reversed",
    "paired_above": "two things scored on the same items: reproduced when the paired 95 % interval of their "
    "difference (ours minus the comparison, a paired bootstrap on the same items) lies wholly above zero, or above "
    "the declared margin of a claimed large gap; partly when the difference does but its interval does not; not "
    "reproduced when the difference does not",
    "paired_below": "the rule 'paired_above' with the direction reversed",
    "within": "the paper claims a value near a level: reproduced when our whole 95 % interval lies within the "
    "declared margin of it; partly when the estimate does; not reproduced when the estimate does not",
    "significant": "the paper claims a difference: reproduced when our test of the same null hypothesis gives "
    "p below 0.05, not reproduced otherwise; not testable when the test is undefined (its outcome "
    "cannot vary)",
    "not_significant": "the paper reports no significant difference: reproduced when our test also gives p of at "
    "least 0.05 (no evidence of a difference, which is not evidence of sameness), not reproduced "
    "when it gives p below 0.05",
    "untestable": "not testable here, for the reasons the row declares",
}

#: Why a claim may be *not testable here* (rule ``untestable``): key -> (the short label of the
#: verdict column, the reason in words for the rule's text). A row's ``why`` opens with its keys.
UNTESTABLE: dict[str, tuple[str, str]] = {
    "model": (
        "no such model offline",
        "a model the claim is about does not run offline, as it needs a download or an API key or is not published",
    ),
    "data": ("no such data offline", "the data the claim is about are not available offline"),
    "optional": (
        "not run in the default build",
        "the model the claim is about is optional, installed by make models-extra, and the default build does not run it",
    ),
    "quantity": (
        "no testable quantity",
        "the paper names no statistic or threshold that a result of ours could be read against",
    ),
}

#: Columns a claims file may add (read as empty where it leaves them out): ``scope``, the cases the
#: paper's claim covers (:data:`NARROWER`); ``also_select`` reads the same claim a second way (another row
#: of the same result file, e.g. the other ε mode of Part I) by the same rule, and ``also_label``
#: names that reading; the verdict is the first reading's, and what differs states the second
#: reading's number, its verdict and whether the direction depends on the choice
#: (:func:`second_reading_words`).
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "scope",
    "also_select",
    "also_label",
    "control_select",
    "control_label",
    "control_name",
)

#: The rules a second reading may use (those that read a direction or a level).
SECOND_READING_RULES: tuple[str, ...] = ("above", "below", "paired_above", "paired_below", "within")

#: Optional columns of a paired claim whose paper's number is not a difference: the columns of the
#: result file holding the statistic the paper's number is on (estimate, low, high) and its unit.
SHOWN: tuple[str, ...] = ("value", "value_low", "value_high", "value_unit")

#: The level of :data:`RULES` ``significant`` / ``not_significant``.
ALPHA: float = 0.05

#: The share of cells within one printed unit that still makes an ``agree`` claim *partly*.
AGREEMENT_PARTLY: float = 0.5

#: The columns of ``data/reference/<study>_claims.csv``.
COLUMNS: tuple[str, ...] = (
    "claim",
    "where",
    "claim_text",
    "rule",
    "result",
    "select",
    "estimate",
    "low",
    "high",
    "unit",
    "digits",
    "reference",
    "reference_select",
    "margin",
    "compared_with",
    "paper_value",
    "paper_column",
    "decimals",
    "differs",
    "why",
)

#: The scope rule, in the words under the verdict table.
NARROWER: str = (
    "a claim the paper makes of more models or inputs than we test says, in its last column, which of them we "
    "tested: reproduced there is partly (it holds where we tested, and the rest is untested); not reproduced stands "
    "(a tested case contradicts a claim made of every case)"
)


#: The control rule, in the words under the verdict table.
CONTROLLED: str = (
    "a claim read against a fixed level whose row names controls is at most partly unless our whole interval lies "
    "beyond every control's whole interval on the claimed side (a level a control passes too does not show the "
    "property the claim names)"
)


class VerdictError(CompsemError, ValueError):
    """A claims file that names a result, a column or a row the results do not have, or a rule
    that does not exist."""


# ----------------------------------------------------------------------------- the rules


def direction_verdict(
    side: str,
    est: float,
    low: float,
    high: float,
    ref: float,
    ref_low: float | None = None,
    ref_high: float | None = None,
) -> str:
    """``above`` / ``below``: the estimate and its interval against a level ``ref`` (or a
    control's estimate ``ref`` with its interval ``[ref_low, ref_high]``)."""
    if side not in ("above", "below"):
        raise VerdictError(f"a direction is 'above' or 'below', not {side!r}")
    if not all(math.isfinite(float(x)) for x in (est, ref)):
        raise VerdictError(f"a direction needs a finite estimate and level, got {est!r} and {ref!r}")
    sign = 1.0 if side == "above" else -1.0
    # the control's far edge on the claimed side (a fixed level is its own edge)
    edge = ref if ref_low is None or ref_high is None else (ref_high if side == "above" else ref_low)
    lo, hi = (low, high) if side == "above" else (high, low)  # our near edge to the level is `lo`
    if sign * (est - ref) <= 0:
        return "not reproduced"
    if math.isfinite(float(lo)) and sign * (lo - edge) > 0:
        return "reproduced"
    return "partly"


def equivalence_verdict(est: float, low: float, high: float, ref: float, margin: float) -> str:
    """``within``: the estimate and its interval against ``ref ± margin``."""
    if not (math.isfinite(float(margin)) and margin > 0):
        raise VerdictError(f"an equivalence needs a positive margin, got {margin!r}")
    if abs(est - ref) > margin:
        return "not reproduced"
    if math.isfinite(float(low)) and math.isfinite(float(high)) and ref - margin <= low and high <= ref + margin:
        return "reproduced"
    return "partly"


def test_verdict(rule: str, p: float) -> str:
    """``significant`` / ``not_significant``: our p-value against :data:`ALPHA`; an undefined
    test (NaN) is *not testable here*."""
    if rule not in ("significant", "not_significant"):
        raise VerdictError(f"a test's rule is 'significant' or 'not_significant', not {rule!r}")
    if not math.isfinite(float(p)):
        return "not testable here"
    if not 0.0 <= p <= 1.0:
        raise VerdictError(f"a p-value lies in [0, 1], got {p!r}")
    return "reproduced" if (p < ALPHA) == (rule == "significant") else "not reproduced"


def agreement_verdict(ours, paper, decimals: int, *, low=None, high=None) -> str:
    """``agree``: cells of ours beside the paper's, printed with ``decimals`` decimals."""
    ours, paper = np.asarray(ours, dtype=float), np.asarray(paper, dtype=float)
    if ours.shape != paper.shape or ours.size == 0:
        raise VerdictError(
            f"an agreement needs as many cells of ours as of the paper (at least one), got {ours.size} and {paper.size}"
        )
    if np.isnan(ours).any() or np.isnan(paper).any():
        raise VerdictError("an agreement cell is undefined (NaN) in ours or in the paper")
    within = _within(ours, paper, decimals)
    if within.all():
        return "reproduced"
    inside = (
        low is not None
        and high is not None
        and bool(np.all((np.asarray(low, float) <= paper) & (paper <= np.asarray(high, float))))
    )
    return "partly" if within.mean() >= AGREEMENT_PARTLY or inside else "not reproduced"


# ----------------------------------------------------------------------------- one claim


@dataclass(frozen=True)
class Verdict:
    """One claim with our number beside the paper's and the word the rule gave."""

    claim: str
    where: str
    text: str
    paper: str
    ours: str
    compared_with: str
    verdict: str
    why: str
    differs: str
    note: str = ""  # why a verdict was narrowed (the scope rule), shown after it
    #: the keys of :data:`UNTESTABLE` a claim of rule ``untestable`` declares
    reasons: tuple[str, ...] = ()

    @property
    def word(self) -> str:
        """The verdict as the table prints it (with the reasons of *not testable here*, or with why
        the scope rule narrowed it)."""
        if self.verdict == "not testable here" and self.why:
            labels = "; ".join(UNTESTABLE[k][0] for k in self.reasons)
            return f"{self.verdict} ({labels}): {self.why}" if labels else f"{self.verdict}: {self.why}"
        return f"{self.verdict}: {self.note}" if self.note else self.verdict


def _reasons(why: str, where: str) -> tuple[tuple[str, ...], str]:
    """``"model, quantity: the paper's ..."`` -> ``(("model", "quantity"), "the paper's ...")``."""
    head, sep, rest = why.partition(":")
    keys = tuple(k.strip() for k in head.split(","))
    if not sep or not rest.strip() or not all(k in UNTESTABLE for k in keys):
        raise VerdictError(
            f"{where}: the 'why' of a claim that is not testable here opens with its reasons "
            f"({', '.join(UNTESTABLE)}, separated by commas) and a colon, then says why; got {why[:80]!r}"
        )
    return keys, rest.strip()


def _text(row, key: str) -> str:
    v = row.get(key, "")
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v).strip()


def _number(row, key: str, where: str) -> float:
    s = _text(row, key)
    try:
        return float(s)
    except ValueError:
        raise VerdictError(f"{where}: column {key!r} must be a number, got {s!r}") from None


def _rows(df: pd.DataFrame, query: str, where: str, file: Path, *, strict: bool = True) -> pd.DataFrame:
    """The rows of ``df`` that ``query`` selects; none is an error in the book's own results
    (``strict``), and an empty frame in a reader's rerun (other models, other readings)."""
    try:
        got = df.query(query) if query else df
    except Exception as exc:  # pandas raises many kinds for a bad expression or an unknown column
        raise VerdictError(
            f"{where}: the selection {query!r} does not apply to {file} (columns {list(df.columns)}): {exc}"
        ) from None
    if got.empty and strict:
        raise VerdictError(f"{where}: the selection {query!r} matches no row of {file}")
    return got


def _column(df: pd.DataFrame, name: str, where: str, file: Path) -> np.ndarray:
    if name not in df.columns:
        raise VerdictError(f"{where}: {file} has no column {name!r} (it has {list(df.columns)})")
    return pd.to_numeric(df[name], errors="coerce").to_numpy(float)


def _within(ours: np.ndarray, paper: np.ndarray, decimals: int) -> np.ndarray:
    """Cells within one unit of the paper's last printed decimal (the 1e-12 keeps a difference of
    exactly one unit, which binary arithmetic may print a hair below it, outside)."""
    return np.abs(ours - paper) < 10.0 ** -int(decimals) - 1e-12


def _agree(row: dict, sel: pd.DataFrame, where: str, file: Path, base: dict) -> Verdict:
    decimals = int(_number(row, "decimals", where))
    ours = _column(sel, _text(row, "estimate"), where, file)
    paper = (
        _column(sel, _text(row, "paper_column"), where, file)
        if _text(row, "paper_column")
        else np.full(len(ours), _number(row, "paper_value", where))
    )
    low = _column(sel, _text(row, "low"), where, file) if _text(row, "low") else None
    high = _column(sel, _text(row, "high"), where, file) if _text(row, "high") else None
    word = agreement_verdict(ours, paper, decimals, low=low, high=high)
    gap = fmt.number(float(np.max(np.abs(ours - paper))), decimals + 2)
    if len(ours) == 1:
        u = f" {_text(row, 'unit')}" if _text(row, "unit") else ""
        digits = int(_number(row, "digits", where))
        one = (
            fmt.estimate(ours[0], low[0], high[0], digits, unit=u)
            if low is not None and high is not None
            else fmt.number(ours[0], digits) + u
        )
        shown = f"{one}; difference {gap}"
    else:
        shown = (
            f"{fmt.plural(int(_within(ours, paper, decimals).sum()), 'cell')} of {len(ours)} within one printed "
            f"unit; largest difference {gap}"
        )
    return Verdict(**base, ours=shown, compared_with=_text(row, "compared_with") or "the paper", verdict=word, why="")


def _test(row: dict, sel: pd.DataFrame, where: str, file: Path, base: dict, rule: str) -> Verdict:
    word = test_verdict(rule, float(_column(sel, _text(row, "estimate"), where, file)[0]))
    p = fmt.p_value(float(sel[_text(row, "estimate")].iloc[0]))
    why = (
        "the test is undefined here: its outcome cannot vary (every item passes, or all tie)"
        if word == "not testable here"
        else ""
    )
    return Verdict(
        **base,
        ours="–" if why else (f"p {p}" if p.startswith("<") else f"p = {p}"),
        compared_with=f"{_text(row, 'compared_with') or 'our test'} (level {fmt.number(ALPHA, 2)})",
        verdict=word,
        why=why,
    )


def _one(df: pd.DataFrame, row: dict, where: str, file: Path) -> tuple[float, float, float]:
    """Estimate, low and high of the one row of ``df`` (NaN bounds where the claim names none)."""
    bounds = [float(_column(df, _text(row, k), where, file)[0]) if _text(row, k) else math.nan for k in ("low", "high")]
    return float(_column(df, _text(row, "estimate"), where, file)[0]), *bounds


def _compare(row: dict, df: pd.DataFrame, sel: pd.DataFrame, where: str, file: Path, base: dict, rule: str) -> Verdict:
    est, low, high = _one(sel, row, where, file)
    if not math.isfinite(est):
        raise VerdictError(f"{where}: our estimate in {file} is undefined (NaN)")
    digits = int(_number(row, "digits", where))
    u = f" {_text(row, 'unit')}" if _text(row, "unit") else ""
    against = _text(row, "compared_with") or ("the control" if _text(row, "reference_select") else "the level")
    side = rule.removeprefix("paired_")
    gap = _number(row, "margin", where) if _text(row, "margin") and rule != "within" else 0.0
    if gap < 0 or not math.isfinite(gap):
        raise VerdictError(f"{where}: a claimed gap (column 'margin') is a positive number, got {gap!r}")
    shift = gap if side == "above" else -gap
    by = f", by more than {fmt.number(gap, digits)}{u}" if gap else ""
    if rule.startswith("paired_"):
        word = direction_verdict(side, est, low, high, shift)
        if _text(row, "value"):
            return _paired_shown(row, df, sel, where, file, base, word, (est, low, high), shift)
        if _text(row, "reference_select"):
            raise VerdictError(f"{where}: a paired rule reads one row of paired differences, not a control row")
        against = f"{_text(row, 'compared_with') or 'zero'} (paired difference against {fmt.number(shift, digits)}{u})"
    elif _text(row, "reference_select"):
        if rule == "within":
            raise VerdictError(f"{where}: an equivalence compares with a fixed level, not a control row")
        ctrl = _rows(df, _text(row, "reference_select"), where, file)
        if len(ctrl) != 1:
            raise VerdictError(f"{where}: the control selection matches {len(ctrl)} rows of {file}, not one")
        ref, rlo, rhi = _one(ctrl, row, where, file)
        word = direction_verdict(side, est, low, high, ref + shift, rlo + shift, rhi + shift)
        against = f"{against}: {fmt.estimate(ref, rlo, rhi, digits, unit=u)}{by}"
    elif rule == "within":
        ref, margin = _number(row, "reference", where), _number(row, "margin", where)
        word = equivalence_verdict(est, low, high, ref, margin)
        against = f"{against} ({fmt.number(ref, digits)} ± {fmt.number(margin, digits)}{u})"
    else:
        ref = _number(row, "reference", where)
        word = direction_verdict(side, est, low, high, ref + shift)
        against = f"{against} ({fmt.number(ref, digits)}{u}{by})"
    return Verdict(
        **base, ours=fmt.estimate(est, low, high, digits, unit=u), compared_with=against, verdict=word, why=""
    )


def _paired_shown(row, df, sel, where, file, base, word, paired, shift) -> Verdict:
    """A paired verdict whose "ours" is the statistic of :data:`SHOWN` (the paper's kind of number)
    and whose "compared with" gives the control's value (``reference_select``) and the paired
    difference that decided."""
    digits = int(_number(row, "digits", where))
    vu = f" {_text(row, 'value_unit')}" if _text(row, "value_unit") else ""
    u = f" {_text(row, 'unit')}" if _text(row, "unit") else ""

    def shown(frame):
        v, lo, hi = (
            float(_column(frame, _text(row, k), where, file)[0]) if _text(row, k) else math.nan
            for k in ("value", "value_low", "value_high")
        )
        return fmt.estimate(v, lo, hi, digits, unit=vu)

    against = _text(row, "compared_with") or "the control"
    if _text(row, "reference_select"):
        ctrl = _rows(df, _text(row, "reference_select"), where, file)
        if len(ctrl) != 1:
            raise VerdictError(f"{where}: the control selection matches {len(ctrl)} rows of {file}, not one")
        against += f": {shown(ctrl)}"
    diff = fmt.estimate(*paired, digits, unit=u)
    against += f" (paired difference {diff}, against {fmt.number(shift, digits)}{u})"
    return Verdict(**base, ours=shown(sel), compared_with=against, verdict=word, why="")


def _scope_spec(text: str, where: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """``"model=paper; test=a:AN phrases|b"`` -> ``[("model", [("paper", "paper")]), ("test", [("a",
    "AN phrases"), ("b", "b")])]``."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        col, eq, values = part.partition("=")
        vals = [v.strip() for v in values.split("|") if v.strip()]
        if not eq or not col.strip() or not vals:
            raise VerdictError(f"{where}: a scope is 'column=value|value; ...', got {part!r}")
        out.append((col.strip(), [(v.partition(":")[0].strip(), (v.partition(":")[2] or v).strip()) for v in vals]))
    return out


def scope_of(row: dict, study: str, df: pd.DataFrame, sel: pd.DataFrame, where: str, file: Path) -> tuple[bool, str]:
    """(whether the row tests fewer cases than its claim's ``scope`` names, the words that say
    which it tested and why not the others), from the rows ``sel`` of the result file ``df``."""
    parts, narrower = [], False
    for col, values in _scope_spec(_text(row, "scope"), where):
        if col not in df.columns:
            raise VerdictError(f"{where}: the scope names column {col!r}, which {file} lacks")
        picked = [str(x) for x in sel[col].unique()]
        if col == "model" and [v for v, _ in values] == ["paper"]:
            names = paper_models(study)
            names = names[names["kind"] == "encoder"]["paper_name"].unique()
            mine = [m for m in picked if (hit := paper_match(study, m)) and str(hit["same_model"]).lower() == "true"]
            named = [str(paper_match(study, m)["paper_name"]) for m in mine]
            if not named:
                raise VerdictError(f"{where}: the scope 'model=paper' but the row tests none of the paper's models")
            rest = len(names) - len(set(named))
            narrower |= rest > 0
            parts.append(
                f"{len(set(named))} of the paper's {fmt.plural(len(names), 'model')} ({', '.join(named)}"
                + (f"; the other {rest} not run here" if rest else "")
                + ")"
            )
            continue
        label = dict(values)
        tested = [label.get(v, v) for v in picked if v in label]
        untested = [(v, w) for v, w in values if v not in picked]
        narrower |= bool(untested)
        why = []
        for v, w in untested:
            same = df[df[col].astype(str) == v]
            for other, _ in _scope_spec(_text(row, "scope"), where):  # the same case in the other columns
                if other != col and other in df.columns:
                    same = same[same[other].astype(str).isin(sel[other].astype(str))]
            for c in sel.columns:  # and the same value of every text column the selection fixed
                if c != col and sel[c].dtype == object and sel[c].nunique() == 1 and c in same and c != "note":
                    same = same[same[c].astype(str) == str(sel[c].iloc[0])]
            est = _column(same, _text(row, "estimate"), where, file) if len(same) else np.array([])
            if len(est) and not np.isfinite(est).any():
                why.append(f"on {w} the test is undefined")
            else:
                why.append(f"{w} {'not run here' if not len(est) else 'not tested by this row'}")
        parts.append(" and ".join(tested) + (f" ({'; '.join(why)})" if why else ""))
    return narrower, "tested on " + " and on ".join(parts) + (", fewer cases than the claim names" if narrower else "")


def _evaluate(row: dict, study: str, folder: Path, strict: bool, describe: Callable | None = None) -> Verdict:
    """One claim's verdict (:func:`_read`), its number named by ``describe`` (:class:`Claims`)
    when the study declares one."""
    v = _read(row, study, folder, strict)
    if describe is None or v.ours == "–" or not _text(row, "result"):
        return v
    file = folder / study / f"{_text(row, 'result')}.csv"
    sel = pd.read_csv(file).query(_text(row, "select")) if _text(row, "select") else pd.read_csv(file)
    words = describe(_text(row, "result"), sel.iloc[0].to_dict(), folder / study) if len(sel) == 1 else ""
    return replace(v, ours=f"{v.ours} ({words})") if words else v


def _read(row: dict, study: str, folder: Path, strict: bool) -> Verdict:
    """One claim's verdict (the rules of the module docstring), read against its controls
    (``control_select``, :func:`_controlled`), with its second reading (``also_select``,
    :data:`OPTIONAL_COLUMNS`) stated after what differs."""
    v = _controlled(row, study, folder, _evaluate_one(row, study, folder, strict))
    also = _text(row, "also_select")
    if not also:
        return v
    where = f"{study}_claims.csv, claim {_text(row, 'claim')}"
    if _text(row, "rule") not in SECOND_READING_RULES:
        raise VerdictError(
            f"{where}: a second reading (column 'also_select') compares a direction or a level, "
            f"so it needs one of the rules {', '.join(SECOND_READING_RULES)}"
        )
    label = _text(row, "also_label")
    if not label:
        raise VerdictError(f"{where}: a second reading says what it reads (column 'also_label')")
    other = _evaluate_one({**row, "select": also}, study, folder, strict)
    return replace(v, differs=f"{v.differs}; {second_reading_words(v, other, label)}")


def _controlled(row: dict, study: str, folder: Path, v: Verdict) -> Verdict:
    """``v`` read against the control rows its claim names (:data:`CONTROLLED`): their numbers
    join *compared with*; a *reproduced* or *partly* becomes *partly*, with a note, unless our
    whole interval lies beyond every control's whole interval on the claimed side."""
    query = _text(row, "control_select")
    if not query:
        return v
    where = f"{study}_claims.csv, claim {_text(row, 'claim')}"
    rule = _text(row, "rule")
    if rule not in ("above", "below") or _text(row, "reference_select"):
        raise VerdictError(
            f"{where}: controls (column 'control_select') are read by the rules 'above' / 'below' "
            "against a fixed level, not by a control row or another rule"
        )
    label = _text(row, "control_label")
    if not label:
        raise VerdictError(f"{where}: a row with controls names them in words (column 'control_label')")
    if v.ours == "–":  # not testable here (a rerun without the file or the row): nothing to read
        return v
    file = folder / study / f"{_text(row, 'result')}.csv"
    df = pd.read_csv(file)
    ctrl = _rows(df, query, where, file)
    if ctrl.empty:
        raise VerdictError(f"{where}: the control selection {query!r} matches no row of {file}")
    est, low, high = _one(_rows(df, _text(row, "select"), where, file), row, where, file)
    digits = int(_number(row, "digits", where))
    u = f" {_text(row, 'unit')}" if _text(row, "unit") else ""
    key = _text(row, "control_name")
    if key and key not in ctrl.columns:
        raise VerdictError(f"{where}: {file} has no column {key!r} to name the controls by (column 'control_name')")
    shown, beyond = [], True
    for i in range(len(ctrl)):
        ref, rlo, rhi = _one(ctrl.iloc[[i]], row, where, file)
        beyond = beyond and direction_verdict(rule, est, low, high, ref, rlo, rhi) == "reproduced"
        name = f"{ctrl[key].iloc[i]} " if key else ""
        shown.append(name + fmt.estimate(ref, rlo, rhi, digits, unit=u))
    v = replace(v, compared_with=f"{v.compared_with}; {label}: {', '.join(shown)}")
    if beyond or v.verdict not in ("reproduced", "partly"):
        return v
    note = f"on the claimed side of the level, but our interval does not lie wholly {rule} that of {label}"
    return replace(v, verdict="partly", note=f"{v.note}; {note}" if v.note else note)


def second_reading_words(first: Verdict, second: Verdict, label: str) -> str:
    """What a claim's second reading (``label``, e.g. "the pooled ε grid average") gives, and
    whether the verdict depends on the choice between the two readings: the direction does when
    one reading's estimate lies on the claimed side (*reproduced* or *partly*) and the other's
    does not (*not reproduced*)."""
    if "not testable here" in (first.verdict, second.verdict):
        return f"read as {label} instead: not testable here ({second.why or first.why})"
    said = f"read as {label} instead: {second.ours}, {second.verdict}"
    if first.verdict == second.verdict:
        return f"{said}, the same verdict"
    sides = {w != "not reproduced" for w in (first.verdict, second.verdict)}
    what = "the direction" if len(sides) == 2 else "the verdict (not the direction)"
    return f"{said}: {what} depends on this choice"


def _evaluate_one(row: dict, study: str, folder: Path, strict: bool) -> Verdict:
    """One reading of a claim (its ``select``), narrowed by its ``scope``."""
    v, scope = _evaluate_rule(row, study, folder, strict)
    if scope is None:
        return v
    narrower, words = scope
    differs = f"scope: {words}" + ("" if v.differs == "–" else f"; {v.differs}")
    if narrower and v.verdict == "reproduced":
        return replace(
            v,
            verdict="partly",
            note="reproduced where tested, on fewer cases than the claim names (scope in the last column)",
            differs=differs,
        )
    return replace(v, differs=differs)


def _evaluate_rule(row: dict, study: str, folder: Path, strict: bool) -> tuple[Verdict, tuple[bool, str] | None]:
    """One claim's verdict by its rule, and (narrower, words) of its scope where it names one."""
    cid = _text(row, "claim")
    where = f"{study}_claims.csv, claim {cid}"
    rule = _text(row, "rule")
    if rule not in RULES:
        raise VerdictError(f"{where}: unknown rule {rule!r}; the rules are {', '.join(RULES)}")
    base = dict(
        claim=cid,
        where=_text(row, "where"),
        text=_text(row, "claim_text"),
        paper=_text(row, "paper_value") or "–",
        differs=_text(row, "differs") or "–",
    )
    if rule == "untestable":
        why = _text(row, "why")
        if not why:
            raise VerdictError(f"{where}: a claim that is not testable here says why (column 'why')")
        keys, why = _reasons(why, where)
        return Verdict(**base, ours="–", compared_with="–", verdict="not testable here", why=why, reasons=keys), None
    name = _text(row, "result")
    if not name:
        raise VerdictError(f"{where}: rule {rule!r} needs the result file that tests it (column 'result')")
    file = folder / study / f"{name}.csv"
    if not file.is_file():
        if strict:
            raise VerdictError(
                f"{where}: the result file {file} does not exist (the chapter that writes "
                f"results/{study}/{name}.csv has not run)"
            )
        return Verdict(
            **base,
            ours="–",
            compared_with="–",
            verdict="not testable here",
            why=f"this run did not write results/{study}/{name}.csv",
        ), None
    df = pd.read_csv(file)
    sel = _rows(df, _text(row, "select"), where, file, strict=strict)
    if sel.empty:
        return Verdict(
            **base,
            ours="–",
            compared_with="–",
            verdict="not testable here",
            why=f"this run's results/{study}/{name}.csv has no row where {_text(row, 'select')}",
        ), None
    scope = scope_of(row, study, df, sel, where, file) if _text(row, "scope") else None
    if rule == "agree":
        return _agree(row, sel, where, file, base), scope
    if len(sel) != 1:
        raise VerdictError(
            f"{where}: the selection {_text(row, 'select')!r} matches {len(sel)} rows of {file}; "
            "a direction, an equivalence or a test compares one"
        )
    if rule in ("significant", "not_significant"):
        return _test(row, sel, where, file, base, rule), scope
    return _compare(row, df, sel, where, file, base, rule), scope


# ----------------------------------------------------------------------------- a study's claims


def summary_line(roman: str, title: str, verdicts: list[Verdict]) -> str:
    """``"Part I (Set operations ...): 2 reproduced, 1 partly, 0 not reproduced, 3 not testable here"``."""
    counts = [f"{sum(v.verdict == word for v in verdicts)} {word}" for word in VERDICTS]
    return f"Part {roman} ({title}): " + ", ".join(counts) + f", of {fmt.plural(len(verdicts), 'claim')}"


def untestable_reasons(table: pd.DataFrame) -> dict[str, list[str]]:
    """The reasons (keys of :data:`UNTESTABLE`) the ``untestable`` rows of a claims table declare,
    each with its claims, in the order of :data:`UNTESTABLE`."""
    by: dict[str, list[str]] = {}
    for row in table.to_dict("records"):
        if _text(row, "rule") == "untestable":
            for k in _reasons(_text(row, "why"), f"claim {_text(row, 'claim')}")[0]:
                by.setdefault(k, []).append(_text(row, "claim"))
    return {k: by[k] for k in UNTESTABLE if k in by}


def rules_text(
    rules: list[str], reasons: dict[str, list[str]] | None = None, *, scoped: bool = False, controlled: bool = False
) -> str:
    """The rules a table used, in words, one sentence each (``above`` and ``below`` as one); the
    rule ``untestable`` with the reasons its rows declare (``reasons``: :func:`untestable_reasons`), the scope rule (:data:`NARROWER`) where a claim
    of the table names a ``scope``, and the control rule (:data:`CONTROLLED`) where one names controls."""
    pairs = {"above": "below", "paired_above": "paired_below"}
    used = [r for r in RULES if r in rules or pairs.get(r) in rules]
    named = {"above": "Rules 'above' and 'below'", "paired_above": "Rules 'paired_above' and 'paired_below'"}

    def words(r: str) -> str:
        if r != "untestable" or not reasons:
            return RULES[r]
        each = "; ".join(f"'{UNTESTABLE[k][0]}' ({', '.join(ids)}): {UNTESTABLE[k][1]}" for k, ids in reasons.items())
        return f"{RULES[r]}; in this table {each}"

    return (
        " ".join(f"{named.get(r, f'Rule {r!r}')}: {words(r)}." for r in used if r not in pairs.values())
        + (f" Scope: {NARROWER}." if scoped else "")
        + (f" Controls: {CONTROLLED}." if controlled else "")
        + " Every verdict is computed from the result files of this build by compsem.verdicts, which declares the rules."
    )


#: the columns of a claims file that the verdict table shows in words (they may quote the paper's tables)
_WORDS = ("claim_text", "paper_value", "compared_with", "differs", "why")


def _quoting(study: str, where: str):
    """The ``paper(table, column, **where)`` of a claims file's words (module docstring)."""

    def paper(table: str, column: str, **match) -> str:
        t = paper_table(study, table, dtype=str, keep_default_na=False)
        missing = [c for c in (column, *match) if c not in t.columns]
        if missing:
            raise VerdictError(f"{where}: {study}_{table}.csv has no column {missing[0]!r} (it has {list(t.columns)})")
        for k, v in match.items():
            t = t[t[k] == str(v)]
        values = list(dict.fromkeys(v.strip() for v in t[column] if v.strip()))
        if not values:
            raise VerdictError(f"{where}: no row of {study}_{table}.csv has {column!r} where {match}")
        return " and ".join(values)

    return paper


def _filled(df: pd.DataFrame, study: str) -> pd.DataFrame:
    """``df`` (a claims table) with the quotations of the paper's tables in its words filled in."""
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    out = df.copy()
    for i, row in out.iterrows():
        where = f"{study}_claims.csv, claim {row['claim']}"
        for col in _WORDS:
            text = str(row[col])
            if "{{" in text or "{%" in text:
                try:
                    out.at[i, col] = env.from_string(text).render(paper=_quoting(study, where))
                except jinja2.TemplateError as exc:
                    raise VerdictError(f"{where}: column {col!r} quotes the paper's tables wrongly: {exc}") from None
    return out


@dataclass(frozen=True)
class Claims:
    """A study's claims (``data/reference/<study>_claims.csv``) and their verdicts."""

    study: str
    #: how a claim's one selected row is named in the table: ``describe(result, row, folder)`` ->
    #: words, or "" to add nothing (None: rows are not named)
    describe: Callable[[str, dict, Path], str] | None = field(default=None, compare=False)

    def table(self) -> pd.DataFrame:
        """The claims file, checked: every column of :data:`COLUMNS`, unique claim ids, known rules."""
        df = paper_table(self.study, "claims", dtype=str, keep_default_na=False)
        for c in (*OPTIONAL_COLUMNS, *SHOWN):
            if c not in df.columns:
                df[c] = ""
        missing = [c for c in COLUMNS if c not in df.columns]
        if missing:
            raise VerdictError(f"{df.attrs.get('file')} lacks the columns {missing}")
        if df["claim"].duplicated().any() or (df["claim"] == "").any():
            raise VerdictError(f"{df.attrs.get('file')}: every claim has one id, and no two share it")
        bad = sorted(set(df["rule"]) - set(RULES))
        if bad:
            raise VerdictError(f"{df.attrs.get('file')}: unknown rules {bad}; the rules are {', '.join(RULES)}")
        return _filled(df, self.study)

    def evaluate(self, *, results: Path | None = None, strict: bool | None = None) -> list[Verdict]:
        """Every claim's verdict from the result files under ``results`` (the book's or the
        run's ``results/``). ``strict`` (default: true for a folder without a run manifest,
        the book's own results) makes a missing result file an error rather than *not
        testable here*."""
        folder = Path(results) if results is not None else results_dir()
        if strict is None:
            strict = run_manifest(folder) is None
        return [_evaluate(row, self.study, folder, strict, self.describe) for row in self.table().to_dict("records")]

    def frame(self, verdicts: list[Verdict]) -> pd.DataFrame:
        """The verdict table a Part page opens with (one row per claim, labelled columns)."""
        return pd.DataFrame(
            {
                "the paper claims (in our words)": [v.text for v in verdicts],
                "where": [v.where for v in verdicts],
                "the paper's number": [v.paper for v in verdicts],
                "ours [95 % interval]": [v.ours for v in verdicts],
                "compared with": [v.compared_with for v in verdicts],
                "verdict": [v.word for v in verdicts],
                "what differs": [v.differs for v in verdicts],
            },
            index=pd.Index([v.claim for v in verdicts], name="claim"),
        )

    def values(self, *, results: Path | None = None, strict: bool | None = None) -> dict[str, object]:
        """What the Part's last chapter glues: ``verdicts_table`` (:meth:`frame`),
        ``verdicts_summary`` (:func:`summary_line`) and ``verdicts_rules`` (:func:`rules_text`)."""
        s = get_study(self.study)
        verdicts = self.evaluate(results=results, strict=strict)
        table = self.table()
        return {
            "verdicts_table": self.frame(verdicts),
            "verdicts_summary": Found(summary_line(s.roman, s.title, verdicts)),
            "verdicts_rules": Found(
                rules_text(
                    list(table["rule"]),
                    untestable_reasons(table),
                    scoped=bool((table["scope"] != "").any()),
                    controlled=bool((table["control_select"] != "").any()),
                )
            ),
        }
