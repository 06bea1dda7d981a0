"""book/intro.md: the book's plan; its counts are the book's design."""

NOT_CLAIMS = {}
