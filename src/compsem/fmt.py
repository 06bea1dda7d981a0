"""How numbers and counts read on a page: one format per table column, an estimate with its
interval at one precision, a count with its noun.

* :func:`number` — fixed decimals, never "-0.000" (a value that rounds to zero prints "0.000");
  NaN prints as ``na`` ("–" by default);
* :func:`estimate` — ``"0.55 [0.50, 0.60]"``: estimate and interval at the *same* number of
  decimals, so an estimate inside its interval is printed inside it (rounding is monotonic);
* :func:`formatter` — :func:`number` as a ``Styler.format`` callable, so that a table shows one
  format per column rather than "0.0" beside "0.0000";
* :func:`deciding_digits` — the fewest decimals (from a floor) at which every bound of an
  interval prints with its sign, so that a reader sees whether it includes zero ("0.00" cannot);
* :func:`p_value` — "0.012", or "< 0.001" below a thousandth, never "0.0e+00" (a permutation
  p-value is at least 1/(n + 1); a χ² p-value that underflows is not zero either);
* :func:`plural` — "1 scorer", "2 scorers": the code that writes a sentence knows the count;
  :func:`noun` — the noun alone ("column" / "columns"), for "missing columns ['a', 'b']".
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["number", "estimate", "deciding_digits", "formatter", "plural", "noun", "p_value"]


def number(x, digits: int = 3, *, na: str = "–") -> str:
    """``x`` with ``digits`` decimals; negative zero after rounding prints without its sign."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return na
    text = f"{v:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def estimate(value, low, high, digits: int = 2, *, unit: str = "", na: str = "–") -> str:
    """``"v [low, high]"`` at one precision (``unit`` after the estimate, e.g. ``" %"``); the
    value alone when the interval is undefined; ``na`` alone when the value is."""
    v = number(value, digits, na=na)
    if v == na:
        return na
    v += unit
    if any(not math.isfinite(float(b)) for b in (low, high)):
        return v
    return f"{v} [{number(low, digits)}, {number(high, digits)}]"


def deciding_digits(bounds, digits: int = 2, *, most: int = 6) -> int:
    """The fewest decimals, at least ``digits`` and at most ``most``, at which every finite,
    non-zero value of ``bounds`` (interval bounds) prints as a non-zero number, so that its sign,
    and so whether the interval includes zero, can be read off the page: 0.004 needs 3 decimals
    (at 2 it prints "0.00"), -0.0004 needs 4. A bound that is exactly zero prints "0" at any
    precision and does not ask for more; ``most`` caps the search."""
    need = digits
    for b in bounds:
        v = abs(float(b))
        if not math.isfinite(v) or v == 0:
            continue
        while need < most and float(f"{v:.{need}f}") == 0:
            need += 1
    return need


def formatter(digits: int = 3, *, na: str = "–") -> Callable[[object], str]:
    """A ``Styler.format`` / ``DataFrame.map`` callable printing every number with ``digits``
    decimals (:func:`number`); strings pass through."""
    return lambda x: number(x, digits, na=na) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def noun(n: int, singular: str, plural_form: str | None = None) -> str:
    """``singular`` for one, else ``plural_form`` (default: ``singular + "s"``)."""
    return singular if n == 1 else (plural_form or singular + "s")


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """``"1 scorer"``, ``"0 scorers"``, ``"2 scorers"`` (``plural_form`` for irregular nouns)."""
    return f"{n} {noun(n, singular, plural_form)}"


def p_value(p, *, digits: int = 3, na: str = "–") -> str:
    """A p-value as a page prints it: ``digits`` decimals, ``"< 0.001"`` (for three digits) below
    the smallest value those decimals show, ``na`` when undefined; never "0.000" or "0.0e+00"."""
    try:
        v = float(p)
    except (TypeError, ValueError):
        return str(p)
    if math.isnan(v):
        return na
    floor = 10.0**-digits
    return f"< {floor:.{digits}f}" if v < floor else f"{v:.{digits}f}"
