"""Part II's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import Finding, against_controls
from ..fmt import estimate, number
from ..sentences import against_reference
from ..sentences import join_names

__all__ = ["FINDING", "sentences"]


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """Each real model's zero-shot pair accuracy against the coin-flip level (its interval
    contains it, or lies on one side), each model against the run's controls on the same pairs
    (paired bootstrap of the difference), and, as a hypothesis, why the wrong side is possible.
    No model is called best: the synthesis ranks the criterion only where its test allows."""
    own = rows["control_of"].fillna("").astype(bool) if "control_of" in rows else False
    cond = rows[rows.model.isin(models) & ~own].set_index("model")
    cond = cond.loc[[m for m in models if m in cond.index]]
    if cond.empty:
        return "No model has a Part II headline in this run."
    reference = float(cond["reference"].iloc[0])
    higher = cond["higher"].iloc[0]
    text = against_reference(
        cond,
        reference=reference,
        what="the zero-shot pair accuracy of Part II",
        level=f"{number(reference, 0)} %, the coin-flip level",
        level_name="chance",
        higher=True if higher is None else bool(higher),
        digits=1,
        unit=" %",
        wrong_side=(
            "it prefers the wrong condition more often than a coin would, so the condition written into the "
            "sentence moves its scores, but the wrong way",
            "they prefer the wrong condition more often than a coin would, so the condition written into the "
            "sentence moves their scores, but the wrong way",
        ),
    )
    ctrl = rows[rows.model.isin(list(controls)) & ~own]
    if not ctrl.empty:
        text += (
            " The "
            + ("control scores " if len(ctrl) == 1 else "controls score ")
            + join_names(
                [f"{estimate(r.value, r.low, r.high, 1, unit=' %')} (`{r.model}`)" for r in ctrl.itertuples()], quote=""
            )
            + "."
        )
        text += " " + against_controls(
            rows, "CSTS", list(cond.index), controls, digits=1, unit=" %", items="sentence pairs"
        )
    return (
        text + " Why a frozen encoder scores the wrong way round is not measured here; one hypothesis (ours, not the "
        "paper's) is that it reads the condition as more words of each sentence rather than as a choice of aspect "
        "(Part II shows what training adds on our data)."
    )


FINDING = Finding(
    topic="Conditions",
    question="an encoder responds to a condition",
    method=(
        "Part II uses the zero-shot bi-encoder with the condition written into each sentence, on the re-annotated "
        "pairs that chapter 21 scores (the same rows, the same numbers); a fine-tuned number would measure the "
        "training recipe more than the encoder."
    ),
    sentences=sentences,
)
