"""Part IV's try-it section (ssm/tryit.py) and its report.try_it, on the lexical scorer and the
bag-of-words control."""

import pytest

from compsem.ssm import report
from compsem.ssm.tryit import read_sentence_space


def test_sentence_space_lexical_by_hand_in_long_form():
    # content words: P = {chef, slice, onion}, H1 = {chef, cook}, H2 = {onion};
    # R(i, j) = |C_i & C_j| / |C_j| (the share of the hypothesis covered by the premise)
    out = report.try_it("a chef slices onions", ["a chef cooks", "onions"], [])
    assert list(out.columns) == ["model", "matrix", "row", "column", "value"]
    assert set(out.model) == {"lexical"} and set(out.matrix) == {"R", "D_rel", "D_dis"}
    R = out[out.matrix == "R"].set_index(["row", "column"]).value
    expected = {
        ("P", "H1"): 1 / 2,
        ("H1", "P"): 1 / 3,
        ("P", "H2"): 1.0,
        ("H2", "P"): 1 / 3,
        ("H1", "H2"): 0.0,
        ("H2", "H1"): 0.0,
        ("P", "P"): 1.0,
    }
    for key, value in expected.items():
        assert R[key] == pytest.approx(value), key
    D = out[out.matrix == "D_rel"].set_index(["row", "column"]).value
    assert D[("P", "H1")] == pytest.approx(1 - (1 / 2 + 1 / 3) / 2)  # 1 - mean of both directions


def test_sentence_space_reading_names_the_asymmetry():
    out = report.try_it("a chef slices onions", ["a chef cooks", "onions"], ["bow"])
    line = read_sentence_space(out)
    # lexical: R(P, H2) = 1 (all of "onions" is in the premise), R(H2, P) = 1/3 (chef, slices, onions)
    assert "`lexical`: asymmetric, most for P and H2 (R(P, H2) = 1.00, R(H2, P) = 0.33)" in line
    assert "`bow`: symmetric, so D_dis ≡ 1 everywhere" in line
