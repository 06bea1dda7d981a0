"""ONNX Runtime as an encode backend (compsem.encoders.onnx), on a tiny sentence-transformers
model built here from the tiny BERT, checked against an unpadded torch oracle."""

import warnings

import numpy as np
import pytest

from compsem import results
from compsem.cache import EmbeddingCache, embed, last_stats
from compsem.encoders import SentenceTransformerEncoder
from compsem.encoders import onnx as ob
from compsem.paths import cache_dir

WORDS = ["a", "the", "red", "big", "blue", "car", "dog", "man", "runs", "fast", "plays", "guitar", "is"]


def _texts(n, seed=0):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 12)))) for _ in range(n)]


def _oracle(folder, texts):
    """Each text alone (no padding): mean of the last hidden states, then unit length."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    out = []
    with torch.no_grad():
        for t in texts:
            h = model(**tok([t], return_tensors="pt")).last_hidden_state[0].mean(0).numpy()
            out.append(h / np.linalg.norm(h))
    return np.stack(out)


def test_onnx_backend_equals_torch_and_keeps_the_cache_key(tiny_bert, tiny_st, tmp_path):
    texts = _texts(ob.MIN_TEXTS + 20)
    onnx = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")
    plain = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="torch")
    assert plain.backend is None and onnx.identity == plain.identity  # same vectors, same key
    X = onnx.encode(texts, batch_size=16)
    assert onnx.backend.decision["backend"] == "onnxruntime fp32"
    assert onnx.backend.decision["max_abs"] <= ob.TOLERANCE
    want = _oracle(tiny_bert, texts[:12])
    assert np.abs(X[:12] - want).max() < 1e-5
    assert np.abs(X - plain.encode(texts, batch_size=16)).max() <= ob.TOLERANCE
    assert ob.backends_used()["st:tiny"] == "onnxruntime fp32"
    assert results.provenance()["encode_backends"]["st:tiny"] == "onnxruntime fp32"
    # the exported graph sits in the cache folder, keyed by identity and the exporter's versions
    folder = onnx.backend.path.parent
    assert folder.parent == cache_dir("onnx") and folder.name.endswith(ob.export_key(onnx.identity))
    assert (folder / "export.json").is_file()
    # an embedding cache filled through ONNX serves the torch encoder: one key for both
    store = EmbeddingCache(tmp_path / "e.sqlite")
    embed(texts[:50], onnx, cache=store)
    embed(texts[:50], plain, cache=store)
    assert last_stats().n_encoded == 0 and last_stats().n_cached == len(set(texts[:50]))


def test_the_export_is_reused_and_a_broken_one_made_again(tiny_bert, tiny_st):
    first = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")
    first.backend.encode_onnx(_texts(5))
    path = first.backend.path
    stamp = path.stat().st_mtime_ns
    again = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")
    again.backend.encode_onnx(_texts(5))
    assert again.backend.path == path and path.stat().st_mtime_ns == stamp  # loaded, not exported
    path.write_bytes(path.read_bytes()[:1000])  # a truncated file
    broken = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")
    with pytest.warns(UserWarning, match="does not match its export record"):
        X = broken.backend.encode_onnx(_texts(5))
    assert np.abs(X - _oracle(tiny_bert, _texts(5))).max() < 1e-5


def _auto(tiny_st, monkeypatch, tmp_path, **measured):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))  # no choice stored by another test
    enc = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")
    enc.backend.mode = "auto"
    monkeypatch.setattr(enc.backend, "check", lambda texts, batch_size=32: {"max_abs": 0.0, "speedup": 2.0, **measured})
    return enc


@pytest.mark.parametrize(
    "measured, chosen",
    [
        ({}, "onnxruntime fp32"),
        ({"speedup": 1.0}, "torch"),  # not faster
        ({"max_abs": 1e-4}, "torch"),
    ],
)  # not equal
def test_auto_takes_onnx_only_when_faster_and_equal(tiny_st, monkeypatch, tmp_path, measured, chosen):
    enc = _auto(tiny_st, monkeypatch, tmp_path, **measured)
    calls = []
    monkeypatch.setattr(
        enc.backend,
        "encode_onnx",
        lambda texts, **kw: calls.append(len(texts)) or np.zeros((len(texts), 16), np.float32),
    )
    enc.encode(_texts(10))  # a small call runs on torch and decides nothing
    assert enc.backend.decision is None and calls == []
    enc.encode(_texts(ob.MIN_TEXTS))
    assert enc.backend.decision["backend"] == chosen
    assert calls == ([ob.MIN_TEXTS] if chosen != "torch" else [])


def test_the_choice_of_auto_is_kept_for_this_machine(tiny_st, monkeypatch, tmp_path):
    first = _auto(tiny_st, monkeypatch, tmp_path, speedup=1.0)  # measured: not faster, torch
    assert first.backend.decide(_texts(ob.MIN_TEXTS))["backend"] == "torch"
    # a later process on the same machine reads the stored choice and measures nothing
    again = _auto(tiny_st, monkeypatch, tmp_path, speedup=9.0)
    monkeypatch.setattr(again.backend, "check", lambda *a, **k: pytest.fail("measured again"))
    assert again.backend.decide(_texts(ob.MIN_TEXTS))["backend"] == "torch"
    # another machine (another key) measures for itself
    monkeypatch.setattr(ob, "machine_key", lambda: "another")
    other = _auto(tiny_st, monkeypatch, tmp_path, speedup=9.0)
    assert other.backend.decide(_texts(ob.MIN_TEXTS))["backend"] == "onnxruntime fp32"


def test_a_failing_runtime_falls_back_to_torch(tiny_bert, tiny_st, monkeypatch):
    enc = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")
    monkeypatch.setattr(enc.backend, "_load", lambda: (_ for _ in ()).throw(OSError("disk full")))
    texts = _texts(ob.MIN_TEXTS)
    with pytest.warns(UserWarning, match="disk full"):
        X = enc.encode(texts)
    assert enc.backend.decision["backend"] == "torch"
    assert np.abs(X[:5] - _oracle(tiny_bert, texts[:5])).max() < 1e-5


def test_int8_is_labelled_and_keyed_apart(tiny_st):
    int8 = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx-int8")
    plain = SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="torch")
    assert int8.identity == plain.identity + ob.INT8_LABEL
    X = int8.encode(_texts(20))
    assert X.shape == (20, 16) and np.allclose(np.linalg.norm(X, axis=1), 1, atol=1e-5)
    assert "onnxruntime int8 (dynamic)" in ob.backends_used()["st:tiny"]
    assert ob.export_key(plain.identity, int8=True) in str(int8.backend.path)


def test_backend_names_are_checked(monkeypatch):
    with pytest.raises(ob.BackendError, match="accepted: auto, torch, onnx, onnx-int8"):
        ob.requested_backend("fast")
    monkeypatch.setenv(ob.ENV, "onnx")
    assert ob.requested_backend() == "onnx"
    monkeypatch.setenv(ob.ENV, "")
    assert ob.requested_backend() == "auto"


def test_auto_leaves_other_models_on_torch_and_onnx_refuses_what_it_cannot_run(tiny_bert, tiny_st, tmp_path):
    from sentence_transformers import SentenceTransformer, models

    assert SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="auto").backend is None
    folder = tmp_path / "maxpool"
    body = models.Transformer(str(tiny_bert), max_seq_length=32)
    SentenceTransformer(modules=[body, models.Pooling(16, "max")], device="cpu").save(str(folder))
    with pytest.raises(ob.BackendError, match="pooling is neither mean nor CLS"):
        SentenceTransformerEncoder(str(folder), spec="st:max", device="cpu", backend="onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SentenceTransformerEncoder(str(folder), spec="sbert-mini", device="cpu", backend="auto").backend is None


@pytest.mark.slow
def test_sbert_mini_on_chapter_30s_phrases_equals_torch():
    from compsem import montague as mt
    from compsem.encoders import get_encoder

    vocab = mt.data.load_vocabulary()
    texts = list(mt.data.build_phrases(vocab).aan[:400])
    enc = get_encoder("sbert-mini")
    got = ob.OnnxBackend(enc.model, spec="sbert-mini", identity=enc.identity, mode="onnx").encode_onnx(texts)
    assert np.abs(got - enc.model.encode(texts, convert_to_numpy=True)).max() <= ob.TOLERANCE


def test_an_mpnet_body_without_token_types_exports_too(tiny_bert, tmp_path):
    """sbert-l is all-mpnet-base-v2: a body that takes no token_type_ids (a tiny random one here)."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoTokenizer, MPNetConfig, MPNetModel

    body_dir = tmp_path / "mpnet"
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    tok.save_pretrained(body_dir)
    torch.manual_seed(0)
    cfg = MPNetConfig(
        vocab_size=len(tok.get_vocab()),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=70,
        pad_token_id=tok.pad_token_id,
    )
    MPNetModel(cfg).eval().save_pretrained(body_dir)
    st_dir = tmp_path / "st"
    SentenceTransformer(
        modules=[models.Transformer(str(body_dir), max_seq_length=32), models.Pooling(16, "mean"), models.Normalize()],
        device="cpu",
    ).save(str(st_dir))
    enc = SentenceTransformerEncoder(str(st_dir), spec="st:tiny-mpnet", device="cpu", backend="onnx")
    assert enc.backend.inputs == ["input_ids", "attention_mask"]
    texts = _texts(40, seed=3)
    got = enc.backend.encode_onnx(texts, batch_size=8)
    want = enc.model.encode(texts, batch_size=8, convert_to_numpy=True)
    assert np.abs(got - want).max() <= ob.TOLERANCE


def test_length_batches_by_hand():
    from compsem.encoders.onnx import LONG_CHARS, MAX_SCALE, length_batches

    assert (LONG_CHARS, MAX_SCALE) == (64, 8)
    long_, mid, short = "x" * 64, "y" * 32, "z" * 4
    texts = [short, long_, mid, long_, short, mid, short]
    got = [b.tolist() for b in length_batches(texts, 2)]
    # longest first, ties in input order; 64+ chars: batches of 2; 32 chars: 2 * 64 // 32 = 4;
    # the 4-char texts would get 2 * 16 = 32, capped at 8 * 2 = 16
    assert got == [[1, 3], [2, 5, 0, 4], [6]]
    assert sorted(i for b in got for i in b) == list(range(len(texts)))
    assert length_batches([], 4) == []
    assert [b.tolist() for b in length_batches([""], 4)] == [[0]]
