"""Part I's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import Finding
from ..fmt import number
from ..stats import leader_sentence

__all__ = ["FINDING", "sentences"]


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """The mean of Part I's criteria per model, ranked as far as the intervals allow (a model
    with a degenerate or missing criterion is left out and named), and what a control's C2
    says about C2."""
    keys = list(dict.fromkeys(rows.criterion))
    if rows["higher"].nunique() > 1:
        raise ValueError(f"the Part I criteria {keys} differ in direction (Headline.higher): their mean cannot be ranked")
    real = rows[rows.model.isin(models)]
    order = [m for m in models if m in set(real.model)]
    mean = real.groupby("model")[["value", "low", "high"]].mean().loc[order]
    bad = {m: "a Part I criterion is degenerate" for m in order
           if (real.loc[real.model == m, "degenerate"] != "").any() or (real.model == m).sum() < len(keys)}
    text = leader_sentence(mean["value"], mean["low"], mean["high"], order, excluded=bad,
                           what=f"mean of the {len(keys)} Part I criteria", digits=1, unit=" %",
                           higher=bool(rows["higher"].iloc[0]))
    text += (f" (The interval of a mean over {len(keys)} criteria is taken as the mean of their intervals, which is at "
             "least as wide as the true one.)")
    for r in rows[rows.model.isin(controls) & (rows.criterion == "C2")].itertuples():
        text += (f" Geometry can pass for free: even the control `{r.model}` projects the overlap sentence between "
                 f"A and B for {number(r.value, 0)} % of the samples, which is why C2 largely follows from C1 and a "
                 "high C2 alone proves little (Part I).")
    return text


FINDING = Finding(
    topic="Set-like operators",
    question="an encoder treats sentences like sets of facts",
    method=("Part I's criteria are counted at margin $\\varepsilon = 0$ rather than averaged over the pooled "
            "$\\varepsilon$ range of the paper, because the pooled range depends on which models are in the run (see "
            "Part I); the difference set is the one that passes the filter under `sbert-mini`, for every model alike."),
    sentences=sentences,
)
