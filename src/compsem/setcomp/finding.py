"""Part I's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import Finding, against_controls, ranked_sentence
from ..fmt import estimate
from ..sentences import join_names
from .study import CONTROL_RANDOM

__all__ = ["FINDING", "sentences"]


def _own(rows: pd.DataFrame) -> pd.Series:
    """Which rows are a model's own controls (``control_of`` set)."""
    return rows["control_of"].fillna("").astype(bool) if "control_of" in rows else pd.Series(False, index=rows.index)


def _c2(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """C2 of every model against the controls on the same overlap samples: the random vectors
    (the chance level chapter 11 compares with), the run's other controls and each model's
    shuffled targets, by the paired test (:func:`compsem.faces.against_controls`)."""
    g = rows[rows.criterion == "C2"]
    g = g[(g["degenerate"] == "") if "degenerate" in g else slice(None)]
    own = _own(g)
    mine = g[~own & g.model.isin(list(models))].set_index("model")
    mine = mine.loc[[m for m in models if m in mine.index]]
    if mine.empty:
        return ""

    def v(r) -> str:
        return estimate(r.value, r.low, r.high, 1, unit=" %")

    said = [
        "C2 holds for "
        + join_names([f"{v(r)} (`{m}`)" for m, r in mine.iterrows()], quote="")
        + " of the overlap samples"
    ]
    run = g[~own & g.model.isin(list(controls))].set_index("model")
    if not run.empty:
        said.append(
            "for "
            + join_names(
                [
                    f"{v(r)} (the control `{c}`"
                    + (": random vectors, the chance level of chapter 11)" if c == CONTROL_RANDOM else ")")
                    for c, r in run.iterrows()
                ],
                quote="",
            )
        )
    shuffled = g[own & g.control_of.isin(list(mine.index))].set_index("control_of")
    if not shuffled.empty:
        said.append(
            "and for "
            + join_names([f"{v(shuffled.loc[m])} (`{m}`)" for m in mine.index if m in shuffled.index], quote="")
            + " with the overlap sentences of other quintuples (shuffled targets)"
        )
    text = ", ".join(said) + "."
    more = against_controls(rows, "C2", list(mine.index), controls, digits=1, unit=" %", items="overlap samples")
    return text + (" " + more if more else "")


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """Each ranked Part I criterion's leader as far as the paired intervals allow, the criteria the
    synthesis does not rank, and C2 against its controls (chance, the run's controls, shuffled
    targets) on the same samples."""
    if "control_of" not in rows:
        rows = rows.assign(control_of="")
    keys = list(dict.fromkeys(rows.criterion))
    first = rows.drop_duplicates("criterion").set_index("criterion")
    ranked = [k for k in keys if "ranked" not in first or bool(first.loc[k, "ranked"])]
    parts = [
        ranked_sentence(rows, k, models, what=f"share of samples meeting {k}", digits=1, unit=" %", items="samples")
        for k in ranked
    ]
    rest = [k for k in keys if k not in ranked]
    if rest:
        parts.append(
            f"{join_names(rest, quote='')} {'is' if len(rest) == 1 else 'are'} not ranked here; the "
            "separation test above says why for each."
        )
    c2 = _c2(rows, models, controls)
    return " ".join(parts + ([c2] if c2 else []))


FINDING = Finding(
    topic="Set-like operators",
    question="an encoder treats sentences like sets of facts",
    method=(
        "Part I's criteria are counted at margin ε = 0 rather than averaged over the pooled "
        "ε range of the paper, because the pooled range depends on which models are in the run (see "
        "Part I); the difference set is the one that passes the filter under `sbert-mini`, for every model alike. "
        "Each model's own control is the same criteria with every target sentence taken from another quintuple "
        "(shuffled targets), as chapters 11–13 show it."
    ),
    sentences=sentences,
)
