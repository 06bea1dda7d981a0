"""Chapter 20: C-STS's design and the paper's reported numbers."""

NOT_CLAIMS = {
    "under which the two sentences agree": "C-STS's definition of C-High",
    "a pair written in both orders is two pairs": "the loader's rule",
    "the two rows have the same condition": "what the glued count counts",
    "whose annotators agreed with a Fleiss": "the paper's reported agreement (glued from data/reference)",
    "three annotators each": "the paper's annotation design",
}
