"""book/intro.md: the book's plan; its counts are the book's design."""

NOT_CLAIMS = {
    "the negations not, no, never, nobody and cannot": "the encoder's stop list (tests/compsem/encoders/test_lexical.py checks each named word against scikit-learn's list)",
}
