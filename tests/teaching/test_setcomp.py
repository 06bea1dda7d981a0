"""Every number of Part I's hand-worked example and exercises, recomputed with ``compsem``.

The pages ``book/part1_setcomp_worked.md`` and ``book/part1_setcomp_exercises.md`` print these
numbers; each check recomputes one with the library, rounds it to the decimals printed on the
page and asserts that the printed text is on the page. If the library or the page changes,
this file fails.
"""

from pathlib import Path

import numpy as np
import pytest

from compsem import measures as M
from compsem.setcomp import metrics as sm
from compsem.setcomp import tables as st
from tests.helpers import ROOT, graded, shown


WORKED = (ROOT / "book" / "part1_setcomp_worked.md").read_text(encoding="utf-8")
EXERCISES = (ROOT / "book" / "part1_setcomp_exercises.md").read_text(encoding="utf-8")

A = np.array([1.0, 1.0, 0.0])
B = np.array([0.0, 1.0, 1.0])
O = np.array([0.0, 1.0, 0.0])
D = np.array([1.0, 0.0, 0.0])
U = np.array([1.0, 1.0, 1.0])


def scalar(x) -> float:
    return float(np.asarray(x, dtype=np.float64).ravel()[0])


def deg(x) -> float:
    return float(np.degrees(scalar(x)))


# ------------------------------------------------------------------ step 1: cosines
def test_cosines():
    shown(WORKED, M.cosine(A, B), "0.5000")
    shown(WORKED, M.cosine(A, O), "0.7071")
    shown(WORKED, M.cosine(B, O), "0.7071")
    shown(WORKED, M.cosine(A, D), "0.7071")
    assert scalar(M.cosine(B, D)) == 0.0
    assert np.linalg.norm(A) == pytest.approx(np.sqrt(2)) and np.linalg.norm(O) == 1.0


# ------------------------------------------------------------------ step 2: margins
def test_c1_margins():
    d = sm.criterion_deltas(A, B, O, "overlap", measure="cos")
    shown(WORKED, d["d1"], "0.2071")
    shown(WORKED, d["d2"], "0.2071")
    assert d["d1"][0] > 0 and d["d2"][0] > 0  # C1 holds at ε = 0


def test_c3_c4_margins():
    d = sm.criterion_deltas(A, B, D, "difference", measure="cos")
    shown(WORKED, d["d1"], "0.7071")
    assert d["d2"][0] == pytest.approx(0.5)
    shown(WORKED, d["d3"], "1.2071")
    de = A - B
    assert np.allclose(de, [1, 0, -1]) and np.linalg.norm(de) == pytest.approx(np.sqrt(2))
    shown(WORKED, M.cosine(de, D), "0.7071")
    assert scalar(M.cosine(de, B)) == pytest.approx(-0.5)
    assert "-0.5" in WORKED


# ------------------------------------------------------------------ step 3: projection
def test_plane_of_a_and_b():
    g = M.plane_geometry(A, B, O)
    assert deg(g.angle_ab) == pytest.approx(60.0)
    # E_A and E_B in the in-plane basis (b1 along A, b2 towards B)
    ga = M.plane_geometry(A, B, A)
    gb = M.plane_geometry(A, B, B)
    shown(WORKED, ga.x, "1.4142")
    assert scalar(ga.y) == pytest.approx(0.0, abs=1e-12)
    shown(WORKED, gb.x, "0.7071")
    shown(WORKED, gb.y, "1.2247")
    assert scalar(ga.t) == pytest.approx(0.0, abs=1e-12) and scalar(gb.t) == pytest.approx(1.0)


# target, x, y, angle(A,P) in degrees, angle(B,P), t, angle(B,P)/angle(A,B), residual
TABLE = [
    ("O", O, "0.7071", "0.4082", 30, 30, 0.5, 0.5, "0.5774"),
    ("D", D, "0.7071", "−0.4082", 30, 90, -0.5, 1.5, "0.5774"),
    ("U", U, "1.4142", "0.8165", 30, 30, 0.5, 0.5, "0.3333"),
]


