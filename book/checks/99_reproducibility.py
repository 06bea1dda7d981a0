"""Chapter 99: its sentences about the GPU check, on benchmarks/gpu.json; the rest is design."""

from compsem.book.checks.claimcheck import sibling


def check(executed=None):
    g, page = sibling(__file__, "gpu_claims"), "99_reproducibility"
    g.bf16_training_slower("bf16 autocast fine-tuned more slowly than fp32 at the book's preset", page)
    g.reproduction(
        "Part III then reproduces the paper's MiniLM cells from the GPU's vectors",
        "while they moved Part III's reproduced cells by more than the 1e-4 the book holds",
        page,
    )


NOT_CLAIMS = {}
