"""book/part2_csts_exercises.md: instructions, hand-worked answers (tests/teaching/test_csts.py)."""

NOT_CLAIMS = {
    "far more than the Spearman": "what an outlier does to each correlation (its rank is all Spearman sees)",
    "A model ignores the condition.": "the exercise's scenario",
}
