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
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    words = sorted({w for t in texts for w, _ in pre_tokenizers.Whitespace().pre_tokenize_str(t.lower())})
    vocab = {t: k for k, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tk.normalizer = normalizers.Lowercase()
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                  sep_token="[SEP]")
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128, num_labels=3,
                     id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
                     label2id={"entailment": 0, "neutral": 1, "contradiction": 2})
    BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def run(quick: bool = False) -> dict:
    import numpy as np

    from compsem.ssm import LexicalCoverage, NLICrossEncoder, load_pool, load_reference, ssm_table

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
