"""Part I's headlines for the synthesis."""

import numpy as np
import pytest

from compsem import embed, measures
from compsem.setcomp import load_source
from compsem.setcomp.dataset import build_operator_tables
from compsem.setcomp.report import headlines


def test_c2_headline_matches_a_direct_count():
    rows = {r["criterion"]: r for r in headlines(["bow"], n_boot=50)}
    ov = build_operator_tables(load_source("embedded"))["overlap"]
    A, B, O = (embed(ov[c].tolist(), "bow") for c in ("a", "b", "o"))
    g = measures.plane_geometry(A, B, O, warn=False)
    ok = ~g.degenerate
    direct = 100 * np.mean((g.t[ok] >= 0) & (g.t[ok] <= 1))
    assert rows["C2"]["value"] == pytest.approx(direct)
    assert rows["C2"]["n"] == int(ok.sum())
    assert rows["C2"]["low"] <= rows["C2"]["value"] <= rows["C2"]["high"]
