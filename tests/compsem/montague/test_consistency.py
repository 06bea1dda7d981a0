"""compsem/montague/consistency.py: the three tests (run_tests) on hand-made vectors, against slow loops."""

from __future__ import annotations

import numpy as np
import pytest

from compsem import montague as mt
from tests.compsem.montague.toy import cosd, fake_embed, small_vocab, unit
from tests.helpers.fake_encoders import seeded_embed_fn


def test_run_tests_on_hand_made_embeddings():
    # two adjectives (S-I "red", S-NI "rare"), two nouns; 2-d vectors chosen by hand
    v = mt.data.Vocabulary(["red", "rare"], ["S-I", "S-NI"], ["dog", "law"])
    ps = mt.data.build_phrases(v)
    vec = {
        "red": [1, 0],
        "rare": [0.6, 0.8],
        "dog": [0, 1],
        "law": [-0.6, 0.8],
        "red dog": [1, 1],
        "red law": [1, 1.2],  # close to each other
        "rare dog": [0.1, 1],
        "rare law": [-0.9, 0.5],  # far apart
        "red rare dog": [1, 1],
        "red rare law": [0, 1],
        "rare red dog": [0.5, 1],
        "rare red law": [0, -1],
        "red rare": [1, 0.5],
        "rare red": [1, 0.4],
    }

    def embed_fn(texts, model):
        return np.array([vec[t] for t in texts], dtype=np.float32)

    res = mt.study.run_tests(mt.study.embed_phrases(ps, "hand", embed_fn=embed_fn), v, ps, reading="equations")
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


def slow_oracle(vocab, embed_fn, tol=mt.metrics.TIE_TOL):
    words = vocab.words
    A, N = vocab.n_adj, vocab.n_noun
    texts = list(words)
    for a in vocab.adjectives:
        for n in vocab.nouns:
            texts.append(mt.data.join_phrase(a, n))
    for a1 in vocab.adjectives:
        for a2 in vocab.adjectives:
            if a1 != a2:
                for n in vocab.nouns:
                    texts.append(mt.data.join_phrase(a1, a2, n))
    E = dict(zip(texts, embed_fn(texts, "m")))
    d = lambda x, y: cosd(E[x], E[y])  # noqa: E731
    single_an = np.zeros((A, N))
    nonsub = np.zeros((A, N))
    for i, a in enumerate(vocab.adjectives):
        for j, n in enumerate(vocab.nouns):
            p = mt.data.join_phrase(a, n)
            single_an[i, j] = max(d(p, a), d(p, n)) <= d(a, n) + tol
            nonsub[i, j] = d(p, a) <= d(p, n) + tol
    single_aan = np.full((A, A, N), np.nan)
    for i, a1 in enumerate(vocab.adjectives):
        for k, a2 in enumerate(vocab.adjectives):
            if i == k:
                continue
            for j, n in enumerate(vocab.nouns):
                p = mt.data.join_phrase(a1, a2, n)
                ts = [a1, a2, n]
                single_aan[i, k, j] = max(d(p, t) for t in ts) <= min(d(a1, a2), d(a1, n), d(a2, n)) + tol
    pairs = np.full((A, A, N, N), np.nan)
    for i, a1 in enumerate(vocab.adjectives):
        for k, a2 in enumerate(vocab.adjectives):
            if i == k:
                continue
            for j, n1 in enumerate(vocab.nouns):
                for m, n2 in enumerate(vocab.nouns):
                    if j == m:
                        continue
                    pairs[i, k, j, m] = (
                        d(mt.data.join_phrase(a1, n1), mt.data.join_phrase(a1, n2))
                        <= d(mt.data.join_phrase(a2, n1), mt.data.join_phrase(a2, n2)) + tol
                    )
    return single_an, single_aan, pairs, nonsub


def test_vectorised_matches_slow_loop_on_subset():
    v = small_vocab()
    fe = seeded_embed_fn(dim=6, seed=3)
    ps = mt.data.build_phrases(v, strings="clean")
    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", embed_fn=fe), v, ps, reading="equations")
    s_an, s_aan, pairs, nonsub = slow_oracle(v, fe)
    np.testing.assert_array_equal(res.single_an, s_an)
    np.testing.assert_array_equal(res.nonsub, nonsub)
    np.testing.assert_array_equal(res.single_aan, s_aan)
    np.testing.assert_array_equal(res.pairs, pairs)
    # the class tables agree with plain means over the oracle's arrays
    t = mt.tables.an_table(res, "nonsub", n_boot=50)
    for c in mt.data.CATEGORIES:
        rows = [i for i, k in enumerate(v.categories) if k == c]
        assert t.set_index("category").loc[c, "consistency"] == pytest.approx(nonsub[rows].mean())
    tp = mt.tables.pair_table(res, n_boot=50).set_index(["type1", "type2"])
    for c1 in mt.data.CATEGORIES:
        for c2 in mt.data.CATEGORIES:
            r1 = [i for i, k in enumerate(v.categories) if k == c1]
            r2 = [i for i, k in enumerate(v.categories) if k == c2]
            assert tp.loc[(c1, c2), "consistency"] == pytest.approx(np.nanmean(pairs[np.ix_(r1, r2)]))
    ta = mt.tables.aan_table(res, n_boot=50).set_index(["type1", "type2"])
    assert ta.loc[("S-I", "A"), "n"] == 2 * 2 * 4
    assert ta.loc[("S-I", "S-I"), "n"] == 2 * 1 * 4


