"""Part II's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import Finding
from ..fmt import number
from ..sentences import against_reference

__all__ = ["FINDING", "sentences"]


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """Each real model's zero-shot pair accuracy against the coin-flip level (its interval
    contains it, or lies on one side), and why the wrong side is possible."""
    cond = rows[rows.model.isin(models)].set_index("model")
    cond = cond.loc[[m for m in models if m in cond.index]]
    if cond.empty:
        return "No model has a Part II headline in this run."
    reference = float(cond["reference"].iloc[0])
    text = against_reference(
        cond, reference=reference, what="the zero-shot pair accuracy of Part II",
        level=f"{number(reference, 0)} %, the coin-flip level", level_name="chance",
        higher=bool(cond["higher"].iloc[0]), digits=1, unit=" %",
        wrong_side=("it prefers the wrong condition more often than a coin would, so the condition written into the "
                    "sentence moves its vectors, but the wrong way",
                    "they prefer the wrong condition more often than a coin would, so the condition written into the "
                    "sentence moves their vectors, but the wrong way"))
    return (text + " A frozen encoder that reads the condition as just more words has no reason to use it the right "
            "way round, which is the paper's motivation for fine-tuning (Part II shows what training adds on our data).")


FINDING = Finding(
    topic="Conditions",
    question="an encoder responds to a condition",
    method=("Part II uses the zero-shot bi-encoder with the condition written into each sentence, on the re-annotated "
            "pairs that chapter 21 scores (the same rows, the same numbers); a fine-tuned number would measure the "
            "training recipe more than the encoder."),
    sentences=sentences,
)
