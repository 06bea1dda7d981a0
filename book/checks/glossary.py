"""book/glossary.md defines terms; the numbers in its definitions are design, not results."""

NOT_CLAIMS = {
}
