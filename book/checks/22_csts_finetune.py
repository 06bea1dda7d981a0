"""Checks of chapter 22's sentences about the committed precision benchmark (run by
``make check-book`` and the appendix); the rest is the paper's design."""

import json

from compsem.book.checks.claimlist import bf16_cpu_training
from compsem.paths import repo_root

PAGE = "22_csts_finetune"


def check(executed=None):
    bf16_cpu_training(
        json.loads((repo_root() / "benchmarks" / "csts_precision.json").read_text()),
        "trains under bf16 autocast, faster than fp32 with the same scores within noise",
        page=PAGE,
    )


NOT_CLAIMS = {
    "in three ways": "the paper's encodings",
    "the three texts are encoded separately": "the tri-encoder's definition",
    "its two conditional encodings": "the loss's definition",
    "Quad+MSE adds the two": "the objective's definition",
    "Two presets fix everything else": "the chapter's design",
    "The two precisions do not give identical numbers": "bf16 rounds differently from fp32, by construction",
    "each model's best setting on validation": "the paper's selection procedure (its Table 3 caption)",
    "pairs whose two labels are equal": "the definition of pair accuracy",
}
