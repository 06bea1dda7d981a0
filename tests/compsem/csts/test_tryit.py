"""Part II's try-it section (csts/tryit.py) and its report.try_it, on the bag-of-words control."""

import pandas as pd
import pytest

from compsem.csts import report
from compsem.csts.tryit import TRY_IT, read_conditional_similarity


def test_conditional_similarity_condition_changes_the_score():
    t = report.try_it("red car", "red bike", "colour", "vehicle", ["bow"])
    row = t.iloc[0]
    # {red, car} vs {red, bike}: 1 shared of 2 -> 0.5; with "colour": {red, car, colour} vs
    # {red, bike, colour}: 2/3; with "vehicle": also 2/3.
    assert row["cos, condition ignored"] == pytest.approx(0.5)
    assert row["cos with C-High"] == pytest.approx(2 / 3)
    assert row["cos with C-Low"] == pytest.approx(2 / 3)
    assert row["C-High above C-Low"] == "tied"  # equal cosines: neither above nor below (was "no": the defect)


def test_reading_line_by_hand():
    part2 = pd.DataFrame(
        {"model": ["a", "b", "c"], "cos with C-High": [0.5, 0.4, 0.983], "cos with C-Low": [0.3, 0.45, 0.9834]}
    )
    assert read_conditional_similarity(part2) == (
        "Higher under C-High, as it should be: `a` (+0.20); not: `b` (-0.05), `c` (0.00)."
    )


def test_a_tie_is_neither_and_a_control_is_reported_apart():
    part2 = pd.DataFrame(
        {
            "model": ["a", "b", "bow"],
            "cos with C-High": [0.5, 0.375, 0.375],
            "cos with C-Low": [0.3, 0.375, 0.375],
            "C-High above C-Low": ["yes", "tied", "tied"],
        }
    )
    assert read_conditional_similarity(part2) == (
        "Every model scores the pair higher under C-High than under C-Low: `a` (+0.20). "
        "Tied (both cosines equal, so neither): `b`. The control `bow`: tied (both cosines equal)."
    )
    # contradicting data: b moves below, and the control above; b is then a model that fails
    part2["cos with C-Low"] = [0.3, 0.4, 0.275]
    part2["C-High above C-Low"] = ["yes", "no", "yes"]
    assert read_conditional_similarity(part2) == (
        "Higher under C-High, as it should be: `a` (+0.20); not: `b` (-0.03). The control `bow`: C-High − C-Low +0.10."
    )
    shown = TRY_IT.show(part2, ["a", "b", "bow"])[0]
    assert shown.model.tolist() == ["a", "b", "control: bow"]