@pytest.mark.parametrize("name, v, x, y, ap, bp, t, ratio, residual", TABLE, ids=[r[0] for r in TABLE])
def test_projection_table(name, v, x, y, ap, bp, t, ratio, residual):
    g = M.plane_geometry(A, B, v)
    shown(WORKED, g.x, x)
    shown(WORKED, g.y, y)
    assert deg(g.angle_ap) == pytest.approx(ap)
    assert deg(g.angle_bp) == pytest.approx(bp)
    assert scalar(g.t) == pytest.approx(t)
    assert scalar(g.bp_ratio) == pytest.approx(ratio)
    assert 1 - scalar(g.t) == pytest.approx(ratio)  # the chapters' histogram axis, 1 - t
    shown(WORKED, g.residual, residual)
    row = f"| ${name}$ | {x} | {y} | {ap}° | {bp}° | {t:g} | {ratio:g} | {residual} |".replace("-0.5 ", "−0.5 ")
    assert row in WORKED, row


def test_projected_points():
    """P_O = (1/3, 2/3, 1/3) = (E_A + E_B)/3, P_D = (2E_A - E_B)/3, P_U = 2(E_A + E_B)/3."""
    for v, expected in ((O, (A + B) / 3), (D, (2 * A - B) / 3), (U, 2 * (A + B) / 3)):
        g = M.plane_geometry(A, B, v)
        b1 = A / np.linalg.norm(A)
        w = B - (B @ b1) * b1
        b2 = w / np.linalg.norm(w)
        assert np.allclose(b2, np.array([-1, 1, 2]) / np.sqrt(6))
        assert np.allclose(scalar(g.x) * b1 + scalar(g.y) * b2, expected)


def test_verdicts_c2_c5_c6():
    assert M.plane_geometry(A, B, O).between[0]  # C2 holds
    gd = M.plane_geometry(A, B, D)
    assert abs(scalar(gd.t)) > 0.25  # not "near A" (|t| <= 0.25)
    assert "|t| \\le 0.25" in WORKED
    assert scalar(M.norm_ratio(A, B)) == pytest.approx(1.0)  # comparable norms
    emb = {"fact": {"union": {"a": A[None], "b": B[None], "t": U[None]}}}
    geoms = sm.geometry(emb, "union")
    tab = st.union_table(emb, geoms, n_boot=0).set_index("norm_case")
    assert tab.loc["comparable", "n_case"] == 1
    assert tab.loc["comparable", "pct_expected"] == pytest.approx(100.0)  # C6 holds


# ------------------------------------------------------------------ step 4: ε grid
def test_grid_average():
    d = sm.criterion_deltas(A, B, O, "overlap", measure="cos")
    grid = np.array([0.0, 0.1, 0.2, 0.3])
    assert sm.grid_fraction(d["d1"], grid)[0] == pytest.approx(3 / 4)
    for cells in (sm.grid_cells(d["d1"], d["d2"], grid, grid), sm.grid_cells_naive(d["d1"], d["d2"], grid, grid)):
        for cell, printed in (("TT", "56.25"), ("TF", "18.75"), ("FT", "18.75"), ("FF", "6.25")):
            shown(WORKED, cells[cell], printed)


# ------------------------------------------------------------------ exercises
def test_exercise_1_ned():
    assert np.var(A) == pytest.approx(2 / 9) and np.var(B) == pytest.approx(2 / 9) and np.var(O) == pytest.approx(2 / 9)
    shown(EXERCISES, M.ned(A, B), "0.75")
    shown(EXERCISES, M.ned(A, O), "0.25")
    d = sm.criterion_deltas(A, B, O, "overlap", measure="ned")
    shown(EXERCISES, d["d1"], "0.5")
    assert d["d2"][0] == pytest.approx(0.5)
    shown(EXERCISES, (1 - M.cosine(A, O)) / 2, "0.1464")
    shown(EXERCISES, sm.criterion_deltas(A, B, O, "overlap", measure="cos")["d1"], "0.2071")


def test_exercise_2_long_b():
    b2 = 2 * B
    assert scalar(M.cosine(A, b2)) == pytest.approx(0.5)
    g = M.plane_geometry(A, b2, U)
    assert deg(g.angle_ab) == pytest.approx(60.0)
    assert scalar(g.t) == pytest.approx(0.5)
    shown(EXERCISES, M.norm_ratio(A, b2), "0.5")
    emb = {"fact": {"union": {"a": A[None], "b": b2[None], "t": U[None]}}}
    tab = st.union_table(emb, sm.geometry(emb, "union"), comparable=0.1, near=0.25, n_boot=0).set_index("norm_case")
    assert tab.loc["b_larger", "n_case"] == 1
    assert tab.loc["b_larger", "pct_expected"] == pytest.approx(0.0)  # fails C6


