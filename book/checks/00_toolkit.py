"""Chapter 0 (toolkit): its counts are the chapter's design and the maths it teaches."""

NOT_CLAIMS = {
    "often get the same vector": "what dropping those words implies for any sentence and its negation, not a measured share",
    "it ignores word order completely": "what averaging word vectors does (the encoder's definition)",
}
