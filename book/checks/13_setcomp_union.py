"""Chapter 13: the paper's criterion and the data's construction."""

NOT_CLAIMS = {
}
