"""Chapter 40: "mostly", checked on its own glued shares; the rest is the pool's design."""

from compsem import claims
from compsem.book.checks.claimlist import glued_number


def check(executed=None):
    shares = {
        k: glued_number(executed, "40_ssm_pool", k) / 100 for k in ("ssm_share_syn_one", "ssm_share_inf_rev_zero")
    }
    claims.check_frequency(
        "The judgements mostly follow the writer's intent",
        shares,
        page="40_ssm_pool",
        what="share of pairs judged as written",
    )


NOT_CLAIMS = {
    "Because there is a single annotator": "what one annotator implies for the scores",
}
