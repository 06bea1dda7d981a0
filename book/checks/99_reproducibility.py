"""Chapter 99: its hidden cell checks the sentences about the benchmarks and the GPU check
(compsem.book.claimlist.check_claims); the rest is the cache's and the benchmark's design."""

NOT_CLAIMS = {
    "new weights under an old name are never served old vectors": "the cache key's design (compsem.cache)",
    "Where the two machines differ": "the table's rule",
    "A ratio above 1 means ONNX Runtime was faster": "how to read the ratio",
    "where a check at first use finds it faster": "the backend rule's design (compsem.encoders.onnx)",
    "Two defaults follow": "the page's plan",
    "so only half the texts reach the model": "the benchmark's design: each text given twice",
    "(a count, \"seldom\", a winner, \"faster\", agreement with the paper)": "names the claim vocabulary",
}
