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


NOT_CLAIMS = {
    "new weights under an old name are never served old vectors": "the cache key's design (compsem.cache)",
    "Where the two machines differ": "the table's rule",
    "A ratio above 1 means ONNX Runtime was faster": "how to read the ratio",
    "where a check at first use finds it faster": "the backend rule's design (compsem.encoders.onnx)",
    "Which precision trains faster is measured per machine, never read from a CPU flag": 'what precision="auto" does (compsem.device.cpu_precision), a design',
    "it is never chosen, because its scores have not been measured": "the probe's rule (compsem.device.FP16_SCORES_MEASURED)",
    "Two defaults were set from this one record": "the page's plan; the GPU's name is glued from the record",
    "whether they are the faster choice on another is not known": "what has not been measured",
    "so only half the texts reach the model": "the benchmark's design: each text given twice",
    '(a count, "seldom", a winner, "faster", agreement with the paper)': "names the claim vocabulary",
    "Two defaults follow from these numbers": "the project's two decisions, taken on the glued measurements",
}
