"""Sentence-space metrics of Part IV against hand-worked values and independent computations."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.ssm.metrics import (
    agreement_accuracy,
    calinski_harabasz,
    discrepancy_distance,
    distances,
    entailment_accuracy,
    relatedness_distance,
    rsa,
    sparsity,
    upper,
)

# A 3x3 score matrix; row = premise, column = hypothesis.
R3 = np.array([[1.0, 0.8, 0.3], [0.4, 1.0, 0.0], [0.3, 0.6, 1.0]])


def test_distances_on_a_3x3_example_by_hand():
    # D_rel(0,1) = 1 - (0.8 + 0.4)/2 = 0.4; D_rel(0,2) = 1 - 0.3 = 0.7; D_rel(1,2) = 1 - 0.3 = 0.7
    np.testing.assert_allclose(relatedness_distance(R3), [[0, 0.4, 0.7], [0.4, 0, 0.7], [0.7, 0.7, 0]])
    # D_dis(0,1) = 1 - |0.8 - 0.4| = 0.6; D_dis(0,2) = 1 - 0 = 1; D_dis(1,2) = 1 - 0.6 = 0.4; diagonal 1
    np.testing.assert_allclose(discrepancy_distance(R3), [[1, 0.6, 1], [0.6, 1, 0.4], [1, 0.4, 1]])
    assert set(distances(R3, symmetric=True)) == {"rel"}
    assert set(distances(R3)) == {"rel", "dis"}


def test_sparsity_by_hand():
    # |1 - D_rel| = diagonal 1,1,1 and off-diagonal 0.6, 0.3, 0.3 (twice each): 5.4 / 9
    assert sparsity(relatedness_distance(R3)) == pytest.approx(0.6)
    # |1 - D_dis| = 0.4, 0, 0.6 off the diagonal (twice each), 0 on it: 2.0 / 9
    assert sparsity(discrepancy_distance(R3)) == pytest.approx(2.0 / 9)
    rng = np.random.default_rng(1)
    D = rng.uniform(size=(7, 7))
    assert sparsity(D) == pytest.approx(sum(abs(1 - D[i, j]) for i in range(7) for j in range(7)) / 49)


def test_rsa_by_hand_and_against_numpy():
    # upper triangles [0.4, 0.7, 0.7] vs [0.6, 1.0, 0.4]: deviations (-.2, .1, .1) and (-1/15, 1/3, -4/15)
    # cov sum = 0.02, var sums 0.06 and 0.18667 -> r = 0.02 / sqrt(0.0112)
    r = rsa(relatedness_distance(R3), discrepancy_distance(R3))
    assert r == pytest.approx(0.02 / np.sqrt(0.0112))
    rng = np.random.default_rng(2)
    A = rng.uniform(size=(9, 9))
    A = A + A.T
    B = rng.uniform(size=(9, 9))
    B = B + B.T
    iu = [(i, j) for i in range(9) for j in range(i + 1, 9)]
    expected = np.corrcoef([A[p] for p in iu], [B[p] for p in iu])[0, 1]
    assert rsa(A, B) == pytest.approx(expected)
    assert rsa(A, A) == pytest.approx(1.0)


def test_rsa_mask_and_constant_input():
    rng = np.random.default_rng(3)
    A = rng.uniform(size=(6, 6))
    B = rng.uniform(size=(6, 6))
    mask = np.ones((6, 6), bool)
    mask[0, :] = mask[:, 0] = False
    assert rsa(A, B, mask=mask) == pytest.approx(rsa(A[1:, 1:], B[1:, 1:]))
    with pytest.warns(RuntimeWarning, match="constant"):
        assert np.isnan(rsa(np.ones((4, 4)), A[:4, :4]))


def _ch_by_formula(X, labels):
    """Calinski-Harabasz written out: [B / (K - 1)] / [W / (N - K)]."""
    X = np.asarray(X, float)
    ks = np.unique(labels)
    c = X.mean(axis=0)
    B = sum((labels == k).sum() * np.sum((X[labels == k].mean(axis=0) - c) ** 2) for k in ks)
    W = sum(np.sum((X[labels == k] - X[labels == k].mean(axis=0)) ** 2) for k in ks)
    return (B / (len(ks) - 1)) / (W / (len(X) - len(ks)))


def test_calinski_harabasz_against_the_formula():
    rng = np.random.default_rng(4)
    labels = np.repeat([0, 1, 2, 3], [3, 4, 2, 5])
    R = rng.uniform(size=(14, 14)) + 0.5 * (labels[:, None] == labels[None, :])
    for D in distances(np.clip(R, 0, 1)).values():
        assert calinski_harabasz(D, labels) == pytest.approx(_ch_by_formula(D, labels))
    with pytest.raises(ValueError, match="labels must have shape"):
        calinski_harabasz(np.eye(3), [0, 1])
    D = np.eye(4)
    D[0, 1] = np.nan
    with pytest.warns(RuntimeWarning, match="1 NaN"):
        assert np.isnan(calinski_harabasz(D, [0, 0, 1, 1]))


def test_entailment_accuracy_by_category_by_hand():
    R = np.array([[0.9, 0.6, 0.2], [0.5, 0.7, 0.8], [0.1, 0.4, 1.0]])
    ref = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.3, 1.0]])
    cats = np.array([["identical", "a", "b"], ["a", "identical", "b"], ["b", "a", "identical"]])
    acc = entailment_accuracy(R, ref, cats, include=("a", "b", "identical"))
    # a: (0,1) 0.6>.5 vs 1 ok; (1,0) 0.5 not > .5 vs 1 wrong; (2,1) 0.4 vs 0.3 ok  -> 2/3
    # b: (0,2) ok; (1,2) 0.8 vs 0 wrong; (2,0) ok -> 2/3
    assert acc["a"] == (pytest.approx(2 / 3), 3)
    assert acc["b"] == (pytest.approx(2 / 3), 3)
    assert acc["identical"] == (1.0, 3)
    R[0, 1] = np.nan
    with pytest.warns(RuntimeWarning, match="1 NaN"):
        assert entailment_accuracy(R, ref, cats, include=("a",))["a"][0] == pytest.approx(1 / 3)


def test_agreement_accuracy_with_boolean_decisions_by_hand():
    decision = np.array([[True, True, False], [False, True, True], [True, False, True]])
    truth = np.array([[True, True, False], [True, True, False], [False, False, True]])
    cats = np.array([["identical", "a", "b"], ["a", "identical", "b"], ["b", "a", "identical"]])
    acc = agreement_accuracy(decision, truth, cats, include=("a", "b", "c"))
    # a: (0,1) T=T ok, (1,0) F vs T wrong, (2,1) F=F ok -> 2/3; b: (0,2) ok, (1,2) wrong, (2,0) wrong -> 1/3
    assert acc["a"] == (pytest.approx(2 / 3), 3) and acc["b"] == (pytest.approx(1 / 3), 3)
    assert np.isnan(acc["c"][0]) and acc["c"][1] == 0
    with_nan = np.where(decision, 1.0, 0.0)
    with_nan[0, 1] = np.nan  # no answer: counted wrong
    assert agreement_accuracy(with_nan, truth, cats, include=("a",))["a"][0] == pytest.approx(1 / 3)


def test_upper_triangle_order():
    D = np.arange(16.0).reshape(4, 4)
    np.testing.assert_array_equal(upper(D), [1, 2, 3, 6, 7, 11])
    with pytest.raises(ValueError, match="square"):
        upper(np.ones((2, 3)))
