"""Splits: the embedded set's by-pair split, the grouped split, subsamples."""

from __future__ import annotations

import numpy as np
import pandas as pd

from compsem.csts import data as cd
from compsem.csts import splitting as cs


def test_embedded_set_shape_and_split():
    df, rep = cd.load_csts("embedded")
    assert rep.n_pairs >= 150 and len(df) == 2 * rep.n_pairs
    assert set(df["split"]) == {"train", "validation", "test"}
    assert (df.groupby("pair_id")["split"].nunique() == 1).all()
    g = df.pivot(index="pair_id", columns="condition_type", values="label")
    assert (g["high"] > g["low"]).all()
    frac = df.drop_duplicates("pair_id")["split"].value_counts(normalize=True)
    assert abs(frac["train"] - 0.60) < 0.01 and abs(frac["validation"] - 0.15) < 0.01
    assert (df["role"] == df["condition_type"]).all()


def test_shipped_csv_matches_its_source():
    rebuilt = cs.build_embedded(cd.embedded_path().parent / "authored_pairs.psv")
    shipped = pd.read_csv(cd.embedded_path())
    pd.testing.assert_frame_equal(rebuilt.reset_index(drop=True), shipped, check_dtype=False)


def test_split_by_pair_is_seeded_and_by_pair():
    ids = np.repeat([f"p{i}" for i in range(20)], 2)
    a, b, c = cs.split_by_pair(ids, seed=1), cs.split_by_pair(ids, seed=1), cs.split_by_pair(ids, seed=2)
    assert (a == b).all() and not (a == c).all()
    assert (a[::2] == a[1::2]).all()
    assert sorted(pd.Series(a[::2]).value_counts().tolist()) == [3, 5, 12]


def test_sentence_groups_by_hand():
    # rows 0-1: A-B; rows 2-3: B-C (shares B); row 4: D-E alone; row 5: C-F (shares C)
    s1 = ["A", "A", "B", "B", "D", "C"]
    s2 = ["B", "B", "C", "C", "E", "F"]
    assert cs.sentence_groups(s1, s2).tolist() == [0, 0, 0, 0, 1, 0]


def test_group_split_has_no_shared_sentence_and_is_seeded():
    df, _ = cd.load_csts("reannotated")
    a = cs.group_split(df, seed=0)
    assert (a == cs.group_split(df, seed=0)).all() and not (a == cs.group_split(df, seed=1)).all()
    parts = cs.splits(df, seed=0, split="sentence")
    sents = {k: set(v.sentence1) | set(v.sentence2) for k, v in parts.items()}
    assert not (sents["train"] & sents["test"]) and not (sents["train"] & sents["validation"])
    assert not (sents["validation"] & sents["test"])
    share = {k: len(v) / len(df) for k, v in parts.items()}
    assert abs(share["train"] - 0.60) < 0.01 and abs(share["test"] - 0.25) < 0.01
    assert all((v.groupby("pair_id").size() == 2).all() for v in parts.values())


def test_splits_keeps_given_splits():
    df, _ = cd.load_csts("embedded")
    parts = cs.splits(df, seed=123)  # the seed only matters when there is no split column
    assert {k: len(v) for k, v in parts.items()} == df["split"].value_counts().to_dict()


def test_subsample_pairs_share_and_count():
    df, _ = cd.load_csts("embedded")
    tr = cs.splits(df)["train"]
    n = tr["pair_id"].nunique()
    assert cs.subsample_pairs(tr, 0.5, seed=0)["pair_id"].nunique() == round(n / 2)
    sub = cs.subsample_pairs(tr, 10, seed=0)
    assert sub["pair_id"].nunique() == 10 and (sub.groupby("pair_id").size() == 2).all()
    assert len(cs.subsample_pairs(tr, 10_000, seed=0)) == len(tr)


def _shared_sentence_frame():
    # 30 pairs, two rows each; pairs 2k and 2k+1 share sentence f"S{k}" (a chain of two pairs)
    rows = []
    for i in range(30):
        s1, s2 = f"S{i // 2}", f"T{i}"
        rows += [(f"p{i:02d}", s1, s2, "c high", 4.0, "high"), (f"p{i:02d}", s1, s2, "c low", 1.0, "low")]
    return pd.DataFrame(rows, columns=["pair_id", "sentence1", "sentence2", "condition", "label", "condition_type"])


def test_pair_split_keeps_both_rows_of_a_pair_together():
    df = _shared_sentence_frame()
    parts = cs.splits(df, seed=3, split="pair")
    assert sum(len(v) for v in parts.values()) == 60
    assert all((v.groupby("pair_id").size() == 2).all() for v in parts.values())
    # 30 pairs at 0.60 / 0.15 / 0.25: 18 / 4 (round(4.5) = 4) / 8 pairs
    assert [v.pair_id.nunique() for v in parts.values()] == [18, 4, 8]
    seen = [set(v.pair_id) for v in parts.values()]
    assert not (seen[0] & seen[1]) and not (seen[0] & seen[2]) and not (seen[1] & seen[2])


def test_sentence_split_shares_no_sentence_and_pair_split_may():
    df = _shared_sentence_frame()
    strict = cs.splits(df, seed=3, split="sentence")
    sents = [set(v.sentence1) | set(v.sentence2) for v in strict.values()]
    assert not (sents[0] & sents[1]) and not (sents[0] & sents[2]) and not (sents[1] & sents[2])
    # pairs p2k and p2k+1 (same S{k}) are always in the same split
    lab = dict(zip(pd.concat(strict.values()).pair_id, sum(([k] * len(v) for k, v in strict.items()), [])))
    assert all(lab[f"p{2 * k:02d}"] == lab[f"p{2 * k + 1:02d}"] for k in range(15))
    # by pair, some sentence S{k} lands in two splits for at least one of a few seeds
    leaks = []
    for seed in range(5):
        p = cs.splits(df, seed=seed, split="pair")
        ss = [set(v.sentence1) for v in p.values()]
        leaks.append(bool((ss[0] & ss[1]) | (ss[0] & ss[2]) | (ss[1] & ss[2])))
    assert any(leaks)


def test_splits_rejects_unknown_split():
    import pytest

    with pytest.raises(ValueError, match="pair"):
        cs.splits(_shared_sentence_frame(), split="group")
