"""Chapter 12: its counts and directions are produced (chapters.DifferenceChapter); the rest is
the paper's design and the maths of NED."""

NOT_CLAIMS = {
    "(always, for inputs of similar norm": "algebra, derived in the sentence",
}
