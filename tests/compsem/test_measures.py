"""Measures and plane geometry against values worked out by hand."""

import math

import numpy as np
import pytest

from compsem import measures as M
from compsem.measures import DegenerateGeometryWarning


def test_hand_values_two_dims():
    x, y = np.array([1.0, 0.0]), np.array([1.0, 1.0])
    assert M.cosine(x, y) == pytest.approx(1 / math.sqrt(2))
    assert M.dot(x, y) == pytest.approx(1.0)
    assert M.l1(x, y) == pytest.approx(1.0)
    assert M.l2(x, y) == pytest.approx(1.0)
    # Var(x) = 0.25, Var(y) = 0, x - y = (0, -1) with Var 0.25 -> 0.5 * 0.25 / 0.25
    assert M.ned(x, y) == pytest.approx(0.5)


def test_ned_identities():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 32))
    Y = rng.standard_normal((50, 32))
    assert np.allclose(M.ned(X, X), 0.0)
    assert np.allclose(M.ned(X, Y), M.ned(Y, X))
    assert np.all((M.ned(X, Y) >= 0) & (M.ned(X, Y) <= 1))
    # unit norm and exactly zero mean: NED = (1 - cos) / 2 exactly
    Xc = X - X.mean(axis=1, keepdims=True)
    Yc = Y - Y.mean(axis=1, keepdims=True)
    Xc /= np.linalg.norm(Xc, axis=1, keepdims=True)
    Yc /= np.linalg.norm(Yc, axis=1, keepdims=True)
    assert np.allclose(M.ned(Xc, Yc), (1 - M.cosine(Xc, Yc)) / 2)
    assert np.allclose(M.ned(Xc, -Xc), 1.0)
    # NED ignores a common offset and a common positive scale of both vectors
    assert np.allclose(M.ned(3 * X + 2, 3 * Y + 2), M.ned(X, Y))


def test_row_wise_broadcast_and_loop_agree():
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((7, 5)), rng.standard_normal((7, 5))
    for name in M.MEASURES:
        vec = M.measure(X, Y, name)
        loop = [M.measure(X[i], Y[i], name) for i in range(7)]
        assert np.allclose(vec, loop)
    # (d,) against (n, d) broadcasts
    assert np.allclose(M.cosine(X[0], Y), [M.cosine(X[0], y) for y in Y])


def test_similarity_flips_distances():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.0, 2.0, 5.0])
    for name in ("ned", "l1", "l2"):
        assert M.similarity(x, y, name) == pytest.approx(-M.measure(x, y, name))
    for name in ("cos", "dot"):
        assert M.similarity(x, y, name) == pytest.approx(M.measure(x, y, name))
    with pytest.raises(ValueError, match="unknown measure 'jaccard'.*cos, dot, ned, l1, l2"):
        M.similarity(x, y, "jaccard")


def test_zero_vectors_are_nan_and_counted():
    X = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    Y = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    with pytest.warns(DegenerateGeometryWarning, match="2 of 3"):
        c = M.cosine(X, Y)
    assert c[0] == pytest.approx(1 / math.sqrt(2)) and np.isnan(c[1:]).all()
    with pytest.warns(DegenerateGeometryWarning, match="1 of 3"):
        n = M.ned(X, Y)  # only the all-zero pair has Var(x) + Var(y) = 0
    assert np.isnan(n[2]) and not np.isnan(n[:2]).any()
    with pytest.warns(DegenerateGeometryWarning):
        assert np.isnan(M.angle(X[1], Y[1]))


def test_dimension_mismatch_is_clear():
    with pytest.raises(ValueError, match="dimension mismatch"):
        M.cosine(np.ones(3), np.ones(4))


def test_angle_is_accurate_for_tiny_angles():
    x, y = np.array([1.0, 0.0]), np.array([1.0, 1e-9])
    assert M.angle(x, y) == pytest.approx(1e-9, rel=1e-6)
    assert M.angle(x, np.array([0.0, 2.0])) == pytest.approx(math.pi / 2)
    assert M.angle(x, -x) == pytest.approx(math.pi)


