"""Part I's section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from ..encoders.kinds import shown_name, who
from ..faces import TryIt

__all__ = ["TRY_IT", "read_set_operators"]


def _short(criterion: str) -> str:
    m = re.match(r"(C\d)(?: (Δ\d))?", criterion)
    return " ".join(g for g in m.groups() if g) if m else criterion


#: the places C5 describes (``report._difference_place``); none of them is a pass or a fail
PLACES = ("near A", "beyond A", "toward B")


def read_set_operators(table: pd.DataFrame) -> str:
    """Per model, how many of the pass/fail checks hold and which fail, then where the
    difference's shadow falls (C5: described, not judged, since chapter 12 reads both near A and
    beyond A as set-like). The norm-ratio row describes the inputs and is not counted."""
    lines = []
    for model, g in table.groupby("model", sort=False):
        judged = g[g.verdict.isin(["holds", "fails"])]
        failed = [_short(c) for c in judged[judged.verdict == "fails"].criterion]
        text = f"{who(model)} passes {int((judged.verdict == 'holds').sum())} of {len(judged)} checks"
        text += f" and fails {', '.join(failed)}" if failed else ", every one"
        undefined = int((g.verdict == "undefined").sum())
        text += f" ({undefined} undefined)" if undefined else ""
        place = g[g.criterion.str.startswith("C5") & g.verdict.isin(PLACES)].verdict
        text += f"; its difference lies {place.iloc[0]} (C5, described, not judged)" if len(place) else ""
        lines.append(text + ".")
    return " ".join(lines)


def _show(table: pd.DataFrame, specs: Sequence[str]) -> list[pd.DataFrame]:
    """The verdicts, then the values, one column per model (a control's headed "control: <spec>")."""
    return [
        table.pivot(index="criterion", columns="model", values="verdict")[list(specs)].rename(columns=shown_name),
        table.pivot(index="criterion", columns="model", values="value")[list(specs)]
        .round(3)
        .rename(columns=shown_name),
    ]


TRY_IT = TryIt(
    title="set-like operators",
    intro="""A and B are the inputs; the candidate overlap should be closer to each of them than they are
to each other (C1) and project between them (C2); the difference should be closer to A than to
B (C3, C4), and C5 says where it projects: near A, beyond A (away from B) or toward B, described
rather than judged, since chapter 12 reads a shadow near A and one beyond A as set-like alike; the union should project between A and B when their norms are comparable (within 0.1 of each
other's), or near the longer input otherwise (C6; the norm-ratio row says which case applies). All margins use cosine and ε = 0. A *position* t
is where the sentence's shadow falls in the plane of A and B: 0 at A, 1 at B.""",
    inputs={
        "sentence_a": "The mayor opened the new library on Friday.",
        "sentence_b": "The new library has a large children's section.",
        "overlap": "The town has a new library.",
        "difference": "The mayor opened something on Friday.",
        "union": "On Friday the mayor opened the new library, which has a large children's section.",
    },
    show=_show,
    read=read_set_operators,
)
