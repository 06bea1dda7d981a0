"""Part II's section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

import pandas as pd

from ..encoders.kinds import is_control, shown_name, who
from ..faces import TryIt

__all__ = ["TRY_IT", "read_conditional_similarity"]


def _controls_words(table: pd.DataFrame) -> str:
    """The controls' rows, beside the models and not counted among them."""
    out = []
    for r in table.to_dict("records"):
        if r.get("C-High above C-Low") == "tied":
            gap = "tied (both cosines equal)"
        else:
            gap = f"C-High − C-Low {round(r['cos with C-High'] - r['cos with C-Low'], 2) + 0.0:+.2f}"
        out.append(f"{who(r['model'])}: {gap}.")
    return " ".join(out)


def read_conditional_similarity(table: pd.DataFrame) -> str:
    """Which models score the pair higher under C-High than under C-Low, and by how much; a tie
    (the "tied" rows) is neither, and the controls are reported apart, never counted as models."""
    ctrl = table[table.model.map(is_control)]
    table = table[~table.model.map(is_control)]
    tied = table["C-High above C-Low"] == "tied" if "C-High above C-Low" in table else pd.Series(False, table.index)
    diff = (table["cos with C-High"] - table["cos with C-Low"]).round(2)  # as printed: no "-0.00"
    right = [f"`{m}` (+{d:.2f})" for m, d, t in zip(table.model, diff, tied) if d > 0 and not t]
    wrong = [
        f"`{m}` ({d:+.2f})" if d else f"`{m}` (0.00)" for m, d, t in zip(table.model, diff, tied) if not d > 0 and not t
    ]
    ties = [f"`{m}`" for m, t in zip(table.model, tied) if t]
    tail = (f" Tied (both cosines equal, so neither): {', '.join(ties)}." if ties else "") + (
        " " + _controls_words(ctrl) if len(ctrl) else ""
    )
    if not wrong and not right:
        return ("No model separates the two conditions here." + tail).strip()
    if not wrong:
        return "Every model scores the pair higher under C-High than under C-Low: " + ", ".join(right) + "." + tail
    if not right:
        return (
            "No model scores the pair higher under C-High than under C-Low ("
            + ", ".join(wrong)
            + "): for these sentences the condition does not move the similarity the right way."
            + tail
        )
    return "Higher under C-High, as it should be: " + ", ".join(right) + "; not: " + ", ".join(wrong) + "." + tail


def _show(table: pd.DataFrame, specs) -> list[pd.DataFrame]:
    """The table, a control's row named "control: <spec>"."""
    return [table.assign(model=table.model.map(shown_name))]


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
    show=_show,
    read=read_conditional_similarity,
)
