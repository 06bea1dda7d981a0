"""book/part3_montague_worked.md: a toy worked by hand (tests/teaching/test_montague.py checks it)."""


NOT_CLAIMS = {
}
