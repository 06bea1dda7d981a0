"""book/part2_csts_worked.md: a toy worked by hand (tests/teaching/test_csts.py checks its numbers)."""

NOT_CLAIMS = {
    "only three features": "the toy's design",
    "weights the two colour features": "the toy's design",
    "the condition never enters": "the bi-encoder's definition",
    "the cosine of the two results": "the head's definition",
    "squared errors of the two rows": "the loss's definition",
    "The C-High cosine beats the C-Low one by 0.9412 - 0.5000 = 0.4412, a little less than the margin 0.5": "worked by hand on the page",
    "push the two cosines further apart": "what the loss does",
    "Two variations": "the page's plan",
    "separated by more than the margin": "worked by hand on the page: 0.4 + 0.5 - 0.9412 < 0",
    "adds the two terms": "the objective's definition",
    "batches of eight such pairs (sixteen rows)": "the training setup",
}
