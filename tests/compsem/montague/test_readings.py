"""The two readings of Part III's tests: the authors' code ("official") against the printed
equations, rule by rule on hand-made embeddings, the per-noun weighting against a slow loop,
the AA sub-phrases, and (slow) the paper's MiniLM tables re-derived from the shipped model."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from tests.helpers.fake_encoders import seeded_embed_fn


def unit(deg: float) -> list[float]:
    """A unit vector at ``deg`` degrees: cosine distance between two of them is 1 - cos(Δ)."""
    return [math.cos(math.radians(deg)), math.sin(math.radians(deg))]


def cosd(u, v) -> float:
    u, v = np.asarray(u, float), np.asarray(v, float)
    return 1.0 - float(u @ v) / math.sqrt(float(u @ u) * float(v @ v))


def fake_embed(dim: int = 6, seed: int = 0):
    return seeded_embed_fn(dim=dim, seed=seed)


def small_vocab(n_nouns: int = 4) -> mt.Vocabulary:
    full = mt.load_vocabulary()
    pick = [i for c in mt.CATEGORIES for i in [j for j, k in enumerate(full.categories) if k == c][:2]]
    return mt.Vocabulary([full.adjectives[i] for i in pick], [full.categories[i] for i in pick],
                         list(full.nouns[:n_nouns]))


# ------------------------------------------------------------------ rules
def test_rules_of_the_two_readings_and_labels():
    off, eq = mt.rules_for("official"), mt.rules_for("equations")
    assert (off.aan_reference, off.pair_nouns, off.strict, off.per_noun) == ("rest", "higher", True, True)
    assert (eq.aan_reference, eq.pair_nouns, eq.strict, eq.per_noun) == ("words", "all", False, False)
    assert mt.reading_label(off) == "official" and mt.reading_label("equations") == "equations"
    assert mt.reading_label(mt.rules_for("official", strict=False)) == "official, strict=False"
    with pytest.raises(ValueError, match="unknown reading"):
        mt.rules_for("literal")
    with pytest.raises(ValueError, match="aan_reference"):
        mt.rules_for("official", aan_reference="sentence")


# ------------------------------------------------------------------ test I on an AAN phrase, by hand
def test_aan_rest_of_phrase_against_word_pairs_by_hand():
    # unit vectors at angles: a = 0°, b = 10°, n = 90°. The phrase "a b n" at 45° is 0.293 from a and
    # n and 0.181 from b. Eq. 3 needs this to stay below d(a, b) = 1 - cos 10° = 0.015: it fails.
    # The authors' code compares with d(a, "b n"), d(b, "a n"), d(n, "a b"); the sub-phrases are put
    # at 170°, -100° and -90°, so those distances are 1.985, 1.342 and 2.0: it holds.
    v = mt.Vocabulary(["a", "b"], ["S-I", "NS-Pr"], ["n", "m"])
    ps = mt.build_phrases(v)
    vec = {"a": unit(0), "b": unit(10), "n": unit(90), "m": unit(200),
           "a b n": unit(45), "b n": unit(170), "a n": unit(-100), "a b": unit(-90)}
    # the other texts do not enter the cell checked below
    rest = fake_embed(dim=2, seed=1)

    def embed_fn(texts, model):
        return np.array([vec[t] if t in vec else rest([t], model)[0] for t in texts], dtype=np.float32)

    emb = mt.embed_phrases(ps, "hand", embed_fn=embed_fn)
    official = mt.run_tests(emb, v, ps, reading="official")
    equations = mt.run_tests(emb, v, ps, reading="equations")
    assert official.single_aan[0, 1, 0] == 1.0
    assert equations.single_aan[0, 1, 0] == 0.0
    # the same with the rest-of-phrase rule switched alone
    assert mt.run_tests(emb, v, ps, reading=mt.rules_for("official", aan_reference="words")).single_aan[0, 1, 0] == 0.0
    # and closer_than_all on the hand distances themselves
    near = [[cosd(unit(45), unit(0)), cosd(unit(45), unit(10)), cosd(unit(45), unit(90))]]
    assert mt.closer_than_all(near, [[cosd(unit(0), unit(170)), cosd(unit(10), unit(-100)), 2.0]])[0] == 1.0
    assert mt.closer_than_all(near, [[cosd(unit(0), unit(10)), 1.0, 1.0]])[0] == 0.0


def test_official_aan_matches_a_slow_loop():
    v = small_vocab(3)
    ps = mt.build_phrases(v)
    fe = fake_embed(seed=4)
    res = mt.run_tests(mt.embed_phrases(ps, "m", embed_fn=fe), v, ps)
    texts = [*ps.words, *ps.an.ravel(), *ps.aan, *ps.aa]
    E = dict(zip(texts, fe(texts, "m")))
    w = dict(zip(v.words, ps.words))                      # vocabulary word -> its official text
    for i, a1 in enumerate(v.adjectives):
        for k, a2 in enumerate(v.adjectives):
            if i == k:
                continue
            for j, n in enumerate(v.nouns):
                p = mt.join_phrase(a1, a2, n, strings="official")
                near = [cosd(E[p], E[w[t]]) for t in (a1, a2, n)]
                far = [cosd(E[w[a1]], E[mt.join_phrase(a2, n, strings="official")]),
                       cosd(E[w[a2]], E[mt.join_phrase(a1, n, strings="official")]),
                       cosd(E[w[n]], E[mt.join_phrase(a1, a2, strings="official")])]
                assert res.single_aan[i, k, j] == float(all(x <= y + mt.TIE_TOL for x in near for y in far))


# ------------------------------------------------------------------ test II: nouns, weighting, strict
def test_pair_nouns_higher_keeps_upper_triangle_only():
    d = np.random.default_rng(0).random((3, 4, 4))
    d = (d + d.transpose(0, 2, 1)) / 2
    holds, _ = mt.pair_intersectivity(d, nouns="higher", strict=True)
    valid = ~np.isnan(holds)
    assert valid.sum() == 3 * 2 * (4 * 3 // 2)
    assert not valid[:, :, 2, 1].any() and valid[0, 1, 1, 2]
    with pytest.raises(ValueError, match="nouns"):
        mt.pair_intersectivity(d, nouns="lower")


def test_official_pair_cells_are_means_of_per_noun_means_slow_loop():
    v = small_vocab(5)
    ps = mt.build_phrases(v)
    fe = fake_embed(seed=9)
    emb = mt.embed_phrases(ps, "m", sets=("AN",), embed_fn=fe)
    official = mt.pair_table(mt.run_tests(emb, v, ps), n_boot=10).set_index(["type1", "type2"])
    uniform = mt.pair_table(mt.run_tests(emb, v, ps, reading=mt.rules_for("official", pair_nouns="all")),
                            n_boot=10).set_index(["type1", "type2"])
    E = dict(zip(ps.an.ravel(), fe(list(ps.an.ravel()), "m")))
    A, N = v.n_adj, v.n_noun
    n_differ = 0
    for c1 in mt.CATEGORIES:
        for c2 in mt.CATEGORIES:
            per_noun = []
            for n1 in range(N - 1):                        # the last noun has no partner
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
    assert n_differ > 0                                    # the weighting is not a no-op here


def test_strict_inequality_fails_ties_in_tests_two_and_ni():
    assert mt.non_subsectivity([0.3, 0.2], [0.3, 0.3]).tolist() == [1.0, 1.0]
    assert mt.non_subsectivity([0.3, 0.2], [0.3, 0.3], strict=True).tolist() == [0.0, 1.0]
    d = np.full((2, 2, 2), 0.4)                            # every distance ties
    le, _ = mt.pair_intersectivity(d)
    lt, ties = mt.pair_intersectivity(d, strict=True)
    assert np.nanmean(le) == 1.0 and np.nanmean(lt) == 0.0 and ties[0, 1, 0, 1]


# ------------------------------------------------------------------ sub-phrases and planned texts
def test_planned_texts_counts_phrases_words_and_subphrases():
    plan = mt.planned_texts({"models": ["glove-50d", "bow"]})
    glove, bow = plan["glove-50d"], plan["bow"]
    assert len(bow) == len(set(bow)) == 44_652 + 61 + 12 + 3_660
    assert "ex- red" in bow and "canadian occurence" in bow
    # the model compared with the paper also embeds the clean spelling (the decomposition)
    assert "Canadian occurrence" in glove and "Canadian occurrence" not in bow and len(glove) > len(bow)
    an_only = mt.planned_texts({"models": ["bow"], "phrase_sets": ["AN"]})["bow"]
    assert len(an_only) == 732 + 73


def test_every_table_carries_reading_and_strings():
    v = small_vocab()
    ps = mt.build_phrases(v, strings="clean")
    res = mt.run_tests(mt.embed_phrases(ps, "m", embed_fn=fake_embed()), v, ps, reading="equations")
    for t in (mt.an_table(res, n_boot=5), mt.aan_table(res, n_boot=5), mt.pair_table(res, n_boot=5),
              mt.an_table(res, "nonsub", n_boot=5), mt.category_difference_tests(res, n_perm=20)):
        assert list(t.columns[:3]) == ["model", "reading", "test"]
        assert set(t.reading) == {"equations"}
    assert set(mt.an_table(res, n_boot=5).strings) == {"clean"}


# ------------------------------------------------------------------ the paper, from the shipped model
@pytest.mark.slow
def test_official_reading_reproduces_the_papers_minilm_tables():
    """Embeds ~48,000 texts with sbert-mini when the cache is cold (minutes on two cores)."""
    pytest.importorskip("sentence_transformers")
    runs = mt.run_readings(["sbert-mini"], readings=["official"], progress=False)
    res = runs["official"]["sbert-mini"]
    cells = pd.concat([mt.reproduced(res, t, n_boot=0) for t in (1, 6, 7, 8)], ignore_index=True)
    assert len(cells) == 5 + 25 + 15 + 5 and cells["ours"].notna().all()
    worst = cells.groupby("table")["difference"].apply(lambda s: s.abs().max())
    assert (worst <= 5e-4).all(), worst.to_dict()


# ------------------------------------------------------------------ the paper's models
def test_every_paper_model_maps_to_its_row():
    from compsem import resolve_models
    specs = resolve_models("paper", study="montague")
    rows = [mt.paper_model_of(s) for s in specs]
    assert rows == ["BERT", "DistilRoBERTa", "T5", "DPR", "LaBSE", "MiniLM", "GloVe", "Word2Vec"]
    assert mt.paper_model_of("glove-50d") == "GloVe" and mt.paper_model_of("bow") is None
    assert mt.reference_model(["bow", "glove-50d", "sbert-mini"]) == "sbert-mini"
    assert mt.reference_model(["bow", "glove-50d"]) == "glove-50d" and mt.reference_model(["bow"]) is None


def test_a_paper_model_that_cannot_load_fails_fast_naming_the_download(monkeypatch):
    from compsem.errors import ModelsUnavailableError
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelsUnavailableError, match="sentence-transformers/LaBSE"):
        mt.run_models(["st:sentence-transformers/LaBSE"], sets=("AN",), progress=False)
