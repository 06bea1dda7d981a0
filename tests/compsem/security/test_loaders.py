"""Finding 6: loader errors name the file and the place; nothing odd is accepted silently.

Every study's loader reads through ``compsem.data.read_table``; the C-STS, SSM and set-operation
loaders are exercised here through their own public functions.
"""

import struct

import numpy as np
import pandas as pd
import pytest

from compsem.csts.data import read_split_file
from compsem.data import FIELD_LIMIT, read_table
from compsem.encoders.vectorfile import DuplicateWordWarning, read_word_vectors
from compsem.errors import DataError
from compsem.setcomp.data import load_operator_table
from compsem.ssm.data import load_pool

POOL = (
    "sentence_id,cluster,role,text\n"
    "c1_p,1,premise,The baker pulled bread out of the oven.\n"
    "c1_s,,synonymous,The baker took bread from the oven.\n"
)


def test_not_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "adjectives.csv"
    path.write_bytes("adjective,category\nred,I\n".encode() + "caf\xe9,I\n".encode("latin-1"))
    with pytest.raises(DataError, match=rf"file {path}: line 3: byte 0xe9 is not UTF-8; save the file as UTF-8"):
        read_table(path)


def test_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "ops.csv"
    path.write_text("\ufeffa,b,o\nx y,y z,y\n", encoding="utf-8")
    df = read_table(path, required=["a"])
    assert list(df.columns) == ["a", "b", "o"]
    assert load_operator_table(path, "overlap").loc[0, "a"] == "x y"


def test_a_10_mb_cell_is_read_and_a_larger_than_the_limit_one_is_named(tmp_path):
    big = tmp_path / "big.csv"
    big.write_text('sentence1,sentence2\nshort,"' + "w " * 5_000_000 + '"\n')  # a 10 MB cell
    assert len(read_table(big).loc[0, "sentence2"]) == 10_000_000
    huge = tmp_path / "huge.csv"
    huge.write_text('a,b\nx,y\nx,"' + "w" * (FIELD_LIMIT + 10) + '"\n')
    with pytest.raises(DataError, match=rf"file {huge}: line 3: a cell longer than 16,777,216 characters"):
        read_table(huge)


def test_duplicate_header_is_refused(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("sentence1,sentence2,sentence1,label\na,b,c,1\n")
    with pytest.raises(DataError, match=r"line 1: the header names column \['sentence1'\] more than once"):
        read_table(path)


@pytest.mark.parametrize("loader", ["csts", "operator", "plain"])
def test_header_only_file_has_no_rows(tmp_path, loader):
    path = tmp_path / "t.csv"
    path.write_text("sentence1,sentence2,condition,label,a,b,o\n")
    call = {
        "csts": lambda: read_split_file(path),
        "operator": lambda: load_operator_table(path, "overlap"),
        "plain": lambda: read_table(path),
    }[loader]
    with pytest.raises(DataError, match=rf"file {path}: no rows: the file has a header but no data rows"):
        call()
    assert read_table(path, allow_empty=True).empty


def test_ssm_pool_empty_cluster_is_reported_at_its_row_with_its_value(tmp_path):
    path = tmp_path / "pool.csv"
    path.write_text(POOL)
    with pytest.raises(DataError, match=r"row 3, column 'cluster': expected an integer, got ''"):
        load_pool(path)


def test_too_many_cells_and_jsonl_lines_are_named(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('a,b\nx,y\n"multi\nline",z,extra\n')
    with pytest.raises(DataError, match=r"line 3: 3 cells but the header has 2"):
        read_table(path)
    j = tmp_path / "t.jsonl"
    j.write_text('{"a": 1}\n\n{"a": 2\n')
    with pytest.raises(DataError, match=r"line 3: not a JSON record"):
        read_table(j)


def test_data_errors_carry_the_physical_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('s,label\n"two\nlines",3\n,4\n')
    with pytest.raises(DataError, match=r"row 2, column 's': empty or non-text value nan \(line 4\)"):
        read_table(path, text_columns=["s"])


# ------------------------------------------------------------------------------ vec: files
def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, message",
    [
        ("red 1 2\nblue abc 3\n", r"line 2: field 2 is not a number \(a word and 2 numbers expected\)"),
        ("red 1 2\nblue 1\ngreen 1 2\n", r"line 2: 1 numbers, expected 2"),
        ("red 1 2\nlonely\n", r"line 2: a word and its numbers expected, got one field without spaces"),
        ("red 1 2\nblue nan 3\n", r"line 2: a non-finite component \(nan, inf, or beyond float32.s range\)"),
        ("red 1 inf\n", r"line 1: a non-finite component \(nan, inf, or beyond float32.s range\)"),
        ("3 2\nred 1 2\nblue 3 4\n", r"line 1: the header announces 3 vectors, the file holds 2"),
        ("", r"no word vectors found"),
    ],
)
def test_vec_text_defects_name_file_and_line(tmp_path, text, message):
    path = _write(tmp_path, "w.txt", text)
    with pytest.raises(DataError, match=rf"file {path}: {message}"):
        read_word_vectors(path)


def test_vec_duplicate_words_are_reported_and_the_first_kept(tmp_path):
    path = _write(tmp_path, "w.txt", "red 1 2\nblue 3 4\nred 5 6\n")
    with pytest.warns(DuplicateWordWarning, match=r"1 duplicate word, .*'red' at line 3 \(first at line 1\)"):
        words, M = read_word_vectors(path)
    assert M[words["red"]].tolist() == [1.0, 2.0]


def test_vec_binary_defects(tmp_path):
    empty = tmp_path / "e.bin"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match=rf"file {empty}: line 1: .*the file is empty"):
        read_word_vectors(empty)
    nan = tmp_path / "n.bin"
    nan.write_bytes(b"2 2\nred " + struct.pack("<2f", 1, 2) + b"\nblue " + struct.pack("<2f", np.nan, 1) + b"\n")
    with pytest.raises(DataError, match=r"vector 2 has a non-finite component"):
        read_word_vectors(nan)
    short = tmp_path / "s.bin"
    short.write_bytes(b"3 2\nred " + struct.pack("<2f", 1, 2))
    with pytest.raises(DataError, match=r"line 1: the header announces 3 vectors of 2 numbers, more than the 12 bytes"):
        read_word_vectors(short)
    cut = tmp_path / "c.bin"  # the header fits the file's size, but the second vector is cut
    cut.write_bytes(b"2 2\nred " + struct.pack("<2f", 1, 2) + b"\naveryveryverylongword " + struct.pack("<f", 1))
    with pytest.raises(DataError, match=r"truncated after 1 of the 2 vectors"):
        read_word_vectors(cut)
    good = tmp_path / "g.bin"
    good.write_bytes(b"2 2\nred " + struct.pack("<2f", 1, 2) + b"\nred " + struct.pack("<2f", 3, 4) + b"\n")
    with pytest.warns(DuplicateWordWarning, match="'red' at vector 2"):
        words, M = read_word_vectors(good)
    assert M[words["red"]].tolist() == [1.0, 2.0] and pd.notna(M).all()
