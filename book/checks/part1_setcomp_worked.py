"""book/part1_setcomp_worked.md: "hundreds of samples", checked as on the Part's page."""

from compsem.book.checks.claimcheck import sibling


def check(executed=None):
    sibling(__file__, "part1_setcomp").few_hundred_samples("book/part1_setcomp_worked.md", "hundreds of samples")


NOT_CLAIMS = {}
