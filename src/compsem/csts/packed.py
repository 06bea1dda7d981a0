"""Padding-free transformer layers for the C-STS encoders (BERT-like blocks).

A batch of texts of different lengths is padded to its longest text, so a padded forward pass
spends part of every matrix product on padding tokens (a third or more for the tri-encoder's
short conditions). :func:`packed_layers` runs the same layers on the real tokens only: the
token states are *packed* into one ``(n_tokens, d)`` matrix, and every per-token operation —
the query, key and value projections, the attention output projection, the feed-forward
layers, dropout and LayerNorm — runs on that matrix. Only attention itself needs the padded
``(batch, heads, length, head_dim)`` shape: queries, keys and values are scattered into it,
:func:`torch.nn.functional.scaled_dot_product_attention` runs with the same boolean key mask
as the model's own SDPA path, and the context vectors of the real tokens are gathered back.

At evaluation this computes, for every real token, the same operations on the same numbers as
the padded pass (tests/compsem/csts/test_packed.py checks equality against it); in training
the dropout masks are drawn for the packed matrix instead of the padded one, so the random
stream — not the model — differs. :func:`supports_packing` says whether a backbone's blocks
have the structure this needs; others keep the padded pass.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["supports_packing", "packed_layers", "pack_index", "unpack"]


def supports_packing(backbone: nn.Module, layers) -> bool:
    """Whether ``layers`` are plain BERT-style encoder blocks (self-attention with query/key/value
    projections, no cross-attention, absolute positions, SDPA or eager attention) that
    :func:`packed_layers` can run; False for anything else."""
    cfg = backbone.config
    if getattr(cfg, "is_decoder", False) or getattr(cfg, "add_cross_attention", False):
        return False
    if getattr(cfg, "position_embedding_type", "absolute") != "absolute":
        return False
    if getattr(cfg, "_attn_implementation", "eager") not in ("sdpa", "eager"):
        return False
    for layer in layers:
        att = getattr(layer, "attention", None)
        sa, so = getattr(att, "self", None), getattr(att, "output", None)
        if sa is None or so is None or not all(hasattr(sa, k) for k in ("query", "key", "value", "dropout", "scaling")):
            return False
        if not all(hasattr(so, k) for k in ("dense", "dropout", "LayerNorm")):
            return False
        if not hasattr(getattr(layer, "intermediate", None), "dense") or not hasattr(layer, "output"):
            return False
        if not all(hasattr(layer.output, k) for k in ("dense", "dropout", "LayerNorm")):
            return False
    return True


def pack_index(mask: torch.Tensor) -> torch.Tensor:
    """Flat positions (row-major in ``batch × length``) of the real tokens of ``mask``."""
    return mask.reshape(-1).nonzero().squeeze(1)


def unpack(x: torch.Tensor, flat: torch.Tensor, shape: tuple[int, int]) -> torch.Tensor:
    """Packed ``(n_tokens, k)`` back to padded ``(batch, length, k)``, zeros at the padding."""
    b, t = shape
    return x.new_zeros(b * t, x.shape[-1]).index_copy(0, flat, x).view(b, t, x.shape[-1])


def packed_layers(layers, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Run the BERT-style ``layers`` on packed token states.

    Parameters
    ----------
    layers : sequence of encoder blocks
        As accepted by :func:`supports_packing`; each block's ``training`` flag decides dropout.
    x : tensor ``(n_tokens, d)``
        The real tokens' input states, row by row in the order of ``mask`` (row 0's tokens,
        then row 1's, ...).
    mask : tensor ``(batch, length)``
        1 for a real token, 0 for padding; real tokens come first in each row.

    Returns the packed output states ``(n_tokens, d)``.
    """
    b, t = mask.shape
    flat = pack_index(mask)
    if flat.numel() != x.shape[0]:
        raise ValueError(f"the mask has {flat.numel()} real tokens but {x.shape[0]} states were given")
    # the model's own SDPA mask: for every query, which keys are real tokens
    attn_mask = mask.bool()[:, None, None, :].expand(b, 1, t, t)
    for layer in layers:
        sa, so = layer.attention.self, layer.attention.output
        heads, dh = sa.num_attention_heads, sa.attention_head_size
        qkv = torch.cat([sa.query(x), sa.key(x), sa.value(x)], dim=-1)
        q, k, v = unpack(qkv, flat, (b, t)).view(b, t, 3, heads, dh).permute(2, 0, 3, 1, 4).unbind(0)
        ctx = nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, dropout_p=sa.dropout.p if sa.training else 0.0, scale=sa.scaling)
        ctx = ctx.transpose(1, 2).reshape(b * t, heads * dh).index_select(0, flat)
        a = so.LayerNorm(so.dropout(so.dense(ctx)) + x)
        x = layer.output.LayerNorm(layer.output.dropout(layer.output.dense(layer.intermediate(a))) + a)
    return x
