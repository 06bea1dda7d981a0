"""Padding-free layers (compsem.csts.packed) against the encoder's own padded forward pass."""

from __future__ import annotations

import pytest
import torch

from compsem.csts import models as cm
from compsem.csts import packed as P

# rows of clearly different lengths, so that every batch carries padding
S1 = ["a man runs", "a woman sits on the blue car in the park", "two dog"]
S2 = ["a dog sits in the street", "the cat", "one red ball on the street in the park"]
C = ["the colour", "the number of people in the park", "kind of animal"]


def _model(word_bert, encoding, packed, *, cache=False, pooling="mean"):
    m = cm.build_model(
        word_bert, encoding=encoding, seed=0, pooling=pooling, tri_op="concat", packed=packed, max_length=32
    ).eval()
    m.freeze_lower(1)
    if cache:
        m.use_frozen_cache({})
    return m


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("pooling", ["mean", "cls"])
@pytest.mark.parametrize("encoding", ["cross", "bi", "tri"])
def test_packed_scores_equal_the_padded_pass_at_eval(word_bert, encoding, pooling, cache):
    """The oracle is the encoder's own forward (``packed=False``: transformers' BertModel on the
    padded batch); at evaluation the packed pass computes the same numbers for every real token."""
    with torch.no_grad():
        padded = _model(word_bert, encoding, False, cache=cache, pooling=pooling)(S1, S2, C)
        packed = _model(word_bert, encoding, True, cache=cache, pooling=pooling)(S1, S2, C)
    assert torch.allclose(packed, padded, atol=1e-6, rtol=0)
    assert (packed - padded).abs().max().item() <= 1e-6


def test_packed_token_states_equal_the_padded_ones(word_bert):
    """Token by token, all layers: packed states equal transformers' last_hidden_state on the
    real tokens (the padding positions are simply absent)."""
    m = _model(word_bert, "tri", True)
    batch = m._tokenize(S1 + C, None)
    mask = batch["attention_mask"]
    assert (mask == 0).any()  # the batch is padded
    with torch.no_grad():
        ref = m.backbone(**batch).last_hidden_state
        layers = m._all_layers()
        flat = P.pack_index(mask)
        emb = m.backbone.embeddings(input_ids=batch["input_ids"], token_type_ids=batch.get("token_type_ids"))
        got = P.unpack(P.packed_layers(layers, emb.reshape(-1, m.dim)[flat], mask), flat, tuple(mask.shape))
    real = mask.bool()
    assert torch.allclose(got[real], ref[real], atol=1e-6, rtol=0)
    assert torch.equal(got[~real], torch.zeros_like(got[~real]))


def test_packed_training_reaches_the_top_layer_and_checks_its_input(word_bert):
    m = _model(word_bert, "bi", True, cache=True).train()
    m(S1, S2, C).sum().backward()
    assert m.backbone.encoder.layer[1].output.dense.weight.grad is not None
    assert m.backbone.encoder.layer[0].output.dense.weight.grad is None
    with pytest.raises(ValueError, match="real tokens"):
        P.packed_layers(m._all_layers()[1:], torch.zeros(3, m.dim), torch.ones(2, 2))


def test_packing_is_refused_for_blocks_it_does_not_know(tiny_gpt2):
    from transformers import AutoModel

    gpt = AutoModel.from_pretrained(tiny_gpt2)
    assert not P.supports_packing(gpt, list(gpt.h))


# ---- dropout masks from one draw (packed.keep_masks) ---------------------------------------------
def test_keep_masks_drop_at_the_asked_rate_and_replay_from_the_seed():
    torch.manual_seed(3)
    a = P.keep_masks([400_000, 7, 1], 0.1)
    assert [m.numel() for m in a] == [400_000, 7, 1] and a[0].dtype == torch.bool
    # round(0.1 * 65536) / 65536 = 0.100006 dropped; binomial sd at n=100,000 is 0.00095: within 5 sd
    for quarter in range(4):  # each 16-bit quarter of the 64-bit words is uniform on its own
        drop = 1 - a[0][quarter::4].float().mean().item()
        assert abs(drop - 6554 / 65536) < 0.005, (quarter, drop)
    torch.manual_seed(3)
    assert all(torch.equal(x, y) for x, y in zip(a, P.keep_masks([400_000, 7, 1], 0.1)))
    assert not torch.equal(a[0], P.keep_masks([400_000], 0.1)[0])


def test_one_draw_attention_is_sdpa_without_dropout_when_all_is_kept():
    """The math path against torch's SDPA (the oracle), every probability kept."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4) for _ in range(3))
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]).bool()[:, None, None, :].expand(2, 1, 5, 5)
    keep = torch.ones(2 * 3 * 5 * 5, dtype=torch.bool)
    got = P._attention(q, k, v, mask, 0.5, keep, 0.1)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.5)
    # kept probabilities are scaled by 1 / (1 - p), as dropout does
    assert torch.allclose(got, want / 0.9, atol=1e-6)


def test_one_draw_dropout_in_training_is_seeded_unbiased_and_trains(word_bert):
    m = _model(word_bert, "bi", True, cache=True).train()
    m.dropout_draw = "one"
    p = m.backbone.config.hidden_dropout_prob
    assert p > 0
    torch.manual_seed(1)
    a = m(S1, S2, C)
    torch.manual_seed(1)
    assert torch.equal(a, m(S1, S2, C))  # the seed replays the masks
    torch.manual_seed(2)
    assert not torch.equal(a, m(S1, S2, C))
    a.sum().backward()
    assert m.backbone.encoder.layer[1].output.dense.weight.grad is not None
    # x * mask / (1 - p) keeps the mean: averaged over many draws it is x
    x = torch.full((200_000,), 2.0)
    kept = P.keep_masks([x.numel()], p)[0]
    assert abs(P._drop(x, kept, p).mean().item() - 2.0) < 0.02
    assert P._drop(x, kept, p).unique().tolist() == pytest.approx([0.0, 2.0 / (1 - p)])
    with pytest.raises(ValueError, match="draw must be"):
        P.packed_layers(m._all_layers()[1:], torch.zeros(1, m.dim), torch.ones(1, 1), draw="other")


def test_under_autocast_the_projections_are_one_product_with_the_same_numbers(word_bert):
    """bf16 autocast: queries, keys and values from one product of the stacked weights (x cast
    once) equal the three projections of the same layer under the same autocast (the oracle)."""
    m = _model(word_bert, "bi", True)
    sa = m._all_layers()[0].attention.self
    x = torch.randn(7, m.dim)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fused = P._qkv(sa, x, True)
        three = torch.cat([sa.query(x), sa.key(x), sa.value(x)], dim=-1)
    assert fused.dtype == three.dtype == torch.bfloat16
    assert torch.allclose(fused.float(), three.float(), atol=1e-2, rtol=1e-2)
    assert torch.equal(P._qkv(sa, x, False), torch.cat([sa.query(x), sa.key(x), sa.value(x)], dim=-1))
