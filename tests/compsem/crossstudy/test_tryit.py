"""The try-it page's functions, checked on the bag-of-words control where every cosine is a
count of shared words that can be worked out by hand."""

import math

import pandas as pd
import pytest

from compsem.crossstudy import tryit
from tests.helpers.fake_encoders import TableEncoder
from compsem.setcomp.report import _union_case


def test_set_operators_by_hand():
    # bow keeps content words: A = {apples, oranges}, B = {oranges, pears}, O = {oranges},
    # D = {apples}, U = {apples, oranges, pears}; each vector is binary and unit length.
    t = tryit.set_operators("apples oranges", "oranges pears", "oranges", "apples", "apples oranges pears", ["bow"])
    v = dict(zip(t.criterion, t.value))
    verdict = dict(zip(t.criterion, t.verdict))
    cos_ab, cos_ao = 0.5, 1 / math.sqrt(2)
    assert v["C1 Δ1 = cos(A,O) − cos(A,B)"] == pytest.approx(cos_ao - cos_ab)
    assert v["C1 Δ2 = cos(B,O) − cos(A,B)"] == pytest.approx(cos_ao - cos_ab)
    assert v["C2 position t of O (0 = A, 1 = B)"] == pytest.approx(0.5)     # O bisects A and B
    assert v["C3 Δ1 = cos(A,D) − cos(B,D)"] == pytest.approx(1 / math.sqrt(2) - 0)
    assert v["C3 Δ2 = cos(A,B) − cos(B,D)"] == pytest.approx(0.5)
    assert v["C6 norm ratio |A|/|B| (comparable: within 0.1 of 1)"] == pytest.approx(1.0)
    assert verdict["C6 norm ratio |A|/|B| (comparable: within 0.1 of 1)"] == "comparable norms"
    assert v["C6 position t of U (expected between A and B: 0 ≤ t ≤ 1)"] == pytest.approx(0.5)
    assert verdict["C6 position t of U (expected between A and B: 0 ≤ t ≤ 1)"] == "holds"
    assert verdict["C1 Δ1 = cos(A,O) − cos(A,B)"] == "holds"
    assert "" not in set(t.verdict)                                      # every row says something


def test_c5_position_by_hand():
    # A = (a+o)/sqrt2, B = (o+p)/sqrt2, D = a. In the plane: angle(A,B) = 60 deg; D's shadow is at
    # angle -30 deg from A (away from B), so t = -30/60 = -0.5.
    t = tryit.set_operators("apples oranges", "oranges pears", "oranges", "apples", "apples oranges pears", ["bow"])
    v = dict(zip(t.criterion, t.value))
    assert v["C5 position t of D (near A: |t| ≤ 0.25)"] == pytest.approx(-0.5)


def test_conditional_similarity_condition_changes_the_score():
    t = tryit.conditional_similarity("red car", "red bike", "colour", "vehicle", ["bow"])
    row = t.iloc[0]
    # {red, car} vs {red, bike}: 1 shared of 2 -> 0.5; with "colour": {red, car, colour} vs
    # {red, bike, colour}: 2/3; with "vehicle": also 2/3.
    assert row["cos, condition ignored"] == pytest.approx(0.5)
    assert row["cos with C-High"] == pytest.approx(2 / 3)
    assert row["cos with C-Low"] == pytest.approx(2 / 3)
    assert row["C-High above C-Low"] == "no"


def test_adjective_noun_pair_shares_by_hand():
    """Phrases with "red" lie almost on one line (cosine distances about 1e-4), phrases with "fake"
    are orthogonal (distance 1): for every ordered noun pair d(red n1, red n2) < d(fake n1, fake n2),
    so "red vs fake" holds for 100 % of the noun pairs and "fake vs red" for 0 %."""
    table = {"red": [1, 1, 0], "fake": [0, 1, 1], "car": [1, 0, 1], "gun": [1, 1, 1], "dog": [2, 1, 0],
             "red car": [1, 0, 0], "red gun": [1, 0.01, 0], "red dog": [1, 0, 0.01],
             "fake car": [0, 1, 0], "fake gun": [0, 0, 1], "fake dog": [1, 0, 0]}
    t = tryit.adjective_noun(["red", "fake"], ["car", "gun", "dog"], [TableEncoder(table)])
    pairs = t[t.test.str.startswith("pair test")].set_index("phrase").verdict
    assert pairs.to_dict() == {"red vs fake": "100 %", "fake vs red": "0 %"}
    assert set(t[t.test.str.startswith("single")].phrase) == {f"{a} {n}" for a in ("red", "fake")
                                                              for n in ("car", "gun", "dog")}
    with pytest.raises(ValueError, match="at least one adjective"):
        tryit.adjective_noun([], ["car"], ["bow"])


