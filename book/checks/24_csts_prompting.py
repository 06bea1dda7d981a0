"""Checks of chapter 24's sentence about the paper's Table 4 (run by ``make check-book`` and the
appendix); the rest is the prompt's design."""

from compsem import claims
from compsem.reference import paper_table

PAGE = "24_csts_prompting"
CLOSE = 5.0  # Spearman points (x100): "close to"


def check(executed=None):
    t4 = paper_table("csts", "table4_prompting")
    prompted = t4[~t4["model"].str.contains("fine-tuned")]
    best = prompted.loc[prompted["spearman"].idxmax()]
    tuned = t4[t4["model"].str.contains("fine-tuned")]["spearman"].max()
    claims.check(
        "In the paper the best prompted model, GPT-4, reaches {glue:pr_gpt4_best} on the test split, close to "
        "but below the best fine-tuned encoder",
        page=PAGE,
        holds=best["model"].startswith("GPT-4") and tuned - CLOSE <= best["spearman"] < tuned,
        numbers={
            "best prompted model": best["model"],
            "its Spearman": float(best["spearman"]),
            "best fine-tuned encoder in Table 4": float(tuned),
        },
        rule="the highest prompted row of data/reference/csts_table4_prompting.csv is GPT-4's, below the "
        f"fine-tuned encoder's by less than {CLOSE:g} points, which is what 'close' means here",
    )


NOT_CLAIMS = {
    "up to three parts": "the prompt's design (the paper's Appendix B)",
    "always as the two conditions of one sentence pair": "the prompt's design",
    "between two cells": "how to read the table",
}
