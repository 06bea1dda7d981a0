"""Page formatting: one precision per estimate and interval, no negative zero, counted nouns."""

import numpy as np

from compsem.fmt import estimate, formatter, number, plural


def test_number_fixed_decimals_and_no_negative_zero():
    assert number(0.5, 3) == "0.500" and number(-0.00004, 4) == "0.0000" and number(-0.25, 1) == "-0.2"
    assert number(float("nan")) == "–" and number(np.float32(1.25), 1) == "1.2" and number("x") == "x"


def test_estimate_at_one_precision_keeps_the_estimate_inside():
    # the defect of chapter 42: 0.999 printed with an interval rounded to [1.00, 1.00]
    assert estimate(0.9994, 0.9991, 1.0, 2) == "1.00 [1.00, 1.00]"
    assert estimate(0.9994, 0.9991, 1.0, 3) == "0.999 [0.999, 1.000]"
    assert estimate(40.0, 32.71, 47.94, 1, unit=" %") == "40.0 % [32.7, 47.9]"
    assert estimate(0.3, float("nan"), 0.4) == "0.30"
    assert estimate(float("nan"), 0.0, 1.0, na="n/a") == "n/a"  # an undefined estimate: its interval is moot


def test_formatter_and_plural():
    f = formatter(2)
    assert [f(0.0), f(-0.001), f(3), f("a"), f(True)] == ["0.00", "0.00", "3.00", "a", "True"]
    assert plural(1, "scorer") == "1 scorer" and plural(0, "scorer") == "0 scorers"
    assert plural(2, "analysis", "analyses") == "2 analyses"


def test_p_value_never_prints_zero():
    from compsem.fmt import p_value

    assert p_value(0.0) == "< 0.001" and p_value(1 / 10_001) == "< 0.001"  # the smallest permutation p
    assert p_value(0.0123) == "0.012" and p_value(0.001) == "0.001" and p_value(1.0) == "1.000"
    assert p_value(float("nan")) == "–" and p_value(float("nan"), na="—") == "—"
    assert p_value(0.04, digits=1) == "< 0.1" and p_value(0.25, digits=2) == "0.25"


def test_deciding_digits_shows_each_bounds_sign():
    from compsem.fmt import deciding_digits, number

    assert deciding_digits([0.02, 0.03]) == 2  # both print non-zero at the floor
    assert deciding_digits([0.004, 0.03]) == 3  # "0.00" at 2 decimals, "0.004" at 3
    assert deciding_digits([-0.0004, 0.03]) == 4 and number(-0.0004, 4) == "-0.0004"
    assert deciding_digits([0.0049, 0.2], 2) == 3  # 0.0049 prints "0.00" at 2, "0.005" at 3
    assert deciding_digits([0.006, 0.2], 2) == 2  # "0.01": non-zero already
    assert deciding_digits([0.0, float("nan"), 0.5]) == 2  # exact zero and NaN ask for nothing
    assert deciding_digits([1e-12], 2, most=6) == 6  # capped
    assert deciding_digits([0.004], 3) == 3  # the floor is kept
