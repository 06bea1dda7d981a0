"""Chapter 23: the paper's follow-up questions and its figure."""

NOT_CLAIMS = {
}
