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

Dropout in training with ``draw="one"`` (the ``cpu`` preset's ``dropout_draw``): the masks of every
dropout site of the layers — the attention probabilities and the two residual branches of each
layer — come from *one* draw of random 16-bit integers per call, kept where the integer lies at or above
``p × 65,536`` of its range (:func:`keep_masks`; drop probability ``round(p × 65,536) / 65,536``,
0.100006 for 0.1), and are applied as ``x × mask / (1 − p)``; attention then runs as the
matrix products of SDPA's own math path with that mask. One 64-bit draw gives four sites'
integers, where torch's dropout draws a float per element and scales in separate passes (on two
Zen 3 cores, ``F.dropout`` of a 700 × 384 matrix took 3.7 ms, the draw of its integers 0.4 ms). The
draw comes from torch's generator, so a seed reproduces it. ``draw="torch"`` (the ``official``
preset's, closer to the authors' code) keeps torch's dropout modules and SDPA's dropout.
Measured step-interleaved (``benchmarks/bench_csts.py``'s ``_steps``, 48 steps each, fp32, 800
training pairs) on a quiet AMD EPYC Zen 3 (flags avx2, no avx512; 2 threads, nothing else
running), one draw against torch's trained 1.07–1.10× as many examples per second per block of 12
steps for bi/quad+mse, 1.07–1.12× for cross/mse and 1.06–1.09× for tri/quad+mse. An earlier
measurement on the same kind of machine under a load of 3.5–11 on 2 cores found no clear
difference (0.95–1.04×), which is why it was not the default before. Whole bi/quad+mse runs on
1,200 training rows scored 37.7 ± 1.0 (one draw) and 37.0 ± 1.1 (torch's), two seeds each: within
the seed spread. Whole chapters gained less: chapter 22's four training runs took 356.5 s against
364.9 s with torch's draw (one run each, ``benchmarks/csts_ab_fp32.json``'s machine). ``make bench``
measures it again on its machine.
"""

from __future__ import annotations

import torch
from torch import nn

from .config import DROPOUT_DRAWS

__all__ = ["supports_packing", "packed_layers", "pack_index", "unpack", "keep_masks", "DRAWS"]

#: how :func:`packed_layers` draws its dropout masks in training ("one": one draw per call for all
#: sites, the ``cpu`` preset's; "torch": torch's dropout per site)
DRAWS = DROPOUT_DRAWS


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


def keep_masks(sizes: list[int], p: float, device=None) -> list[torch.Tensor]:
    """Boolean keep-masks of the given sizes (flat) from one draw of random 16-bit integers:
    each element is dropped with probability ``round(p × 65,536) / 65,536`` (torch's generator,
    so :func:`torch.manual_seed` reproduces them)."""
    total = sum(sizes)
    words = torch.randint(-(2**63), 2**63 - 1, ((total + 3) // 4,), dtype=torch.int64, device=device)
    keep = words.view(torch.int16)[:total] >= int(round(p * 65536)) - 32768
    return list(torch.split(keep, sizes))


def _qkv(sa, x: torch.Tensor, cast_once: bool) -> torch.Tensor:
    """Queries, keys and values side by side ``(n, 3d)``. Under autocast (``cast_once``) one
    product with the three weights stacked, so that ``x`` and the weights are cast to the low
    precision once per call instead of once per projection; otherwise the three projections."""
    if not cast_once:
        return torch.cat([sa.query(x), sa.key(x), sa.value(x)], dim=-1)
    w = torch.cat([sa.query.weight, sa.key.weight, sa.value.weight])
    b = torch.cat([sa.query.bias, sa.key.bias, sa.value.bias])
    return nn.functional.linear(x, w, b)


def _drop(x: torch.Tensor, keep: torch.Tensor, p: float) -> torch.Tensor:
    return x * (keep.view(x.shape).to(x.dtype) * (1.0 / (1.0 - p)))


def _attention(q, k, v, attn_mask, scale: float, keep: torch.Tensor | None, p: float) -> torch.Tensor:
    """SDPA's math path (scaled scores, masked softmax, dropout on the probabilities, times v),
    with the probabilities dropped by ``keep``."""
    w = (q @ k.transpose(-2, -1)) * scale
    w = w.masked_fill(~attn_mask, float("-inf")).softmax(-1)
    return (_drop(w, keep, p) if keep is not None else w) @ v


def packed_layers(layers, x: torch.Tensor, mask: torch.Tensor, *, draw: str = "torch") -> torch.Tensor:
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

    draw : ``"one"`` or ``"torch"``
        How dropout masks are drawn in training (see the module's docstring).

    Returns the packed output states ``(n_tokens, d)``.
    """
    if draw not in DRAWS:
        raise ValueError(f"draw must be one of {DRAWS}, got {draw!r}")
    b, t = mask.shape
    flat = pack_index(mask)
    if flat.numel() != x.shape[0]:
        raise ValueError(f"the mask has {flat.numel()} real tokens but {x.shape[0]} states were given")
    # the model's own SDPA mask: for every query, which keys are real tokens
    attn_mask = mask.bool()[:, None, None, :].expand(b, 1, t, t)
    n, d = x.shape
    one = draw == "one" and any(layer.training for layer in layers)
    if one:  # every site's mask of every layer from one draw (all sites share one p: BERT's configs do)
        ps = {
            m.p
            for layer in layers
            for m in (layer.attention.self.dropout, layer.attention.output.dropout, layer.output.dropout)
        }
        p = ps.pop() if len(ps) == 1 else None
        one = p is not None and p > 0
    if one:
        heads = layers[0].attention.self.num_attention_heads
        masks = iter(keep_masks([b * heads * t * t, n * d, n * d] * len(layers), p, x.device))
    cast_once = torch.is_autocast_enabled(x.device.type)
    for layer in layers:
        sa, so = layer.attention.self, layer.attention.output
        heads, dh = sa.num_attention_heads, sa.attention_head_size
        qkv = _qkv(sa, x, cast_once)
        q, k, v = unpack(qkv, flat, (b, t)).view(b, t, 3, heads, dh).permute(2, 0, 3, 1, 4).unbind(0)
        if one:
            ctx = _attention(q, k, v, attn_mask, sa.scaling, next(masks), p)
            a = so.LayerNorm(
                _drop(so.dense(ctx.transpose(1, 2).reshape(b * t, heads * dh).index_select(0, flat)), next(masks), p)
                + x
            )
            x = layer.output.LayerNorm(_drop(layer.output.dense(layer.intermediate(a)), next(masks), p) + a)
            continue
        ctx = nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, dropout_p=sa.dropout.p if sa.training else 0.0, scale=sa.scaling
        )
        ctx = ctx.transpose(1, 2).reshape(b * t, heads * dh).index_select(0, flat)
        a = so.LayerNorm(so.dropout(so.dense(ctx)) + x)
        x = layer.output.LayerNorm(layer.output.dropout(layer.output.dense(layer.intermediate(a))) + a)
    return x
