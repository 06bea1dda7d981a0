"""Criteria C1-C6 on hand-made vectors, and the epsilon-grid averaging against its oracle."""

import numpy as np
import pytest

from compsem import measures as M
from compsem.setcomp import metrics as sm

S2 = np.sqrt(2.0)


# ------------------------------------------------------------------ C1 / C2: overlap
def test_c1_overlap_between_a_and_b_cosine():
    a, b, o = np.array([[1.0, 0]]), np.array([[0, 1.0]]), np.array([[1.0, 1.0]]) / S2
    d = sm.criterion_deltas(a, b, o, "overlap", "cos")
    # cos(A,O) = cos(B,O) = 1/sqrt2, cos(A,B) = 0
    assert d["d1"][0] == pytest.approx(1 / S2)
    assert d["d2"][0] == pytest.approx(1 / S2)


def test_c1_distance_sign_is_flipped_l2():
    a, b, o = np.array([[1.0, 0]]), np.array([[0, 1.0]]), np.array([[1.0, 1.0]]) / S2
    d = sm.criterion_deltas(a, b, o, "overlap", "l2")
    # L2(A,B) = sqrt2 ; L2(A,O) = sqrt((1-1/sqrt2)^2 + 1/2); margin = L2(A,B) - L2(A,O) > 0
    l2_ao = np.sqrt((1 - 1 / S2) ** 2 + 0.5)
    assert d["d1"][0] == pytest.approx(S2 - l2_ao)
    assert d["d1"][0] > 0
    raw = sm.raw_scores(a, b, o, "overlap", "l2")
    assert raw["m_ao_minus_m_ab"][0] == pytest.approx(l2_ao - S2)  # paper convention: negative is good


def test_c1_fails_when_overlap_is_far():
    a, b = np.array([[1.0, 0.2]]), np.array([[0.2, 1.0]])
    o = np.array([[-1.0, -1.0]])
    d = sm.criterion_deltas(a, b, o, "overlap", "cos")
    assert d["d1"][0] < 0 and d["d2"][0] < 0


def test_c2_overlap_exactly_between_gives_t_half():
    a, b, o = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 1.0, 3.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": o}}}, "overlap")
    g = geoms["m"]
    assert g.t[0] == pytest.approx(0.5)
    assert bool(g.between[0])
    tab = sm.geometry_table(geoms, n_boot=0)
    assert tab.set_index("region").loc["between", "pct"] == pytest.approx(100.0)
    assert tab.set_index("region").loc["near_a", "pct"] == pytest.approx(0.0)


# ------------------------------------------------------------------ C3 / C4 / C5: difference
def test_c3_c4_hand_computed():
    a, b, dd = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 0, 0.1]])
    d = sm.criterion_deltas(a, b, dd, "difference", "cos")
    cos_ad = 1 / np.sqrt(1.01)
    assert d["d1"][0] == pytest.approx(cos_ad - 0.0)       # cos(A,D) - cos(B,D)
    assert d["d2"][0] == pytest.approx(0.0)                # cos(A,B) - cos(B,D)
    # dE = (1,-1,0): cos(dE,D) = 1/(sqrt2 sqrt1.01), cos(dE,B) = -1/sqrt2
    assert d["d3"][0] == pytest.approx(1 / (S2 * np.sqrt(1.01)) + 1 / S2)


def test_c5_difference_projects_onto_a():
    a, b, dd = np.array([[1.0, 0, 0]]), np.array([[0.6, 0.8, 0]]), np.array([[2.0, 0, 5.0]])
    geoms = sm.geometry({"m": {"difference": {"a": a, "b": b, "t": dd}}}, "difference")
    assert geoms["m"].t[0] == pytest.approx(0.0, abs=1e-12)
    tab = sm.geometry_table(geoms, n_boot=0).set_index("region")
    assert tab.loc["near_a", "pct"] == pytest.approx(100.0)


def test_c4_undefined_when_a_equals_b_is_counted_not_zero():
    a = np.array([[1.0, 0], [1.0, 0]])
    b = np.array([[1.0, 0], [0, 1.0]])
    t = np.array([[1.0, 1.0], [1.0, 0]])
    d = sm.criterion_deltas(a, b, t, "difference", "cos")
    assert np.isnan(d["d3"][0]) and not np.isnan(d["d3"][1])
    emb = {"m": {"difference": {"a": a, "b": b, "t": t}}}
    tab = sm.c4_table(emb, ["cos"], mode="fixed", n_boot=0)
    assert tab.loc[0, "n_nan"] == 1 and tab.loc[0, "n"] == 1


