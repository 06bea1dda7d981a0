"""Benchmark of Part II (C-STS): fine-tuning throughput per encoding on CPU.

``run(quick)`` fine-tunes ``sbert-mini`` for one epoch on the embedded training split (the
first 16 sentence pairs when ``quick``, all 99 otherwise) with each encoding, once with the
whole network trainable and once with only the top two layers (the book's default), and
reports training rows per second (forward + backward + optimiser step; model loading and
evaluation excluded).
"""

from __future__ import annotations

import platform
import time


def run(quick: bool = True) -> dict:
    import torch

    from compsem.csts import load_csts, splits
    from compsem.csts import training as T
    from compsem.csts.models import build_model

    df, _ = load_csts("embedded")
    train = splits(df)["train"]
    if quick:
        keep = train["pair_id"].drop_duplicates().iloc[:16]
        train = train[train["pair_id"].isin(keep)].reset_index(drop=True)
    out = {
        "encoder": "sbert-mini",
        "device": "cpu",
        "torch_threads": torch.get_num_threads(),
        "machine": platform.machine(),
        "train_rows": len(train),
        "epochs": 1,
        "batch_size": 16,
        "results": [],
    }
    for train_layers in (None, 2):
        for enc, obj in (("cross", "mse"), ("bi", "quad+mse"), ("tri", "quad+mse")):
            cfg = T.TrainConfig(encoding=enc, objective=obj, epochs=1, batch_size=16, lr=5e-4,
                                train_layers=train_layers, device="cpu")
            model = build_model("sbert-mini", encoding=enc, seed=0)
            model.freeze_lower(train_layers)
            t0 = time.perf_counter()
            hist = T.fit(model, train, cfg, seed=0)
            sec = time.perf_counter() - t0
            out["results"].append({
                "encoding": enc, "objective": obj,
                "trainable": "all layers" if train_layers is None else f"top {train_layers} layers",
                "seconds": round(sec, 3), "examples_per_s": round(len(train) / sec, 2),
                "steps": hist["n_steps"],
            })
    return out


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(run(quick="--full" not in sys.argv), indent=1))
