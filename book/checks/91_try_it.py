"""Chapter 91: instructions for a reader's own sentences."""

NOT_CLAIMS = {
    "count how often a criterion holds": "what the chapters do",
}
