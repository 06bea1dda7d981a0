"""Part II's report: its headline in the cross-study synthesis and the try-it table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..encoders import validate_texts
from ..results import Headline, bootstrap_headline
from .data import load_csts
from .training import pair_index
from .zeroshot import zero_shot_scores

__all__ = ["HEADLINES", "headlines", "try_it"]

#: Part II's headline criterion in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline("CSTS", "II", "C-STS zero-shot pair accuracy", "%", 50.0, "sentence pairs",
             "with the condition attached, the C-High row scores above the C-Low row"),
)


def headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """Zero-shot pair accuracy on the whole embedded set with the condition attached."""
    df, _ = load_csts("embedded")
    df = df.reset_index(drop=True)
    hi, lo = pair_index(df)
    rows = []
    for m in models:
        s = zero_shot_scores(df, m)["attached"].to_numpy()
        d = s[hi] - s[lo]
        outcome = np.where(np.isnan(d), np.nan, (d > 0) + 0.5 * (d == 0))
        rows.append(bootstrap_headline(HEADLINES[0], m, outcome, n_boot=n_boot, seed=seed, scale=100))
    return rows


def try_it(sentence1: str, sentence2: str, condition_high: str, condition_low: str,
           models: Sequence[str]) -> pd.DataFrame:
    """Part II zero-shot: cosine of the two sentences with each condition attached."""
    validate_texts([sentence1, sentence2, condition_high, condition_low])
    df = pd.DataFrame({"sentence1": [sentence1] * 2, "sentence2": [sentence2] * 2,
                       "condition": [condition_high, condition_low]})
    rows = []
    for m in models:
        s = zero_shot_scores(df, m)
        hi, lo = float(s["attached"].iloc[0]), float(s["attached"].iloc[1])
        rows.append({"model": m, "cos, condition ignored": float(s["ignored"].iloc[0]),
                     "cos with C-High": hi, "cos with C-Low": lo,
                     "C-High above C-Low": "undefined" if not np.isfinite(hi - lo) else ("yes" if hi > lo else "no")})
    return pd.DataFrame(rows)
