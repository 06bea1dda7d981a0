"""Part IV's section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..encoders.kinds import shown_name, who
from ..faces import TryIt

__all__ = ["TRY_IT", "matrices", "read_sentence_space"]


def matrices(spaces: pd.DataFrame) -> dict[str, dict[str, pd.DataFrame]]:
    """``report.try_it``'s long form as ``{model: {matrix: square DataFrame}}`` (P, H1, ...)."""
    out: dict[str, dict[str, pd.DataFrame]] = {}
    labels = list(dict.fromkeys(spaces["row"]))
    for (name, key), g in spaces.groupby(["model", "matrix"], sort=False):
        out.setdefault(name, {})[key] = (
            g.pivot(index="row", columns="column", values="value")
            .loc[labels, labels]
            .rename_axis(index=None, columns=None)
        )
    return out


def read_sentence_space(spaces: pd.DataFrame | Mapping[str, Mapping[str, pd.DataFrame]]) -> str:
    """The largest asymmetry of each scorer (|R(i, j) − R(j, i)|) and the hypothesis nearest the
    premise in the relatedness space (``spaces``: ``report.try_it``'s long form, or
    :func:`matrices` of it)."""
    if isinstance(spaces, pd.DataFrame):
        spaces = matrices(spaces)
    lines = []
    for name, mats in spaces.items():
        R = mats["R"]
        A = np.abs(R.to_numpy() - R.to_numpy().T)
        i, j = np.unravel_index(np.nanargmax(A), A.shape)
        d = mats["D_rel"].loc["P"].drop("P")
        near = f"nearest the premise in D_rel: {d.idxmin()} ({d.min():.2f})"
        if A[i, j] > 0:
            a, b = R.index[i], R.columns[j]
            lines.append(
                f"{who(name)}: asymmetric, most for {a} and {b} (R({a}, {b}) = {R.iloc[i, j]:.2f}, "
                f"R({b}, {a}) = {R.iloc[j, i]:.2f}), so its discrepancy space has structure; {near}."
            )
        else:
            lines.append(
                f"{who(name)}: symmetric, so D_dis ≡ 1 everywhere and only the relatedness space exists; {near}."
            )
    return " ".join(lines)


def _show(spaces: pd.DataFrame, specs: Sequence[str]) -> list[pd.DataFrame]:
    """Each model's matrices, rounded, named by model and matrix."""
    return [
        m.round(2).rename_axis(index=f"{shown_name(name)}: {key}", columns=None)
        for name, mats in matrices(spaces).items()
        for key, m in mats.items()
    ]


TRY_IT = TryIt(
    title="a tiny sentence space",
    intro="""The score matrix R (row = premise, column = hypothesis) of the offline lexical scorer and of
each model's cosine, and the relatedness distance D_rel; for the asymmetric lexical scorer
also the discrepancy distance D_dis. The first default hypothesis repeats the premise's own
words, so the lexical scorer covers it fully from the premise but not the other way round: that
one-way relation is what D_dis is built to see.""",
    inputs={
        "premise": "A chef is slicing onions in a busy kitchen.",
        "hypotheses": [
            "A chef is slicing onions.",
            "A cook slices onions in a crowded kitchen.",
            "The stadium was empty.",
        ],
    },
    show=_show,
    read=read_sentence_space,
)
