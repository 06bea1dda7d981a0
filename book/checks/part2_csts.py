"""Checks of book/part2_csts.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`), and the sentences of the page that are design, not results."""

import importlib.util
import json
from pathlib import Path

from compsem import claims
from compsem.book.checks.claimlist import bf16_cpu_training
from compsem.paths import repo_root
from compsem.reference import paper_table

PAGE = "book/part2_csts.md"


def check(executed=None):
    bench = repo_root() / "benchmarks"
    bf16_cpu_training(
        json.loads((bench / "csts_precision.json").read_text()),
        "it trains under bf16 autocast, faster than fp32 with the same scores within noise",
        page=PAGE,
    )
    spec = importlib.util.spec_from_file_location("_gpu_claims", Path(__file__).with_name("gpu_claims.py"))
    gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu)
    gpu.bf16_training_slower("bf16 autocast fine-tuned sbert-mini slower than fp32 at the book's preset", PAGE)
    t8 = paper_table("csts", "table8_best_settings")
    on = t8["transform"].astype(str).str.lower().eq("true")
    claims.check(
        "the paper's Table 8 turns it on in 8 of 15 settings",
        page=PAGE,
        holds=(int(on.sum()), len(t8)) == (8, 15),
        numbers={"transform on": int(on.sum()), "settings": len(t8)},
        rule="counted in data/reference/csts_table8_best_settings.csv",
    )


NOT_CLAIMS = {
    "whichever configuration scores best here": "why the headline is the paper's method; which configuration scores best is the glued ranking that follows",
    "with three edits for transformers 5": "what was changed in the authors' code to run it (a procedure)",
    "appears under two conditions": "C-STS's design",
    "cannot do better than chance": "what the design implies for a model that ignores the condition",
    "without claiming more than the noise allows": "a learning goal",
    "no sentence in two splits": "the split's definition",
    "what it must beat": "how the Part reads a number",
    "much smaller than the paper's": "the models' sizes (22M parameters against RoBERTa-base's 125M)",
    "Two presets": "the training setup",
    "trains the top two layers": "the training setup",
    "rather than claiming a match": "how the Part reads the paper's numbers",
    "the condition is never used": "what the authors' script does (cited line)",
    "tri_op is always hadamard or concat": "the configuration's choices",
    "matches the worked example": "the margin chosen equals the worked example's",
    "best on validation": "the paper's selection procedure",
    "the same sentence twice, two dropout masks": "what the authors' code does",
    "same half the work; the two rows of a pair": "a consequence of encoding each text once",
    "(two spaces)": "the prompt's format",
}