def test_cosine_matrix_matches_pairwise():
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((4, 6)), rng.standard_normal((3, 6))
    S = M.cosine_matrix(X, Y)
    assert S.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            assert S[i, j] == pytest.approx(X[i] @ Y[j] / np.linalg.norm(X[i]) / np.linalg.norm(Y[j]))
    assert np.allclose(np.diag(M.cosine_matrix(X)), 1.0)
    assert np.allclose(M.cosine_distance_matrix(X, Y), 1 - S)


def test_plane_geometry_hand_cases():
    a, b = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    g = M.plane_geometry(a, b, np.array([1.0, 1.0, 5.0]))
    assert g.angle_ab[0] == pytest.approx(math.pi / 2)
    assert g.angle_ap[0] == pytest.approx(math.pi / 4)
    assert g.angle_bp[0] == pytest.approx(math.pi / 4)
    assert g.t[0] == pytest.approx(0.5)
    assert g.bp_ratio[0] == pytest.approx(0.5)
    assert (g.x[0], g.y[0]) == pytest.approx((1.0, 1.0))
    assert g.residual[0] == pytest.approx(5 / math.sqrt(27))
    # outside on A's side (negative t), beyond B (t > 1), exactly at A and at B
    V = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 1.0]])
    g = M.plane_geometry(a, b, V)
    assert g.t == pytest.approx([-0.5, 1.5, 0.0, 1.0])
    assert list(g.between) == [False, False, True, True]
    assert g.bp_ratio[2] == pytest.approx(1.0)  # at A: angle(B, P) = angle(A, B)


def test_plane_geometry_non_orthogonal_inputs():
    # A and B at 45 degrees; v along the y axis is at 90 degrees from A: t = 2
    a, b = np.array([2.0, 0.0]), np.array([1.0, 1.0])
    g = M.plane_geometry(a, b, np.array([0.0, 1.0]))
    assert g.angle_ab[0] == pytest.approx(math.pi / 4)
    assert g.t[0] == pytest.approx(2.0)
    assert g.residual[0] == pytest.approx(0.0)
    # the midpoint direction of unit A and unit B sits exactly half-way
    mid = a / 2 + b / np.linalg.norm(b)
    assert M.plane_geometry(a, b, mid).t[0] == pytest.approx(0.5)


def test_plane_geometry_degenerate_rows():
    a = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    b = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [-2.0, -2.0, 0.0], [0.0, 1.0, 0.0]])
    v = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.warns(DegenerateGeometryWarning, match="3 of 4"):
        g = M.plane_geometry(a, b, v)
    assert list(g.degenerate) == [False, True, True, True]  # ok, zero A, A anti-parallel to B, P at origin
    assert g.t[0] == pytest.approx(0.5) and np.isnan(g.t[1:]).all()
    assert g.n_degenerate == 3


def test_plane_geometry_vectorised_equals_loop():
    rng = np.random.default_rng(3)
    A, B, V = (rng.standard_normal((20, 8)) for _ in range(3))
    g = M.plane_geometry(A, B, V)
    for i in range(20):
        gi = M.plane_geometry(A[i], B[i], V[i])
        assert gi.t[0] == pytest.approx(g.t[i])
        assert gi.angle_bp[0] == pytest.approx(g.angle_bp[i])
    # angles agree with the direct angle between the vectors and the projection
    P = g.x[:, None] * (A / np.linalg.norm(A, axis=1, keepdims=True))
    w = B - (np.einsum("ij,ij->i", B, A) / np.einsum("ij,ij->i", A, A))[:, None] * A
    P = P + g.y[:, None] * (w / np.linalg.norm(w, axis=1, keepdims=True))
    assert np.allclose(g.angle_ap, M.angle(A, P))
    assert np.allclose(g.angle_bp, M.angle(B, P))


def test_norm_ratio():
    assert M.norm_ratio(np.array([3.0, 4.0]), np.array([0.0, 1.0])) == pytest.approx(5.0)
    with pytest.warns(DegenerateGeometryWarning):
        assert np.isnan(M.norm_ratio(np.array([1.0]), np.array([0.0])))
