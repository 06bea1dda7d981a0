"""Chapter 20: C-STS's design and the paper's reported numbers."""

NOT_CLAIMS = {
}
