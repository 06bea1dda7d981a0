"""Chapter 42: the pool's size, checked on chapter 40's count; the rest is the metrics' definitions."""

from compsem.book.checks.claimcheck import sibling


def check(executed=None):
    sibling(__file__, "pool_size").few_hundred_sentences(
        executed, "a pool of a few hundred invented sentences", "42_ssm_metrics"
    )


NOT_CLAIMS = {
    "how often the thresholded scores agree": "the metric's definition",
    "Most pairs are unrelated, so a good space has most distances near 1": "how to read the metric",
    "The NLI checkpoints are the closest public ones": "the mapping in data/reference/paper_models/ssm.csv",
}
