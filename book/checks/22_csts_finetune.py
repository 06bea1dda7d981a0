"""Chapter 22's sentences that are the paper's design or the book's, not results (read by
``make check-book`` and the appendix). Its precision and speed sentences are produced from the
records they name (``compsem.csts.speed``: the probe, ``benchmarks/precision_*.json``,
``benchmarks/csts_precision.json`` and the A/B records), so none is checked here by hand."""

PAGE = "22_csts_finetune"

NOT_CLAIMS = {}