def test_degenerate_embedding_is_counted_not_failed():
    v = mt.data.Vocabulary(["a", "b"], ["S-I", "NS-Pr"], ["x", "y"])
    ps = mt.data.build_phrases(v)

    def emb(texts, model):
        out = seeded_embed_fn(dim=4)(texts, model)
        out[[t == "b" for t in texts]] = 0.0  # like a stop-word adjective under bag of words
        return out

    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", embed_fn=emb), v, ps)
    assert res.nan_embeddings["words"] == 1
    assert np.isnan(res.nonsub[1]).all() and not np.isnan(res.nonsub[0]).any()
    t = mt.tables.an_table(res, "nonsub", n_boot=20).set_index("category")
    assert t.loc["NS-Pr", "n"] == 0 and t.loc["NS-Pr", "n_nan"] == 2
    assert np.isnan(t.loc["NS-Pr", "consistency"])


def test_aan_rest_of_phrase_against_word_pairs_by_hand():
    # unit vectors at angles: a = 0°, b = 10°, n = 90°. The phrase "a b n" at 45° is 0.293 from a and
    # n and 0.181 from b. Eq. 3 needs this to stay below d(a, b) = 1 - cos 10° = 0.015: it fails.
    # The authors' code compares with d(a, "b n"), d(b, "a n"), d(n, "a b"); the sub-phrases are put
    # at 170°, -100° and -90°, so those distances are 1.985, 1.342 and 2.0: it holds.
    v = mt.data.Vocabulary(["a", "b"], ["S-I", "NS-Pr"], ["n", "m"])
    ps = mt.data.build_phrases(v)
    vec = {
        "a": unit(0),
        "b": unit(10),
        "n": unit(90),
        "m": unit(200),
        "a b n": unit(45),
        "b n": unit(170),
        "a n": unit(-100),
        "a b": unit(-90),
    }
    # the other texts do not enter the cell checked below
    rest = fake_embed(dim=2, seed=1)

    def embed_fn(texts, model):
        return np.array([vec[t] if t in vec else rest([t], model)[0] for t in texts], dtype=np.float32)

    emb = mt.study.embed_phrases(ps, "hand", embed_fn=embed_fn)
    official = mt.study.run_tests(emb, v, ps, reading="official")
    equations = mt.study.run_tests(emb, v, ps, reading="equations")
    assert official.single_aan[0, 1, 0] == 1.0
    assert equations.single_aan[0, 1, 0] == 0.0
    # the same with the rest-of-phrase rule switched alone
    assert (
        mt.study.run_tests(emb, v, ps, reading=mt.metrics.rules_for("official", aan_reference="words")).single_aan[
            0, 1, 0
        ]
        == 0.0
    )
    # and closer_than_all on the hand distances themselves
    near = [[cosd(unit(45), unit(0)), cosd(unit(45), unit(10)), cosd(unit(45), unit(90))]]
    assert mt.metrics.closer_than_all(near, [[cosd(unit(0), unit(170)), cosd(unit(10), unit(-100)), 2.0]])[0] == 1.0
    assert mt.metrics.closer_than_all(near, [[cosd(unit(0), unit(10)), 1.0, 1.0]])[0] == 0.0


def test_official_aan_matches_a_slow_loop():
    v = small_vocab(3)
    ps = mt.data.build_phrases(v)
    fe = fake_embed(seed=4)
    res = mt.study.run_tests(mt.study.embed_phrases(ps, "m", embed_fn=fe), v, ps)
    texts = [*ps.words, *ps.an.ravel(), *ps.aan, *ps.aa]
    E = dict(zip(texts, fe(texts, "m")))
    w = dict(zip(v.words, ps.words))  # vocabulary word -> its official text
    for i, a1 in enumerate(v.adjectives):
        for k, a2 in enumerate(v.adjectives):
            if i == k:
                continue
            for j, n in enumerate(v.nouns):
                p = mt.data.join_phrase(a1, a2, n, strings="official")
                near = [cosd(E[p], E[w[t]]) for t in (a1, a2, n)]
                far = [
                    cosd(E[w[a1]], E[mt.data.join_phrase(a2, n, strings="official")]),
                    cosd(E[w[a2]], E[mt.data.join_phrase(a1, n, strings="official")]),
                    cosd(E[w[n]], E[mt.data.join_phrase(a1, a2, strings="official")]),
                ]
                assert res.single_aan[i, k, j] == float(all(x <= y + mt.metrics.TIE_TOL for x in near for y in far))


def test_nonsub_ties_are_where_both_distances_are_equal():
    # "red dog" exactly between red and dog; "red law" nearer red
    v = mt.data.Vocabulary(["red", "old"], ["S-I", "A"], ["dog", "law"])
    ps = mt.data.build_phrases(v)
    vec = {
        "red": unit(0),
        "old": unit(200),
        "dog": unit(90),
        "law": unit(120),
        "red dog": unit(45),
        "red law": unit(10),
        "old dog": unit(150),
        "old law": unit(170),
    }
    emb = mt.study.embed_phrases(ps, "hand", sets=("AN",), embed_fn=lambda t, m: np.array([vec[x] for x in t]))
    res = mt.study.run_tests(emb, v, ps)
    # red dog: 45 degrees from both words (a tie); old law: 30 from old, 50 from law; old dog: 50 and 60
    assert res.nonsub_ties.tolist() == [[True, False], [False, False]]
    assert res.nonsub.tolist() == [[0.0, 1.0], [1.0, 1.0]]  # official: the tie fails under "<"
