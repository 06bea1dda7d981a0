"""Part IV's model grammar: which spec makes which scorer, the errors, the panel, and the
cosine scorer's matrix by hand."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.encoders import installed_panel
from compsem.errors import UnknownModelError
from compsem.ssm.choice import LLMChoice
from compsem.ssm.lexical import LexicalCoverage
from compsem.ssm.nli import NLICrossEncoder
from compsem.ssm.scorers import EmbeddingCosine, check_scorer_spec, is_asymmetric, make_scorer, resolve_models
from tests.helpers.tiny import tiny_bert_classifier


@pytest.mark.parametrize(
    "spec",
    [
        "lexical",
        "nli:org/model",
        "nli:org/model#entailment=1",
        "gen:hf:org/model",
        "gen:openai:gpt-4o-mini",
        "sbert-mini",
        "hf:bert-base-uncased",
        "bow",
    ],
)
def test_known_forms_pass_the_check_without_loading(spec):
    assert check_scorer_spec(f" {spec} ") == spec


@pytest.mark.parametrize(
    "spec, match",
    [
        ("lexicon", r"lexical.*nli:.*gen:hf:.*sbert-mini"),
        ("llm:gpt2", "gen:hf:NAME"),
        ("emb:sbert-mini", "encoder spec"),
        ("nli:m#pool=cls", "unknown option"),
        ("", "lexical"),
    ],
)
def test_unknown_specs_list_the_forms(spec, match):
    with pytest.raises(UnknownModelError, match=match):
        check_scorer_spec(spec)


def test_panel_is_lexical_plus_the_encoder_panel():
    assert resolve_models("panel") == ["lexical", *installed_panel()]
    assert resolve_models(["lexical", "panel", "bow"]) == ["lexical", *installed_panel()]  # duplicates dropped
    assert resolve_models("nli:x/y#entailment=2") == ["nli:x/y#entailment=2"]
    with pytest.raises(ValueError, match="empty"):
        resolve_models([])


def test_which_spec_makes_which_scorer(tmp_path, tiny_gpt2_lm):
    assert isinstance(make_scorer("lexical"), LexicalCoverage)
    cos = make_scorer("bow")
    assert isinstance(cos, EmbeddingCosine) and cos.symmetric and cos.name == "bow"
    path = tiny_bert_classifier(tmp_path / "nli", ["a", "b"], {0: "LABEL_0", 1: "LABEL_1"})
    nli = make_scorer(f"nli:{path}#entailment=LABEL_1", device="cpu", batch_size=7)
    assert isinstance(nli, NLICrossEncoder) and nli.entailment_label == 1 and nli.batch_size == 7
    gen = make_scorer(f"gen:hf:{tiny_gpt2_lm}", device="cpu")
    assert isinstance(gen, LLMChoice) and not gen.symmetric and gen.name == f"gen:hf:{tiny_gpt2_lm}"
    assert gen.generator.max_new_tokens == 4
    scorer = LexicalCoverage()
    assert make_scorer(scorer) is scorer
    assert [is_asymmetric(s) for s in ("lexical", "nli:x", "gen:hf:x", "sbert-mini")] == [True, True, True, False]


def test_cosine_from_vectors_by_hand():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [0.0, 0.0]])
    with pytest.warns(RuntimeWarning, match="1 sentence"):
        R = EmbeddingCosine("x").from_vectors(X)
    h = 1 / np.sqrt(2)
    np.testing.assert_allclose(R[:3, :3], [[1, h, 0], [h, 1, 0], [0, 0, 1]], atol=1e-12)  # cos -1 and -h clipped to 0
    assert np.isnan(R[3]).all() and np.isnan(R[:, 3]).all()
    with pytest.warns(RuntimeWarning):
        raw = EmbeddingCosine("x", clip=False).from_vectors(X)
    assert raw[0, 2] == pytest.approx(-1.0)


def test_paper_panel_is_the_mapped_nli_models_and_simcse():
    from compsem.reference import paper_models

    specs = resolve_models("paper")
    rows = paper_models("ssm")
    expected = [s for s in rows[rows.kind.isin(["nli", "encoder"])].spec if s]
    assert specs == list(dict.fromkeys(expected)) and len(specs) == 6
    assert "nli:textattack/bert-base-uncased-MNLI#entailment=1" in specs
    assert not any(s.startswith("gen:") for s in specs)  # ChatGPT only when named