# ------------------------------------------------------------------ C6: union and norms
def test_c6_union_cases():
    # sample 1: comparable norms, U between ; sample 2: |A| = 3|B|, U at A ; sample 3: |B| larger, U outside
    a = np.array([[1.0, 0, 0], [3.0, 0, 0], [1.0, 0, 0]])
    b = np.array([[0, 1.0, 0], [0, 1.0, 0], [0, 2.0, 0]])
    u = np.array([[1.0, 1.0, 0], [1.0, 0.01, 1.0], [-1.0, -1.0, 0]])
    emb = {"m": {"union": {"a": a, "b": b, "t": u}}}
    tab = sm.union_table(emb, sm.geometry(emb, "union"), n_boot=0).set_index("norm_case")
    assert tab.loc["comparable", "n_case"] == 1 and tab.loc["comparable", "pct_expected"] == pytest.approx(100)
    assert tab.loc["a_larger", "n_case"] == 1 and tab.loc["a_larger", "pct_expected"] == pytest.approx(100)
    assert tab.loc["b_larger", "n_case"] == 1 and tab.loc["b_larger", "pct_expected"] == pytest.approx(0)
    assert M.norm_ratio(a, b)[1] == pytest.approx(3.0)


def test_degenerate_plane_is_counted():
    a = np.array([[1.0, 0], [1.0, 0]])
    b = np.array([[2.0, 0], [0, 1.0]])
    t = np.array([[1.0, 1.0], [1.0, 1.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": t}}}, "overlap")
    tab = sm.geometry_table(geoms, n_boot=0)
    assert (tab["n_degenerate"] == 1).all() and (tab["n"] == 1).all()


# ------------------------------------------------------------------ epsilon grid
def test_grid_cells_hand_example():
    d1, d2 = np.array([0.5, -1.0]), np.array([0.2, 0.3])
    g1, g2 = np.array([0.0, 1.0]), np.array([0.0, 0.25])
    # G1 = [1/2, 0], G2 = [1/2, 1]
    res = sm.grid_cells(d1, d2, g1, g2)
    assert res["TT"] == pytest.approx(12.5)
    assert res["TF"] == pytest.approx(12.5)
    assert res["FT"] == pytest.approx(62.5)
    assert res["FF"] == pytest.approx(12.5)
    naive = sm.grid_cells_naive(d1, d2, g1, g2)
    for c in sm.CELLS:
        assert naive[c] == pytest.approx(res[c])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_cells_match_naive_loop(seed):
    rng = np.random.default_rng(seed)
    n = 300
    d1, d2 = rng.normal(size=n), rng.normal(0.2, 0.5, size=n)
    g1 = np.linspace(d1.min(), d1.max(), 37)
    g2 = np.linspace(-1.5, 1.0, 23)
    d1[:10] = g1[5]            # ties with grid values: "Δ ≥ ε" is inclusive
    d2[10:20] = g2[0]
    d1[20] = np.nan            # an undefined margin is left out and counted
    fast, naive = sm.grid_cells(d1, d2, g1, g2), sm.grid_cells_naive(d1, d2, g1, g2)
    for c in sm.CELLS:
        assert fast[c] == pytest.approx(naive[c], abs=1e-9)
    assert fast["n_nan"] == naive["n_nan"] == 1
    assert sum(fast[c] for c in sm.CELLS) == pytest.approx(100.0)
    single = sm.grid_single(d2, g2)
    assert single["pct"] == pytest.approx(sm.grid_single_naive(d2, g2))


def test_fixed_mode_is_share_at_zero():
    d = {"m": {"d1": np.array([0.1, -0.1, 0.0, 0.3]), "d2": np.array([1.0, 1.0, -1.0, -1.0])}}
    grids = sm.epsilon_grids(d, mode="fixed")
    res = sm.grid_cells(d["m"]["d1"], d["m"]["d2"], grids["m"]["d1"], grids["m"]["d2"])
    # d1>=0: [T, F, T, T] ; d2>=0: [T, T, F, F]
    assert (res["TT"], res["TF"], res["FT"], res["FF"]) == (25.0, 50.0, 25.0, 0.0)


def test_pooled_range_depends_on_other_models_per_model_does_not():
    x = {"d1": np.array([0.0, 1.0]), "d2": np.array([0.0, 1.0])}
    wide = {"d1": np.array([-10.0, 10.0]), "d2": np.array([-10.0, 10.0])}
    alone = sm.epsilon_grids({"x": x}, mode="pooled", size=5)["x"]["d1"]
    pooled = sm.epsilon_grids({"x": x, "w": wide}, mode="pooled", size=5)["x"]["d1"]
    per = sm.epsilon_grids({"x": x, "w": wide}, mode="per-model", size=5)["x"]["d1"]
    assert np.allclose(alone, np.linspace(0, 1, 5))
    assert np.allclose(pooled, np.linspace(-10, 10, 5))
    assert np.allclose(per, alone)


def test_cells_table_rows_and_ci():
    rng = np.random.default_rng(0)
    emb = {m: {"overlap": {"a": rng.normal(size=(40, 8)), "b": rng.normal(size=(40, 8)),
                           "t": rng.normal(size=(40, 8))}} for m in ("x", "y")}
    tab = sm.cells_table(emb, "overlap", ["cos", "ned"], size=11, n_boot=200)
    assert len(tab) == 2 * 2 * 4
    sums = tab.groupby(["model", "measure"])["pct"].sum()
    assert np.allclose(sums, 100.0)
    assert ((tab["low"] <= tab["pct"] + 1e-9) & (tab["pct"] <= tab["high"] + 1e-9)).all()


# ------------------------------------------------------------------ error paths
def test_bad_options_raise():
    v = np.ones((2, 3))
    with pytest.raises(ValueError, match="measure"):
        sm.criterion_deltas(v, v, v, "overlap", "cosine")
    with pytest.raises(ValueError, match="overlap"):
        sm.criterion_deltas(v, v, v, "union", "cos")
    with pytest.raises(ValueError, match="epsilon mode"):
        sm.epsilon_grids({"m": {"d1": np.zeros(2)}}, mode="global")
    with pytest.raises(ValueError, match="empty"):
        sm.grid_fraction(np.zeros(2), [])
    with pytest.raises(ValueError, match="NaN"):
        sm.grid_fraction(np.zeros(2), [0.0, np.nan])


def test_c1_at_zero_with_nonnegative_cos_ab_implies_c2():
    """The book's claim: with cosine and cos(A,B) >= 0, meeting both C1 conditions at ε = 0 puts
    the projection of O between A and B."""
    rng = np.random.default_rng(7)
    n = 4000
    a = rng.normal(size=(n, 5))
    b = a + rng.normal(scale=1.5, size=(n, 5))
    o = rng.normal(size=(n, 5)) + 0.5 * (a + b)
    d = sm.criterion_deltas(a, b, o, "overlap", "cos")
    g = M.plane_geometry(a, b, o, warn=False)
    sel = (d["d1"] >= 0) & (d["d2"] >= 0) & (M.cosine(a, b) >= 0) & ~g.degenerate
    assert sel.sum() > 100
    assert g.between[sel].all()


def test_report_tables_put_paper_rows_beside_ours():
    import pandas as pd

    from compsem.setcomp import reference, report

    rng = np.random.default_rng(0)
    emb = {m: {"overlap": {k: rng.normal(size=(30, 6)) for k in ("a", "b", "t")}} for m in ("sbert-mini", "bow")}
    cells = sm.cells_table(emb, "overlap", ["cos"], size=9, n_boot=50)
    tab = report.cells_beside_paper(cells, reference("c1_cells"), "cos")
    paper = tab[tab["model"] == "sbert-mini"]
    assert len(paper) == 2 and paper.iloc[1]["TT"] == 28.96          # Table 1, SBERT-mini, (T,T)
    assert tab.iloc[-1]["model"] == "(16 encoders)"
    raw = sm.raw_scores_table(emb, "overlap", ["ned"])
    rt = report.raw_beside_paper(raw, reference("overlap_deltas"), {"d1": ("m_ao_minus_m_ab", "d1_mean", "d1_std")})
    assert rt[rt["source"].str.startswith("paper")]["d1"].tolist() == ["-0.0239 ± 0.0635"]   # Table 12(c)
    assert report.fmt_ci(1.234, 1.0, 1.5) == "1.2 [1.0, 1.5]" and report.fmt_ci(np.nan, 0, 1) == "n/a"
    assert isinstance(tab, pd.DataFrame)


def test_geometry_samples_per_sample_angles():
    import pandas as pd

    a, b, o = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 1.0, 3.0]])
    geoms = sm.geometry({"m": {"overlap": {"a": a, "b": b, "t": o}}}, "overlap")
    tab = sm.geometry_samples(geoms, pd.DataFrame({"qid": ["q1"], "variant": ["v"]}))
    row = tab.iloc[0]
    assert (row["angle_ab"], row["angle_ap"], row["angle_bp"]) == pytest.approx((90.0, 45.0, 45.0))
    assert row["t"] == pytest.approx(0.5) and row["bp_ratio"] == pytest.approx(0.5) and not row["degenerate"]
    with pytest.raises(ValueError, match="projections"):
        sm.geometry_samples(geoms, pd.DataFrame({"qid": ["q1", "q2"], "variant": ["v", "v"]}))


def test_c4_holds_at_zero_even_for_random_vectors():
    """The book's observation: E_A − E_B contains −E_B, so cos(ΔE, E_B) < 0 ≤≈ cos(ΔE, E_D)."""
    rng = np.random.default_rng(3)
    a, b, d = (rng.normal(size=(500, 256)) for _ in range(3))
    d3 = sm.criterion_deltas(a, b, d, "difference", "cos")["d3"]
    assert (d3 > 0).all()
    assert sm.grid_single(d3, [0.0])["pct"] == 100.0


def test_unsigned_paper_ratio_folds_beyond_b_onto_the_segment():
    """Why the chapters plot a signed ratio: just beyond B, ∠(B,P)/∠(A,B) lies in [0, 1]."""
    a, b, v = np.array([[1.0, 0]]), np.array([[0, 1.0]]), np.array([[-0.2, 1.0]])
    g = M.plane_geometry(a, b, v)
    assert 0 < g.bp_ratio[0] < 1                    # looks "between" on the paper's axis
    assert g.t[0] > 1 and not g.between[0]          # but lies beyond B
    assert 1 - g.t[0] == pytest.approx(-g.bp_ratio[0])
