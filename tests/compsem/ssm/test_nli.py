"""The NLI cross-encoder scorer of Part IV on tiny random BERT classifiers built in-process
(``tests/helpers/tiny.py``): batched scores against one unbatched forward pass per pair, the
entailment label named in ``config.id2label`` or in the spec (``#entailment=``), the predicted
label, the precision, the errors."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.errors import UnknownModelError
from compsem.ssm import nli
from compsem.ssm.nli import MissingEntailmentLabel, NLICrossEncoder, entailment_index, parse_nli_spec
from tests.helpers.tiny import tiny_bert_classifier

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WORDS = ("a dog runs in the park . an animal moves outside cats sleep on mats it is raining today people walk").split()
TEXTS = [
    "a dog runs in the park .",
    "an animal moves outside .",
    "cats sleep on mats .",
    "it is raining today .",
    "a dog runs in the park .",
]  # a duplicate, scored once


def build(path, id2label, seed=0):
    return tiny_bert_classifier(path, WORDS, id2label, seed=seed, initializer_range=0.5)


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    # entailment deliberately not at index 0, and in upper case: the lookup must use id2label
    return build(tmp_path_factory.mktemp("tiny_nli"), {0: "contradiction", 1: "neutral", 2: "ENTAILMENT"})


@pytest.fixture(scope="module")
def unnamed_nli(tmp_path_factory):
    """A classifier whose labels say only LABEL_0..2 (as textattack/bert-base-uncased-MNLI)."""
    return build(tmp_path_factory.mktemp("unnamed_nli"), {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, seed=3)


def oracle(path):
    """Softmax of one unbatched forward pass per ordered pair of TEXTS: (5, 5, C)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    tok = AutoTokenizer.from_pretrained(path)
    out = np.empty((5, 5, model.config.num_labels))
    with torch.no_grad():
        for i, p in enumerate(TEXTS):
            for j, h in enumerate(TEXTS):
                out[i, j] = torch.softmax(model(**tok(p, h, return_tensors="pt")).logits[0], -1).numpy()
    return out


def test_nli_matches_direct_per_pair_calls(tiny_nli):
    scorer = NLICrossEncoder(str(tiny_nli), batch_size=3)
    R = scorer.score(TEXTS, progress=False)
    P = oracle(tiny_nli)
    np.testing.assert_allclose(R, P[..., 2], atol=1e-5)
    assert np.abs(R - R.T).max() > 1e-3  # a cross-encoder is asymmetric
    np.testing.assert_allclose(R[0], R[4])  # duplicate text, same row
    assert scorer.entailment_label == 2 and scorer.name == f"nli:{tiny_nli}"


def test_predicted_label_is_the_argmax(tiny_nli):
    scorer = NLICrossEncoder(str(tiny_nli), batch_size=4)
    R, predicted = scorer.split(scorer.probabilities(TEXTS, progress=False))
    P = oracle(tiny_nli)
    expected = np.array([[P[i, j].argmax() == 2 for j in range(5)] for i in range(5)])
    np.testing.assert_array_equal(predicted, expected)
    np.testing.assert_allclose(R, P[..., 2], atol=1e-5)
    assert not (R > 0.5)[~predicted].any()  # with three labels, P > 0.5 is always the argmax
    # hand-made probabilities: ties go to the lowest index
    Q = np.array([[[0.2, 0.3, 0.5], [0.5, 0.1, 0.4]], [[0.1, 0.45, 0.45], [0.3, 0.3, 0.4]]])
    R2, pred2 = scorer.split(Q)
    np.testing.assert_allclose(R2, [[0.5, 0.4], [0.45, 0.4]])
    assert pred2.tolist() == [[True, False], [False, True]]


def test_nli_scores_each_unique_pair_once(tiny_nli, monkeypatch):
    scorer = NLICrossEncoder(str(tiny_nli), batch_size=4)
    seen = []
    orig = scorer.pair_probabilities
    monkeypatch.setattr(scorer, "pair_probabilities", lambda a, b, **kw: (seen.append(len(a)), orig(a, b, **kw))[1])
    scorer.score(TEXTS, progress=False)
    assert seen == [16]  # 4 unique texts -> 16 ordered pairs, not 25 (one group of up to 16 rows)
    seen.clear()
    monkeypatch.setattr(nli, "GROUP_ROWS", 3)
    scorer.score(TEXTS, progress=False)
    assert seen == [12, 4]  # rows 0-2 with the 4 hypotheses, then row 3: each group batched on its own


