"""Chapter 12: its counts and directions are produced (chapters.DifferenceChapter); the rest is
the paper's design and the maths of NED."""

NOT_CLAIMS = {
    "we get six of them": "the paper's construction",
    "Three criteria follow": "the paper's criteria",
    "but never defines it": "what the paper's text does",
    "one half of one minus its cosine": "the hypothesis tested",
    "when the two variances are equal": "algebra",
    "We cannot recompute those two encoders": "the paper's models that do not ship",
    "the three candidates compare": "the table's design",
    "the two agree": "algebra: NED equals (1 - cos)/2 for unit-norm, zero-mean vectors (chapter 0)",
    "under the three ways of choosing": "the chapter's design",
    "Two readings of this table": "the page's plan",
    "(always, for inputs of similar norm": "algebra, derived in the sentence",
    "The six variants of a quintuple": "the paper's construction",
    "compares two different models": "the models' identities",
}
