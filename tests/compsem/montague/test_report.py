"""Part III's headline helpers."""

import numpy as np
import pytest

from compsem.montague.report import _gap_boot


def test_gap_bootstrap_on_known_groups():
    est, lo, hi, n = _gap_boot(np.array([1.0, 1.0, 1.0, np.nan]), np.array([0.0, 0.0]), 200, 0)
    assert (est, lo, hi, n) == (1.0, 1.0, 1.0, 5)
    est, lo, hi, _ = _gap_boot(np.array([0.0, 1.0]), np.array([0.5]), 500, 0)
    assert est == pytest.approx(0.0) and lo < 0 < hi
