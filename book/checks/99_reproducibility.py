"""Chapter 99: its hidden cell checks the sentence about the cache (compsem.book.checks.claimlist);
this file its sentences about the GPU check (run by ``make check-book`` and the appendix); the
rest is the cache's and the benchmark's design."""

import importlib.util
from pathlib import Path

PAGE = "99_reproducibility"


def check(executed=None):
    spec = importlib.util.spec_from_file_location("_gpu_claims", Path(__file__).with_name("gpu_claims.py"))
    g = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(g)
    g.bf16_training_slower("bf16 autocast fine-tuned more slowly than fp32 at the book's preset", PAGE)
    g.reproduction(
        "Part III then reproduces the paper's MiniLM cells from the GPU's vectors",
        "while they moved Part III's reproduced cells by more than the 1e-4 the book holds",
        PAGE,
    )


NOT_CLAIMS = {
    "new weights under an old name are never served old vectors": "the cache key's design (compsem.cache)",
    "Where the two machines differ": "the table's rule",
    "A ratio above 1 means ONNX Runtime was faster": "how to read the ratio",
    "where a check at first use finds it faster": "the backend rule's design (compsem.encoders.onnx)",
    "Two defaults follow": "the page's plan",
    "so only half the texts reach the model": "the benchmark's design: each text given twice",
    '(a count, "seldom", a winner, "faster", agreement with the paper)': "names the claim vocabulary",
}
