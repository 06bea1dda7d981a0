"""Chapter 90: its comparisons are produced (compsem.crossstudy.synthesis); the rest is the
profile's design."""

NOT_CLAIMS = {
    "calls a model \"highest\" (or \"lowest\", where lower is better)": "the ranking rule's definition",
    "Two readings of the profile": "the page's plan",
    "between the worst (dark) and best (yellow) model in that column (best: highest, or lowest where the headline "
    "says lower is better)": "the figure's colour scale (the caption defines it)",
}
