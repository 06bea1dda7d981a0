"""Chapter 21: the counts are glued; the rest are definitions."""

NOT_CLAIMS = {
    "pairs whose two labels are equal": "the definition of pair accuracy",
    "The condition prior, which never reads a sentence": "the prior's definition",
}
