"""Part IV's checked sentences: chapters 40-43 on chapter 40's and 41's glued numbers, and Exercise 4's
answer (book/part4_ssm_exercises.md) on chapter 42's table."""

from compsem import claims
from compsem.book.checks.claimlist import glued_number
from compsem.results import load_table


def pool(executed=None):
    shares = {
        k: glued_number(executed, "40_ssm_pool", k) / 100 for k in ("ssm_share_syn_one", "ssm_share_inf_rev_zero")
    }
    claims.check_frequency(
        "The judgements mostly follow the writer's intent",
        shares,
        page="40_ssm_pool",
        what="share of pairs judged as written",
    )


def matrices(executed=None):
    gap = glued_number(executed, "41_ssm_matrices", "ssm_ref_dir_gap")
    claims.check(
        "The reference gives inferential pairs a mean score {glue:ssm_ref_dir_gap} higher than their reverses",
        page="41_ssm_matrices",
        holds=gap > 0,
        numbers={"forward minus reverse mean score": gap},
        rule="the glued gap is positive",
    )


def _few_hundred_sentences(executed, sentence, page):
    n = glued_number(executed, "40_ssm_pool", "ssm_n_sentences")
    claims.check(
        sentence,
        page=page,
        holds=100 <= n < 1000,
        numbers={"sentences in the pool": int(n)},
        rule="'a few hundred' means 100 to 999",
    )


def exercises(executed=None):
    rel = load_table("ssm", "ssm_metrics").query("space == 'rel'").set_index("scorer")["sparsity"]
    claims.check(
        "expect its sparsity_rel to be larger than sbert-mini's: glove-50d has the denser relatedness space",
        page="book/part4_ssm_exercises.md",
        holds=rel["glove-50d"] > rel["sbert-mini"],
        numbers={f"{m} relatedness sparsity": round(float(rel[m]), 3) for m in ("glove-50d", "sbert-mini")},
        rule="a larger sparsity value is a denser space",
    )


CHECKS = {
    "40_ssm_pool": pool,
    "41_ssm_matrices": matrices,
    "42_ssm_metrics": lambda ex=None: _few_hundred_sentences(
        ex, "a pool of a few hundred invented sentences", "42_ssm_metrics"
    ),
    "43_ssm_space": lambda ex=None: _few_hundred_sentences(ex, "a few hundred points", "43_ssm_space"),
    "part4_ssm_exercises": exercises,
}
