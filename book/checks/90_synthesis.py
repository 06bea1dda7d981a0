"""Chapter 90: its comparisons are produced (compsem.crossstudy.synthesis); the rest is the
profile's design."""

NOT_CLAIMS = {
    "between the worst (dark) and best (yellow) model in that column (best: highest, or lowest where the headline "
    "says lower is better)": "the figure's colour scale (the caption defines it)",
    "The ranks in the table above ignore intervals": "what the rank column is",
}
