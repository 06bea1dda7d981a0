"""Chapter-level helpers for Part IV: score a pool with several scorers and build the tidy
tables the notebooks show (Table 2 and Table 3 analogues) beside the paper's numbers."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .. import reference
from .metrics import (bootstrap_accuracy, bootstrap_ssm, calinski_harabasz, distances, entailment_accuracy, rsa,
                      sparsity)
from .pool import CATEGORIES, Pool, load_pool, load_reference, pair_categories
from .scorers import expand_scorers, get_scorer, score_matrix

REFERENCE = "project reference"
TABLE2_CATEGORIES = CATEGORIES[:5]


@dataclass
class Scored:
    """One scorer's matrix over a pool."""

    name: str
    R: np.ndarray
    symmetric: bool
    identity: str

    @property
    def valid(self) -> np.ndarray:
        """Sentences whose row and column are not entirely NaN (a NaN column comes from a
        hypothesis without content words, NaN rows and columns from an all-OOV text)."""
        bad = ~np.isfinite(self.R)
        return ~(bad.all(axis=0) | bad.all(axis=1))


def load_study(pool_source=None) -> tuple[Pool, np.ndarray, np.ndarray]:
    """(pool, R_ref, categories) for the shipped pool (``pool_source=None``) or a pool CSV whose
    judgements sit beside it as ``judgements.csv``."""
    if pool_source is None:
        pool = load_pool()
        R_ref = load_reference(pool)
    else:
        from pathlib import Path
        pool = load_pool(pool_source)
        R_ref = load_reference(pool, Path(pool_source).with_name("judgements.csv"))
    return pool, R_ref, pair_categories(pool)


def scorer_specs(scorers, models) -> list[str]:
    """The notebook parameters ``scorers`` (lexical, nli:..., llm:...) and ``models`` (panel
    encoders, cosine scorers) as one list of specs, duplicates removed."""
    specs = expand_scorers(scorers or []) + expand_scorers(models or [])
    specs = list(dict.fromkeys(specs))
    if not specs:
        raise ValueError("no scorer given: set `scorers` and/or `models`")
    return specs


def score_all(pool: Pool, specs, *, progress: bool = True) -> dict[str, Scored]:
    """Score matrices for every spec (cached on disk; see :func:`score_matrix`)."""
    out = {}
    for spec in specs:
        scorer = get_scorer(spec)
        R = score_matrix(scorer, pool.texts, progress=progress)
        s = Scored(getattr(scorer, "name", str(spec)), R, bool(scorer.symmetric), scorer.identity)
        n_bad = int((~s.valid).sum())
        if n_bad:
            warnings.warn(f"{s.name}: {n_bad} sentence(s) have no scores (NaN) and are left out of its metrics",
                          RuntimeWarning, stacklevel=2)
        n_left = int((~np.isfinite(R[np.ix_(s.valid, s.valid)])).sum())
        if n_left:
            warnings.warn(f"{s.name}: {n_left} single pair score(s) are NaN (e.g. unparseable answers); metrics "
                          "that need every pair come out NaN", RuntimeWarning, stacklevel=2)
        out[s.name] = s
    return out


def reference_scored(R_ref) -> Scored:
    return Scored(REFERENCE, R_ref, False, "data/ssm/judgements.csv")


def accuracy_frame(scored: dict[str, Scored], R_ref, cats, labels, *, n_boot: int = 1000, seed: int = 0):
    """Tidy Table 2 analogue: scorer, category, accuracy, n_pairs, ci_low, ci_high."""
    import pandas as pd

    rows = []
    for name, s in scored.items():
        v = s.valid
        sub = np.ix_(v, v)
        acc = entailment_accuracy(s.R[sub], R_ref[sub], cats[sub])
        ci = bootstrap_accuracy(s.R[sub], R_ref[sub], cats[sub], np.asarray(labels)[v], n_boot=n_boot, seed=seed,
                                include=list(acc)) if n_boot else {}
        for cat, (a, n) in acc.items():
            lo, hi = ci.get(cat, (np.nan, np.nan))
            rows.append({"scorer": name, "category": cat, "accuracy": a, "n_pairs": n, "ci_low": lo, "ci_high": hi,
                         "n_sentences_dropped": int((~v).sum())})
    return pd.DataFrame(rows)


def ssm_frame(scored: dict[str, Scored], R_ref, cats, labels, *, n_boot: int = 1000, seed: int = 0):
    """Tidy Table 3 analogue: scorer, space, sparsity, ch, rsa (+ cluster-bootstrap CIs) and
    ``rsa_labelled``: RSA without the unlabelled within-cluster pairs (a sensitivity check)."""
    import pandas as pd

    labels = np.asarray(labels)
    rows = []
    for name, s in scored.items():
        v = s.valid
        sub = np.ix_(v, v)
        D_ref = distances(R_ref[sub])
        keep = (cats[sub] != "within_cluster") & (cats[sub].T != "within_cluster")
        for space, D in distances(s.R[sub], symmetric=s.symmetric).items():
            row = {"scorer": name, "space": space, "sparsity": sparsity(D), "ch": calinski_harabasz(D, labels[v]),
                   "rsa": rsa(D, D_ref[space]), "rsa_labelled": rsa(D, D_ref[space], mask=keep),
                   "n_sentences": int(v.sum())}
            if n_boot:
                ci = bootstrap_ssm(D, D_ref[space], labels[v], n_boot=n_boot, seed=seed)
                row.update(sparsity_low=ci["sparsity"][0], sparsity_high=ci["sparsity"][1],
                           rsa_low=ci["rsa"][0], rsa_high=ci["rsa"][1])
            rows.append(row)
    return pd.DataFrame(rows)


def paper_table(which: str):
    """The paper's Table 2 (``"accuracy"``), Table 3 (``"ssm"``) or pool size (``"pool"``) from
    ``data/reference/``."""
    name = {"accuracy": "table2_accuracy", "ssm": "table3_ssm", "pool": "pool"}[which]
    df = reference.paper_table("ssm", name, dtype={"paper": str})
    if "dataset" in df:
        df["dataset"] = df["dataset"].fillna("")
    return df


def mean_scores_frame(scored: dict[str, Scored], cats):
    """Mean R per pair category and scorer (tidy)."""
    import pandas as pd

    rows = []
    for name, s in scored.items():
        for cat in CATEGORIES:
            m = (cats == cat) & np.isfinite(s.R)
            rows.append({"scorer": name, "category": cat, "mean_R": float(s.R[m].mean()) if m.any() else np.nan,
                         "n_pairs": int(m.sum())})
    return pd.DataFrame(rows)
