"""Chapter 21: the counts are glued; the rest are definitions."""

NOT_CLAIMS = {
}
