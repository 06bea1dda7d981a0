"""Part III's section of the try-it page (``91_try_it``): ``report.TRY_IT``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..encoders.kinds import shown_name, who
from ..faces import TryIt
from ..fmt import plural

__all__ = ["TRY_IT", "read_adjective_noun"]


def read_adjective_noun(table: pd.DataFrame) -> str:
    """Per model, for how many phrases each single-phrase test holds, ties (equal distances, which
    decide nothing) counted apart (the pair test's shares are in the table)."""
    single = table[~table.test.str.startswith("pair test")]
    lines = []
    for model, g in single.groupby("model", sort=False):
        parts = []
        for test, h in g.groupby("test", sort=False):
            judged = h[h.verdict.isin(["holds", "fails"])]
            tied = int(h.verdict.str.startswith("tied").sum())
            undefined = len(h) - len(judged) - tied
            name = test.split(" (")[0]
            if len(judged):
                text = f"{name} holds for {int((judged.verdict == 'holds').sum())} of {plural(len(judged), 'phrase')}"
                text += f" ({tied} more tied, which decide nothing)" if tied else ""
            elif tied:
                text = f"{name} is tied for all {tied} phrases it can judge, the two distances being equal"
            else:
                text = f"{name} is undefined for every phrase"
            parts.append(
                text
                + (
                    f" ({undefined} undefined: a word the model drops or does not know)"
                    if undefined and (len(judged) or tied)
                    else ""
                )
            )
        lines.append(f"{who(model)}: " + "; ".join(parts) + ".")
    return " ".join(lines)


def _show(table: pd.DataFrame, specs: Sequence[str]) -> list[pd.DataFrame]:
    """The verdicts, one row per phrase and test, one column per model."""
    return [
        table.pivot(index=["phrase", "test"], columns="model", values="verdict")[list(specs)].rename(columns=shown_name)
    ]


TRY_IT = TryIt(
    title="adjective–noun phrases",
    intro="""For each phrase: does it lie closer to each of its words than the words lie to each other
(Eq. 3, expected for intersective adjectives such as *red*), and is it closer to the adjective
than to the noun (Eq. 7, expected for non-subsective adjectives such as *fake* or *former*)?
With two or more adjectives and nouns, the pair test (Eq. 5) asks, for each ordered pair of
adjectives, how often the first keeps two nouns' phrases closer together than the second does;
an intersective adjective is expected to win against a non-subsective one.""",
    inputs={"adjectives": ["red", "fake", "former"], "nouns": ["car", "president"]},
    show=_show,
    read=read_adjective_noun,
)