def test_exercise_3_residual():
    shown(EXERCISES, M.plane_geometry(A, B, O).residual, "0.5774")


def test_exercise_3_c1_at_zero_implies_c2_for_the_cosine():
    """The solution's argument, checked on many random triples: with cos(A, B) >= 0, meeting both
    C1 conditions at ε = 0 (cosine margins >= 0) puts the projection between the inputs."""
    rng = np.random.default_rng(0)
    n_c1 = 0
    for _ in range(3000):
        a, b, o = rng.normal(size=(3, 5)) + np.array([0.8, 0, 0, 0, 0])  # often positively correlated
        if scalar(M.cosine(a, b)) < 0:
            continue
        d = sm.criterion_deltas(a, b, o, "overlap", measure="cos")
        if scalar(d["d1"]) >= 0 and scalar(d["d2"]) >= 0:
            n_c1 += 1
            assert M.plane_geometry(a, b, o).between[0]
    assert n_c1 > 50  # the check saw enough samples meeting C1
    assert "C2 then adds no evidence of its own" in " ".join(EXERCISES.split())


def _emb(rng, n, scale=1.0):
    a, b, t = (scale * rng.normal(size=(n, 8)) for _ in range(3))
    return {"overlap": {"a": a, "b": b, "t": (a + b) / 2 + 0.5 * t}}


def test_exercise_4_which_reading_depends_on_the_company():
    """Ex 2.4's solution: per-model and ε = 0 readings of a model do not change when another model
    joins the run (interval included); the pooled reading does when the newcomer's margins reach
    further; a newcomer whose margins lie inside the model's own range leaves it unchanged."""
    rng = np.random.default_rng(1)
    alone = {"sbert": _emb(rng, 60)}
    wide = {**alone, "other": _emb(rng, 60, scale=3.0)}
    wide["other"]["overlap"]["t"] = rng.normal(size=(60, 8)) * 3  # margins far wider than sbert's
    narrow = {**alone, "other": {"overlap": {k: v for k, v in alone["sbert"]["overlap"].items()}}}

    def row(emb, mode):
        t = st.cells_table(emb, "overlap", ("cos",), mode=mode, size=11, n_boot=200, seed=0)
        return t[(t.model == "sbert") & (t.cell == "TT")][["pct", "low", "high"]].to_numpy()

    for mode in ("per-model", "fixed"):
        np.testing.assert_array_equal(row(alone, mode), row(wide, mode))
    assert not np.allclose(row(alone, "pooled")[0, 0], row(wide, "pooled")[0, 0])
    np.testing.assert_array_equal(row(alone, "pooled"), row(narrow, "pooled"))  # same range: no change
    sol = EXERCISES[EXERCISES.index("{solution} ex-setcomp-4") : EXERCISES.index("{exercise} Rerun: how strict")]
    assert "same seed, so even the interval is the same" in sol and "*outside*" in sol


# ------------------------------------------------------------------ the assignment's answers
def test_autograded_answers_are_the_librarys():
    """The answers `make assignments` grades Exercises 1 and 2 against, recomputed as above."""
    b2 = 2 * B
    emb = {"fact": {"union": {"a": A[None], "b": b2[None], "t": U[None]}}}
    tab = st.union_table(emb, sm.geometry(emb, "union"), comparable=0.1, near=0.25, n_boot=0).set_index("norm_case")
    ned = sm.criterion_deltas(A, B, O, "overlap", measure="ned")
    graded(
        EXERCISES,
        "ex-setcomp-1",
        {
            "ned_ab": M.ned(A, B),
            "ned_ao": M.ned(A, O),
            "delta_1": ned["d1"],
            "c1_holds": bool(ned["d1"][0] >= 0 and ned["d2"][0] >= 0),
            "approx_ao": (1 - M.cosine(A, O)) / 2,
        },
    )
    graded(
        EXERCISES,
        "ex-setcomp-2",
        {
            "cos_ab2": M.cosine(A, b2),
            "t_union": M.plane_geometry(A, b2, U).t,
            "norm_ratio": M.norm_ratio(A, b2),
            "c6_holds": bool(tab.loc["b_larger", "pct_expected"] == 100.0),
        },
    )