def test_sentence_space_lexical_by_hand_in_long_form():
    # content words: P = {chef, slice, onion}, H1 = {chef, cook}, H2 = {onion};
    # R(i, j) = |C_i & C_j| / |C_j| (the share of the hypothesis covered by the premise)
    out = tryit.sentence_space("a chef slices onions", ["a chef cooks", "onions"], [])
    assert list(out.columns) == ["model", "matrix", "row", "column", "value"]
    assert set(out.model) == {"lexical"} and set(out.matrix) == {"R", "D_rel", "D_dis"}
    R = out[out.matrix == "R"].set_index(["row", "column"]).value
    expected = {("P", "H1"): 1 / 2, ("H1", "P"): 1 / 3, ("P", "H2"): 1.0, ("H2", "P"): 1 / 3,
                ("H1", "H2"): 0.0, ("H2", "H1"): 0.0, ("P", "P"): 1.0}
    for key, value in expected.items():
        assert R[key] == pytest.approx(value), key
    D = out[out.matrix == "D_rel"].set_index(["row", "column"]).value
    assert D[("P", "H1")] == pytest.approx(1 - (1 / 2 + 1 / 3) / 2)      # 1 - mean of both directions


def test_trust_remote_code_is_passed_through_to_every_study(monkeypatch):
    seen = {}
    for name in ("_setcomp_try_it", "_csts_try_it", "_montague_try_it", "_ssm_try_it"):
        monkeypatch.setattr(tryit, name, lambda *a, _n=name, **kw: seen.setdefault(_n, kw["trust_remote_code"]))
    tryit.set_operators("a", "b", "o", "d", "u", ["bow"], trust_remote_code=True)
    tryit.conditional_similarity("a", "b", "c", "d", ["bow"], trust_remote_code=True)
    tryit.adjective_noun(["red"], ["car"], ["bow"], trust_remote_code=True)
    tryit.sentence_space("p", ["h"], ["bow"])
    assert seen == {"_setcomp_try_it": True, "_csts_try_it": True, "_montague_try_it": True, "_ssm_try_it": False}
def test_remote_code_reaches_a_study_only_when_asked_and_never_silently_dropped():
    def plain(models):
        return models

    def able(models, *, trust_remote_code=False):
        return trust_remote_code

    assert tryit.remote_code_kwargs(plain, False) == {}
    assert tryit.remote_code_kwargs(able, True) == {"trust_remote_code": True}
    with pytest.raises(ValueError, match="plain does not take trust_remote_code"):
        tryit.remote_code_kwargs(plain, True)


def test_union_case_follows_the_norm_ratio():
    # comparable within 0.1 of 1 -> between; A longer -> |t| <= 0.25; B longer -> |t - 1| <= 0.25
    assert _union_case(1.05, 0.5) == ("comparable norms", "between A and B: 0 ≤ t ≤ 1", True)
    assert _union_case(1.05, 1.2)[2] is False
    assert _union_case(1.5, 0.2) == ("A longer", "near A: |t| ≤ 0.25", True)
    assert _union_case(1.5, 0.5)[2] is False
    assert _union_case(0.5, 0.9) == ("B longer", "near B: |t − 1| ≤ 0.25", True)
    assert _union_case(float("nan"), 0.5)[0] == "undefined"


def test_reading_lines_by_hand():
    part1 = pd.DataFrame({"model": ["a"] * 4, "criterion": ["C1 Δ1 = x", "C2 position t", "C5 position", "C6 norm ratio"],
                          "value": [0.1, 0.5, 0.9, 1.0], "verdict": ["holds", "holds", "fails", "comparable norms"]})
    assert tryit.read_set_operators(part1) == "`a` passes 2 of 3 checks and fails C5."
    part2 = pd.DataFrame({"model": ["a", "b", "c"], "cos with C-High": [0.5, 0.4, 0.983], "cos with C-Low": [0.3, 0.45, 0.9834]})
    assert tryit.read_conditional_similarity(part2) == ("Higher under C-High, as it should be: `a` (+0.20); "
                                                        "not: `b` (-0.05), `c` (0.00).")
    part3 = pd.DataFrame({"model": ["a"] * 5, "phrase": ["red car", "fake car", "zorp car", "fake car", "red vs fake"],
                          "test": ["between (Eq. 3)"] * 3 + ["closer to adjective (Eq. 7)", "pair test (Eq. 5)"],
                          "verdict": ["holds", "fails", "undefined", "holds", "50 %"]})
    assert tryit.read_adjective_noun(part3) == ("`a`: between holds for 1 of 2 phrases (1 undefined: a word the model "
                                                "does not know); closer to adjective holds for 1 of 1 phrase.")


def test_sentence_space_reading_names_the_asymmetry():
    out = tryit.sentence_space("a chef slices onions", ["a chef cooks", "onions"], ["bow"])
    line = tryit.read_sentence_space(out)
    # lexical: R(P, H2) = 1 (all of "onions" is in the premise), R(H2, P) = 1/3 (chef, slices, onions)
    assert "`lexical`: asymmetric, most for P and H2 (R(P, H2) = 1.00, R(H2, P) = 0.33)" in line
    assert "`bow`: symmetric, so $D_{dis} \\equiv 1$" in line
