"""Phrases that are definitions or the studies' design on every page of the book, not results:
:mod:`compsem.book.checks.claimcheck` reads ``NOT_CLAIMS`` (fragment of a sentence -> why it is no claim
about data) for every page; a page's own ``book/checks/<page>.py`` adds its own."""

NOT_CLAIMS = {
    "all four studies": "the book's design: four papers",
    "the four papers": "the book's design: four papers",
    "four 90-minute sessions": "the course plan",
    "two sentences": "what a pair is",
    "two vectors": "what a comparison takes",
    "two conditions": "C-STS's design: each pair has two conditions",
    "two fusions": "the paper's construction of a quintuple",
    "two inputs": "a set operator takes two inputs",
    "three sentences you can change": "the toolkit's parameters",
    "Three consecutive sentences": "the paper's construction of a quintuple",
    "three consecutive sentences": "the paper's construction of a quintuple",
    "three operator tables": "the paper's design: overlap, difference and union",
    "three labels": "NLI's label set",
    "two CPU cores": "the machine the book is built on",
    "two cores": "the machine the book is built on",
}
