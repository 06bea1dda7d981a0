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
    m = cm.build_model(word_bert, encoding=encoding, seed=0, pooling=pooling, tri_op="concat", packed=packed,
                       max_length=32).eval()
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
