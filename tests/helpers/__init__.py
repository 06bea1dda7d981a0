"""Test helpers: the repository root and the tiny-model builders (:mod:`.tiny`)."""

from pathlib import Path

#: The repository root (tests read the book pages, notebooks and data from it).
ROOT = Path(__file__).resolve().parents[2]


def shown(page: str, value, printed: str) -> None:
    """``printed`` is on ``page`` (a book page's text) and ``value`` (a number or a one-element
    array) rounds to it at the printed number of decimals ("−" read as a minus sign)."""
    from decimal import Decimal

    import numpy as np
    import pytest

    assert printed in page, f"{printed!r} is not on the page"
    text = printed.replace("−", "-")
    places = max(0, -Decimal(text).as_tuple().exponent)
    v = float(np.asarray(value, dtype=np.float64).ravel()[0])
    assert round(v, places) == pytest.approx(float(text), abs=1e-12), f"{v} does not round to the printed {printed}"
