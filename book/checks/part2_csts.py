"""book/part2_csts.md: the GPU check's bf16 sentence, on benchmarks/gpu.json; the rest is design."""

from compsem.book.checks.claimcheck import sibling


def check(executed=None):
    sibling(__file__, "gpu_claims").bf16_training_slower(
        "bf16 autocast fine-tuned sbert-mini slower than fp32 at the book's preset", "book/part2_csts.md"
    )


NOT_CLAIMS = {
    "much smaller than the paper's": "the models' sizes (22M parameters against RoBERTa-base's 125M)",
    "rather than claiming a match": "how the Part reads the paper's numbers",
    "tri_op is always hadamard or concat": "the configuration's choices",
    "matches the worked example": "the margin chosen equals the worked example's",
    "best on validation": "the paper's selection procedure",
}
