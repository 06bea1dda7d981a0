"""The synthesis profile: its bootstrap helper and one headline recomputed by another route."""

import numpy as np
import pytest

from compsem import embed, measures
from compsem.synthesis import CRITERIA, _gap_boot, profile_matrix, setcomp_headlines


def test_gap_bootstrap_on_known_groups():
    est, lo, hi, n = _gap_boot(np.array([1.0, 1.0, 1.0, np.nan]), np.array([0.0, 0.0]), 200, 0)
    assert (est, lo, hi, n) == (1.0, 1.0, 1.0, 5)
    est, lo, hi, _ = _gap_boot(np.array([0.0, 1.0]), np.array([0.5]), 500, 0)
    assert est == pytest.approx(0.0) and lo < 0 < hi


def test_c2_headline_matches_a_direct_count():
    from compsem.setcomp import load_source
    from compsem.setcomp.dataset import build_operator_tables

    rows = {r["criterion"]: r for r in setcomp_headlines(["bow"], n_boot=50)}
    ov = build_operator_tables(load_source("embedded"))["overlap"]
    A, B, O = (embed(ov[c].tolist(), "bow") for c in ("a", "b", "o"))
    g = measures.plane_geometry(A, B, O, warn=False)
    ok = ~g.degenerate
    direct = 100 * np.mean((g.t[ok] >= 0) & (g.t[ok] <= 1))
    assert rows["C2"]["value"] == pytest.approx(direct)
    assert rows["C2"]["n"] == int(ok.sum())
    assert rows["C2"]["low"] <= rows["C2"]["value"] <= rows["C2"]["high"]


def test_profile_matrix_orders_criteria():
    import pandas as pd

    prof = pd.DataFrame([{"model": "m", "criterion": c.key, "value": i} for i, c in enumerate(CRITERIA)][::-1])
    assert list(profile_matrix(prof).columns) == [c.key for c in CRITERIA]
