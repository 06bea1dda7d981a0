"""Checks of chapter 40's sentences on its own glued numbers (run by ``make check-book`` and the
appendix); the rest is the pool's design."""

from compsem import claims
from compsem.book.checks.claimlist import glued_number

PAGE = "40_ssm_pool"


def check(executed=None):
    syn = glued_number(executed, PAGE, "ssm_share_syn_one")
    rev = glued_number(executed, PAGE, "ssm_share_inf_rev_zero")
    claims.check(
        "The judgements mostly follow the writer's intent",
        page=PAGE,
        holds=syn > 50 and rev > 50,
        numbers={
            "synonymous pairs judged 1 (%)": round(syn, 1),
            "reversed inferential pairs judged 0 (%)": round(rev, 1),
        },
        rule="'mostly': over half of each kind of pair",
    )


NOT_CLAIMS = {
    "in which most pairs of sentences are unrelated": "the pool's design: small clusters in a large pool",
    "adds two to five synonymous rewrites": "the pool's recipe (data/ssm/DATASHEET.md)",
    "three to five inferential hypotheses": "the pool's recipe (data/ssm/DATASHEET.md)",
    "into five categories": "the paper's categories",
    "split the last one in two": "the book's categories",
    "two hypotheses of the same premise (for example two rewrites)": "a definition (within_cluster)",
    "Two rewrites of the same premise": "what the reference's rule does",
}
