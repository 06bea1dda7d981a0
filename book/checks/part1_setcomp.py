"""book/part1_setcomp.md: "a few hundred samples", checked on chapter 10's table of sizes."""

from compsem import claims
from compsem.results import load_table


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
    few_hundred_samples("book/part1_setcomp.md", "a few hundred samples")


NOT_CLAIMS = {}
