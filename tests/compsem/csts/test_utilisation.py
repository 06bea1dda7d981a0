"""compsem/csts/utilisation.py (make bench's utilisation; chapter 22 shows it in its precision table)."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.csts import data as cd
from compsem.csts import training as T
from compsem.csts import utilisation as U


def test_gemm_limit_is_a_rate_and_refuses_other_types():
    assert U.gemm_limit("fp32", shape=(64, 32, 16), reps=3) > 0
    with pytest.raises(ValueError, match="dtype"):
        U.gemm_limit("fp16")


def test_flops_per_row_against_a_count_by_hand(word_bert, rows):
    """The tiny BERT (hidden 16, feed-forward 32, 2 heads), bi-encoder, top layer trained, fp32.
    Per real token the layer's linears cost 2·(3·16·16 + 16·16 + 16·32 + 32·16) = 4,096 operations
    forward, as many for the weight gradients, and 4,096 − 1,536 for the input gradients (the
    cached input of the query/key/value projections needs none); attention costs 4·t²·16 per input
    forward (scores and context on the padded length t) and twice that backward."""
    df = cd.assign_pairs(rows(6))
    cfg = T.TrainConfig(encoding="bi", objective="mse", batch_size=4, max_length=32, train_layers=1, precision="fp32")
    got = U.flops_per_row(word_bert, df, cfg, n_batches=2)
    model = T.new_model(word_bert, cfg, seed=0, disk=False)
    plan = T._batches(df, cfg, np.random.default_rng(0))[:2]
    total, n_rows = 0, 0
    for idx, _, _ in plan:
        texts = [df["sentence1"].iloc[i] for i in idx] + [df["sentence2"].iloc[i] for i in idx]
        conds = [df["condition"].iloc[i] for i in idx] * 2
        lens = [len(model.tokenizer(t, c)["input_ids"]) for t, c in zip(texts, conds)]
        t = max(lens)
        total += (4096 + 4096 + 4096 - 1536) * sum(lens) + 3 * 4 * t * t * 16 * len(lens)
        n_rows += len(idx)
    assert got == pytest.approx(total / n_rows)


def test_profile_shares_by_hand():
    events = [
        ("aten::mm", 600.0),
        ("aten::addmm", 200.0),
        ("aten::_softmax", 100.0),
        ("aten::copy_", 50.0),
        ("aten::_fused_adamw_", 30.0),
        ("aten::bernoulli_", 20.0),
        ("something::else", 0.0),
    ]
    got = U.profile_shares(events, steps=2)
    # total 1,000 us over 2 steps: matrix products 800 us = 0.40 ms a step, share 0.8; the rest likewise
    assert list(got) == ["matrix products", "softmax", "casts and copies", "optimiser", "dropout masks", "other"]
    assert got["matrix products"] == {"ms_per_step": 0.4, "share": 0.8}
    assert got["softmax"] == {"ms_per_step": 0.05, "share": 0.1} and got["other"]["share"] == 0.0
    assert U.op_category("Optimizer.step#AdamW.step") == "optimiser" and U.op_category("aten::gelu_backward") == "GELU"
    with pytest.raises(ValueError, match="no profiled time"):
        U.profile_shares([("aten::mm", 0.0)])


def test_profile_steps_on_a_tiny_model(word_bert, rows):
    df = cd.assign_pairs(rows(6))
    cfg = T.TrainConfig(encoding="bi", objective="mse", batch_size=4, max_length=32, train_layers=1, precision="fp32")
    got = U.profile_steps(word_bert, df, cfg, n_batches=2, warmup=1)
    assert (got["steps"], got["precision"]) == (2, "fp32")
    assert abs(sum(k["share"] for k in got["kinds"].values()) - 1) < 0.01 and "matrix products" in got["kinds"]
