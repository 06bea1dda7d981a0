"""Benchmark of Part IV (``make bench``): the cost of scoring all N^2 ordered pairs.

The NLI path is timed on a tiny, randomly initialised BERT sequence classifier (2 layers,
hidden size 32, word-level tokenizer) built in a temporary folder, so that it runs offline. The
rate says how fast the batching, tokenisation and softmax plumbing is on this machine; a real
NLI cross-encoder (e.g. DeBERTa-v3-base, ~180M parameters) is orders of magnitude slower per
pair, so the extrapolation to the paper's N = 401 is a lower bound on the cost.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path


def _tiny_nli(path: Path, texts) -> Path:
    from tokenizers import pre_tokenizers

    from tests.helpers.tiny import tiny_bert_classifier

    words = sorted({w for t in texts for w, _ in pre_tokenizers.Whitespace().pre_tokenize_str(t.lower())})
    return tiny_bert_classifier(path, words, {0: "entailment", 1: "neutral", 2: "contradiction"}, hidden=32,
                                lowercase=True)


def run(quick: bool = False) -> dict:
    import numpy as np

    from compsem.ssm.data import load_pool, load_reference
    from compsem.ssm.lexical import LexicalCoverage
    from compsem.ssm.nli import NLICrossEncoder
    from compsem.ssm.tables import ssm_table

    pool = load_pool()
    n = 16 if quick else 48
    texts = list(pool.texts[:n])
    out: dict = {"n_sentences": n, "n_pairs": n * n}
    with tempfile.TemporaryDirectory() as tmp:
        path = _tiny_nli(Path(tmp) / "tiny-nli", pool.texts)
        scorer = NLICrossEncoder(str(path), batch_size=64)
        scorer.score(texts[:4], progress=False)  # warm up
        t0 = time.perf_counter()
        R = scorer.score(texts, progress=False)
        sec = time.perf_counter() - t0
    rate = n * n / sec
    out.update({
        "nli_tiny_seconds": round(sec, 3),
        "nli_tiny_pairs_per_second": round(rate, 1),
        "nli_tiny_extrapolated_seconds_n401": round(401**2 / rate, 1),
        "nli_tiny_extrapolated_seconds_n251": round(251**2 / rate, 1),
        "nli_matrix_finite": bool(np.isfinite(R).all()),
    })
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
