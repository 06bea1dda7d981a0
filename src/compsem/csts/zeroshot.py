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
    from compsem import embed, measures

    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    a1, a2 = attach(s1, c, template), attach(s2, c, template)
    texts = s1 + s2 + a1 + a2
    X = embed(texts, model)
    n = len(df)
    e1, e2, f1, f2 = X[:n], X[n : 2 * n], X[2 * n : 3 * n], X[3 * n :]
    return pd.DataFrame(
        {"ignored": measures.cosine(e1, e2), "attached": measures.cosine(f1, f2)}, index=df.index
    )


def pair_accuracy(scores, df: pd.DataFrame) -> float:
    """Share of sentence pairs whose C-High row scores above its C-Low row (ties count ½), in %.

    A model that ignores the condition gives every pair a tie, i.e. 50 %.
    """
    from .training import pair_index

    s = np.asarray(scores, dtype=float)
    hi, lo = pair_index(df)
    d = s[hi] - s[lo]
    ok = np.isfinite(d)
    if not ok.any():
        return float("nan")
    d = d[ok]
    return 100.0 * float(((d > 0) + 0.5 * (d == 0)).mean())


def zero_shot_textpair(df: pd.DataFrame, encoder: str = "sbert-mini", *, pooling: str = "mean", max_length: int = 64) -> np.ndarray:
    """Zero-shot scores of an *untrained* bi-encoder that reads each sentence together with the
    condition as a text pair, ``cos(f(s1; c), f(s2; c))`` — the paper's Table 2 setting.

    Uses the Hugging Face backbone of :mod:`compsem.csts.models` (mean pooling by default, as
    all-MiniLM-L6-v2 was trained), no fine-tuning. Returns one score per row of ``df``.
    """
    from .models import build_model
    from .training import predict

    model = build_model(encoder, encoding="bi", pooling=pooling, max_length=max_length, seed=0)
    return predict(model, df)