def test_a_block_of_whole_groups_has_the_bits_of_the_one_pass_rows(tiny_nli):
    scorer = NLICrossEncoder(str(tiny_nli), batch_size=3, group_rows=2)
    uniq = TEXTS[:4]
    whole = scorer.probabilities(uniq, progress=False)
    for r0, r1 in ((0, 2), (2, 4), (0, 4)):
        np.testing.assert_array_equal(scorer.rows_probabilities(uniq, r0, r1, progress=False), whole[r0:r1])
    np.testing.assert_allclose(whole, oracle(tiny_nli)[:4, :4], atol=1e-5)
    three = TEXTS[:3]  # the last group may end early, at n
    np.testing.assert_array_equal(
        scorer.rows_probabilities(three, 2, 3, progress=False), scorer.probabilities(three, progress=False)[2:3]
    )
    for r0, r1 in ((1, 3), (2, 3)):  # half a group is batched otherwise: refused
        with pytest.raises(ValueError, match="not whole groups of 2 rows"):
            scorer.rows_probabilities(uniq, r0, r1)
    # the batching is part of the identity: matrices batched otherwise are other cache entries
    assert scorer.identity.endswith(":groups=2x3")
    assert NLICrossEncoder(str(tiny_nli), model=scorer.model, tokenizer=scorer.tokenizer).identity.endswith(
        f":groups={nli.GROUP_ROWS}x32"
    )


def test_unnamed_labels_are_an_error_that_names_the_option(unnamed_nli):
    with pytest.raises(MissingEntailmentLabel, match=r"LABEL_0.*#entailment=1"):
        NLICrossEncoder(str(unnamed_nli))


@pytest.mark.parametrize("option, index", [("1", 1), ("LABEL_2", 2), ("label_0", 0)])
def test_unnamed_labels_with_the_entailment_option(unnamed_nli, option, index):
    scorer = NLICrossEncoder.from_spec(f"nli:{unnamed_nli}#entailment={option}", batch_size=8)
    assert scorer.entailment_label == index and scorer.name.endswith(f"#entailment={option}")
    R, predicted = scorer.split(scorer.probabilities(TEXTS, progress=False))
    P = oracle(unnamed_nli)
    np.testing.assert_allclose(R, P[..., index], atol=1e-5)
    np.testing.assert_array_equal(predicted, P.argmax(-1) == index)


@pytest.mark.parametrize(
    "spec, error, match",
    [
        ("#entailment=5", MissingEntailmentLabel, "not a label index"),
        ("#entailment=entails", MissingEntailmentLabel, "names no single label"),
        ("#pool=cls", UnknownModelError, "unknown option"),
        ("#entailment", UnknownModelError, "key=value"),
    ],
)
def test_bad_entailment_options(unnamed_nli, spec, error, match):
    with pytest.raises(error, match=match):
        NLICrossEncoder.from_spec(f"nli:{unnamed_nli}{spec}")


def test_entailment_index_lookup():
    assert entailment_index({"0": "Entailment", "1": "neutral", "2": "contradiction"}) == 0
    assert entailment_index({0: "contradiction", 1: "entailment"}) == 1
    assert entailment_index({0: "LABEL_0", 1: "LABEL_1"}, "1") == 1
    with pytest.raises(MissingEntailmentLabel, match="more than one"):
        entailment_index({0: "entailment", 1: "ENTAILMENT"})
    assert parse_nli_spec("nli:org/model#entailment=2") == ("org/model", {"entailment": "2"})
    with pytest.raises(UnknownModelError):
        parse_nli_spec("nli:")


def test_identity_follows_the_weights_and_the_precision(tmp_path):
    a = build(tmp_path / "m", {0: "entailment", 1: "neutral", 2: "contradiction"})
    before = NLICrossEncoder(str(a)).identity
    assert ":bfloat16" not in before
    half = NLICrossEncoder(str(a), device="cpu", dtype="bfloat16")
    assert half.identity == before + ":bfloat16" and half.model.dtype == torch.bfloat16
    R32 = NLICrossEncoder(str(a)).score(TEXTS[:3], progress=False)
    np.testing.assert_allclose(half.score(TEXTS[:3], progress=False), R32, atol=0.05)  # bf16 keeps ~3 digits
    build(tmp_path / "m", {0: "entailment", 1: "neutral", 2: "contradiction"}, seed=1)
    assert NLICrossEncoder(str(a)).identity != before  # retrained weights: a new cache key
