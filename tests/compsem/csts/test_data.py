"""The C-STS loader on small hand-written files, one per case of the published data."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from compsem.csts import data as cd
from compsem.errors import DataError

COLS = ["sentence1", "sentence2", "condition", "label"]


def frame(rows):
    return pd.DataFrame(rows, columns=COLS)


@pytest.fixture()
def write(tmp_path):
    def _write(df, name="c.csv"):
        p = tmp_path / name
        if name.endswith((".json", ".jsonl")):
            p.write_text("".join(json.dumps(r) + "\n" for r in df.to_dict("records")))
        else:
            df.to_csv(p, index=False)
        return p

    return _write


TWO_PAIRS = frame(
    [
        ["A dog runs.", "A cat sits.", "the animal", 2.0],
        ["A dog runs.", "A cat sits.", "the number of animals", 5.0],
        ["A red car.", "A blue bus.", "the colour", 1.0],
        ["A red car.", "A blue bus.", "the kind of vehicle", 3.0],
    ]
)


def test_pairs_roles_and_counts_by_hand(write):
    df, rep = cd.load_csts(write(TWO_PAIRS))
    assert (rep.n_rows_read, rep.n_rows, rep.n_pairs, rep.n_complete_pairs) == (4, 4, 2, 2)
    # the larger label is the C-High row, whatever the file order
    assert df["role"].tolist() == ["low", "high", "low", "high"]
    assert df["line"].tolist() == [2, 3, 4, 5] and df["row"].tolist() == [0, 1, 2, 3]
    assert rep.n_tied_pairs == 0 and rep.n_both_orders == 0 and rep.n_same_condition == 0


def test_both_sentence_orders_are_two_pairs(write):
    # (A, B) and (B, A): the authors' code keys pairs by the ordered text, so these are two pairs
    rows = TWO_PAIRS.iloc[:2].copy()
    swapped = rows.rename(columns={"sentence1": "sentence2", "sentence2": "sentence1"})[COLS]
    swapped["label"] = [4.0, 4.0]
    df, rep = cd.load_csts(write(pd.concat([rows, swapped], ignore_index=True)))
    assert rep.n_pairs == 2 and rep.n_complete_pairs == 2 and rep.n_unpaired_rows == 0
    assert rep.n_both_orders == 1
    assert rep.n_tied_pairs == 1  # the swapped pair has 4 and 4
    assert df.loc[2:3, "tied"].all() and not df.loc[0:1, "tied"].any()
    # a tie: the first row in file order is "high"
    assert df.loc[2, "role"] == "high" and df.loc[3, "role"] == "low"


def test_same_condition_with_different_labels_is_counted(write):
    rows = TWO_PAIRS.copy()
    rows.loc[3, "condition"] = "the colour"  # same condition, labels 1 and 3
    _, rep = cd.load_csts(write(rows))
    assert rep.n_same_condition == 1


def test_unlabelled_partner_keeps_the_labelled_row(write):
    rows = TWO_PAIRS.copy()
    rows.loc[2, "label"] = -1.0  # line 4 unlabelled; its partner is on line 5
    df, rep = cd.load_csts(write(rows))
    assert rep.n_unlabelled == 1 and rep.n_rows == 3 and rep.n_partner_unlabelled == 1
    assert rep.n_complete_pairs == 1 and rep.n_single_rows == 1
    single = df[df["role"] == "single"]
    assert single["line"].tolist() == [5] and single["label"].tolist() == [3.0]
    assert (df["label"] >= 1).all()  # -1 never reaches a metric
    assert any("unlabelled" in n for n in rep.notes)


def test_strict_pairs_names_lines_and_the_unlabelled_partner(write):
    rows = TWO_PAIRS.copy()
    rows.loc[2, "label"] = -1.0
    with pytest.raises(DataError) as err:
        cd.load_csts(write(rows, "val.csv"), strict_pairs=True)
    msg = str(err.value)
    assert "line 5" in msg and "line 4 is unlabelled" in msg and "val.csv" in msg
    assert "quadruplet" not in msg  # evaluating only: the loss is not the reason


def test_unpaired_row_without_unlabelled_partner(write):
    rows = pd.concat([TWO_PAIRS, frame([["Lonely a.", "Lonely b.", "the kind", 3.0]])], ignore_index=True)
    df, rep = cd.load_csts(write(rows))
    assert rep.n_unpaired_rows == 1 and rep.n_single_rows == 0 and rep.n_complete_pairs == 2
    assert df.loc[4, "role"] == "unpaired"
    with pytest.raises(DataError, match="has 1 labelled row"):
        cd.load_csts(write(rows), strict_pairs=True)


def test_error_names_the_file_line_with_multiline_records(tmp_path):
    # a quoted field spanning two lines: the bad record (data row 3) starts on file line 5
    text = (
        "sentence1,sentence2,condition,label\n"
        '"A dog\nruns.",A cat.,the animal,2\n'
        "A dog runs.,A cat.,the colour,3\n"
        "B,C,the kind,9\n"
    )
    p = tmp_path / "multi.csv"
    p.write_text(text)
    with pytest.raises(DataError) as err:
        cd.load_csts(p)
    assert "multi.csv, line 5" in str(err.value) and "'label'" in str(err.value)


@pytest.mark.parametrize(
    "mutate, line, column",
    [
        (lambda d: d.drop(columns=["condition"]), None, "condition"),
        (lambda d: d.assign(sentence2=d["sentence2"].where(d.index != 3, "   ")), 5, "sentence2"),
        (lambda d: d.assign(label=d["label"].astype(object).where(d.index != 2, "high")), 4, "label"),
        (lambda d: d.assign(label=d["label"].where(d.index != 0, 7.0)), 2, "label"),
    ],
)
def test_malformed_rows_name_file_line_column(write, mutate, line, column):
    with pytest.raises(DataError) as err:
        cd.load_csts(write(mutate(TWO_PAIRS), "bad.csv"))
    msg = str(err.value)
    assert "bad.csv" in msg and repr(column) in msg
    if line is not None:
        assert f"line {line}," in msg


def test_one_file_per_split_and_unlabelled_test(write):
    test = TWO_PAIRS.assign(label=-1.0)
    tr, va, te = write(TWO_PAIRS, "tr.csv"), write(TWO_PAIRS.iloc[:2], "va.csv"), write(test, "te.csv")
    df, rep = cd.load_csts(train=tr, validation=va, test=te)
    assert df["split"].value_counts().to_dict() == {"train": 4, "validation": 2}
    assert rep.n_unlabelled == 4 and rep.n_pairs == 3  # the same pair in two splits is two pairs
    full, _ = cd.load_csts(test=te, keep_unlabelled=True)
    assert len(full) == 4 and full["label"].isna().all() and (full["role"] == "unlabelled").all()
    assert full["row"].tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="not both"):
        cd.load_csts("embedded", train=tr)


def test_folder_with_split_files(write, tmp_path):
    write(TWO_PAIRS, "csts_train.csv")
    write(TWO_PAIRS.iloc[2:], "csts_dev.csv")
    df, rep = cd.load_csts(tmp_path)
    assert sorted(df["split"].unique()) == ["train", "validation"]
    only_val, _ = cd.load_csts(tmp_path, split="validation")
    assert len(only_val) == 2


def test_split_selection_needs_a_split(write):
    with pytest.raises(DataError, match="splits"):
        cd.load_csts(write(TWO_PAIRS), split="train")


@pytest.mark.parametrize("name", ["c.json", "c.jsonl"])
def test_json_lines(write, name):
    df, rep = cd.load_csts(write(TWO_PAIRS, name))
    assert rep.n_complete_pairs == 2 and df["line"].tolist() == [1, 2, 3, 4]


def test_json_array(tmp_path):
    p = tmp_path / "arr.json"
    p.write_text(json.dumps(TWO_PAIRS.to_dict("records")))
    df, rep = cd.load_csts(p)
    # by hand: in each pair the larger label is C-High (5 > 2, 3 > 1); records numbered 1..4
    assert df["label"].tolist() == [2.0, 5.0, 1.0, 3.0] and df["role"].tolist() == ["low", "high", "low", "high"]
    assert df["line"].tolist() == [1, 2, 3, 4] and rep.n_complete_pairs == 2 and rep.n_tied_pairs == 0


@pytest.mark.parametrize("name, text", [("h.csv", "sentence1,sentence2,condition,label\n"), ("e.jsonl", "")])
def test_header_only_file_is_an_error_naming_it(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(Exception, match=f"no data rows.*|{name}") as err:
        cd.load_csts(p)
    assert name in str(err.value)


def test_shipped_reannotated_file_as_published():
    df, rep = cd.load_csts("reannotated")
    assert (rep.n_rows_read, rep.n_rows, rep.n_unlabelled) == (11342, 11342, 0)
    assert rep.n_complete_pairs == 5671 and rep.n_both_orders == 6 and rep.n_unpaired_rows == 0
    assert rep.n_tied_pairs == int(df[df.role == "high"]["tied"].sum())


def test_hub_id_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="C-STS-Reannotated"):
        cd.load_csts("hf:LivNLP/C-STS-Reannotated")


def test_missing_local_file():
    with pytest.raises(FileNotFoundError, match="not a shipped set"):
        cd.load_csts("/nonexistent/csts.csv")


def test_write_predictions_official_formats(write, tmp_path):
    te = write(TWO_PAIRS.assign(label=-1.0), "te.csv")
    df, _ = cd.load_csts(test=te, keep_unlabelled=True)
    pred = np.array([1.5, 2.25, 3.0, 4.125])
    out = cd.write_predictions(df, pred, tmp_path / "pred.json", expected_rows=4)
    assert json.loads(out.read_text()) == {"0": 1.5, "1": 2.25, "2": 3.0, "3": 4.125}
    tsv = cd.write_predictions(df, pred, tmp_path / "predict_results.txt")
    assert tsv.read_text().splitlines() == ["index\tprediction", "0\t1.5000", "1\t2.2500", "2\t3.0000", "3\t4.1250"]
    with pytest.raises(ValueError, match="expects 4732"):
        cd.write_predictions(df, pred, tmp_path / "p.json", expected_rows=4732)
    with pytest.raises(ValueError, match="non-finite"):
        cd.write_predictions(df, [1.0, np.nan, 2.0, 3.0], tmp_path / "p.json")
    with pytest.raises(ValueError, match="0..n-1"):
        cd.write_predictions(df.iloc[1:], pred[1:], tmp_path / "p.json")


def test_shipped_reannotated_file_is_unchanged():
    from compsem.data import file_sha256

    sha = "118ef935443531a60f3dd5652afd946869f47b134c83fd8da38779912167b652"
    assert file_sha256(cd.reannotated_path()) == sha
    assert sha in (cd.reannotated_path().parent / "DATASHEET.md").read_text()
