"""Part IV's tables: the closed-form cluster bootstrap against explicit resampling (a slow
loop), and the Table 2/3 analogues on small hand-made inputs."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.ssm.metrics import entailment_accuracy, relatedness_distance, rsa, sparsity
from compsem.ssm.study import Scored
from compsem.ssm.tables import (
    accuracy_frame,
    bootstrap_accuracy,
    bootstrap_agreement,
    bootstrap_category_mean,
    bootstrap_ssm,
    cluster_counts,
    mean_scores_frame,
    ssm_draws,
    ssm_frame,
    ssm_table,
)


def _resampled(labels, counts):
    """Explicit resample: index list and a 'copy id' per position (slow oracle)."""
    uniq = np.unique(labels)
    idx, copy = [], []
    for k, c in zip(uniq, counts):
        for rep in range(int(c)):
            members = np.flatnonzero(labels == k)
            idx.extend(members)
            copy.extend([(k, rep)] * len(members))
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
        x = [sub[p] for p in pairs]
        y = [subref[p] for p in pairs]
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
    R = np.array([[1, 0.9, 0.1, 0], [0.9, 1, 0, 0.2], [0.1, 0, 1, 0.8], [0, 0.2, 0.8, 1]])
    rows = ssm_table(R, R, labels, symmetric=True)
    assert [r["space"] for r in rows] == ["rel"] and rows[0]["rsa"] == pytest.approx(1.0)


def test_chapter_tables_leave_out_sentences_with_nan_scores():
    labels = np.array([0, 0, 0, 1, 1, 1])
    rng = np.random.default_rng(7)
    R_ref = np.eye(6)
    R_ref[0, 1] = R_ref[1, 0] = R_ref[3, 4] = 1.0
    cats = np.full((6, 6), "irrelevant", dtype=object)
    np.fill_diagonal(cats, "identical")
    cats[0, 1] = cats[3, 4] = "synonymous"
    cats[1, 0] = "synonymous_reversed"
    R = rng.uniform(size=(6, 6))
    R[:, 5] = np.nan  # sentence 5 has no usable score
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


def test_mean_scores_frame_by_hand():
    R = np.array([[1, 0.8, 0.2], [0.4, 1, np.nan], [0, 0.6, 1]])
    cats = np.array(
        [
            ["identical", "synonymous", "irrelevant"],
            ["synonymous_reversed", "identical", "irrelevant"],
            ["irrelevant", "irrelevant", "identical"],
        ],
        dtype=object,
    )
    tab = mean_scores_frame({"m": Scored("m", R, False, "m")}, cats).set_index("category")
    assert tab.loc["irrelevant", "mean_R"] == pytest.approx((0.2 + 0.0 + 0.6) / 3)  # the NaN pair left out
    assert tab.loc["irrelevant", "n_pairs"] == 3 and tab.loc["identical", "mean_R"] == 1
    assert tab.loc["synonymous_reversed", "mean_R"] == pytest.approx(0.4)
    assert np.isnan(tab.loc["inferential", "mean_R"]) and tab.loc["inferential", "n_pairs"] == 0


def test_category_mean_cluster_bootstrap_by_hand():
    # two clusters {0, 1} and {2, 3}; the irrelevant pairs are those across clusters. Rows of
    # cluster 0 score them 0.2 and 0.4 (mean 0.3), rows of cluster 1 score 0.6 and 0.8 (mean 0.7).
    # A resample draws two clusters: {0, 0} gives 0.3 (chance 1/4), {0, 1} 0.5, {1, 1} 0.7 (1/4),
    # so the 2.5 and 97.5 percentiles of 2,000 draws are 0.3 and 0.7.
    labels = np.array([0, 0, 1, 1])
    cats = np.array(
        [["identical", "within_cluster", "irrelevant", "irrelevant"]] * 2
        + [["irrelevant", "irrelevant", "within_cluster", "identical"]] * 2,
        dtype=object,
    )
    R = np.array([[1, 0.9, 0.2, 0.4], [0.9, 1, 0.2, 0.4], [0.6, 0.8, 1, 0.9], [0.6, 0.8, 0.9, 1]])
    lo, hi = bootstrap_category_mean(R, cats, labels, n_boot=2000, seed=1, include=["irrelevant"])["irrelevant"]
    assert (lo, hi) == pytest.approx((0.3, 0.7))
    # a NaN pair is left out of its row's sum and count: cluster 0 then averages (0.2 + 0.2 + 0.4) / 3
    R[0, 3] = np.nan
    lo, hi = bootstrap_category_mean(R, cats, labels, n_boot=2000, seed=1, include=["irrelevant"])["irrelevant"]
    assert (lo, hi) == pytest.approx((0.8 / 3, 0.7))
    # the 0/1 agreement bootstrap is the same computation on booleans
    correct = np.array([[1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 1, 1], [0, 1, 1, 1]], dtype=bool)
    assert bootstrap_agreement(correct, cats, labels, n_boot=2000, seed=1, include=["irrelevant"]) == {
        "irrelevant": pytest.approx((0.25, 0.75))
    }  # rows of cluster 0: 3 of 4 right, cluster 1: 1 of 4


def test_accuracy_frame_reports_the_predicted_label_beside_the_threshold():
    R_ref = np.array([[1, 1, 0], [1, 1, 0.3], [0.7, 0, 1]])
    cats = np.array(
        [
            ["identical", "synonymous", "inferential"],
            ["synonymous_reversed", "identical", "irrelevant"],
            ["inferential_reversed", "irrelevant", "identical"],
        ],
        dtype=object,
    )
    R = np.array([[0.9, 0.45, 0.6], [0.8, 0.9, 0.1], [0.2, 0.3, 0.9]])
    # the predicted label differs from R > 0.5 where another label is more probable: (0, 1) argmax is entailment
    # at P = 0.45, (0, 2) P = 0.6 is the argmax too; (1, 0) P = 0.8 is; (2, 0) not; irrelevant (1, 2), (2, 1) not
    predicted = np.array([[True, True, True], [True, True, False], [False, False, True]])
    s = Scored("nli:x", R, False, "x", predicted)
    tab = accuracy_frame(
        {"nli:x": s, "cos": Scored("cos", R, False, "c")}, R_ref, cats, np.array([0, 0, 1]), n_boot=0
    ).set_index(["scorer", "category"])
    # thresholded: synonymous (0,1) 0.45 -> no vs ref yes: wrong; by label: yes: right
    assert tab.loc[("nli:x", "synonymous"), "accuracy"] == 0.0
    assert tab.loc[("nli:x", "synonymous"), "accuracy_label"] == 1.0
    # inferential (0,2): 0.6 yes vs ref 0 no -> wrong either way; reversed (2,0): no vs ref 0.7 yes -> wrong
    assert tab.loc[("nli:x", "inferential"), ["accuracy", "accuracy_label"]].tolist() == [0.0, 0.0]
    assert tab.loc[("nli:x", "inferential_reversed"), "accuracy_label"] == 0.0
    assert (
        tab.loc[("nli:x", "irrelevant"), "accuracy_label"] == 1.0 and tab.loc[("nli:x", "irrelevant"), "n_pairs"] == 2
    )
    assert tab.loc["cos", "accuracy_label"].isna().all()  # no predicted labels: NaN, not a copy of the threshold


def test_label_bootstrap_contains_the_estimate():
    rng = np.random.default_rng(8)
    labels = np.repeat(np.arange(10), 4)
    same = labels[:, None] == labels[None, :]
    R_ref = same.astype(float)
    R = rng.uniform(size=(40, 40))
    predicted = rng.uniform(size=(40, 40)) < np.where(same, 0.8, 0.2)
    cats = np.where(same, "synonymous", "irrelevant")
    tab = accuracy_frame({"m": Scored("m", R, False, "m", predicted)}, R_ref, cats, labels, n_boot=200)
    tab = tab[tab.n_pairs > 0]
    assert set(tab.category) == {"synonymous", "irrelevant"}
    for row in tab.itertuples():
        assert row.ci_low_label <= row.accuracy_label <= row.ci_high_label
        assert row.ci_low <= row.accuracy <= row.ci_high


def test_paired_draws_share_the_cluster_resamples():
    from compsem.ssm.tables import category_mean_draws, paired_ssm_draws
    from compsem.stats import paired_interval

    # the example above: cluster means 0.3 and 0.7 over the irrelevant pairs; a second scorer adds
    # 0.1 to every pair. Unpaired, their intervals [0.3, 0.7] and [0.4, 0.8] overlap; paired, the
    # difference is 0.1 on every resample: the interval [0.1, 0.1] excludes zero.
    labels = np.array([0, 0, 1, 1])
    cats = np.array(
        [["identical", "within_cluster", "irrelevant", "irrelevant"]] * 2
        + [["irrelevant", "irrelevant", "within_cluster", "identical"]] * 2,
        dtype=object,
    )
    R = np.array([[1, 0.9, 0.2, 0.4], [0.9, 1, 0.2, 0.4], [0.6, 0.8, 1, 0.9], [0.6, 0.8, 0.9, 1]])
    a = category_mean_draws(R, cats, labels, category="irrelevant", n_boot=2000, seed=1)
    b = category_mean_draws(R + 0.1, cats, labels, category="irrelevant", n_boot=2000, seed=1)
    assert np.percentile(a, [2.5, 97.5]) == pytest.approx([0.3, 0.7])  # what bootstrap_category_mean reports
    assert paired_interval(b, a) == pytest.approx((0.1, 0.1))
    # RSA and sparsity replicates of two scorers on the same valid sentences: one scorer against itself
    # gives a difference of exactly 0 on every resample; a scorer with another valid set cannot be paired
    s = Scored("s", R, False, "x")
    d = paired_ssm_draws({"s": s, "t": Scored("t", R.copy(), False, "x")}, R, labels, n_boot=50)
    assert paired_interval(d["s"][0], d["t"][0]) == (0.0, 0.0)
    R2 = R.copy()
    R2[0, :] = np.nan
    assert paired_ssm_draws({"s": s, "u": Scored("u", R2, False, "x")}, R, labels, n_boot=50) is None
