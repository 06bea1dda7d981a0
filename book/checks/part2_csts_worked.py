"""book/part2_csts_worked.md: a toy worked by hand (tests/teaching/test_csts.py checks its numbers)."""

NOT_CLAIMS = {
    "The C-High cosine beats the C-Low one by 0.9412 - 0.5000 = 0.4412, a little less than the margin 0.5": "worked by hand on the page",
    "separated by more than the margin": "worked by hand on the page: 0.4 + 0.5 - 0.9412 < 0",
}
