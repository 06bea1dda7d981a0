"""Part I tables: cell percentages, C4, geometry and union tables with intervals."""

import numpy as np
import pandas as pd
import pytest

from compsem import measures as M
from compsem.errors import CompsemError
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


def test_cells_table_holds_the_paired_tt_minus_ff_on_the_tt_row():
    rng = np.random.default_rng(1)
    emb = {"x": {"overlap": {k: rng.normal(size=(30, 6)) for k in ("a", "b", "t")}}}
    groups = np.repeat(np.arange(10), 3)
    tab = st.cells_table(emb, "overlap", ["cos"], size=7, n_boot=200, groups=groups).set_index("cell")
    # no NaN sample here: the mean of the per-sample TT − FF is the TT share minus the FF share
    assert tab.loc["TT", "tt_minus_ff"] == pytest.approx(tab.loc["TT", "pct"] - tab.loc["FF", "pct"])
    assert tab.loc["TT", "tt_minus_ff_low"] <= tab.loc["TT", "tt_minus_ff"] <= tab.loc["TT", "tt_minus_ff_high"]
    assert tab.drop(index="TT")[["tt_minus_ff", "tt_minus_ff_low", "tt_minus_ff_high"]].isna().all().all()


def test_geometry_table_pairs_a_model_with_its_control_on_the_same_samples():
    # A = x, B = y; a target (1, 1, 3) projects midway (t = 0.5, between), (-1, 1, 0) at 135° from A (t = 1.5)
    a, b = np.tile([1.0, 0, 0], (3, 1)), np.tile([0, 1.0, 0], (3, 1))
    inside, outside = [1.0, 1.0, 3.0], [-1.0, 1.0, 0]
    model = np.array([inside, inside, outside])  # between on samples 1, 2
    control = np.array([outside, inside, outside])  # between on sample 2 only
    emb = {"m": {"overlap": {"a": a, "b": b, "t": model}}, "c": {"overlap": {"a": a, "b": b, "t": control}}}
    geoms = sm.geometry(emb, "overlap")
    tab = st.geometry_table(geoms, n_boot=0, paired={"m": "c"}).set_index(["model", "region"])
    # per sample m − c in "between": 1, 0, 0 -> 33.3 points; in "outside": -1, 0, 0 -> -33.3
    assert tab.loc[("m", "between"), "minus_control"] == pytest.approx(100 / 3)
    assert tab.loc[("m", "outside"), "minus_control"] == pytest.approx(-100 / 3)
    assert tab.loc[("m", "between"), "control"] == "c" and tab.loc[("c", "between"), "control"] == ""
    assert np.isnan(tab.loc[("c", "between"), "minus_control"])
    # resampling the quintuples q1 = samples 1, 2 (mean 0.5) and q2 = sample 3 (0): replicates 50, 33.3 or 0
    # points, each end drawn with P = 1/4 > 2.5 %, so the interval is [0, 50]
    tab = st.geometry_table(geoms, n_boot=400, paired={"m": "c"}, groups=["q1", "q1", "q2"])
    row = tab.set_index(["model", "region"]).loc[("m", "between")]
    assert (row["minus_control_low"], row["minus_control_high"]) == (pytest.approx(0.0), pytest.approx(50.0))
    # contradicting data: the control between where the model is: the difference flips sign
    flipped = st.geometry_table(sm.geometry({"m": emb["c"], "c": emb["m"]}, "overlap"), n_boot=0, paired={"m": "c"})
    assert flipped.set_index(["model", "region"]).loc[("m", "between"), "minus_control"] == pytest.approx(-100 / 3)
    with pytest.raises(CompsemError, match="not both in geoms"):
        st.geometry_table(geoms, n_boot=0, paired={"m": "zz"})


def test_geometry_samples_per_sample_angles():

    a, b, o = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 1.0, 3.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": o}}}, "overlap")
    tab = st.geometry_samples(geoms, pd.DataFrame({"qid": ["q1"], "variant": ["v"]}))
    row = tab.iloc[0]
    assert (row["angle_ab"], row["angle_ap"], row["angle_bp"]) == pytest.approx((90.0, 45.0, 45.0))
    assert row["t"] == pytest.approx(0.5) and row["bp_ratio"] == pytest.approx(0.5) and not row["degenerate"]
    with pytest.raises(ValueError, match="projections"):
        st.geometry_samples(geoms, pd.DataFrame({"qid": ["q1", "q2"], "variant": ["v", "v"]}))


def test_paired_leads_report_the_comparison_that_decides():
    n = 20
    a = np.full(n, 0.8)
    b = np.full(n, 0.3)  # a − b = 50 points on every sample
    c = np.full(n, 0.7)  # a − c = 10 points on every sample
    leads = st.paired_leads({"a": a, "b": b, "c": c, "bow": np.ones(n)}, n_boot=200)
    # every lead of a above zero: the row is the comparison whose interval reaches lowest (c: 10 [10, 10])
    assert leads["a"] == pytest.approx((10.0, 10.0, 10.0, "c"))
    # c lies below a (−10) and above b (+40): a lead at or below zero decides, the smallest one
    assert leads["c"][3] == "a" and leads["c"][0] == pytest.approx(-10.0)
    assert "bow" not in leads  # a control is neither ranked nor compared with
    # contradicting data: a − b now 30 points on average but varying (−40 or +100), a − c still 10 [10, 10]:
    # the varying comparison's interval reaches lower (its lower edge near 0), so it decides
    b = np.tile([1.2, -0.2], n // 2)
    lead, low, high, over = st.paired_leads({"a": a, "b": b, "c": c}, n_boot=500)["a"]
    assert over == "b" and lead == pytest.approx(30.0) and low < 10.0 < high
    # one model alone has nothing to lead
    lone = st.paired_leads({"a": a, "bow": b}, n_boot=10)["a"]
    assert np.isnan(lone[0]) and lone[3] == ""


def test_with_leads_fills_only_the_matching_rows():
    tab = pd.DataFrame({"model": ["a", "a", "c"], "cell": ["TT", "FF", "TT"]})
    got = st.with_leads(tab, {"a": (10.0, 8.0, 12.0, "c")}, cell="TT")
    assert got.loc[0, "lead"] == 10.0 and got.loc[0, "lead_over"] == "c"
    assert np.isnan(got.loc[1, "lead"]) and np.isnan(got.loc[2, "lead"]) and got.loc[2, "lead_over"] == ""
