"""Phrases that are definitions or the studies' design on every page of the book, not results:
:mod:`compsem.book.checks.claimcheck` reads ``NOT_CLAIMS`` (fragment of a sentence -> why it is no claim
about data) for every page; a page's own ``book/checks/<page>.py`` adds its own."""

NOT_CLAIMS = {
}
