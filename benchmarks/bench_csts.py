"""Benchmark of Part II (C-STS): the fp32 path against the fast CPU path, side by side.

``run(quick)`` fine-tunes ``sbert-mini`` with ``bi/quad+mse`` at the book's ``cpu`` preset on
the re-annotated data's pair split (all training pairs, scored on all test pairs; the first 150
training pairs and 100 test pairs when ``quick``), alternately on two paths in one process:

* ``fp32``: full precision, batches in random order (the path before the fast one);
* ``fast``: the book's default: ``precision="auto"`` (bf16 autocast on a CPU with native bf16,
  fp32 elsewhere) and length-bucketed batches.

Both paths fill a fresh in-memory frozen-layer cache (no disk reuse), so each pays the whole
cost of a cold run. Reported per run: training rows per second (frozen-layer fill + forward +
backward + optimiser step; model loading and scoring excluded), test Spearman and pair accuracy;
and the ratio of the fast path's rows per second to the fp32 path's, with the Spearman difference.
Runs alternate (fp32, fast, fp32, fast, …) so that a change of machine load hits both.
"""

from __future__ import annotations

import os
import platform
import time


def _one(encoder, parts, cfg):
    from compsem.csts import study as S
    from compsem.csts import training as T

    T._FROZEN.clear()
    model = T.new_model(encoder, cfg, seed=0, disk=False)
    hist = T.fit(model, parts["train"], cfg, seed=0)
    row = S.score_row(T.predict(model, parts["test"]), parts["test"])
    return {"examples_per_s": round(len(parts["train"]) / hist["seconds"], 2), "seconds": round(hist["seconds"], 2),
            "fill_seconds": round(hist["fill_seconds"], 2), "precision": hist["precision"],
            "fused_adamw": hist["fused_adamw"], "test_spearman": round(row["spearman"], 2),
            "test_pair_accuracy": round(row["pair_accuracy"], 2)}


def run(quick: bool = True, repeats: int | None = None, train_pairs=None, eval_pairs=None) -> dict:
    import numpy as np
    import torch

    from compsem import device as D
    from compsem.csts import study as S
    from compsem.csts.training import TrainConfig

    parts, _ = S.book_data("reannotated", train_pairs=train_pairs or (150 if quick else None),
                           eval_pairs=eval_pairs or (100 if quick else None))
    paths = {"fp32": TrainConfig.preset("cpu", encoding="bi", objective="quad+mse", precision="fp32", bucket=False),
             "fast": TrainConfig.preset("cpu", encoding="bi", objective="quad+mse")}
    repeats = repeats or 1
    runs = []
    for r in range(repeats):
        for name, cfg in paths.items():
            runs.append({"path": name, "repeat": r, **_one("sbert-mini", parts, cfg)})
    by = {name: [x for x in runs if x["path"] == name] for name in paths}
    mean = {name: {k: float(np.mean([x[k] for x in rows])) for k in ("examples_per_s", "test_spearman")}
            for name, rows in by.items()}
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover - not on Unix
        load = (float("nan"),) * 3
    return {
        "encoder": "sbert-mini", "config": "bi/quad+mse, cpu preset", "device": "cpu",
        "torch_threads": torch.get_num_threads(), "machine": platform.machine(),
        "cpu_bf16_native": D.cpu_bf16_native(), "cpu_capability": str(torch.backends.cpu.get_cpu_capability()),
        "train_rows": len(parts["train"]), "test_rows": len(parts["test"]), "epochs": 1, "batch_size": 16,
        "load_average_at_end": " / ".join(f"{x:.2f}" for x in load),  # 1, 5, 15 minutes: was the machine quiet?
        "results": runs,
        "comparison": {
            "fp32_examples_per_s": round(mean["fp32"]["examples_per_s"], 2),
            "fast_examples_per_s": round(mean["fast"]["examples_per_s"], 2),
            "ratio": round(mean["fast"]["examples_per_s"] / mean["fp32"]["examples_per_s"], 3),
            "fp32_test_spearman": round(mean["fp32"]["test_spearman"], 2),
            "fast_test_spearman": round(mean["fast"]["test_spearman"], 2),
            "spearman_difference": round(mean["fast"]["test_spearman"] - mean["fp32"]["test_spearman"], 2),
            "fast_precision": by["fast"][0]["precision"],
        },
        "wall_start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(run(quick="--full" not in sys.argv, repeats=2 if "--twice" in sys.argv else None), indent=1))
