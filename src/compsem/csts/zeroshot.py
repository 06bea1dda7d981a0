"""Zero-shot bi-encoder scoring of C-STS (the paper's Table 2 setting) with the shared panel.

Each sentence is embedded once with :func:`compsem.embed`; the score of a row is the cosine of
the two sentence embeddings. Two variants:

* ``ignored``: the condition is left out, so both rows of a sentence pair get the *same*
  score and the model cannot tell C-High from C-Low;
* ``attached``: the condition is written into each sentence's text (``template``) before
  embedding, ``cos(e(t(s1, c)), e(t(s2, c)))``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from compsem import embed, measures

from . import metrics
from .data import pair_index

__all__ = ["DEFAULT_TEMPLATE", "attach", "zero_shot_scores", "pair_accuracy"]

DEFAULT_TEMPLATE = "{sentence} ({condition})"


def attach(sentences, conditions, template: str = DEFAULT_TEMPLATE) -> list[str]:
    """``template`` filled with each (sentence, condition)."""
    return [template.format(sentence=s, condition=c) for s, c in zip(sentences, conditions)]


def zero_shot_scores(df: pd.DataFrame, model: str, *, template: str = DEFAULT_TEMPLATE) -> pd.DataFrame:
    """Cosine scores for every row of ``df`` under ``model``, condition ignored and attached.

    All texts needed (plain sentences and sentence+condition strings) go to one ``embed`` call,
    so each unique text is embedded once. Returns a frame with columns ``ignored`` and
    ``attached`` aligned with ``df``; NaN where an embedding is degenerate (e.g. all-OOV text
    under GloVe), counted by :func:`compsem.stats.nan_report`.
    """
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    a1, a2 = attach(s1, c, template), attach(s2, c, template)
    texts = s1 + s2 + a1 + a2
    X = embed(texts, model)
    n = len(df)
    e1, e2, f1, f2 = X[:n], X[n : 2 * n], X[2 * n : 3 * n], X[3 * n :]
    return pd.DataFrame(
        {"ignored": measures.cosine(e1, e2), "attached": measures.cosine(f1, f2)}, index=df.index
    )


def pair_accuracy(scores, df: pd.DataFrame, *, label_ties: str = "exclude") -> float:
    """:func:`compsem.csts.metrics.pair_accuracy` over the complete pairs of ``df``.

    ``label_ties="exclude"`` (default) leaves out pairs whose two labels are equal (there is no
    right order); ``"include"`` counts them with the file-order-first row as C-High.
    """
    s = np.asarray(scores, dtype=float)
    hi, lo = pair_index(df, label_ties=label_ties)
    return metrics.pair_accuracy(s[hi], s[lo])
