"""book/part3_montague_worked.md: a toy worked by hand (tests/teaching/test_montague.py checks it)."""

NOT_CLAIMS = {
    "so they stay far apart, though closer together than dog and law": "the toy's distances, worked by hand on the page",
}
