"""Cross-, bi- and tri-encoders on a tiny BERT: shapes, heads of each preset, the cache."""

from __future__ import annotations

import pytest
import torch

from compsem.csts import models as cm
from compsem.csts import training as ct

PRESET_OPTS = {name: ct.TrainConfig.preset(name, max_length=32).model_options() for name in ("cpu", "official")}


@pytest.mark.parametrize("preset", ["cpu", "official"])
@pytest.mark.parametrize(
    "encoding, tri_op", [("cross", "hadamard"), ("bi", "hadamard"), ("tri", "hadamard"), ("tri", "concat")]
)
def test_forward_shapes_per_preset(word_bert, rows, preset, encoding, tri_op):
    m = cm.build_model(word_bert, encoding=encoding, seed=0, **{**PRESET_OPTS[preset], "tri_op": tri_op}).eval()
    df = rows(3)
    with torch.no_grad():
        out = m(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
    assert out.shape == (6,) and torch.isfinite(out).all()
    if encoding == "cross":
        inside = ((out > 0) & (out < 1)).all()
        assert inside if preset == "cpu" else isinstance(m.head, torch.nn.Sequential)
    else:
        u1, u2 = m.embed_pair(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
        assert u1.shape == u2.shape == (6, 16)
        assert torch.allclose(out, torch.nn.functional.cosine_similarity(u1, u2, dim=-1), atol=1e-6)


def test_official_heads_are_the_codes(word_bert):
    """The official preset: no transform (run_sts.sh's TRANSFORM=False), the condition transform
    and the concat head with the encoder's own activation (ACT2FN[hidden_act]) and dropout."""
    from transformers.activations import ACT2FN

    opts = PRESET_OPTS["official"]
    tri = cm.build_model(word_bert, encoding="tri", seed=0, **{**opts, "tri_op": "concat"})
    assert [type(x).__name__ for x in tri.condition_transform] == ["Dropout", "Linear"]
    act = type(ACT2FN[cm.load_backbone(word_bert)[0].config.hidden_act]).__name__
    assert [type(x).__name__ for x in tri.mix] == ["Dropout", "Linear", act]
    assert tri.transform is None and tri.pooler.mode == "cls"
    with_t = cm.build_model(word_bert, encoding="tri", seed=0, **{**opts, "transform": True})
    assert [type(x).__name__ for x in with_t.transform] == ["Dropout", "Linear", act]
    cpu = cm.build_model(word_bert, encoding="tri", seed=0, **{**PRESET_OPTS["cpu"], "tri_op": "concat"})
    assert cpu.condition_transform is None and cpu.transform is None
    assert [type(x).__name__ for x in cpu.mix] == ["Dropout", "Linear"]


def test_tri_encoder_by_hand(word_bert, rows):
    """cos(h(c, s1), h(c, s2)) with h = condition_transform(c) * s, each text encoded alone."""
    m = cm.build_model(word_bert, encoding="tri", seed=0, **{**PRESET_OPTS["official"], "transform": True}).eval()
    df = rows(2)
    with torch.no_grad():
        out = m(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
        for i in range(len(df)):
            e1, e2, ec = (m._encode([df[c].iloc[i]]) for c in ("sentence1", "sentence2", "condition"))
            t1, t2, tc = m.transform(e1), m.transform(e2), m.condition_transform(ec)
            assert out[i].item() == pytest.approx(
                torch.nn.functional.cosine_similarity(tc * t1, tc * t2).item(), abs=1e-5
            )


def test_bi_encoder_by_hand_and_the_condition_matters(word_bert):
    """The bi-encoder score is the cosine of the mean-pooled text-pair encodings, computed here
    with the backbone directly; two conditions give two different such cosines."""
    m = cm.build_model(word_bert, encoding="bi", pooling="mean", seed=0).eval()
    s1, s2 = "a man runs", "a dog sits"

    def pooled(a, b):
        t = m.tokenizer([a], [b], return_tensors="pt")
        h = m.backbone(**t).last_hidden_state
        return (h * t["attention_mask"].unsqueeze(-1)).sum(1) / t["attention_mask"].sum()

    got = {}
    with torch.no_grad():
        for c in ("the colour of the animal", "the number of people"):
            ref = torch.nn.functional.cosine_similarity(pooled(s1, c), pooled(s2, c)).item()
            got[c] = m([s1], [s2], [c]).item()
            assert got[c] == pytest.approx(ref, abs=1e-5)
    assert abs(got["the colour of the animal"] - got["the number of people"]) > 1e-4


def test_freeze_lower_layers(word_bert):
    m = cm.build_model(word_bert, encoding="bi", seed=0)
    n_all = sum(p.numel() for p in m.backbone.parameters())
    n1 = m.freeze_lower(1)
    assert 0 < n1 < n_all
    assert not m.backbone.embeddings.word_embeddings.weight.requires_grad
    assert all(p.requires_grad for p in m.backbone.encoder.layer[1].parameters())
    assert not any(p.requires_grad for p in m.backbone.encoder.layer[0].parameters())


@pytest.mark.parametrize("encoding", ["cross", "bi", "tri"])
def test_frozen_cache_gives_the_full_pass(word_bert, rows, encoding):
    m = cm.build_model(word_bert, encoding=encoding, seed=0, **{**PRESET_OPTS["official"], "tri_op": "concat"}).eval()
    m.freeze_lower(1)
    df = rows(3)
    args = (df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
    with torch.no_grad():
        full = m(*args)
        store = {}
        m.use_frozen_cache(store)
        first, second = m(*args), m(*args)
    assert len(store) > 0
    assert torch.allclose(full, first, atol=1e-6) and torch.equal(first, second)


def test_frozen_cache_trains_the_top_layer(word_bert, rows):
    m = cm.build_model(word_bert, encoding="bi", seed=0)
    m.freeze_lower(1)
    m.use_frozen_cache({})
    df = rows(2)
    out = m(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()).sum()
    out.backward()
    assert m.backbone.encoder.layer[1].attention.self.query.weight.grad is not None
    assert m.backbone.encoder.layer[0].attention.self.query.weight.grad is None


def test_backbone_copies_are_independent(word_bert):
    a, _ = cm.load_backbone(word_bert)
    b, _ = cm.load_backbone(word_bert)
    with torch.no_grad():
        a.embeddings.word_embeddings.weight.add_(1.0)
    assert not torch.equal(a.embeddings.word_embeddings.weight, b.embeddings.word_embeddings.weight)


def test_data_ablation_inputs(word_bert):
    with pytest.raises(ValueError, match="cross-encoder"):
        cm.build_model(word_bert, encoding="bi", input_mode="condition_only")
    m = cm.build_model(word_bert, encoding="cross", input_mode="condition_only", seed=0).eval()
    with torch.no_grad():
        a = m(["a man runs"], ["a dog sits"], ["the colour"])
        b = m(["a cat sits"], ["a car"], ["the colour"])
    assert a.item() == pytest.approx(b.item())  # sentences are ignored


def test_an_input_shared_by_rows_is_encoded_once(word_bert, monkeypatch):
    """sentences_only: both rows of a pair read the same text. The cross-encoder encodes it once
    per batch, and predict scores each distinct input once; the oracle is each row scored alone."""
    import pandas as pd

    m = cm.build_model(word_bert, encoding="cross", input_mode="sentences_only", seed=0, max_length=32).eval()
    seen = []
    real = m._encode
    monkeypatch.setattr(m, "_encode", lambda texts, *a: seen.append(list(texts)) or real(texts, *a))
    s1, s2, c = ["a man runs", "a man runs", "two dog"], ["a dog sits", "a dog sits", "the cat"], ["x", "y", "x"]
    with torch.no_grad():
        batch = m(s1, s2, c)
        alone = [m([a], [b], [cc]).item() for a, b, cc in zip(s1, s2, c)]
    assert len(seen[0]) == 2  # three rows, two distinct inputs
    assert batch.tolist() == pytest.approx(alone, abs=1e-6)
    df = pd.DataFrame({"sentence1": s1 * 2, "sentence2": s2 * 2, "condition": c * 2})
    seen.clear()
    got = ct.predict(m, df)
    assert sum(len(t) for t in seen) == 2 and got.tolist() == pytest.approx(alone * 2, abs=1e-6)
    # the full cross-encoder reads the condition too: every row is its own input
    full = cm.build_model(word_bert, encoding="cross", seed=0, max_length=32).eval()
    assert len(set(full.score_keys(s1, s2, c))) == 3 and len(set(m.score_keys(s1, s2, c))) == 2
