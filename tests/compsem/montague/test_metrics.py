"""Tests of compsem.montague.metrics: Eq. 3/5/7 on hand-made distances, the two readings' rules."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from compsem.errors import DataError
from tests.compsem.montague.toy import cosd, fake_embed, small_vocab, unit
from tests.helpers.fake_encoders import seeded_embed_fn


def test_bad_options():
    with pytest.raises(ValueError, match="unknown distance"):
        mt.metrics.pairwise_distance(np.ones((2, 2)), np.ones((2, 2)), "manhattan")
    with pytest.raises(ValueError, match="unknown phrase set"):
        mt.study.embed_phrases(mt.data.build_phrases(small_vocab()), "x", sets=("ANN",), embed_fn=seeded_embed_fn())
    with pytest.raises(ValueError, match="at least 2 adjectives"):
        mt.metrics.pair_intersectivity(np.zeros((1, 3, 3)))


def test_pairwise_distance_by_hand():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    Y = np.array([[0.0, 2.0], [3.0, 0.0]])
    D = mt.metrics.pairwise_distance(X, Y, "cos")
    assert D[0] == pytest.approx([1.0, 0.0])
    assert D[1] == pytest.approx([1 - 1 / math.sqrt(2)] * 2)
    assert np.isnan(D[2]).all()  # zero vector: undefined, not 0
    L = mt.metrics.pairwise_distance(X, Y, "l2")
    assert L[0] == pytest.approx([math.sqrt(5), 2.0])
    assert L[2] == pytest.approx([2.0, 3.0])
    # chunked path gives the same answer
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((50, 4))
    assert np.allclose(
        mt.metrics.pairwise_distance(Z, Z[:7], chunk=8), mt.metrics.pairwise_distance(Z, Z[:7], chunk=4096)
    )
    with pytest.raises(ValueError, match="2-d"):
        mt.metrics.pairwise_distance(Z[None], Z)


def test_single_intersectivity_an_by_hand():
    # words: 0 = adjective a = (1, 0), 1 = noun n = (0, 1); d(a, n) = 1 (cosine distance)
    W = np.array([[1.0, 0.0], [0.0, 1.0]])
    P = np.array(
        [
            [1.0, 1.0],  # halfway: d = 0.29 to both < 1          -> holds
            [1.0, 0.0],  # = a: d(p,a) = 0, d(p,n) = 1 <= 1 (tie)  -> holds
            [-1.0, 0.0],  # opposite a: d(p,a) = 2 > 1              -> fails
            [1.0, -0.2],
        ]
    )  # d(p,n) = 1.196 > 1                      -> fails
    D_pw = mt.metrics.pairwise_distance(P, W)
    D_ww = mt.metrics.pairwise_distance(W, W)
    terms = np.array([[0, 1]] * 4)
    assert mt.metrics.single_intersectivity(D_pw, D_ww, terms).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_single_intersectivity_aan_by_hand():
    # three words with known pairwise distances; h = 3: max of 3 phrase-word distances
    # must be <= min of the 3 word-word distances
    D_ww = np.array([[0.0, 0.8, 0.9], [0.8, 0.0, 0.6], [0.9, 0.6, 0.0]])
    D_pw = np.array(
        [
            [0.5, 0.5, 0.6],  # max 0.6 <= min 0.6            -> holds
            [0.5, 0.5, 0.61],  # 0.61 > 0.6                     -> fails
            [0.1, np.nan, 0.1],
        ]
    )  # undefined                      -> NaN
    out = mt.metrics.single_intersectivity(D_pw, D_ww, np.array([[0, 1, 2]] * 3))
    assert out[:2].tolist() == [1.0, 0.0] and np.isnan(out[2])


def test_single_intersectivity_share_mode_by_hand():
    D_ww = np.array([[0.0, 0.8, 0.9], [0.8, 0.0, 0.6], [0.9, 0.6, 0.0]])
    # phrase-word distances 0.5, 0.7, 0.85 against word pairs 0.8, 0.9, 0.6:
    # 0.5 beats all 3; 0.7 beats 0.8 and 0.9; 0.85 beats 0.9 only -> 6 of 9 inequalities
    D_pw = np.array([[0.5, 0.7, 0.85]])
    terms = np.array([[0, 1, 2]])
    assert mt.metrics.single_intersectivity(D_pw, D_ww, terms, mode="share")[0] == pytest.approx(6 / 9)
    assert mt.metrics.single_intersectivity(D_pw, D_ww, terms, mode="all")[0] == 0.0
    with pytest.raises(ValueError, match="mode"):
        mt.metrics.single_intersectivity(D_pw, D_ww, terms, mode="most")


def test_pair_intersectivity_by_hand():
    # 2 adjectives, 2 nouns: d(a0 n0, a0 n1) = 0.2, d(a1 n0, a1 n1) = 0.5
    d = np.zeros((2, 2, 2))
    d[0, 0, 1] = d[0, 1, 0] = 0.2
    d[1, 0, 1] = d[1, 1, 0] = 0.5
    holds, ties = mt.metrics.pair_intersectivity(d)
    assert holds[0, 1, 0, 1] == 1.0 and holds[0, 1, 1, 0] == 1.0
    assert holds[1, 0, 0, 1] == 0.0 and holds[1, 0, 1, 0] == 0.0
    assert np.isnan(holds[0, 0]).all() and np.isnan(holds[:, :, 0, 0]).all()
    assert np.count_nonzero(~np.isnan(holds)) == 2 * 1 * 2 * 1
    assert not ties.any()
    d[1] = d[0]  # now the two adjectives tie: both orders hold
    holds, ties = mt.metrics.pair_intersectivity(d)
    assert holds[0, 1, 0, 1] == holds[1, 0, 0, 1] == 1.0
    assert ties[0, 1, 0, 1] and not ties[0, 0].any()


def test_pair_intersectivity_combination_count_paper_size():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((61, 12, 5))
    d = mt.metrics.within_adjective_distances(X)
    assert d.shape == (61, 12, 12)
    assert d[7, 2, 5] == pytest.approx(cosd(X[7, 2], X[7, 5]))
    holds, _ = mt.metrics.pair_intersectivity(d)
    assert np.count_nonzero(~np.isnan(holds)) == 61 * 60 * 12 * 11 == 483_120


def test_non_subsectivity_by_hand():
    d_pa = np.array([[0.1, 0.5, 0.3, np.nan]])
    d_pn = np.array([[0.2, 0.4, 0.3, 0.1]])
    out = mt.metrics.non_subsectivity(d_pa, d_pn)
    assert out[0, :3].tolist() == [1.0, 0.0, 1.0] and np.isnan(out[0, 3])


def test_rules_of_the_two_readings_and_labels():
    off, eq = mt.metrics.rules_for("official"), mt.metrics.rules_for("equations")
    assert (off.aan_reference, off.pair_nouns, off.strict, off.per_noun) == ("rest", "higher", True, True)
    assert (eq.aan_reference, eq.pair_nouns, eq.strict, eq.per_noun) == ("words", "all", False, False)
    assert mt.study.reading_label(off) == "official" and mt.study.reading_label("equations") == "equations"
    assert mt.study.reading_label(mt.metrics.rules_for("official", strict=False)) == "official, strict=False"
    with pytest.raises(ValueError, match="unknown reading"):
        mt.metrics.rules_for("literal")
    with pytest.raises(ValueError, match="aan_reference"):
        mt.metrics.rules_for("official", aan_reference="sentence")


def test_pair_nouns_higher_keeps_upper_triangle_only():
    d = np.random.default_rng(0).random((3, 4, 4))
    d = (d + d.transpose(0, 2, 1)) / 2
    holds, _ = mt.metrics.pair_intersectivity(d, nouns="higher", strict=True)
    valid = ~np.isnan(holds)
    assert valid.sum() == 3 * 2 * (4 * 3 // 2)
    assert not valid[:, :, 2, 1].any() and valid[0, 1, 1, 2]
    with pytest.raises(ValueError, match="nouns"):
        mt.metrics.pair_intersectivity(d, nouns="lower")


def test_strict_inequality_fails_ties_in_tests_two_and_ni():
    assert mt.metrics.non_subsectivity([0.3, 0.2], [0.3, 0.3]).tolist() == [1.0, 1.0]
    assert mt.metrics.non_subsectivity([0.3, 0.2], [0.3, 0.3], strict=True).tolist() == [0.0, 1.0]
    d = np.full((2, 2, 2), 0.4)  # every distance ties
    le, _ = mt.metrics.pair_intersectivity(d)
    lt, ties = mt.metrics.pair_intersectivity(d, strict=True)
    assert np.nanmean(le) == 1.0 and np.nanmean(lt) == 0.0 and ties[0, 1, 0, 1]
