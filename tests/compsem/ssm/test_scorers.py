"""Scorers of Part IV: the NLI cross-encoder on a tiny random BERT built here, the missing-label
error, the lexical-coverage baseline, the LLM multiple-choice harness, the score cache."""
from __future__ import annotations

import json

import numpy as np
import pytest

from compsem.ssm import (LexicalCoverage, LLMChoice, MissingEntailmentLabel, NLICrossEncoder, choice_prompt,
                         content_words, entailment_index, parse_choice, score_matrix)

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WORDS = ("a dog runs in the park . an animal moves outside cats sleep on mats it is raining today "
         "people walk").split()


def _build_tiny_nli(path, id2label, seed=0):
    """A randomly initialised 2-layer BERT classifier with a word-level tokenizer, saved to ``path``."""
    from tests.helpers.tiny import tiny_bert_classifier

    return tiny_bert_classifier(path, WORDS, id2label, seed=seed, initializer_range=0.5)


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    # entailment deliberately not at index 0, and in upper case: the lookup must use id2label
    return _build_tiny_nli(tmp_path_factory.mktemp("tiny_nli"), {0: "contradiction", 1: "neutral", 2: "ENTAILMENT"})


TEXTS = ["a dog runs in the park .", "an animal moves outside .", "cats sleep on mats .", "it is raining today .",
         "a dog runs in the park ."]  # a duplicate, scored once


def test_nli_matches_direct_per_pair_calls(tiny_nli):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    scorer = NLICrossEncoder(str(tiny_nli), batch_size=3)
    R = scorer.score(TEXTS, progress=False)
    assert R.shape == (5, 5)
    # oracle: one unbatched forward pass per ordered pair
    model = AutoModelForSequenceClassification.from_pretrained(tiny_nli).eval()
    tok = AutoTokenizer.from_pretrained(tiny_nli)
    expected = np.empty((5, 5))
    with torch.no_grad():
        for i, p in enumerate(TEXTS):
            for j, h in enumerate(TEXTS):
                logits = model(**tok(p, h, return_tensors="pt")).logits[0]
                expected[i, j] = torch.softmax(logits, -1)[2].item()
    np.testing.assert_allclose(R, expected, atol=1e-5)
    assert np.abs(R - R.T).max() > 1e-3    # a cross-encoder is asymmetric
    np.testing.assert_allclose(R[0], R[4])  # duplicate text, same row


def test_nli_scores_each_unique_pair_once(tiny_nli, monkeypatch):
    scorer = NLICrossEncoder(str(tiny_nli), batch_size=4)
    seen = []
    orig = scorer.score_pairs
    monkeypatch.setattr(scorer, "score_pairs", lambda a, b, **kw: (seen.append(len(a)), orig(a, b, **kw))[1])
    scorer.score(TEXTS, progress=False)
    assert seen == [16]  # 4 unique texts -> 16 ordered pairs, not 25


def test_nli_without_entailment_label_is_an_error(tmp_path):
    path = _build_tiny_nli(tmp_path / "no_ent", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(MissingEntailmentLabel, match="entailment.*LABEL_0"):
        NLICrossEncoder(str(path))


def test_entailment_index_lookup():
    assert entailment_index({"0": "Entailment", "1": "neutral", "2": "contradiction"}) == 0
    assert entailment_index({0: "contradiction", 1: "entailment"}) == 1
    with pytest.raises(MissingEntailmentLabel, match="more than one"):
        entailment_index({0: "entailment", 1: "ENTAILMENT"})


def test_content_words_and_stemmer():
    assert content_words("The dogs didn't bark at the cats.") == {"dog", "not", "bark", "cat"}
    assert content_words("Boxes, churches and parties!") == {"box", "church", "party"}


def test_lexical_coverage_by_hand():
    texts = ["the red cat sleeps", "a cat sleeps", "the dog barks loudly"]
    # content words: {red, cat, sleep}, {cat, sleep}, {dog, bark, loudly}
    expected = np.array([[1, 1, 0], [2 / 3, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(LexicalCoverage().score(texts), expected)


def test_lexical_coverage_empty_hypothesis_is_nan_and_warned():
    with pytest.warns(RuntimeWarning, match="no content words"):
        R = LexicalCoverage().score(["the cat sleeps", "it is what it is"])
    assert np.isnan(R[:, 1]).all() and not np.isnan(R[:, 0]).any()


def test_empty_text_is_an_error():
    with pytest.raises(ValueError, match="text 1 is empty"):
        LexicalCoverage().score(["a cat", "  "])


def test_llm_harness_with_a_fake_generator():
    texts = ["s0 text", "s1 text", "s2 text"]
    answers = {(0, 1): "D", (1, 0): " C. high", (0, 2): "B", (2, 0): "nonsense", (1, 2): "A", (2, 1): "Answer: C"}
    prompts_seen = []

    def fake(prompts):
        prompts_seen.extend(prompts)
        out = []
        for p in prompts:
            i = next(k for k in range(3) if f"First sentence: {texts[k]}\n" in p)
            j = next(k for k in range(3) if f"Second sentence: {texts[k]}\n" in p)
            out.append("D" if i == j else answers[(i, j)])
        return out

    with pytest.warns(RuntimeWarning, match="1 of 9"):
        R = LLMChoice(fake, batch_size=4).score(texts, progress=False)
    expected = np.array([[1, 1, 0.3], [0.7, 1, 0], [np.nan, 0.7, 1]])
    np.testing.assert_allclose(R, expected)
    assert len(prompts_seen) == 9 and all("A." in p and "D." in p for p in prompts_seen)
    assert parse_choice("maybe") != parse_choice("maybe")  # NaN
    assert "First sentence: x" in choice_prompt("x", "y")


def test_llm_generator_returning_wrong_count_is_an_error():
    with pytest.raises(ValueError, match="answers for"):
        LLMChoice(lambda ps: ["A"], batch_size=4).score(["a b", "c d"], progress=False)


def test_score_cache_roundtrip(tmp_path):
    calls = []

    class Counting(LexicalCoverage):
        def score(self, texts, **kw):
            calls.append(1)
            return super().score(texts, **kw)

    texts = ["the red cat sleeps", "a cat sleeps"]
    R1 = score_matrix(Counting(), texts, cache_dir=tmp_path)
    R2 = score_matrix(Counting(), texts, cache_dir=tmp_path)
    assert len(calls) == 1
    np.testing.assert_array_equal(R1, R2)
    files = sorted(p.suffix for p in tmp_path.iterdir())
    assert files == [".json", ".npy"]
    meta = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert meta["identity"] == "lexical-coverage-v1" and meta["n"] == 2
    score_matrix(Counting(), texts + ["a dog barks"], cache_dir=tmp_path)  # other pool: new entry
    assert len(calls) == 2


def test_nli_identity_follows_the_weights_of_a_local_model(tmp_path):
    a = _build_tiny_nli(tmp_path / "m", {0: "entailment", 1: "neutral", 2: "contradiction"})
    before = NLICrossEncoder(str(a)).identity
    _build_tiny_nli(tmp_path / "m", {0: "entailment", 1: "neutral", 2: "contradiction"}, seed=1)
    assert NLICrossEncoder(str(a)).identity != before   # retrained weights: a new cache key


def test_unknown_scorer_spec_lists_the_scorers():
    from compsem.errors import UnknownModelError
    from compsem.ssm import get_scorer

    with pytest.raises(UnknownModelError, match="lexical.*nli:.*sbert-mini"):
        get_scorer("lexicon")
