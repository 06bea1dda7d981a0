"""The kind of model a chapter takes, and the reason a spec does not fit it."""

import pytest

from compsem.encoders.kinds import KINDS, ModelSlot, kind_problem, kind_problems, what_is


def test_use_cannot_be_fine_tuned_and_the_message_names_the_way_out():
    assert kind_problem("use", "finetune", offline=["sbert-mini"]) == (
        "`use` cannot be fine-tuned: it is a TensorFlow-Hub export with no trainable layers; "
        "fine-tunable offline: sbert-mini"
    )


@pytest.mark.parametrize(
    "spec",
    [
        "glove-50d",
        "bow",
        "bow:512",
        "random",
        "random:64:3",
        "vec:/x/glove.txt",
        "oa:text-embedding-3-small",
        "gen:hf:gpt2",
        "nli:roberta-large-mnli",
        "lexical",
    ],
)
def test_what_has_no_trainable_transformer_is_refused_for_fine_tuning(spec):
    why = kind_problem(spec, "finetune")
    assert why is not None and why.startswith(f"`{spec}` cannot be fine-tuned: ")


@pytest.mark.parametrize(
    "spec",
    [
        "sbert-mini",
        "sbert-l",
        "st:sentence-transformers/all-MiniLM-L6-v2",
        "hf:princeton-nlp/sup-simcse-roberta-base",
        " sbert-mini ",
    ],
)
def test_transformers_can_be_fine_tuned(spec):
    assert kind_problem(spec, "finetune") is None


def test_a_generator_chapter_takes_gen_specs_only():
    assert kind_problem("gen:hf:Qwen/Qwen2.5-0.5B", "generator") is None
    why = kind_problem("sbert-mini", "generator")
    assert why.startswith("`sbert-mini` is a sentence encoder, not a text generator")
    assert "gen:hf:" in why and "none ships with the book" in why


def test_an_encoder_chapter_refuses_scorers_and_generators():
    assert kind_problem("use", "encoder") is None and kind_problem("hf:gpt2", "encoder") is None
    assert kind_problem("gen:hf:gpt2", "encoder", offline=["sbert-mini", "use"]) == (
        "`gen:hf:gpt2` is a text generator, not a sentence encoder; sentence encoders offline: sbert-mini, use"
    )
    assert kind_problem("nli:x", "encoder").startswith("`nli:x` is an NLI scorer")
    assert kind_problem("lexical", "encoder").startswith("`lexical` is the lexical baseline")


def test_part_iv_scores_with_anything_its_grammar_accepts():
    for spec in ("lexical", "nli:x", "gen:hf:y", "use", "glove-50d"):
        assert kind_problem(spec, "scorer") is None


def test_a_slot_may_take_one_model_only():
    slot = ModelSlot("finetune", at_most=1)
    assert kind_problems(["sbert-mini"], slot, chapter="chapter 23") == []
    assert kind_problems(["sbert-mini", "sbert-l"], slot, chapter="chapter 23") == [
        "chapter 23 runs at most 1 fine-tunable backbone, got 2 models (sbert-mini, sbert-l): "
        "run the chapter once per model"
    ]
    # both reasons at once: the wrong kind and one too many
    assert len(kind_problems(["sbert-mini", "use"], slot, chapter="chapter 23")) == 2


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        ModelSlot("regressor")
    with pytest.raises(ValueError, match="kind must be one of"):
        kind_problem("use", "regressor")
    assert set(KINDS) == {"encoder", "generator", "scorer", "finetune"}
    assert what_is("gen:openai:x") == "a text generator"


def test_controls_are_named_by_spec():
    from compsem.encoders.kinds import is_control

    assert is_control("bow") and is_control("random") and is_control("bow:512") and is_control("random:64")
    assert is_control("lexical")
    assert not is_control("sbert-mini") and not is_control("glove-50d") and not is_control("bowtie")
