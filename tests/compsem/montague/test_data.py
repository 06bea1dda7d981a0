"""Tests of compsem.montague.data: the adjective classes, the word lists (read through compsem.data.read_table) and the generated phrases."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from compsem.errors import DataError
from tests.compsem.montague.toy import cosd, fake_embed, small_vocab, unit
from tests.helpers.fake_encoders import seeded_embed_fn


def test_shipped_vocabulary_and_phrase_count():
    v = mt.data.load_vocabulary()
    assert v.n_adj == 61 and v.n_noun == 12
    counts = dict(zip(v.counts().category, v.counts().n_adjectives))
    assert counts == {"S-I": 11, "S-NI": 6, "NS-Pl": 27, "NS-Pr": 14, "A": 3}
    ps = mt.data.build_phrases(v)
    assert ps.an.size == 732
    assert ps.aan.size == 43_920
    assert len(ps) == mt.data.PAPER_PHRASE_COUNT == 44_652
    f = ps.frame()
    assert f.phrase.is_unique and len(f) == 44_652
    assert (f.adj1 != f.adj2).all()
    assert (f.kind == "AN").sum() == 732


def test_join_phrase_handles_the_ex_prefix():
    assert mt.data.join_phrase("red", "dog") == "red dog"
    assert mt.data.join_phrase("ex-", "king") == "ex-king"
    assert mt.data.join_phrase("red", "ex-", "king") == "red ex-king"
    assert mt.data.join_phrase("ex-", "red", "king") == "ex-red king"
    ps = mt.data.build_phrases(mt.data.load_vocabulary(), strings="clean")
    assert "ex-king" in set(ps.an.ravel())
    assert "so-called disputed law" in set(ps.aan)
    assert "Canadian occurrence" in set(ps.an.ravel()) and "ex-red" in set(ps.aa)


def test_official_strings_follow_the_authors_data():
    assert mt.data.join_phrase("Canadian", "ex-", "occurrence", strings="official") == "canadian ex- occurence"
    assert mt.data.word_text("Canadian", strings="official") == "canadian"
    ps = mt.data.build_phrases(mt.data.load_vocabulary())  # official strings are the default
    assert ps.strings == "official"
    assert {"ex- king", "red ex- king", "ex- red king", "canadian occurence"} <= set(ps.an.ravel()) | set(ps.aan)
    assert "canadian" in ps.words and "occurence" in ps.words and "Canadian" not in ps.words
    with pytest.raises(ValueError, match="unknown strings"):
        mt.data.build_phrases(mt.data.load_vocabulary(), strings="fancy")


def test_aa_subphrases_are_every_ordered_pair():
    ps = mt.data.build_phrases(mt.data.load_vocabulary())
    assert len(ps.aa) == len(set(ps.aa)) == 61 * 60 == 3_660
    assert (ps.aa_a1 != ps.aa_a2).all()
    k = list(ps.aa).index("red wild")
    assert (ps.aa_a1[k], ps.aa_a2[k]) == (1, 0)


def test_expected_phrase_count_formula():
    assert mt.data.expected_phrase_count(61, 12) == 44_652
    v = mt.data.Vocabulary(["a1", "a2", "a3"], ["S-I", "A", "S-I"], ["n1", "n2"])
    ps = mt.data.build_phrases(v)
    assert len(ps) == 3 * 2 + 3 * 2 * 2 == mt.data.expected_phrase_count(3, 2)
    # AAN index arrays point at the right words
    k = list(ps.aan).index("a3 a1 n2")
    assert (ps.aan_a1[k], ps.aan_a2[k], ps.aan_n[k]) == (2, 0, 1)


def test_unknown_category_is_rejected():
    with pytest.raises(DataError, match="unknown category 'X-Y'"):
        mt.data.Vocabulary(["red"], ["X-Y"], ["dog"])


def test_unknown_category_in_csv_names_file_row_and_column(tmp_path):
    a = tmp_path / "adj.csv"
    a.write_text("adjective,category\nred,S-I\nfake,privative\n")
    n = tmp_path / "nouns.csv"
    n.write_text("noun\ndog\n")
    # rows are the data rows, numbered as compsem.data.read_table numbers them (header not counted)
    with pytest.raises(DataError, match=r"adj\.csv.*row 2.*column 'category'.*unknown category"):
        mt.data.load_vocabulary(a, n)


@pytest.mark.parametrize(
    "adjs,cats,nouns,msg",
    [
        ([], [], ["dog"], "no adjectives"),
        (["red"], ["S-I"], [], "no nouns"),
        (["red", "red"], ["S-I", "S-I"], ["dog"], "duplicate"),
        (["red", " "], ["S-I", "S-I"], ["dog"], "empty adjective"),
        (["red"], ["S-I", "A"], ["dog"], "1 adjectives but 2 categories"),
    ],
)
def test_empty_or_malformed_vocabulary(adjs, cats, nouns, msg):
    with pytest.raises(DataError, match=msg):
        mt.data.Vocabulary(adjs, cats, nouns)


def test_empty_or_malformed_csv(tmp_path):
    n = tmp_path / "nouns.csv"
    n.write_text("noun\ndog\n")
    empty = tmp_path / "empty.csv"
    empty.write_text("adjective,category\n")
    with pytest.raises(DataError, match=r"empty\.csv.*header but no data rows"):
        mt.data.load_vocabulary(empty, n)
    nocol = tmp_path / "nocol.csv"
    nocol.write_text("adjective,kind\nred,S-I\n")
    with pytest.raises(DataError, match="column 'category'"):
        mt.data.load_vocabulary(nocol, n)
    blank = tmp_path / "blank.csv"
    blank.write_text("adjective,category\nred,S-I\n,S-I\n")
    with pytest.raises(DataError, match=r"blank\.csv.*row 2.*column 'adjective'"):
        mt.data.load_vocabulary(blank, n)
