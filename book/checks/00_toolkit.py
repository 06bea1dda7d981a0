"""Chapter 0 (toolkit): its counts are the chapter's design and the maths it teaches."""

NOT_CLAIMS = {
    "negations such as not, no, never, nobody": "the encoder's stop list (tests/compsem/encoders/test_lexical.py checks each named word against scikit-learn's list)",
    "often get the same vector": "what dropping those words implies for any sentence and its negation, not a measured share",
    "two pairs at the same cosine can lie at different L1 distances": "a property of the definitions (L1 is not a function of the cosine)",
    "introduces the three tools": "the chapter's plan",
    "on three sentences you can change": "the chapter's parameters",
    "the plane of two sentences": "a definition",
    "relative to two others": "a definition",
    "They span three families": "the panel's design",
    "for two embeddings": "notation",
    "the two measures then carry the same information": "derived on the page",
    "it is usually large": "what high dimension implies: the residual of a random vector grows with the dimension (the chapter's plane table shows these sentences' residuals)",
    "two parallel vectors span a line": "geometry",
    "one good sample and two degenerate ones": "the cell's inputs",
    "for these three sentences": "the chapter's parameters",
}
