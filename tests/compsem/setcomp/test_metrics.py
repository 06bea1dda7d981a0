"""Criteria C1-C6 on hand-made vectors, and the epsilon-grid averaging against its oracle."""

import numpy as np
import pytest

from compsem import measures as M
from compsem.setcomp import metrics as sm

S2 = np.sqrt(2.0)


# ------------------------------------------------------------------ C1 / C2: overlap
def test_c1_overlap_between_a_and_b_cosine():
    a, b, o = np.array([[1.0, 0]]), np.array([[0, 1.0]]), np.array([[1.0, 1.0]]) / S2
    d = sm.criterion_deltas(a, b, o, "overlap", measure="cos")
    # cos(A,O) = cos(B,O) = 1/sqrt2, cos(A,B) = 0
    assert d["d1"][0] == pytest.approx(1 / S2)
    assert d["d2"][0] == pytest.approx(1 / S2)


def test_c1_distance_sign_is_flipped_l2():
    a, b, o = np.array([[1.0, 0]]), np.array([[0, 1.0]]), np.array([[1.0, 1.0]]) / S2
    d = sm.criterion_deltas(a, b, o, "overlap", measure="l2")
    # L2(A,B) = sqrt2 ; L2(A,O) = sqrt((1-1/sqrt2)^2 + 1/2); margin = L2(A,B) - L2(A,O) > 0
    l2_ao = np.sqrt((1 - 1 / S2) ** 2 + 0.5)
    assert d["d1"][0] == pytest.approx(S2 - l2_ao)
    assert d["d1"][0] > 0
    raw = sm.raw_scores(a, b, o, "overlap", measure="l2")
    assert raw["m_ao_minus_m_ab"][0] == pytest.approx(l2_ao - S2)  # paper convention: negative is good


def test_c1_fails_when_overlap_is_far():
    a, b = np.array([[1.0, 0.2]]), np.array([[0.2, 1.0]])
    o = np.array([[-1.0, -1.0]])
    d = sm.criterion_deltas(a, b, o, "overlap", measure="cos")
    assert d["d1"][0] < 0 and d["d2"][0] < 0


# ------------------------------------------------------------------ C3 / C4 / C5: difference
def test_c3_c4_hand_computed():
    a, b, dd = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]), np.array([[1.0, 0, 0.1]])
    d = sm.criterion_deltas(a, b, dd, "difference", measure="cos")
    cos_ad = 1 / np.sqrt(1.01)
    assert d["d1"][0] == pytest.approx(cos_ad - 0.0)  # cos(A,D) - cos(B,D)
    assert d["d2"][0] == pytest.approx(0.0)  # cos(A,B) - cos(B,D)
    # dE = (1,-1,0): cos(dE,D) = 1/(sqrt2 sqrt1.01), cos(dE,B) = -1/sqrt2
    assert d["d3"][0] == pytest.approx(1 / (S2 * np.sqrt(1.01)) + 1 / S2)


# ------------------------------------------------------------------ C6: union and norms
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
    d1[:10] = g1[5]  # ties with grid values: "Δ ≥ ε" is inclusive
    d2[10:20] = g2[0]
    d1[20] = np.nan  # an undefined margin is left out and counted
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


# ------------------------------------------------------------------ error paths
def test_bad_options_raise():
    v = np.ones((2, 3))
    with pytest.raises(ValueError, match="measure"):
        sm.criterion_deltas(v, v, v, "overlap", measure="cosine")
    with pytest.raises(ValueError, match="overlap"):
        sm.criterion_deltas(v, v, v, "union", measure="cos")
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
    d = sm.criterion_deltas(a, b, o, "overlap", measure="cos")
    g = M.plane_geometry(a, b, o, warn=False)
    sel = (d["d1"] >= 0) & (d["d2"] >= 0) & (M.cosine(a, b) >= 0) & ~g.degenerate
    assert sel.sum() > 100
    assert g.between[sel].all()


