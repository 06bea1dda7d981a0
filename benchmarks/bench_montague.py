"""Benchmark of Part III: time of the three Montague tests per model, embeddings already in hand.

``run(quick)`` embeds the 44,652 phrases and 73 words once per model (through the disk cache;
the first run of a sentence encoder pays for encoding, reported separately), then times
``run_tests`` — single-phrase intersectivity for AN and AAN phrases, the 483,120-combination
pair test and non-subsectivity — as the best of ``repeats`` runs, and the class tables with
their bootstrap intervals and permutation tests. ``quick`` uses the two models that need no
neural encoder (glove-50d, bow). ``encode_backends`` measures ``sbert-mini`` in torch against
ONNX Runtime fp32 on a fixed sample of chapter 30's phrases (2,000; 500 when ``quick``),
interleaved in this process (:func:`compsem.encoders.onnxbench.compare_backends`).
"""

from __future__ import annotations

import time


def run(quick: bool = False) -> dict:
    import numpy as np

    from compsem import montague as mt
    from compsem import resolve_models
    from compsem.encoders import get_encoder
    from compsem.encoders.onnxbench import compare_backends

    models = ["glove-50d", "bow"] if quick else resolve_models("panel")
    repeats = 2 if quick else 3
    vocab = mt.data.load_vocabulary()
    phrases = mt.data.build_phrases(vocab)
    out: dict = {"n_phrases": len(phrases), "n_pair_combinations": 61 * 60 * 12 * 11, "repeats": repeats, "models": {}}
    for m in models:
        emb = mt.study.embed_phrases(phrases, m)
        best, parts = float("inf"), {}
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = mt.study.run_tests(emb, vocab, phrases)
            took = time.perf_counter() - t0
            if took < best:
                best, parts = took, dict(res.seconds)
        t0 = time.perf_counter()
        mt.tables.an_table(res, "single_an")
        mt.tables.an_table(res, "nonsub")
        mt.tables.aan_table(res)
        mt.tables.pair_table(res)
        tables = time.perf_counter() - t0
        t0 = time.perf_counter()
        mt.tables.category_difference_tests(res, n_perm=10_000)
        stats = time.perf_counter() - t0
        out["models"][m] = {
            "dim": int(emb.words.shape[1]),
            "embed_seconds": round(emb.seconds, 3),
            "tests_seconds": round(best, 4),
            **{f"{k}_seconds": round(v, 4) for k, v in parts.items()},
            "tables_bootstrap_seconds": round(tables, 3),
            "category_tests_seconds": round(stats, 3),
        }
    texts = mt.study.planned_texts({"models": ["sbert-mini"]})["sbert-mini"]
    sample = [texts[i] for i in np.random.default_rng(0).choice(len(texts), 500 if quick else 2000, replace=False)]
    out["encode_backends"] = {
        "phrases (chapter 30)": compare_backends(get_encoder("sbert-mini"), sample, rounds=2 if quick else 4)
    }
    return out


def gpu(device: str = "cuda", quick: bool = False) -> dict:
    """The GPU check of Part III (``benchmarks/gpu_check.py``): chapter 30's phrases encoded by
    ``sbert-mini`` on ``device`` with the library's default weights (fp32) and with bf16 weights,
    against the CPU's fp32 vectors (texts per second, :func:`compsem.book.appendices.bench.vector_gap`),
    and the paper's Tables 1, 6, 7 and 8 reproduced from each: cells, largest difference from
    the paper, cells within 1e-4."""
    import numpy as np

    from compsem import montague as mt
    from compsem.book.appendices.bench import encode_rate, encoder_in, vector_gap
    from compsem.encoders import get_encoder
    from compsem.montague.reproduce import reproduced

    texts = mt.study.planned_texts({"models": ["sbert-mini"]})["sbert-mini"]
    sample = [texts[i] for i in np.random.default_rng(0).permutation(len(texts))[: 2000 if quick else 20_000]]
    paths = {
        "gpu_default": get_encoder("sbert-mini", device=device),
        "gpu_bf16": encoder_in("sbert-mini", device=device, dtype="bfloat16"),
    }
    cpu = get_encoder("sbert-mini", device="cpu")
    r_cpu, X_cpu = encode_rate(lambda t: cpu.encode(t, batch_size=64), sample, repeats=1)
    out: dict = {"phrases": len(sample), "cpu_fp32_texts_per_s": round(r_cpu, 1), "encoding": {}, "reproduction": {}}
    for name, enc in paths.items():
        rate, X = encode_rate(lambda t, enc=enc: enc.encode(t, batch_size=256), sample)
        out["encoding"][name] = {
            "weights": str(next(enc.model.parameters()).dtype).removeprefix("torch."),
            "texts_per_s": round(rate, 1),
            **vector_gap(X, X_cpu),
        }
        result = mt.study.run(
            ["sbert-mini"], progress=False, embed_fn=lambda t, model, enc=enc: enc.encode(t, batch_size=256)
        ).main["sbert-mini"]
        for table in (1, 6, 7, 8):
            d = reproduced(result, table, n_boot=20, seed=0)["difference"].abs()
            out["reproduction"][f"{name}, Table {table}"] = {
                "cells": int(d.notna().sum()),
                "max_abs_diff": float(d.max()),
                "within_1e-4": int((d <= 1e-4).sum()),
            }
    return out


def gpu_words(section: dict | None) -> dict[str, str]:
    """What chapter 99 says of this check's section of ``benchmarks/gpu.json``: whether the
    default weights kept every reproduced cell of the paper's tables within 1e-4
    (``gpu_reproduces``) and whether bf16 weights moved some cell further (``gpu_bf16_cells``)."""
    rep = (section or {}).get("reproduction", {})
    off = {
        w: [v["within_1e-4"] < v["cells"] for k, v in rep.items() if k.startswith(f"gpu_{w}")]
        for w in ("default", "bf16")
    }
    return {
        "gpu_reproduces": "(not measured) reproduces"
        if not off["default"]
        else "does not reproduce every one of"
        if any(off["default"])
        else "reproduces",
        "gpu_bf16_cells": "(not measured) moved Part III's cells against"
        if not off["bf16"]
        else "moved Part III's reproduced cells by more than"
        if any(off["bf16"])
        else "kept every one of Part III's reproduced cells within",
    }


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    print(json.dumps(run(quick="--quick" in sys.argv), indent=1))
