"""Chapter 21: the counts are glued; the rest are definitions."""

NOT_CLAIMS = {
    "pairs whose two labels are equal": "the definition of pair accuracy",
    "The condition prior, which never reads a sentence": "the prior's definition",
    "more than two standard errors above chance": "the threshold the glued counts use",
    "more than two below it": "the threshold the glued counts use",
    "the aspect in which the sentences agree": "C-STS's definition of C-High",
}