def test_c4_holds_at_zero_even_for_random_vectors():
    """The book's observation: E_A − E_B contains −E_B, so cos(ΔE, E_B) < 0 ≤≈ cos(ΔE, E_D)."""
    rng = np.random.default_rng(3)
    a, b, d = (rng.normal(size=(500, 256)) for _ in range(3))
    d3 = sm.criterion_deltas(a, b, d, "difference", measure="cos")["d3"]
    assert (d3 > 0).all()
    assert sm.grid_single(d3, [0.0])["pct"] == 100.0


def test_unsigned_paper_ratio_folds_beyond_b_onto_the_segment():
    """Why the chapters plot a signed ratio: just beyond B, ∠(B,P)/∠(A,B) lies in [0, 1]."""
    a, b, v = np.array([[1.0, 0]]), np.array([[0, 1.0]]), np.array([[-0.2, 1.0]])
    g = M.plane_geometry(a, b, v)
    assert 0 < g.bp_ratio[0] < 1  # looks "between" on the paper's axis
    assert g.t[0] > 1 and not g.between[0]  # but lies beyond B
    assert 1 - g.t[0] == pytest.approx(-g.bp_ratio[0])


def test_explicit_eps_range_is_the_same_for_every_model_and_checked():
    deltas = {
        "x": {"d1": np.array([0.0, 1.0]), "d2": np.array([5.0, 6.0])},
        "y": {"d1": np.array([-9.0, 9.0]), "d2": np.zeros(2)},
    }
    g = sm.epsilon_grids(deltas, mode={"d1": [0, 1], "d2": [-1, 1]}, size=3)
    assert g["x"]["d1"].tolist() == [0.0, 0.5, 1.0] and g["y"]["d1"].tolist() == [0.0, 0.5, 1.0]
    assert g["x"]["d2"].tolist() == [-1.0, 0.0, 1.0]
    one = sm.epsilon_grids(deltas, mode=[0, 2], size=3)  # one [lo, hi] for every margin
    assert one["y"]["d2"].tolist() == [0.0, 1.0, 2.0]
    # by hand: Δ1 of x = (0, 1) on grid (0, .5, 1): fractions (1/3, 1); Δ2 = (5, 6) on (-1, 0, 1): (1, 1)
    assert sm.grid_cells(deltas["x"]["d1"], deltas["x"]["d2"], g["x"]["d1"], g["x"]["d2"])["TT"] == pytest.approx(
        100 * (1 / 3 + 1) / 2
    )
    assert sm.eps_label({"d1": [0, 1]}) == "explicit" and sm.eps_label("pooled") == "pooled"
    with pytest.raises(ValueError, match="d2"):
        sm.epsilon_grids(deltas, mode={"d1": [0, 1]})
    with pytest.raises(ValueError, match="lo <= hi"):
        sm.epsilon_grids(deltas, mode=[1, 0])


def test_ned_check_separates_the_three_candidates():
    # two rows with a shared offset (non-negative features): cosine is high, the centred forms are not
    x = np.array([[3.0, 2.0, 3.0, 2.0]])
    y = np.array([[2.0, 3.0, 2.0, 3.0]])
    r = sm.ned_check(x, y)
    cos = 24 / 26  # x·y = 6+6+6+6 = 24, |x|² = |y|² = 26
    assert r["half_one_minus_cos"][0] == pytest.approx((1 - cos) / 2)
    assert r["half_one_minus_pearson"][0] == pytest.approx(1.0)  # centred rows are exact opposites
    # Var(x − y) = Var(1, −1, 1, −1) = 1; Var(x) = Var(y) = 0.25 -> 0.5 · 1 / 0.5 = 1
    assert r["ned"][0] == pytest.approx(1.0)
    u = np.array([[1.0, -1.0, 0.0, 0.0]]) / np.sqrt(2)
    v = np.array([[0.0, 1.0, -1.0, 0.0]]) / np.sqrt(2)  # unit norm, zero mean: all three agree
    r = sm.ned_check(u, v)
    assert r["ned"][0] == pytest.approx(r["half_one_minus_cos"][0]) == pytest.approx(0.75)
