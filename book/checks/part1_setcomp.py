"""Checks of book/part1_setcomp.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`), and the sentences of the page that are design, not results."""

from compsem import claims
from compsem.results import load_table

PAGE = "book/part1_setcomp.md"


def few_hundred_samples(page, sentence):
    """ "a few hundred samples": every operator table of chapter 10 holds 100 to 999 samples."""
    sizes = load_table("setcomp", "dataset_sizes").set_index("operator")["samples (ours)"]
    claims.check(
        sentence,
        page=page,
        holds=bool(((sizes >= 100) & (sizes < 1000)).all()),
        numbers={f"{op} samples": int(n) for op, n in sizes.items()},
        rule="'a few hundred' means 100 to 999 in every operator table",
    )


def check(executed=None):
    few_hundred_samples(PAGE, "a few hundred samples")


NOT_CLAIMS = {
    "six testable criteria": "the paper's design",
    "which of the six criteria": "the paper's design",
    "one overlap, six difference and two union samples": "the paper's construction of the samples",
    "with two controls": "the chapters' design",
    "three sentences consecutive in the source": "the pipeline's definition",
    "windows two sentences apart so no two share a fusion": "the pipeline's design",
    "six samples or none": "the filter rule's definition",
    "three samples per passing pair": "the filter rule's definition",
    "eight open LLMs": "the paper's panel (data/reference/paper_models/setcomp.csv)",
    "NED reported, never defined": "what the paper does (its text has no definition)",
    "three consecutive news sentences and two fusions of neighbours": "the paper's construction of the samples",
}
