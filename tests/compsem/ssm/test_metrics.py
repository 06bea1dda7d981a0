"""Sentence-space metrics of Part IV against hand-worked values and independent computations."""
from __future__ import annotations

import numpy as np
import pytest

from compsem.ssm import (calinski_harabasz, discrepancy_distance, distances, entailment_accuracy,
                         relatedness_distance, rsa, sparsity, ssm_table)
from compsem.ssm.metrics import bootstrap_accuracy, bootstrap_ssm, cluster_counts, ssm_draws
from compsem.ssm.space import basis_colours, mds_layout, pick_basis

# A 3x3 score matrix; row = premise, column = hypothesis.
R3 = np.array([[1.0, 0.8, 0.3],
               [0.4, 1.0, 0.0],
               [0.3, 0.6, 1.0]])


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
    A = rng.uniform(size=(9, 9)); A = A + A.T
    B = rng.uniform(size=(9, 9)); B = B + B.T
    iu = [(i, j) for i in range(9) for j in range(i + 1, 9)]
    expected = np.corrcoef([A[p] for p in iu], [B[p] for p in iu])[0, 1]
    assert rsa(A, B) == pytest.approx(expected)
    assert rsa(A, A) == pytest.approx(1.0)


def test_rsa_mask_and_constant_input():
    rng = np.random.default_rng(3)
    A = rng.uniform(size=(6, 6)); B = rng.uniform(size=(6, 6))
    mask = np.ones((6, 6), bool); mask[0, :] = mask[:, 0] = False
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
    D = np.eye(4); D[0, 1] = np.nan
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


def _resampled(labels, counts):
    """Explicit resample: index list and a 'copy id' per position (slow oracle)."""
    uniq = np.unique(labels)
    idx, copy = [], []
    for k, c in zip(uniq, counts):
        for rep in range(int(c)):
            members = np.flatnonzero(labels == k)
            idx.extend(members); copy.extend([(k, rep)] * len(members))
    return np.array(idx), copy


def test_cluster_bootstrap_draws_match_explicit_resampling():
    rng = np.random.default_rng(5)
    labels = np.repeat([3, 7, 9, 11], [2, 3, 3, 2])
    R = rng.uniform(size=(10, 10))
    D, Dref = relatedness_distance(R), relatedness_distance(rng.uniform(size=(10, 10)))
    _, C = cluster_counts(labels, n_boot=6, seed=0)
    spars, r = ssm_draws(D, Dref, labels, C)
    for b in range(6):
        idx, copy = _resampled(labels, C[b])
        n = len(idx)
        keep = np.array([[copy[a][0] != copy[c][0] or copy[a] == copy[c] for c in range(n)] for a in range(n)])
        sub, subref = D[np.ix_(idx, idx)], Dref[np.ix_(idx, idx)]
        assert spars[b] == pytest.approx(np.abs(1 - sub)[keep].mean())
        pairs = [(a, c) for a in range(n) for c in range(a + 1, n) if keep[a, c] and idx[a] != idx[c]]
        x = [sub[p] for p in pairs]; y = [subref[p] for p in pairs]
        assert r[b] == pytest.approx(np.corrcoef(x, y)[0, 1])


def test_bootstrap_intervals_contain_the_estimate_and_are_seeded():
    rng = np.random.default_rng(6)
    labels = np.repeat(np.arange(12), 5)
    R = np.clip(rng.uniform(0, 0.3, size=(60, 60)) + 0.6 * (labels[:, None] == labels[None, :]), 0, 1)
    Rref = (labels[:, None] == labels[None, :]).astype(float)
    D, Dref = relatedness_distance(R), relatedness_distance(Rref)
    ci = bootstrap_ssm(D, Dref, labels, n_boot=300, seed=1)
    assert ci["rsa"][0] <= rsa(D, Dref) <= ci["rsa"][1]
    assert ci["sparsity"][0] <= sparsity(D) <= ci["sparsity"][1]
    assert ci == bootstrap_ssm(D, Dref, labels, n_boot=300, seed=1)
    cats = np.where(labels[:, None] == labels[None, :], "same", "other")
    acc = entailment_accuracy(R, Rref, cats, include=("same",))["same"][0]
    lo, hi = bootstrap_accuracy(R, Rref, cats, labels, include=("same",), n_boot=300)["same"]
    assert lo <= acc <= hi


def test_ssm_table_symmetric_scorer_has_only_relatedness():
    labels = np.array([0, 0, 1, 1])
    R = np.array([[1, .9, .1, 0], [.9, 1, 0, .2], [.1, 0, 1, .8], [0, .2, .8, 1]])
    rows = ssm_table(R, R, labels, symmetric=True)
    assert [r["space"] for r in rows] == ["rel"] and rows[0]["rsa"] == pytest.approx(1.0)


def test_space_helpers():
    labels = np.repeat(np.arange(5), 3)
    b = pick_basis(labels, seed=3)
    assert len(set(labels[b])) == 3 and np.array_equal(b, pick_basis(labels, seed=3))
    D = relatedness_distance(R3)
    np.testing.assert_allclose(basis_colours(D, [0, 1, 2]), 1 - D.T)
    xy, stress = mds_layout(D, seed=0)
    assert xy.shape == (3, 2) and stress < 0.05   # three points embed exactly in a plane
    np.testing.assert_allclose(np.linalg.norm(xy[0] - xy[1]), 0.4, atol=0.02)


def test_chapter_tables_leave_out_sentences_with_nan_scores():
    from compsem.ssm import Scored, accuracy_frame, ssm_frame

    labels = np.array([0, 0, 0, 1, 1, 1])
    rng = np.random.default_rng(7)
    R_ref = np.eye(6)
    R_ref[0, 1] = R_ref[1, 0] = R_ref[3, 4] = 1.0
    cats = np.full((6, 6), "irrelevant", dtype=object)
    np.fill_diagonal(cats, "identical")
    cats[0, 1] = cats[3, 4] = "synonymous"
    cats[1, 0] = "synonymous_reversed"
    R = rng.uniform(size=(6, 6))
    R[:, 5] = np.nan                                     # sentence 5 has no usable score
    s = Scored("x", R, False, "x")
    assert s.valid.tolist() == [True] * 5 + [False]
    tab = ssm_frame({"x": s}, R_ref, cats, labels, n_boot=0)
    keep = np.arange(5)
    D = relatedness_distance(R[np.ix_(keep, keep)])
    row = tab[tab.space == "rel"].iloc[0]
    assert row.n_sentences == 5 and row.sparsity == pytest.approx(sparsity(D))
    assert row.rsa == pytest.approx(rsa(D, relatedness_distance(R_ref[np.ix_(keep, keep)])))
    acc = accuracy_frame({"x": s}, R_ref, cats, labels, n_boot=0)
    assert (acc.n_sentences_dropped == 1).all()
    assert acc.set_index("category").loc["irrelevant", "n_pairs"] == int((cats[:5, :5] == "irrelevant").sum())
