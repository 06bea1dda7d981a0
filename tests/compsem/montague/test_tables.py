"""Tests of compsem.montague.tables: consistency tables, the 0.5 diagonal, intervals, the class tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from tests.compsem.montague.toy import cosd, fake_embed, small_vocab
from tests.helpers.fake_encoders import seeded_embed_fn


def test_same_type_cells_are_one_half_without_ties():
    v = small_vocab()
    ps = mt.data.build_phrases(v)
    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", sets=("AN",), embed_fn=seeded_embed_fn(seed=7)), v, ps)
    t = mt.tables.pair_table(res, n_boot=20)
    same = t[t.type1 == t.type2]
    assert len(same) == 5
    assert (same.consistency == 0.5).all()
    assert (same.tie_rate == 0).all()
    # and off-diagonal cells mirror each other: c(t1, t2) + c(t2, t1) = 1
    m = mt.tables.as_matrix(t)
    np.testing.assert_allclose(m.values + m.values.T, 1.0)


def test_ties_lift_the_diagonal_above_one_half():
    # bag-of-words-like vectors: every adjective gives the same d(a n1, a n2) -> all ties
    v = mt.data.Vocabulary(["a", "b", "c"], ["S-I", "S-I", "A"], ["x", "y", "z"])
    ps = mt.data.build_phrases(v)

    def onehot_sum(texts, model):
        vocab = ["a", "b", "c", "x", "y", "z"]
        return np.array([[float(w in t.split()) for w in vocab] for t in texts], dtype=np.float32)

    res = mt.study.run_tests(
        mt.study.embed_phrases(ps, "bow", sets=("AN",), embed_fn=onehot_sum), v, ps, reading="equations"
    )
    t = mt.tables.pair_table(res, n_boot=20)
    # (A, A) has a single adjective, hence no pair: an empty cell, NaN, with n = 0
    empty = (t.type1 == "A") & (t.type2 == "A")
    assert t[empty].n.item() == 0 and np.isnan(t[empty].consistency.item())
    assert (t[~empty].consistency == 1.0).all() and (t[~empty].tie_rate == 1.0).all()
    # the official reading counts with a strict <: a tie fails both ways
    off = mt.tables.pair_table(
        mt.study.run_tests(mt.study.embed_phrases(ps, "bow", sets=("AN",), embed_fn=onehot_sum), v, ps), n_boot=20
    )
    assert (off[~empty].consistency == 0.0).all() and (off[~empty].tie_rate == 1.0).all()


def test_bootstrap_ci_is_seeded_and_brackets_the_estimate():
    v = small_vocab()
    ps = mt.data.build_phrases(v)
    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", sets=("AN",), embed_fn=seeded_embed_fn(seed=2)), v, ps)
    t1 = mt.tables.an_table(res, "nonsub", n_boot=200, seed=5)
    t2 = mt.tables.an_table(res, "nonsub", n_boot=200, seed=5)
    pd.testing.assert_frame_equal(t1, t2)
    assert ((t1.ci_low <= t1.consistency + 1e-12) & (t1.consistency <= t1.ci_high + 1e-12)).all()


def test_permutation_test_separates_clear_groups_and_not_identical_ones():
    groups = np.repeat([0, 1, 2], 8)
    clear = np.concatenate([np.full(8, 0.1), np.full(8, 0.5), np.full(8, 0.9)])
    r = mt.tables.permutation_test(clear, groups, n_perm=2000, seed=0)
    assert r["p_value"] < 0.01
    # every unit the same score: no relabelling changes anything, so the test is undefined, not p = 1
    same = mt.tables.permutation_test(np.full(24, 0.5), groups, n_perm=500, seed=0)
    assert np.isnan(same["p_value"]) and same["note"] == "undefined: every unit has the same score"
    one = mt.tables.permutation_test(np.array([0.1, 0.2, 0.3]), np.array([0, 0, 0]), n_perm=10)
    assert np.isnan(one["p_value"]) and one["note"].startswith("undefined")
    # the statistic by hand: between-group sum of squares
    assert r["statistic"] == pytest.approx(8 * (0.4**2 + 0 + 0.4**2))
    nan = mt.tables.permutation_test(np.array([0.1, np.nan, 0.9, 0.8]), np.array([0, 0, 1, 1]), n_perm=10)
    assert nan["n_dropped"] == 1 and nan["n_units"] == 3


def test_category_difference_tests_selects_tests():
    v = small_vocab()
    ps = mt.data.build_phrases(v)
    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", sets=("AN",), embed_fn=seeded_embed_fn()), v, ps)
    t = mt.tables.category_difference_tests(res, n_perm=50)
    assert list(t.test) == ["single_AN", "pairs", "nonsub"]  # no AAN was run
    assert list(mt.tables.category_difference_tests(res, tests=["nonsub"], n_perm=50).test) == ["nonsub"]
    with pytest.raises(ValueError, match="unknown test"):
        mt.tables.category_difference_tests(res, tests=["nonsense"])


def test_chi2_test_by_hand_and_undefined_case():
    from scipy.stats import chi2_contingency

    v = mt.data.Vocabulary(["a", "b", "c"], ["S-I", "S-I", "A"], ["x", "y"])
    holds = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    r = mt.tables.chi2_test(holds, v)
    expected = chi2_contingency(np.array([[3, 1], [0, 2]]))
    assert r["statistic"] == pytest.approx(expected[0]) and r["dof"] == 1
    # expected counts 1.5 to 2.5 (below 5): the exact test, not χ². Rows 4 and 2, a first column of 3:
    # the first-row counts 1, 2, 3 have C(4, a) C(2, 3 − a) / C(6, 3) = 4, 12, 4 of 20; the observed 3: 8/20
    assert r["exact"] and "exact test" in r["note"] and r["p_value"] == pytest.approx(0.4)
    assert r["p_value"] != pytest.approx(expected[1])
    allones = mt.tables.chi2_test(np.ones((3, 2)), v)
    assert np.isnan(allones["p_value"]) and allones["note"] == "undefined: one outcome never occurs"
    # a class with no valid entry takes no part: one class left, the test is undefined (no p-value)
    one_class = mt.tables.chi2_test(np.array([[1.0, 0.0], [1.0, 1.0], [np.nan, np.nan]]), v)
    assert np.isnan(one_class["p_value"]) and one_class["note"] == "undefined: a single class"
    both = mt.tables.chi2_test(np.array([[1.0, 1.0], [1.0, 1.0], [np.nan, np.nan]]), v)
    assert both["note"] == "undefined: one outcome never occurs and a single class"


def test_score_spread_by_hand():
    v = mt.data.Vocabulary(["a", "b", "c", "d"], ["S-I", "S-I", "A", "A"], ["x"])
    sp = mt.tables.score_spread(np.array([0.2, 0.4, 0.9, np.nan]), v)
    assert sp["class_means"]["S-I"] == pytest.approx(0.3)
    assert sp["class_means"]["A"] == pytest.approx(0.9)
    assert np.isnan(sp["class_means"]["NS-Pr"])
    # residuals 0.1 and -0.1 (c alone in its class): sqrt(0.02 / (3 - 2))
    assert sp["within_sd"] == pytest.approx(math.sqrt(0.02))
    assert sp["between_sd"] == pytest.approx(np.std([0.3, 0.9], ddof=1))


def test_official_pair_cells_are_means_of_per_noun_means_slow_loop():
    v = small_vocab(5)
    ps = mt.data.build_phrases(v)
    fe = fake_embed(seed=9)
    emb = mt.study.embed_phrases(ps, "m", sets=("AN",), embed_fn=fe)
    official = mt.tables.pair_table(mt.study.run_tests(emb, v, ps), n_boot=10).set_index(["type1", "type2"])
    uniform = mt.tables.pair_table(
        mt.study.run_tests(emb, v, ps, reading=mt.metrics.rules_for("official", pair_nouns="all")), n_boot=10
    ).set_index(["type1", "type2"])
    E = dict(zip(ps.an.ravel(), fe(list(ps.an.ravel()), "m")))
    A, N = v.n_adj, v.n_noun
    n_differ = 0
    for c1 in mt.data.CATEGORIES:
        for c2 in mt.data.CATEGORIES:
            per_noun = []
            for n1 in range(N - 1):  # the last noun has no partner
                hits = []
                for n2 in range(n1 + 1, N):
                    for a1 in range(A):
                        for a2 in range(A):
                            if a1 != a2 and v.categories[a1] == c1 and v.categories[a2] == c2:
                                left = cosd(E[ps.an[a1, n1]], E[ps.an[a1, n2]])
                                right = cosd(E[ps.an[a2, n1]], E[ps.an[a2, n2]])
                                hits.append(left < right)
                per_noun.append(np.mean(hits))
            assert official.loc[(c1, c2), "consistency"] == pytest.approx(np.mean(per_noun), abs=1e-12)
            n_differ += abs(official.loc[(c1, c2), "consistency"] - uniform.loc[(c1, c2), "consistency"]) > 1e-9
    assert n_differ > 0  # the weighting is not a no-op here


def test_every_table_carries_reading_and_strings():
    v = small_vocab()
    ps = mt.data.build_phrases(v, strings="clean")
    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", embed_fn=fake_embed()), v, ps, reading="equations")
    for t in (
        mt.tables.an_table(res, n_boot=5),
        mt.tables.aan_table(res, n_boot=5),
        mt.tables.pair_table(res, n_boot=5),
        mt.tables.an_table(res, "nonsub", n_boot=5),
        mt.tables.category_difference_tests(res, n_perm=20),
    ):
        assert list(t.columns[:3]) == ["model", "reading", "test"]
        assert set(t.reading) == {"equations"}
    assert set(mt.tables.an_table(res, n_boot=5).strings) == {"clean"}


def test_class_gap_weights_cells_by_phrase_count():
    import pandas as pd
    from compsem import montague as mt

    ns = pd.DataFrame(
        {
            "model": ["m"] * 4,
            "category": ["S-I", "S-NI", "NS-Pl", "NS-Pr"],
            "consistency": [0.2, 0.5, 0.9, 0.6],
            "n": [3, 1, 1, 2],
        }
    )
    g = mt.tables.class_gap(ns, ["m"]).loc["m"]
    # by hand: subsective (0.2*3 + 0.5*1)/4 = 0.275; non-subsective (0.9*1 + 0.6*2)/3 = 0.7
    assert g.iloc[0] == pytest.approx(0.275) and g.iloc[1] == pytest.approx(0.7)
    assert g.iloc[2] == pytest.approx(0.425)


def test_a_row_whose_two_tests_are_undefined_says_undefined_once():
    from compsem.montague.tables import _notes

    assert _notes("undefined: every adjective has the same score", "undefined: one outcome never occurs") == (
        "undefined: every adjective has the same score; one outcome never occurs"
    )
    assert _notes("", "exact test (an expected count below 5)") == "exact test (an expected count below 5)"
    assert _notes("", "") == ""
