"""The operator tables built from quintuples, both filter rules (from cosines), the loaders' errors."""

import json

import numpy as np
import pandas as pd
import pytest

from compsem.errors import DataError
from compsem.setcomp import data as ds


def quint(i, **over):
    row = {
        "id": f"q{i}",
        "s_prev": f"prev {i}",
        "s_curr": f"curr {i}",
        "s_next": f"next {i}",
        "s1": f"fusion one {i}",
        "s2": f"fusion two {i}",
    }
    row.update(over)
    return row


def test_samples_per_quintuple_and_roles():
    q = pd.DataFrame([quint(1), quint(2), quint(3)])
    t = ds.build_operator_tables(q)
    assert {k: len(v) for k, v in t.items()} == {"overlap": 3, "difference": 18, "union": 6}
    ov = t["overlap"].iloc[0]
    assert (ov["a"], ov["b"], ov["o"]) == ("fusion one 1", "fusion two 1", "curr 1")
    diff = t["difference"][t["difference"]["qid"] == "q2"]
    assert list(zip(diff["a"], diff["b"], diff["d"])) == [
        ("fusion one 2", "prev 2", "curr 2"),
        ("fusion one 2", "curr 2", "prev 2"),
        ("fusion one 2", "fusion two 2", "prev 2"),
        ("fusion two 2", "curr 2", "next 2"),
        ("fusion two 2", "next 2", "curr 2"),
        ("fusion two 2", "fusion one 2", "next 2"),
    ]
    un = t["union"][t["union"]["qid"] == "q3"]
    assert list(zip(un["a"], un["b"], un["u"])) == [
        ("prev 3", "curr 3", "fusion one 3"),
        ("curr 3", "next 3", "fusion two 3"),
    ]


def test_embedded_set_is_valid_and_large_enough():
    q = ds.load_quintuples()
    assert len(q) >= 120
    t = ds.build_operator_tables(q)
    assert len(t["overlap"]) == len(q) and len(t["union"]) == 2 * len(q)
    assert q["topic"].nunique() >= 10


def test_shuffled_targets_never_keep_own_quintuple():
    q = pd.DataFrame([quint(i) for i in range(6)])
    t = ds.build_operator_tables(q)["difference"]
    s = ds.shuffled_targets(t, "difference", seed=3)
    assert sorted(s["d"]) == sorted(t["d"]) and len(s) == 36
    for qid, d in zip(s["qid"], s["d"]):
        k = qid[1:]
        assert d not in {f"prev {k}", f"curr {k}", f"next {k}"}


# ------------------------------------------------------------------ loaders and their errors
def test_missing_column_names_file_and_column(tmp_path):
    p = tmp_path / "q.csv"
    pd.DataFrame([quint(1)]).drop(columns=["s2"]).to_csv(p, index=False)
    with pytest.raises(DataError, match=r"q\.csv.*'s2'"):
        ds.load_quintuples(p)


def test_empty_sentence_names_row_and_column(tmp_path):
    p = tmp_path / "q.jsonl"
    rows = [quint(1), quint(2, s_curr="   ")]
    p.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(DataError, match=r"q\.jsonl.*row 2.*'s_curr'"):
        ds.load_quintuples(p)


def test_duplicate_ids_rejected(tmp_path):
    p = tmp_path / "q.csv"
    pd.DataFrame([quint(1), quint(1)]).to_csv(p, index=False)
    with pytest.raises(DataError, match="duplicate id"):
        ds.load_quintuples(p)


def test_parquet_without_ids_gets_ids(tmp_path):
    p = tmp_path / "q.parquet"
    pd.DataFrame([quint(1), quint(2)]).drop(columns=["id"]).to_parquet(p)
    q = ds.load_quintuples(p)
    assert q["id"].tolist() == ["q00001", "q00002"]


def test_load_operator_table_and_its_errors(tmp_path):
    p = tmp_path / "diff.csv"
    pd.DataFrame({"x": ["one", "two"], "y": ["three", "four"], "target": ["five", "six"]}).to_csv(p, index=False)
    t = ds.load_operator_table(p, "difference", columns={"x": "a", "y": "b", "target": "d"})
    assert t["d"].tolist() == ["five", "six"] and len(t["qid"].unique()) == 2
    with pytest.raises(DataError, match=r"diff\.csv.*'d'"):
        ds.load_operator_table(p, "difference", columns={"x": "a", "y": "b"})
    with pytest.raises(ValueError, match="unknown operator"):
        ds.load_operator_table(p, "intersection")
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"a": ["x", "y"], "b": ["z", ""], "u": ["w", "v"]}).to_csv(bad, index=False)
    with pytest.raises(DataError, match=r"row 2.*'b'"):
        ds.load_operator_table(bad, "union")


def test_mask_shape_checked():
    q = pd.DataFrame([quint(1), quint(2)])
    with pytest.raises(ValueError, match="shape"):
        ds.build_operator_tables(q, difference_mask=np.array([True]))


def test_filter_masks_both_rules_by_hand():
    cpc = {"m": np.array([0.1, 0.1, 0.9, np.nan])}  # pair (prev, curr) per quintuple
    ccn = {"m": np.array([0.2, 0.8, 0.1, 0.1])}  # pair (curr, next)
    rep = ds.filter_masks(cpc, ccn, threshold=0.25)
    assert rep.mask.tolist() == [True, False, False, False]
    assert rep.pair_mask.tolist() == [[True, True], [True, False], [False, True], [False, True]]
    assert rep.n_pass == 1 and rep.n_pairs_pass == 5 and rep.n_undefined == 1
    assert rep.samples() == {"quintuple": 6, "pair": 15}
    assert rep.difference_mask is rep.mask
    assert ds.filter_masks(cpc, ccn, rule="pair").difference_mask.shape == (4, 2)
    with pytest.raises(ValueError, match="filter rule"):
        ds.filter_masks(cpc, ccn, rule="sentence")


def test_pair_rule_keeps_three_samples_per_passing_pair():
    q = pd.DataFrame([quint(1), quint(2)])
    t = ds.build_operator_tables(q, difference_mask=np.array([[True, False], [False, True]]))["difference"]
    assert list(zip(t["qid"], t["variant"])) == [
        ("q1", "s1-prev->curr"),
        ("q1", "s1-curr->prev"),
        ("q1", "s1-s2->prev"),
        ("q2", "s2-curr->next"),
        ("q2", "s2-next->curr"),
        ("q2", "s2-s1->next"),
    ]
    with pytest.raises(ValueError, match="shape"):
        ds.build_operator_tables(q, difference_mask=np.ones((2, 3), dtype=bool))
