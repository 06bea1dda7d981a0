"""Part II's try-it section (csts/tryit.py) and its report.try_it, on the bag-of-words control."""

import pandas as pd
import pytest

from compsem.csts import report
from compsem.csts.tryit import read_conditional_similarity


def test_conditional_similarity_condition_changes_the_score():
    t = report.try_it("red car", "red bike", "colour", "vehicle", ["bow"])
    row = t.iloc[0]
    # {red, car} vs {red, bike}: 1 shared of 2 -> 0.5; with "colour": {red, car, colour} vs
    # {red, bike, colour}: 2/3; with "vehicle": also 2/3.
    assert row["cos, condition ignored"] == pytest.approx(0.5)
    assert row["cos with C-High"] == pytest.approx(2 / 3)
    assert row["cos with C-Low"] == pytest.approx(2 / 3)
    assert row["C-High above C-Low"] == "no"


def test_reading_line_by_hand():
    part2 = pd.DataFrame(
        {"model": ["a", "b", "c"], "cos with C-High": [0.5, 0.4, 0.983], "cos with C-Low": [0.3, 0.45, 0.9834]}
    )
    assert read_conditional_similarity(part2) == (
        "Higher under C-High, as it should be: `a` (+0.20); not: `b` (-0.05), `c` (0.00)."
    )
