"""The controls' words for C2 and C6 follow the data (hand-made plane geometries)."""

import numpy as np
import pytest

from compsem.errors import CompsemError
from compsem.measures import PlaneGeometry
from compsem.setcomp.controls import between, chance_between, control_values


def geo(t, angle=np.pi / 2, degenerate=None):
    t = np.asarray(t, dtype=float)
    n = t.size
    deg = np.zeros(n, bool) if degenerate is None else np.asarray(degenerate, bool)
    full = np.full(n, np.nan)
    return PlaneGeometry(np.full(n, angle), full, full, t, full, full, full, deg)


def test_between_and_the_chance_level_by_hand():
    g = geo([0.0, 0.5, 1.0, 1.5, -0.1], degenerate=[0, 0, 0, 0, 1])
    assert between(g)[:4].tolist() == [1.0, 1.0, 1.0, 0.0] and np.isnan(between(g)[4])
    # a random direction falls inside a right angle a quarter of the time
    assert chance_between(geo([0.5] * 4)) == pytest.approx(0.25)
    assert chance_between(geo([0.5, 0.5], angle=np.pi / 3)) == pytest.approx(1 / 6)


def test_words_follow_the_controls():
    real = geo([0.5] * 20)
    v = control_values(
        "c2",
        real=real,
        shuffled=geo([2.0] * 20),
        random=geo([0.5] * 5 + [3.0] * 15),
        model="m",
        target="O",
        c1_at_zero=np.array([1.0] * 10 + [0.0] * 10),
        n_boot=200,
    )
    s = str(v["c2_control_sentence"])
    # real 100 %, shuffled 0 %: every paired resample's difference is 100 points
    assert s.startswith(
        "On the same 20 samples, the real O of `m` projects between the inputs more often than a "
        "shuffled O (100.0 % against 0.0 %; paired difference 100.0 points [100.0, 100.0])."
    )
    # random: 5 of 20 against a chance of 1/4: the exact binomial p is 1
    assert (
        "Random vectors project there for 25.0 % of the samples, with no evidence of a difference from the "
        "chance level of 25.0 % that the angle between their inputs derives (exact binomial test over 20 "
        "samples, p = 1.000)."
    ) in s
    assert s.endswith("has not been tested.")
    assert v["c2_implied_pct"] == 50.0 and v["c2_c1_zero_pct"] == 50.0 and v["c2_chance_pct"] == pytest.approx(25.0)
    # contradicting data: the shuffled target projects between as often; random always does
    v = control_values(
        "c6", real=real, shuffled=geo([0.5] * 20), random=geo([0.5] * 20), model="m", target="U", n_boot=200
    )
    s = str(v["c6_control_sentence"])
    assert "exactly as often as a shuffled U on every sample (the paired test is undefined)" in s
    assert "above the chance level of 25.0 %" in s and "p < 0.001" in s
    assert s.endswith("So the share does not separate real targets from shuffled ones here.")
    assert "c6_implied_pct" not in v
    with pytest.raises(CompsemError, match="same samples"):
        control_values("x", real=real, shuffled=geo([0.5] * 3), random=real, model="m", target="O")


def _cells(rows):
    """Per-sample cells at ε = 0 from their names: each sample is in exactly one cell."""
    order = ["TT", "TF", "FT", "FF"]
    return np.array([[1.0 if c == r else 0.0 for c in order] for r in rows])


def test_c3_against_shuffled_targets_names_the_condition_only_from_the_paired_test():
    from compsem.setcomp.controls import c3_against_shuffled

    real = _cells(["TT"] * 20)
    # shuffled: half (T,T), half (F,T): both conditions 100 % against 50 %; the first condition rises by 50 points
    # (1 − 0 on 10 samples), the second by 0 on every sample (undefined); their difference is 50 points
    s = str(c3_against_shuffled(real, _cells(["TT"] * 10 + ["FT"] * 10), model="m", n_boot=300))
    assert s.startswith(
        "On the same 20 samples, the real D of `m` meets both conditions more often than a shuffled D "
        "(100.0 % against 50.0 %; paired difference 50.0 points ["
    )
    assert "first condition by 50.0 points [" in s
    assert "the second by 0.0 points (undefined: every item gives both the same value)" in s
    assert s.endswith("mainly through the first condition.")
    # contradicting data: the shuffled D fails the second condition instead -> the second condition
    s = str(c3_against_shuffled(real, _cells(["TT"] * 10 + ["TF"] * 10), model="m", n_boot=300))
    assert "The rise in the second condition is the larger (paired difference of the rises 50.0 points [" in s
    assert s.endswith("mainly through the second condition.")
    # both conditions fall on 5 samples each: the rises are 25 and 25 points, no evidence either way
    s = str(c3_against_shuffled(real, _cells(["TT"] * 10 + ["TF"] * 5 + ["FT"] * 5), model="m", n_boot=300))
    assert "There is no evidence that one condition carries more of the difference than the other" in s
    assert "mainly" not in s
    # the shuffled D meets both conditions as often as the real one: no separation, and no condition is named
    s = str(c3_against_shuffled(real, real.copy(), model="m", n_boot=300))
    assert s.endswith("So C3 does not separate real difference sentences from shuffled ones here.")
    assert "condition" not in s.split("So C3")[0].split("meets both conditions")[1]
    with pytest.raises(CompsemError, match="same samples"):
        c3_against_shuffled(real, real[:5], model="m")
