"""book/intro.md: the book's plan; its counts are the book's design."""

NOT_CLAIMS = {
    "merges two others": "what a set operator does",
    "where the two differ": "the book's plan",
    "the chapters never call it the paper's model": "an editorial rule of the book",
}
