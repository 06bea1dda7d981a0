"""Part I's try-it section (setcomp/tryit.py) and its report.try_it, on the bag-of-words control where
every cosine is a count of shared words that can be worked out by hand."""

import math

import pandas as pd
import pytest

from compsem.setcomp import report
from compsem.setcomp.report import _difference_place, _union_case
from compsem.setcomp.tryit import read_set_operators


def test_set_operators_by_hand():
    # bow keeps content words: A = {apples, oranges}, B = {oranges, pears}, O = {oranges},
    # D = {apples}, U = {apples, oranges, pears}; each vector is binary and unit length.
    t = report.try_it("apples oranges", "oranges pears", "oranges", "apples", "apples oranges pears", ["bow"])
    v = dict(zip(t.criterion, t.value))
    verdict = dict(zip(t.criterion, t.verdict))
    cos_ab, cos_ao = 0.5, 1 / math.sqrt(2)
    assert v["C1 Δ1 = cos(A,O) − cos(A,B)"] == pytest.approx(cos_ao - cos_ab)
    assert v["C1 Δ2 = cos(B,O) − cos(A,B)"] == pytest.approx(cos_ao - cos_ab)
    assert v["C2 position t of O (0 = A, 1 = B)"] == pytest.approx(0.5)  # O bisects A and B
    assert v["C3 Δ1 = cos(A,D) − cos(B,D)"] == pytest.approx(1 / math.sqrt(2) - 0)
    assert v["C3 Δ2 = cos(A,B) − cos(B,D)"] == pytest.approx(0.5)
    assert v["C6 norm ratio |A|/|B| (comparable: within 0.1 of 1)"] == pytest.approx(1.0)
    assert verdict["C6 norm ratio |A|/|B| (comparable: within 0.1 of 1)"] == "comparable norms"
    assert v["C6 position t of U (expected between A and B: 0 ≤ t ≤ 1)"] == pytest.approx(0.5)
    assert verdict["C6 position t of U (expected between A and B: 0 ≤ t ≤ 1)"] == "holds"
    assert verdict["C1 Δ1 = cos(A,O) − cos(A,B)"] == "holds"
    assert "" not in set(t.verdict)  # every row says something


def test_c5_position_by_hand():
    # A = (a+o)/sqrt2, B = (o+p)/sqrt2, D = a. In the plane: angle(A,B) = 60 deg; D's shadow is at
    # angle -30 deg from A (away from B), so t = -30/60 = -0.5.
    t = report.try_it("apples oranges", "oranges pears", "oranges", "apples", "apples oranges pears", ["bow"])
    v = dict(zip(t.criterion, t.value))
    assert v["C5 position t of D (near A: |t| ≤ 0.25)"] == pytest.approx(-0.5)
    # beyond A (t < -0.25) is set-like in chapter 12: a place, not a failure
    verdict = dict(zip(t.criterion, t.verdict))
    assert verdict["C5 position t of D (near A: |t| ≤ 0.25)"] == "beyond A"
    assert "fails" not in set(t.verdict)


def test_difference_place_by_hand():
    assert [_difference_place(x) for x in (0.0, 0.25, -0.25, -0.26, 0.26, 1.2)] == [
        "near A",
        "near A",
        "near A",
        "beyond A",
        "toward B",
        "toward B",
    ]
    assert _difference_place(float("nan")) == "undefined"


def test_union_case_follows_the_norm_ratio():
    # comparable within 0.1 of 1 -> between; A longer -> |t| <= 0.25; B longer -> |t - 1| <= 0.25
    assert _union_case(1.05, 0.5) == ("comparable norms", "between A and B: 0 ≤ t ≤ 1", True)
    assert _union_case(1.05, 1.2)[2] is False
    assert _union_case(1.5, 0.2) == ("A longer", "near A: |t| ≤ 0.25", True)
    assert _union_case(1.5, 0.5)[2] is False
    assert _union_case(0.5, 0.9) == ("B longer", "near B: |t − 1| ≤ 0.25", True)
    assert _union_case(float("nan"), 0.5)[0] == "undefined"


def test_reading_line_by_hand():
    part1 = pd.DataFrame(
        {
            "model": ["a"] * 4,
            "criterion": ["C1 Δ1 = x", "C2 position t", "C5 position", "C6 norm ratio"],
            "value": [0.1, 0.5, 0.9, 1.0],
            "verdict": ["holds", "fails", "toward B", "comparable norms"],
        }
    )
    assert read_set_operators(part1) == (
        "`a` passes 1 of 2 checks and fails C2; its difference lies toward B (C5, described, not judged)."
    )
    part1["model"] = ["a", "b", "b", "a"]
    part1["verdict"] = ["holds", "holds", "beyond A", "comparable norms"]
    assert read_set_operators(part1) == (
        "`a` passes 1 of 1 checks, every one. `b` passes 1 of 1 checks, every one; its difference lies beyond A "
        "(C5, described, not judged)."
    )
    assert report.TRY_IT.read is read_set_operators


def test_the_control_is_named_as_a_control_in_the_reading_and_the_tables():
    t = report.try_it("apples oranges", "oranges pears", "oranges", "apples", "apples oranges pears", ["bow"])
    assert read_set_operators(t).startswith("The control `bow` passes 7 of 7 checks, every one; its difference lies")
    verdicts, values = report.TRY_IT.show(t, ["bow"])
    assert list(verdicts.columns) == list(values.columns) == ["control: bow"]
