"""Pairing: the ordered key, roles on ties, complete-pair indices with and without ties."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from compsem.csts import pairing as P


def frame(rows):
    return pd.DataFrame(rows, columns=["sentence1", "sentence2", "condition", "label"])


def test_pair_key_is_ordered_and_the_codes_text():
    k = P.pair_key(["A", "B"], ["B", "A"])
    assert k[0] != k[1]
    assert k[0] == hashlib.sha1("A<SEP>B".encode()).hexdigest()[:12]


def test_roles_ties_and_sizes_by_hand():
    df = P.assign_pairs(
        frame(
            [
                ["A", "B", "c1", 2.0],
                ["A", "B", "c2", 4.0],  # high is the second row
                ["C", "D", "c1", 3.0],
                ["C", "D", "c2", 3.0],  # tie: first row in file order is high
                ["E", "F", "c1", 1.0],  # alone
                ["G", "H", "c1", 1.0],
                ["G", "H", "c2", 2.0],
                ["G", "H", "c3", 3.0],  # three rows
            ]
        ),
        unlabelled_keys=set(P.pair_key(["E"], ["F"])),
    )
    assert df["role"].tolist() == ["low", "high", "high", "low", "single", "unpaired", "unpaired", "unpaired"]
    assert df["tied"].tolist() == [False, False, True, True, False, False, False, False]
    info = P.pairing_summary(df)
    assert (info["n_complete_pairs"], info["n_tied_pairs"], info["n_single_rows"], info["n_unpaired_rows"]) == (
        2,
        1,
        1,
        3,
    )


def test_pair_index_with_and_without_ties():
    df = P.assign_pairs(
        frame([["A", "B", "c1", 2.0], ["A", "B", "c2", 4.0], ["C", "D", "c1", 3.0], ["C", "D", "c2", 3.0]])
    )
    hi, lo = P.pair_index(df)
    assert sorted(zip(hi.tolist(), lo.tolist())) == [(1, 0), (2, 3)]
    hi, lo = P.pair_index(df, label_ties="exclude")
    assert hi.tolist() == [1] and lo.tolist() == [0]
    with pytest.raises(ValueError, match="label_ties"):
        P.pair_index(df, label_ties="maybe")
    with pytest.raises(ValueError, match="no C-Low row"):
        P.pair_index(df.iloc[[1, 2, 3]])
