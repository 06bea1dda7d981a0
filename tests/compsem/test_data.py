"""Reading tables: errors name the file, the row and the column."""

import pytest

from compsem.data import read_table
from compsem.errors import DataError


def test_reads_csv_jsonl_parquet(tmp_path):
    import pandas as pd

    df = pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]})
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    df.to_parquet(tmp_path / "t.parquet")
    for name in ("t.csv", "t.jsonl", "t.parquet"):
        out = read_table(tmp_path / name, required=["a", "b"], text_columns=["a"], numeric_columns=["b"])
        assert out["a"].tolist() == ["x", "y"]


def test_missing_column(tmp_path):
    (tmp_path / "t.csv").write_text("sentence1,label\nhello,3\n")
    with pytest.raises(DataError, match=r"t\.csv.*column 'sentence2'.*found \['sentence1', 'label'\]"):
        read_table(tmp_path / "t.csv", required=["sentence1", "sentence2"])


def test_empty_text_cell(tmp_path):
    (tmp_path / "t.csv").write_text("s,label\nhello,3\n,4\n")
    with pytest.raises(DataError, match=r"t\.csv, row 2, column 's'"):
        read_table(tmp_path / "t.csv", text_columns=["s"])


def test_bad_number(tmp_path):
    (tmp_path / "t.csv").write_text("s,label\nhello,3\nbye,high\n")
    with pytest.raises(DataError, match=r"row 2, column 'label': not a finite number: 'high'"):
        read_table(tmp_path / "t.csv", numeric_columns=["label"])


def test_missing_file_and_format(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        read_table(tmp_path / "nope.csv")
    (tmp_path / "t.xlsx").write_text("")
    with pytest.raises(DataError, match="unsupported format"):
        read_table(tmp_path / "t.xlsx")


def test_line_numbers_survive_pandas_copies_without_being_copied(tmp_path):
    """The file line of each record (a blank line and a two-line quoted cell counted by hand)
    rides in ``attrs``; frames and columns taken from the table share the one tuple."""
    import copy

    (tmp_path / "t.jsonl").write_text('{"s": "a"}\n\n{"s": "b"}\n{"s": "c"}\n')
    df = read_table(tmp_path / "t.jsonl")
    assert df.attrs["lines"] == (1, 3, 4)
    assert df["s"].attrs["lines"] is df.attrs["lines"]  # a column: shared, not rebuilt
    assert df.iloc[1:].attrs["lines"] is df.attrs["lines"]
    assert copy.deepcopy(df).attrs["lines"] == (1, 3, 4)
    (tmp_path / "t.csv").write_text('s,label\n"two\nlines",3\n\nbye,4\n')
    assert read_table(tmp_path / "t.csv").attrs["lines"] == (2, 5)
    (tmp_path / "e.jsonl").write_text('{"s": "a"}\n\n{"s": "  "}\n')
    with pytest.raises(DataError, match=r"\(line 3\)"):
        read_table(tmp_path / "e.jsonl", text_columns=["s"])
