"""Part III's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..faces import Finding, against_controls, ranked_sentence
from ..fmt import number

__all__ = ["FINDING", "sentences"]


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """The non-subsectivity gap's leader where the synthesis ranks it (as far as the paired
    intervals allow), each model's gap against its controls on the same adjectives, how many real
    models have a gap above zero (the predicted direction), and which models' pair tests are
    mostly ties (a strict ``<`` fails a tie, so such a score says nothing about the classes)."""
    gap = rows[(rows.criterion == "NSGAP") & rows.model.isin(models)].set_index("model")
    gap = gap.loc[[m for m in models if m in gap.index]]
    parts = []
    if not gap.empty:
        parts.append(ranked_sentence(rows, "NSGAP", models, what="non-subsectivity gap", items="adjectives"))
        more = against_controls(rows, "NSGAP", models, controls, items="adjectives")
        if more:
            parts.append(more)
        pos = int(((gap["low"] > 0) & (gap["degenerate"] == "")).sum())
        n = int((gap["degenerate"] == "").sum())  # a degenerate row is left out of the ranking and of the count
        parts.append(
            "No model has a gap whose interval lies above zero, the direction Montague semantics predicts "
            "(degenerate gaps left out)."
            if pos == 0
            else f"{pos} of the {n} models {'has' if pos == 1 else 'have'} a gap whose interval lies above zero, "
            "the direction Montague semantics predicts."
            if pos < n
            else "Every model has a gap whose interval lies above zero, the direction Montague semantics predicts."
        )
    for r in rows[(rows.criterion == "PAIR") & (rows.ties.astype(float) >= 0.5)].itertuples():
        if np.isfinite(r.ties):
            parts.append(
                f"Ties are not evidence: {number(100 * r.ties, 0)} % of `{r.model}`'s intersective–privative "
                "comparisons are ties, and the pair test and the gap use a strict `<`, so a tie fails; a score "
                "made of ties says nothing about adjective classes, only that the encoder cannot tell the "
                "phrases apart."
            )
    return " ".join(parts) or "No model has a Part III headline in this run."


FINDING = Finding(
    topic="Adjective classes",
    question="an encoder keeps adjective classes apart",
    method=(
        "Part III reads the three metamorphic tests at the level of adjectives, under the official reading of "
        "chapter 32 (the authors' code; its pair test and non-subsectivity gap use a strict `<`, so a tie fails)."
    ),
    sentences=sentences,
)
