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


def glued_names(notebook: str) -> set[str]:
    """The glue names a chapter's prose uses (roles and glued figures), less those glued in its own code."""
    import json
    import re

    nb = json.loads((ROOT / "notebooks" / notebook).read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    names = set(re.findall(r"\{glue:(?:text|md|)\}`([A-Za-z0-9_]+)", text))
    names |= set(re.findall(r"```\{glue:figure\} (\w+)", text))
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    return names - set(re.findall(r'glue_all\(\{"(\w+)"', code))  # a figure glued in its own cell


def graded(page: str, label: str, expected: dict) -> None:
    """The autograded answers of exercise ``label`` on ``page`` (what ``make assignments``
    grades against, :func:`compsem.book.teaching.assignments.answer_blocks`) are exactly the names of
    ``expected``, and each is the value the library computes: a number rounds to it at the
    decimals written (:func:`shown`), a vector element by element, anything else is equal."""
    import numpy as np

    from compsem.book.teaching.assignments import answer_blocks

    answers = {a.name: a for a in answer_blocks(page)[label]}
    assert set(answers) == set(expected), f"{label}: the page grades {sorted(answers)}, the checks {sorted(expected)}"
    for name, value in expected.items():
        a = answers[name]
        if isinstance(a.value, (bool, type(None), str)):
            assert a.value == value and type(a.value) is type(value), (name, a.value, value)
        elif isinstance(a.value, tuple):
            written = [t.strip() for t in a.text.strip("()[]").split(",")]
            assert len(written) == len(np.ravel(value)), name
            for t, v in zip(written, np.ravel(value)):
                shown(t, v, t)
        else:
            shown(page, value, a.text)
