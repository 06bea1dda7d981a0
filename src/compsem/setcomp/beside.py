"""Part I's numbers beside the paper's: the paper's row beside **any** model that maps to one.

:func:`compsem.reference.paper_row` finds the row, labelled with whether the two are the same
weights (our ``use`` is multilingual USE v3, the paper's "USE" is USE v4: never the same
model). Used by the chapter views (:mod:`.chapters`) behind :mod:`.report`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..fmt import estimate, number
from ..reference import paper_match, paper_row, paper_table
from .study import STUDY

__all__ = [
    "paper_name",
    "paper_label",
    "fmt_ci",
    "cells_beside_paper",
    "values_beside_paper",
    "raw_beside_paper",
    "ned_paper_check",
]


def paper_name(spec: str) -> str | None:
    """The paper's row name ``spec`` stands beside, or ``None`` (``reference.paper_row``)."""
    return paper_row(STUDY, spec)


def paper_label(spec: str, source: str) -> str:
    """``"paper, Table 1 (SBERT-mini)"``, saying so when the paper's model is not ours."""
    row = paper_match(STUDY, spec)
    if row is None:
        return f"paper, {source}"
    if not bool(row["same_model"]):
        return f"paper, {source} ({row['paper_name']}: a different model from our {spec})"
    return f"paper, {source} ({row['paper_name']})"


def fmt_ci(est: float, low: float, high: float, digits: int = 1) -> str:
    """``"12.3 [10.1, 14.0]"`` (:func:`compsem.fmt.estimate`: one precision, never "-0.0");
    without an interval just the estimate; ``"n/a"`` when undefined."""
    return estimate(est, low, high, digits, na="n/a")


def _paper_rows(
    ref: pd.DataFrame, models: Sequence[str], value_cols: Sequence[str], *, digits: int | None = None
) -> pd.DataFrame:
    """The paper's rows beside ours, and its range over the 16 encoders; with ``digits`` every
    number printed with that many decimals (the precision of our rows above them)."""
    show = (lambda v: v) if digits is None else (lambda v: number(v, digits))
    rows = []
    for m in models:
        name = paper_name(m)
        hit = ref[ref["model"] == name] if name else ref.iloc[0:0]
        if len(hit):
            r = hit.iloc[0]
            rows.append({"model": m, "source": paper_label(m, r["source"]), **{c: show(r[c]) for c in value_cols}})
    rng = {
        c: (
            f"{ref[c].min():g} … {ref[c].max():g}"
            if digits is None
            else f"{number(ref[c].min(), digits)} … {number(ref[c].max(), digits)}"
        )
        for c in value_cols
    }
    rows.append({"model": "(16 encoders)", "source": f"paper, {ref['source'].iloc[0]}: range", **rng})
    return pd.DataFrame(rows)


def cells_beside_paper(ours: pd.DataFrame, ref: pd.DataFrame, measure: str, *, digits: int = 2) -> pd.DataFrame:
    """C1/C3 cell table for one measure: our rows (with 95% CIs) then the paper's matching rows,
    every number with ``digits`` decimals (2: the paper's Tables 1, 2, 13 and 15 print two), so
    that a column shows one format.

    ``ours`` is :func:`compsem.setcomp.tables.cells_table` output; ``ref`` a reference table
    with columns ``model, measure, TT, TF, FT, FF, source``.
    """
    o = ours[ours["measure"] == measure]
    rows = []
    for model, g in o.groupby("model", sort=False):
        g = g.set_index("cell")
        rows.append(
            {
                "model": model,
                "source": f"ours ({g['mode'].iloc[0]} ε range)",
                **{
                    c: fmt_ci(g.loc[c, "pct"], g.loc[c, "low"], g.loc[c, "high"], digits)
                    for c in ("TT", "TF", "FT", "FF")
                },
            }
        )
    paper = _paper_rows(
        ref[ref["measure"] == measure], list(o["model"].unique()), ["TT", "TF", "FT", "FF"], digits=digits
    )
    return pd.concat([pd.DataFrame(rows), paper], ignore_index=True)


def values_beside_paper(
    ours: pd.DataFrame, ref: pd.DataFrame, value_cols: Sequence[str], ref_cols: Sequence[str] | None = None
) -> pd.DataFrame:
    """Generic: our wide rows (``model`` + ``value_cols``) then the paper's matching rows."""
    ref_cols = list(ref_cols or value_cols)
    o = ours.copy()
    o.insert(1, "source", "ours")
    r = ref.rename(columns=dict(zip(ref_cols, value_cols)))
    paper = _paper_rows(r, list(ours["model"].unique()), list(value_cols))
    return pd.concat([o, paper], ignore_index=True)


def raw_beside_paper(
    raw: pd.DataFrame, ref: pd.DataFrame, columns: Mapping[str, tuple[str, str, str | None]], *, digits: int = 4
) -> pd.DataFrame:
    """Tables 12 and 14: our mean ± std of raw-measure differences beside the paper's, both with
    ``digits`` decimals (4: as the paper prints them), so that a column shows one format.

    ``raw`` is :func:`compsem.setcomp.tables.raw_scores_table` output; ``columns`` maps a
    display label to ``(our quantity, paper mean column, paper std column or None)``.
    """
    rows = []
    for (meas, model), g in raw.groupby(["measure", "model"], sort=False):
        g = g.set_index("quantity")
        rows.append(
            {
                "measure": meas,
                "model": model,
                "source": "ours",
                **{
                    lab: f"{number(g.loc[q, 'mean'], digits)} ± {number(g.loc[q, 'std'], digits)}"
                    for lab, (q, _, _) in columns.items()
                },
            }
        )
        name = paper_name(model)
        hit = ref[(ref["model"] == name) & (ref["measure"] == meas)] if name else ref.iloc[0:0]
        if len(hit):
            r = hit.iloc[0]
            rows.append(
                {
                    "measure": meas,
                    "model": model,
                    "source": paper_label(model, r["source"]),
                    **{
                        lab: (f"{number(r[mc], digits)} ± {number(r[sc], digits)}" if sc else number(r[mc], digits))
                        for lab, (_, mc, sc) in columns.items()
                    },
                }
            )
    return pd.DataFrame(rows)


def ned_paper_check(*, tol: float = 0.001) -> pd.DataFrame:
    """Does the paper's NED equal plain ``(1 − cos)/2``? Its Table 14, model by model.

    The mean of ``M(B, D)`` is printed for cosine and NED; were NED ``(1 − cos)/2``, the NED
    mean would be ``(1 − cos mean)/2`` exactly (a mean commutes with a linear map). Columns:
    ``cos M(B,D)``, ``NED M(B,D)`` (the paper's), ``(1 − cos)/2``, ``NED − (1 − cos)/2`` and
    ``fits`` (``|difference| ≤ tol``; the table prints four decimals).
    """
    t = paper_table(STUDY, "difference_scores").pivot_table(index="model", columns="measure", values="m_bd", sort=False)
    out = pd.DataFrame({"cos M(B,D)": t["cos"], "NED M(B,D)": t["ned"], "(1 − cos)/2": (1 - t["cos"]) / 2})
    out["NED − (1 − cos)/2"] = out["NED M(B,D)"] - out["(1 − cos)/2"]
    out["fits"] = out["NED − (1 − cos)/2"].abs() <= tol
    return out
