"""Part II's metrics and baselines against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.csts import metrics as M


def test_correlations_x100_and_constant_is_nan():
    r = M.correlations([1, 2, 3, 5], [2, 4, 6, 8])
    assert r["spearman"] == pytest.approx(100.0)
    # Pearson by hand: x = (1, 2, 3, 5), y = 2 * (1, 2, 3, 4)
    x, y = np.array([1, 2, 3, 5.0]), np.array([1, 2, 3, 4.0])
    dx, dy = x - x.mean(), y - y.mean()
    assert r["pearson"] == pytest.approx(100 * (dx @ dy) / np.sqrt((dx @ dx) * (dy @ dy)))
    with pytest.warns(UserWarning, match="constant"):
        assert np.isnan(M.correlations([1, 1, 1], [1, 2, 3])["spearman"])


def test_correlations_count_nonfinite():
    with pytest.warns(UserWarning, match="1 non-finite"):
        r = M.correlations([1.0, np.nan, 2.0, 3.0], [1.0, 2.0, 2.0, 4.0])
    assert r["n"] == 3 and r["n_nonfinite"] == 1 and r["spearman"] == pytest.approx(100.0)


def test_pair_accuracy_by_hand():
    # pairs: right (0.9 > 0.1), tie (0.5 = 0.5) counts 1/2, wrong (0.2 < 0.8), NaN left out
    assert M.pair_accuracy([0.9, 0.5, 0.2, np.nan], [0.1, 0.5, 0.8, 0.3]) == pytest.approx(100 * 1.5 / 3)
    assert np.isnan(M.pair_accuracy([np.nan], [0.1]))


def test_condition_prior_by_hand():
    cond = ["colour", "colour", "kind", "kind", "kind"]
    y = [1.0, 2.0, 5.0, 4.0, 3.0]
    got = M.condition_prior(cond, y, ["kind", "colour", "unseen"])
    # kind: (5 + 4 + 3) / 3 = 4; colour: 1.5; unseen: mean of all = 15 / 5 = 3
    assert got.tolist() == [4.0, 1.5, 3.0]
    with pytest.raises(ValueError, match="as many"):
        M.condition_prior(["a"], [1.0, 2.0], ["a"])


def test_quad_margin_loss_by_hand():
    # pair 1: max(0, 1 + 0.2 - 0.9) = 0.3; pair 2: max(0, 1 + (-0.5) - 0.8) = 0
    assert M.quad_margin_loss([0.9, 0.8], [0.2, -0.5], margin=1.0) == pytest.approx(0.15)
    assert M.quad_margin_loss([0.9], [0.2], margin=0.5) == pytest.approx(0.0)
