"""Chapter 11: its frequency word is produced (compsem.claims.frequency); the rest is design."""

NOT_CLAIMS = {
    "because each input carries extra facts the other lacks": "the paper's reasoning behind C1",
    "Because the range depends on the sample's extremes": "why pooled percentages do not compare: an argument from the range's definition",
}
