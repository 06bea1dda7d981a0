"""Chapter 23: the paper's follow-up questions and its figure."""

NOT_CLAIMS = {
    "Two follow-up questions": "the chapter's plan",
    "all three encodings": "the paper's figure",
    "its text gives two values": "what the paper's text states (glued from data/reference)",
}
