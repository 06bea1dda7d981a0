"""Part III's headline helpers."""

import math

import numpy as np
import pytest

from compsem.montague.report import _gap_boot


def test_gap_bootstrap_on_known_groups():
    est, lo, hi, n = _gap_boot(np.array([1.0, 1.0, 1.0, np.nan]), np.array([0.0, 0.0]), 200, 0)
    assert (est, lo, hi, n) == (1.0, 1.0, 1.0, 5)
    est, lo, hi, _ = _gap_boot(np.array([0.0, 1.0]), np.array([0.5]), 500, 0)
    assert est == pytest.approx(0.0) and lo < 0 < hi


def test_cell_finds_one_value_or_nan():
    import pandas as pd
    from compsem import montague as mt
    tab = pd.DataFrame({"model": ["a", "a", "b"], "test": ["x", "y", "x"], "perm_p": [0.1, 0.2, 0.3]})
    assert mt.cell(tab, "perm_p", model="a", test="y") == 0.2
    assert mt.cell(tab, "perm_p", model="b", test="x") == 0.3
    assert math.isnan(mt.cell(tab, "perm_p", model="c", test="x"))


def test_class_gap_weights_cells_by_phrase_count():
    import pandas as pd
    from compsem import montague as mt
    ns = pd.DataFrame({"model": ["m"] * 4, "category": ["S-I", "S-NI", "NS-Pl", "NS-Pr"],
                       "consistency": [0.2, 0.5, 0.9, 0.6], "n": [3, 1, 1, 2]})
    g = mt.class_gap(ns, ["m"]).loc["m"]
    # by hand: subsective (0.2*3 + 0.5*1)/4 = 0.275; non-subsective (0.9*1 + 0.6*2)/3 = 0.7
    assert g.iloc[0] == pytest.approx(0.275) and g.iloc[1] == pytest.approx(0.7)
    assert g.iloc[2] == pytest.approx(0.425)
