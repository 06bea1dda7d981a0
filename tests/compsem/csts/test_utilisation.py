"""compsem/csts/utilisation.py (make bench's utilisation) and its words in chapter 22."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compsem.csts import data as cd
from compsem.csts import training as T
from compsem.csts import utilisation as U
from compsem.csts import views as V


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


def test_utilisation_in_words():
    rec = {
        "utilisation": {
            "fp32_gemm_gflop_per_s": 195.0,
            "bf16_gemm_gflop_per_s": 440.0,
            "cpu_flags": ["avx2", "avx512f"],
            "torch_threads": 2,
            "load_average": "0.10 / 0.20 / 0.30",
            "configs": {
                "bi/mse": {
                    "fp32_loop_gflop_per_s": 111.0,
                    "fp32_share_of_fp32_limit": 0.569,
                    "bf16_loop_gflop_per_s": 152.0,
                    "bf16_share_of_bf16_limit": 0.346,
                    "bf16_over_fp32": 1.31,
                }
            },
        }
    }
    text = V.utilisation_text(rec)
    assert text.startswith(
        "bi/mse 152 GFLOP/s in bf16 (35 % of its limit) and 111 GFLOP/s in fp32 (57 % of its limit), "
        "bf16 1.31× the fp32 rate."
    )
    assert "195 GFLOP/s in fp32 and 440 in bf16" in text and "avx2, avx512f" in text
    assert V.utilisation_text({}) == "not measured by the benchmark this book ships"
