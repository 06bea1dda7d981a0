"""Part II's section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

import pandas as pd

from ..faces import TryIt

__all__ = ["TRY_IT", "read_conditional_similarity"]


def read_conditional_similarity(table: pd.DataFrame) -> str:
    """Which models score the pair higher under C-High than under C-Low, and by how much."""
    diff = (table["cos with C-High"] - table["cos with C-Low"]).round(2)  # as printed: no "-0.00"
    right = [f"`{m}` (+{d:.2f})" for m, d in zip(table.model, diff) if d > 0]
    wrong = [f"`{m}` ({d:+.2f})" if d else f"`{m}` (0.00)" for m, d in zip(table.model, diff) if not d > 0]
    if not wrong:
        return "Every model scores the pair higher under C-High than under C-Low: " + ", ".join(right) + "."
    if not right:
        return (
            "No model scores the pair higher under C-High than under C-Low ("
            + ", ".join(wrong)
            + "): for these sentences the condition does not move the similarity the right way."
        )
    return "Higher under C-High, as it should be: " + ", ".join(right) + "; not: " + ", ".join(wrong) + "."


TRY_IT = TryIt(
    title="similarity under a condition",
    intro="""The zero-shot bi-encoder of Part II: the condition is written into each sentence before
embedding. A model that reads the condition should score the pair higher under the C-High
condition than under the C-Low one.""",
    inputs={
        "sentence1": "A man in a red jacket rides a bicycle down a hill.",
        "sentence2": "A woman in a red coat walks her dog in the park.",
        "condition_high": "the colour of the clothing",
        "condition_low": "the activity of the person",
    },
    read=read_conditional_similarity,
)
