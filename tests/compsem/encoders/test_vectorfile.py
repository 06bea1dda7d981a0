"""compsem/encoders/vectorfile.py: GloVe text, word2vec text and word2vec binary files read
into (word -> row, matrix); the defects each one names are in tests/compsem/security/test_loaders.py."""

import numpy as np
import pytest

from compsem.encoders.vectorfile import DuplicateWordWarning, read_word_vectors
from compsem.errors import DataError


def test_glove_text_without_a_header(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("red 1 0 0.5\ncar 0 2 -1\n\n", encoding="utf-8")
    words, M = read_word_vectors(path)
    assert words == {"red": 0, "car": 1} and M.dtype == np.float32
    np.testing.assert_array_equal(M, np.array([[1, 0, 0.5], [0, 2, -1]], dtype=np.float32))


def test_word2vec_text_header_must_count_the_rows(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("2 2\nred 1 2\ncar 3 4\n")
    assert read_word_vectors(path)[1].tolist() == [[1, 2], [3, 4]]
    path.write_text("3 2\nred 1 2\ncar 3 4\n")
    with pytest.raises(DataError, match="announces 3 vectors, the file holds 2"):
        read_word_vectors(path)


def test_word2vec_binary_little_endian_float32(tmp_path):
    path = tmp_path / "w.bin"
    vecs = np.array([[1.5, -2.0], [0.25, 8.0]], dtype="<f4")
    path.write_bytes(b"2 2\n" + b"red " + vecs[0].tobytes() + b"\ncar " + vecs[1].tobytes())
    words, M = read_word_vectors(path)
    assert words == {"red": 0, "car": 1}
    np.testing.assert_array_equal(M, vecs)
    path.write_bytes(b"2 2\nred " + vecs[0].tobytes())  # 12 bytes cannot hold 2 x (2 x 4)
    with pytest.raises(DataError, match="more than the 12 bytes after it can hold"):
        read_word_vectors(path)
    path.write_bytes(b"2 2\nred " + vecs[0].tobytes() + b"\ncarcarcarcar")  # enough bytes, no 2nd vector
    with pytest.raises(DataError, match="truncated after 1 of the 2 vectors"):
        read_word_vectors(path)


def test_a_duplicate_word_keeps_its_first_vector_and_is_named(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("red 1 0\ncar 0 1\nred 5 5\n")
    with pytest.warns(
        DuplicateWordWarning,
        match="1 duplicate word, the first vector of each is used: 'red' at line 3 "
        r"\(first at line 1\)",
    ):
        words, M = read_word_vectors(path)
    assert M[words["red"]].tolist() == [1, 0]
