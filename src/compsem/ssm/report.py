"""Part IV's report: its headline in the cross-study synthesis and the try-it table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..encoders import validate_texts
from ..results import Headline, headline_row
from .metrics import distances
from .scorers import get_scorer
from .study import load_study, score_all, ssm_frame

__all__ = ["HEADLINES", "headlines", "try_it"]

#: Part IV's headline criterion in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline("RSA", "IV", "RSA with the reference (relatedness)", "r", 0.0, "clusters",
             "Pearson r between the model's and the reference's distance matrices"),
)


def headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """RSA of the cosine relatedness space with the project's reference (cluster bootstrap)."""
    pool, R_ref, cats = load_study()
    scored = score_all(pool, list(models), progress=False)
    frame = ssm_frame(scored, R_ref, cats, pool.clusters, n_boot=n_boot, seed=seed)
    rows = []
    for name, spec in zip(scored, models):
        rel = frame[(frame.scorer == name) & (frame.space == "rel")].iloc[0]
        rows.append(headline_row(HEADLINES[0], spec, float(rel.rsa), float(rel.get("rsa_low", np.nan)),
                                 float(rel.get("rsa_high", np.nan)), int(rel.n_sentences)))
    return rows


def try_it(premise: str, hypotheses: Sequence[str], models: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Part IV on a tiny pool (premise + hypotheses): the score matrix R of the offline lexical
    scorer and each model's cosine, with the relatedness and discrepancy distances."""
    texts = validate_texts([premise, *hypotheses])
    labels = ["P"] + [f"H{i + 1}" for i in range(len(hypotheses))]
    out = {}
    for spec in ["lexical", *models]:
        scorer = get_scorer(spec)
        R = np.asarray(scorer.score(texts, progress=False), dtype=float)
        D = distances(R, symmetric=bool(scorer.symmetric))
        out[spec] = {"R": pd.DataFrame(R, index=labels, columns=labels)}
        out[spec].update({f"D_{k}": pd.DataFrame(v, index=labels, columns=labels) for k, v in D.items()})
    return out
