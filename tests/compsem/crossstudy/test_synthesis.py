"""The synthesis profile gathers every study's headlines in the book's order."""

import pandas as pd

from compsem.crossstudy.synthesis import CRITERIA, STUDY_REPORTS, profile_matrix


def test_criteria_are_the_studies_headlines_in_order():
    keys = [c.key for c in CRITERIA]
    assert keys == ["C1", "C2", "C3", "C5", "C6", "CSTS", "AAN", "PAIR", "NSGAP", "RSA"]
    assert list(STUDY_REPORTS) == ["setcomp", "csts", "montague", "ssm"]
    assert [c.part for c in CRITERIA] == ["I"] * 5 + ["II"] + ["III"] * 3 + ["IV"]


def test_profile_matrix_orders_criteria():
    prof = pd.DataFrame([{"model": "m", "criterion": c.key, "value": i} for i, c in enumerate(CRITERIA)][::-1])
    assert list(profile_matrix(prof).columns) == [c.key for c in CRITERIA]
