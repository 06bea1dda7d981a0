"""Checks of chapter 42's sentence on the pool's size (run by ``make check-book`` and the
appendix); the rest is the metrics' definitions."""

PAGE = "42_ssm_metrics"


def check(executed=None):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_pool_size", Path(__file__).with_name("pool_size.py"))
    pool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pool)
    pool.few_hundred_sentences(executed, "a pool of a few hundred invented sentences", PAGE)


NOT_CLAIMS = {
    "asks three questions of the space": "the paper's design",
    "how often the thresholded scores agree": "the metric's definition",
    "computes all four": "the chapter's plan",
    "carries two scores": "a definition",
    "combines them in two ways": "the paper's design",
    "when the two sentences entail each other": "a definition",
    "much stronger than the other": "a definition",
    "Most pairs are unrelated, so a good space has most distances near 1": "how to read the metric",
    "when clusters are far apart": "the definition of CH",
    "R > 0.5 agrees with": "the definition of accuracy",
    "With three labels the two rules differ only where": "a consequence of the two rules' definitions",
    "at most 0.5": "a consequence of the two rules' definitions",
    "at least as often as the threshold": "a consequence of the two rules' definitions",
    "the two accuracies sum to": "what the glued range measures",
    "a cosine that rarely exceeds 0.5": "a hypothetical scorer",
    "Two columns are not comparable": "the page's plan",
    "the lowest value here": "names the glued minimum of the column",
    "within_cluster (lowest": "names the glued minimum of the column",
    "such as two rewrites of one premise": "the reference's rule",
    "The NLI checkpoints are the closest public ones": "the mapping in data/reference/paper_models/ssm.csv",
    "across the two pools": "the paper's pool and ours",
    "(best RSA": "names the glued maximum",
}
