"""Part III's try-it section (montague/tryit.py) and its report.try_it, on vectors chosen by hand."""

import pandas as pd
import pytest

from compsem.montague import report
from compsem.montague.tryit import read_adjective_noun
from tests.helpers.fake_encoders import TableEncoder


def test_adjective_noun_pair_shares_by_hand():
    """Phrases with "red" lie almost on one line (cosine distances about 1e-4), phrases with "fake"
    are orthogonal (distance 1): for every ordered noun pair d(red n1, red n2) < d(fake n1, fake n2),
    so "red vs fake" holds for 100 % of the noun pairs and "fake vs red" for 0 %."""
    table = {
        "red": [1, 1, 0],
        "fake": [0, 1, 1],
        "car": [1, 0, 1],
        "gun": [1, 1, 1],
        "dog": [2, 1, 0],
        "red car": [1, 0, 0],
        "red gun": [1, 0.01, 0],
        "red dog": [1, 0, 0.01],
        "fake car": [0, 1, 0],
        "fake gun": [0, 0, 1],
        "fake dog": [1, 0, 0],
    }
    t = report.try_it(["red", "fake"], ["car", "gun", "dog"], [TableEncoder(table)])
    pairs = t[t.test.str.startswith("pair test")].set_index("phrase").verdict
    assert pairs.to_dict() == {"red vs fake": "100 %", "fake vs red": "0 %"}
    assert set(t[t.test.str.startswith("single")].phrase) == {
        f"{a} {n}" for a in ("red", "fake") for n in ("car", "gun", "dog")
    }
    with pytest.raises(ValueError, match="at least one adjective"):
        report.try_it([], ["car"], ["bow"])


def test_reading_line_by_hand():
    part3 = pd.DataFrame(
        {
            "model": ["a"] * 5,
            "phrase": ["red car", "fake car", "zorp car", "fake car", "red vs fake"],
            "test": ["between (Eq. 3)"] * 3 + ["closer to adjective (Eq. 7)", "pair test (Eq. 5)"],
            "verdict": ["holds", "fails", "undefined", "holds", "50 %"],
        }
    )
    assert read_adjective_noun(part3) == (
        "`a`: between holds for 1 of 2 phrases (1 undefined: a word the model "
        "drops or does not know); closer to adjective holds for 1 of 1 phrase."
    )


def test_a_pair_test_on_tied_distances_says_all_tied_not_0_percent():
    """bow-like vectors by hand: every phrase shares one word with each other phrase of its
    adjective, so d(red car, red gun) = d(fake car, fake gun): every noun pair ties. Under the
    strict < (official reading) a tie fails, under ≤ (equations) it holds; either way the cell
    says "all tied", never 0 % or 100 %."""
    table = {
        "red": [1, 0, 0, 0, 0],
        "fake": [0, 1, 0, 0, 0],
        "car": [0, 0, 1, 0, 0],
        "gun": [0, 0, 0, 1, 0],
        "red car": [1, 0, 1, 0, 0],
        "red gun": [1, 0, 0, 1, 0],
        "fake car": [0, 1, 1, 0, 0],
        "fake gun": [0, 1, 0, 1, 0],
    }
    t = report.try_it(["red", "fake"], ["car", "gun"], [TableEncoder(table)])
    pairs = t[t.test.str.startswith("pair test")].set_index("phrase").verdict
    assert pairs.to_dict() == {
        "red vs fake": "all tied (a tie fails under <)",
        "fake vs red": "all tied (a tie fails under <)",
    }
    t = report.try_it(["red", "fake"], ["car", "gun"], [TableEncoder(table)], reading="equations")
    assert set(t[t.test.str.startswith("pair test")].verdict) == {"all tied (a tie holds under ≤)"}
    # contradicting data: pull "red gun" towards "red car" -> no tie, a real share of 100 % / 0 %
    table["red gun"] = [1, 0, 0.9, 0.1, 0]
    t = report.try_it(["red", "fake"], ["car", "gun"], [TableEncoder(table)])
    pairs = t[t.test.str.startswith("pair test")].set_index("phrase").verdict
    assert pairs.to_dict() == {"red vs fake": "100 %", "fake vs red": "0 %"}
    assert report.pair_share_words(0.5, 1, 2, True) == "50 % (1 of 2 tied)"
    assert report.pair_share_words(float("nan"), 0, 0, True) == "undefined"


def test_an_eq7_tie_is_shown_as_a_tie_and_read_apart():
    """The tied vectors of the test above: d(red car, red) = d(red car, car) (one shared word
    each), so Eq. 7 ties for every phrase: under < a tie fails, and the row says it is a tie."""
    table = {
        "red": [1, 0, 0, 0],
        "fake": [0, 1, 0, 0],
        "car": [0, 0, 1, 0],
        "gun": [0, 0, 0, 1],
        "red car": [1, 0, 1, 0],
        "red gun": [1, 0, 0, 1],
        "fake car": [0, 1, 1, 0],
        "fake gun": [0, 1, 0, 1],
    }
    t = report.try_it(["red", "fake"], ["car", "gun"], [TableEncoder(table)])
    eq7 = t[t.test.str.startswith("closer to adjective")]
    assert set(eq7.verdict) == {"tied (a tie fails under <)"}
    line = read_adjective_noun(t.assign(model="m"))
    assert "closer to adjective than noun is tied for all 4 phrases it can judge, the two distances being equal" in line
    # contradicting data: pull "red car" towards "red": it holds there, the other three stay tied
    table["red car"] = [1, 0, 0.5, 0]
    t = report.try_it(["red", "fake"], ["car", "gun"], [TableEncoder(table)])
    eq7 = t[t.test.str.startswith("closer to adjective")].set_index("phrase").verdict
    assert eq7["red car"] == "holds" and eq7["fake gun"] == "tied (a tie fails under <)"
    line = read_adjective_noun(t.assign(model="bow"))
    assert line.startswith("The control `bow`: ")
    assert "closer to adjective than noun holds for 1 of 1 phrase (3 more tied, which decide nothing)" in line
