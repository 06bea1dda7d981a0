"""Shared by the check files of Part IV's chapters: "a few hundred" sentences in the pool, read
from chapter 40's glued count. Not a page."""

from compsem import claims
from compsem.book.checks.claimlist import glued_number


def few_hundred_sentences(executed, sentence, page):
    n = glued_number(executed, "40_ssm_pool", "ssm_n_sentences")
    claims.check(
        sentence,
        page=page,
        holds=100 <= n < 1000,
        numbers={"sentences in the pool": int(n)},
        rule="'a few hundred' means 100 to 999",
    )
