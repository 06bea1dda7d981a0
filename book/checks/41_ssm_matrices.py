"""Checks of chapter 41's sentence on its own glued number (run by ``make check-book`` and the
appendix); the rest is instructions."""

from compsem import claims
from compsem.book.checks.claimlist import glued_number

PAGE = "41_ssm_matrices"


def check(executed=None):
    gap = glued_number(executed, PAGE, "ssm_ref_dir_gap")
    claims.check(
        "The reference gives inferential pairs a mean score {glue:ssm_ref_dir_gap} higher than their reverses",
        page=PAGE,
        holds=gap > 0,
        numbers={"forward minus reverse mean score": gap},
        rule="the glued gap is positive",
    )


NOT_CLAIMS = {
    "runs the public checkpoints closest to the paper's models": "the mapping in data/reference/paper_models/ssm.csv",
    "bakery and baker do not match": "what a lexical scorer compares (strings)",
}
