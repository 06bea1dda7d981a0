"""Part I tables: cell percentages, C4, geometry and union tables with intervals."""

import numpy as np
import pandas as pd
import pytest

from compsem import measures as M
from compsem.setcomp import metrics as sm
from compsem.setcomp import tables as st


def test_c2_overlap_exactly_between_gives_t_half():
    a, b, o = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 1.0, 3.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": o}}}, "overlap")
    g = geoms["m"]
    assert g.t[0] == pytest.approx(0.5)
    assert bool(g.between[0])
    tab = st.geometry_table(geoms, n_boot=0)
    assert tab.set_index("region").loc["between", "pct"] == pytest.approx(100.0)
    assert tab.set_index("region").loc["near_a", "pct"] == pytest.approx(0.0)


def test_c5_difference_projects_onto_a():
    a, b, dd = np.array([[1.0, 0, 0]]), np.array([[0.6, 0.8, 0]]), np.array([[2.0, 0, 5.0]])
    geoms = sm.geometry({"m": {"difference": {"a": a, "b": b, "t": dd}}}, "difference")
    assert geoms["m"].t[0] == pytest.approx(0.0, abs=1e-12)
    tab = st.geometry_table(geoms, n_boot=0).set_index("region")
    assert tab.loc["near_a", "pct"] == pytest.approx(100.0)


def test_c4_undefined_when_a_equals_b_is_counted_not_zero():
    a = np.array([[1.0, 0], [1.0, 0]])
    b = np.array([[1.0, 0], [0, 1.0]])
    t = np.array([[1.0, 1.0], [1.0, 0]])
    d = sm.criterion_deltas(a, b, t, "difference", measure="cos")
    assert np.isnan(d["d3"][0]) and not np.isnan(d["d3"][1])
    emb = {"m": {"difference": {"a": a, "b": b, "t": t}}}
    tab = st.c4_table(emb, ["cos"], mode="fixed", n_boot=0)
    assert tab.loc[0, "n_nan"] == 1 and tab.loc[0, "n"] == 1


def test_c6_union_cases():
    # sample 1: comparable norms, U between ; sample 2: |A| = 3|B|, U at A ; sample 3: |B| larger, U outside
    a = np.array([[1.0, 0, 0], [3.0, 0, 0], [1.0, 0, 0]])
    b = np.array([[0, 1.0, 0], [0, 1.0, 0], [0, 2.0, 0]])
    u = np.array([[1.0, 1.0, 0], [1.0, 0.01, 1.0], [-1.0, -1.0, 0]])
    emb = {"m": {"union": {"a": a, "b": b, "t": u}}}
    tab = st.union_table(emb, sm.geometry(emb, "union"), n_boot=0).set_index("norm_case")
    assert tab.loc["comparable", "n_case"] == 1 and tab.loc["comparable", "pct_expected"] == pytest.approx(100)
    assert tab.loc["a_larger", "n_case"] == 1 and tab.loc["a_larger", "pct_expected"] == pytest.approx(100)
    assert tab.loc["b_larger", "n_case"] == 1 and tab.loc["b_larger", "pct_expected"] == pytest.approx(0)
    assert M.norm_ratio(a, b)[1] == pytest.approx(3.0)


def test_degenerate_plane_is_counted():
    a = np.array([[1.0, 0], [1.0, 0]])
    b = np.array([[2.0, 0], [0, 1.0]])
    t = np.array([[1.0, 1.0], [1.0, 1.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": t}}}, "overlap")
    tab = st.geometry_table(geoms, n_boot=0)
    assert (tab["n_degenerate"] == 1).all() and (tab["n"] == 1).all()


def test_cells_table_rows_and_ci():
    rng = np.random.default_rng(0)
    emb = {
        m: {"overlap": {"a": rng.normal(size=(40, 8)), "b": rng.normal(size=(40, 8)), "t": rng.normal(size=(40, 8))}}
        for m in ("x", "y")
    }
    tab = st.cells_table(emb, "overlap", ["cos", "ned"], size=11, n_boot=200)
    assert len(tab) == 2 * 2 * 4
    sums = tab.groupby(["model", "measure"])["pct"].sum()
    assert np.allclose(sums, 100.0)
    assert ((tab["low"] <= tab["pct"] + 1e-9) & (tab["pct"] <= tab["high"] + 1e-9)).all()


def test_geometry_samples_per_sample_angles():
    import pandas as pd

    a, b, o = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 1.0, 3.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": o}}}, "overlap")
    tab = st.geometry_samples(geoms, pd.DataFrame({"qid": ["q1"], "variant": ["v"]}))
    row = tab.iloc[0]
    assert (row["angle_ab"], row["angle_ap"], row["angle_bp"]) == pytest.approx((90.0, 45.0, 45.0))
    assert row["t"] == pytest.approx(0.5) and row["bp_ratio"] == pytest.approx(0.5) and not row["degenerate"]
    with pytest.raises(ValueError, match="projections"):
        st.geometry_samples(geoms, pd.DataFrame({"qid": ["q1", "q2"], "variant": ["v", "v"]}))
