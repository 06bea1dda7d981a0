"""Part II's checked sentences: chapter 24's about the paper's Table 4, on data/reference."""

import re

from compsem import claims
from compsem.reference import paper_table

CLOSE = 5.0  # Spearman points (x100): "close to"
SENTENCE = (
    "In the paper the best prompted model, GPT-4, reaches {glue:pr_gpt4_best} on the test split, close to "
    "but below the best fine-tuned encoder"
)


def prompting(executed=None):
    t4 = paper_table("csts", "table4_prompting")
    tuned = t4["model"].str.contains("fine-tuned")
    best, top = t4[~tuned].loc[t4[~tuned]["spearman"].idxmax()], t4[tuned]["spearman"].max()
    named = re.search(r"model, ([^,]+),", SENTENCE).group(1)
    claims.check(
        SENTENCE,
        page="24_csts_prompting",
        holds=best["model"].startswith(named) and top - CLOSE <= best["spearman"] < top,
        rule=f"the best prompted row of Table 4 is the model named, below the best fine-tuned encoder by less "
        f"than {CLOSE:g} points: what close means here",
        numbers={
            "best prompted model": best["model"],
            "its Spearman": float(best["spearman"]),
            "best fine-tuned encoder in Table 4": float(top),
        },
    )


CHECKS = {"24_csts_prompting": prompting}
