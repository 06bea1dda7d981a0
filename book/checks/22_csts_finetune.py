"""Chapter 22's sentences that are the paper's design or the book's, not results (read by
``make check-book`` and the appendix). Its precision and speed sentences are produced from the
records they name (``compsem.csts.speed``: the probe, ``benchmarks/precision_*.json``,
``benchmarks/csts_precision.json`` and the A/B records), so none is checked here by hand."""

PAGE = "22_csts_finetune"

NOT_CLAIMS = {
    "in three ways": "the paper's encodings",
    "the three texts are encoded separately": "the tri-encoder's definition",
    "its two conditional encodings": "the loss's definition",
    "Quad+MSE adds the two": "the objective's definition",
    "Two presets fix everything else": "the chapter's design",
    "how far apart the two precisions' test scores were": "what the speed section's produced table shows (a pointer)",
    "each model's best setting on validation": "the paper's selection procedure (its Table 3 caption)",
    "pairs whose two labels are equal": "the definition of pair accuracy",
}
