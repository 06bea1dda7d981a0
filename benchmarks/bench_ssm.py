"""Benchmark of Part IV (``make bench``): the cost of scoring all N^2 ordered pairs.

An NLI cross-encoder reads each ordered pair as one sequence, so its cost per pair is the cost
of one forward pass over the two sentences together. No NLI checkpoint ships offline, so the
benchmark measures a real transformer that does: ``sbert-mini`` (MiniLM-L6, 6 layers, hidden
384) encoding each pair's two sentences as one text, and scales that rate to an NLI model of
DeBERTa-v3-base's size (12 layers, hidden 768) by the ratio of per-token transformer FLOPs,
about 12·L·h² per layer stack. The scaled numbers are **estimates**, labelled so: they ignore
DeBERTa's disentangled attention and its larger vocabulary (both make it slower still), so they
are a lower bound on the real cost. Imports only ``compsem``.
"""

from __future__ import annotations

import time

#: The NLI model the estimate is scaled to (cross-encoder/nli-deberta-v3-base's configuration).
TARGET = {"name": "DeBERTa-v3-base NLI", "layers": 12, "hidden": 768}


def _flops_per_token(layers: int, hidden: int) -> float:
    """Per-token multiply-adds of a transformer stack, ~12·L·h² (attention 4h², MLP 8h²)."""
    return 12.0 * layers * hidden**2


def run(quick: bool = False) -> dict:
    import numpy as np

    from compsem.encoders import get_encoder
    from compsem.ssm.data import load_pool, load_reference
    from compsem.ssm.lexical import LexicalCoverage
    from compsem.ssm.tables import ssm_table

    pool = load_pool()
    n = 16 if quick else 48
    texts = list(pool.texts[:n])
    pairs = [f"{a} {b}" for a in texts for b in texts]
    enc = get_encoder("sbert-mini")
    cfg = enc.model[0].auto_model.config
    enc.encode(pairs[:8], show_progress=False)  # warm up
    t0 = time.perf_counter()
    enc.encode(pairs, batch_size=64, show_progress=False)
    sec = time.perf_counter() - t0
    rate = len(pairs) / sec
    ratio = _flops_per_token(TARGET["layers"], TARGET["hidden"]) / _flops_per_token(
        cfg.num_hidden_layers, cfg.hidden_size
    )
    est = rate / ratio
    out: dict = {
        "n_sentences": n,
        "n_pairs": len(pairs),
        "measured_model": f"sbert-mini ({cfg.num_hidden_layers} layers, hidden {cfg.hidden_size})",
        "measured_seconds": round(sec, 3),
        "measured_pairs_per_second": round(rate, 1),
        "estimate_for": f"{TARGET['name']} ({TARGET['layers']} layers, hidden {TARGET['hidden']})",
        "estimate_flop_ratio": round(ratio, 1),
        "estimated_pairs_per_second": round(est, 1),
        "estimated_seconds_n401": round(401**2 / est, 0),
        "estimated_seconds_n251": round(251**2 / est, 0),
    }
    # the offline baseline and the metrics on the full shipped pool
    t0 = time.perf_counter()
    R_lex = LexicalCoverage().score(pool.texts)
    out["lexical_seconds_full_pool"] = round(time.perf_counter() - t0, 4)
    R_ref = load_reference(pool)
    t0 = time.perf_counter()
    ssm_table(R_lex, R_ref, pool.clusters, n_boot=200 if quick else 1000)
    out["metrics_with_bootstrap_seconds_full_pool"] = round(time.perf_counter() - t0, 3)
    out["full_pool_n"] = len(pool)
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(quick=True), indent=1))
