"""Chapter 11: its frequency word is produced (compsem.claims.frequency); the rest is design."""

NOT_CLAIMS = {
}
