"""Chapter 90: its comparisons are produced (compsem.crossstudy.synthesis); the rest is the
profile's design."""

NOT_CLAIMS = {
    "Two readings of the profile": "the page's plan",
}
