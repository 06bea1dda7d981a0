"""The offline lexical-coverage scorer of Part IV, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.errors import EmptyTextError
from compsem.ssm.lexical import LexicalCoverage, content_words, stem


def test_content_words_and_stemmer():
    assert content_words("The dogs didn't bark at the cats.") == {"dog", "not", "bark", "cat"}
    assert content_words("Boxes, churches and parties!") == {"box", "church", "party"}
    assert [stem(w) for w in ("glasses", "walked", "running", "bus")] == ["glass", "walk", "runn", "bus"]


def test_lexical_coverage_by_hand():
    texts = ["the red cat sleeps", "a cat sleeps", "the dog barks loudly"]
    # content words: {red, cat, sleep}, {cat, sleep}, {dog, bark, loudly}
    expected = np.array([[1, 1, 0], [2 / 3, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(LexicalCoverage().score(texts), expected)


def test_lexical_coverage_duplicates_get_the_same_rows():
    R = LexicalCoverage().score(["a cat sleeps", "the red cat sleeps", "a cat sleeps"])
    np.testing.assert_array_equal(R[0], R[2])
    np.testing.assert_array_equal(R[:, 0], R[:, 2])


def test_lexical_coverage_empty_hypothesis_is_nan_and_warned():
    with pytest.warns(RuntimeWarning, match="no content words"):
        R = LexicalCoverage().score(["the cat sleeps", "it is what it is"])
    assert np.isnan(R[:, 1]).all() and not np.isnan(R[:, 0]).any()


def test_empty_text_is_an_error():
    with pytest.raises(EmptyTextError, match="empty text") as err:
        LexicalCoverage().score(["a cat", "  "])
    assert err.value.row == 1
    with pytest.raises(ValueError, match="no texts"):
        LexicalCoverage().score([])
