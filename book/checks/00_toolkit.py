"""Chapter 0 (toolkit): its counts are the chapter's design and the maths it teaches."""

NOT_CLAIMS = {
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
