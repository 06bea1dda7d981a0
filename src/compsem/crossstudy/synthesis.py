"""The compositionality profile: one headline number per study and criterion, per model.

:func:`profile` asks each study's own report (``compsem.<study>.report.headlines``) for its
headline criteria on the shipped data, so a reader's hub model gets a full profile from the
``models`` parameter alone. Every number comes with a 95 % bootstrap interval (resampling the
unit named in :data:`CRITERIA`).

:func:`criteria_table`, :func:`profile_table`, :func:`profile_figure`, :func:`findings` and
:func:`ranks` turn the profile into what the synthesis chapter shows and glues; they read the
profile and compute nothing the studies did not.

The headlines are chosen so that no number depends on which other models are in the run
(Part I uses ε = 0 rather than the pooled ε range) and so that each has a stated chance or
theory-predicted reference value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import figures
from ..errors import check_trust_remote_code
from ..results import Headline
from ..studies import STUDIES

__all__ = ["CRITERIA", "STUDY_REPORTS", "profile", "profile_matrix", "criteria_table", "profile_table",
           "profile_figure", "findings", "ranks"]

#: Each study's report, in the book's order.
STUDY_REPORTS = {s.name: s.module("report") for s in STUDIES}

#: Every headline criterion, in the book's order.
CRITERIA: tuple[Headline, ...] = tuple(h for r in STUDY_REPORTS.values() for h in r.HEADLINES)


def profile(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0, trust_remote_code: bool = False) -> pd.DataFrame:
    """Tidy profile: one row per model and criterion (see :data:`CRITERIA`). ``trust_remote_code``
    must be the literal True or False and is passed through to every study's ``report.headlines``."""
    trc = check_trust_remote_code(trust_remote_code, where="profile")
    rows = [row for r in STUDY_REPORTS.values()
            for row in r.headlines(models, n_boot=n_boot, seed=seed, trust_remote_code=trc)]
    out = pd.DataFrame(rows)
    order = {c.key: i for i, c in enumerate(CRITERIA)}
    return out.sort_values(["model", "criterion"], key=lambda s: s.map(order) if s.name == "criterion" else s,
                           kind="stable").reset_index(drop=True)


def profile_matrix(prof: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    """Models × criteria (in :data:`CRITERIA` order)."""
    m = prof.pivot(index="model", columns="criterion", values=value)
    return m[[c.key for c in CRITERIA if c.key in m.columns]]


def _unit(key: str) -> str:
    return next(c.unit for c in CRITERIA if c.key == key)


def _fmt(value: float, unit: str, pct_digits: int = 1) -> str:
    if not np.isfinite(value):
        return "–"
    return f"{value:.{pct_digits}f}" if unit == "%" else f"{value:.2f}"


def criteria_table() -> pd.DataFrame:
    """The headlines' definitions, one row per criterion (key as index)."""
    return pd.DataFrame([{"key": c.key, "Part": c.part, "headline": c.label, "meaning": c.meaning, "unit": c.unit,
                          "resampled": c.resampled, "chance / no effect": "" if np.isnan(c.reference) else c.reference}
                         for c in CRITERIA]).set_index("key")


def profile_table(prof: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Criteria (labels) × models, each cell ``"value [low, high]"`` (percentages to one decimal,
    other values to two); a criterion without an interval shows its value alone."""
    def cell(r):
        ci = f" [{_fmt(r.low, r.unit)}, {_fmt(r.high, r.unit)}]" if np.isfinite(r.low) else ""
        return _fmt(r.value, r.unit) + ci

    table = prof.assign(text=prof.apply(cell, axis=1)).pivot(index="criterion", columns="model", values="text")
    keys = [c.key for c in CRITERIA if c.key in table.index]
    table = table.loc[keys, list(models)]
    table.index = [c.label for c in CRITERIA if c.key in keys]
    table.columns.name = None
    return table


def profile_figure(prof: pd.DataFrame, models: Sequence[str]):
    """Heat map of the profile: rows models, columns criteria; a cell's colour is its value's
    position between the lowest and the highest model of its column, its text the value
    (percentages rounded to whole numbers). Returns the matplotlib Figure."""
    M = profile_matrix(prof).loc[list(models)]
    lo, hi = M.min(axis=0), M.max(axis=0)
    scaled = (M - lo) / (hi - lo).replace(0, np.nan)
    texts = pd.DataFrame({k: [_fmt(v, _unit(k), 0) for v in M[k]] for k in M.columns}, index=M.index)
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(1.0 * M.shape[1] + 2.5, 0.55 * M.shape[0] + 1.6))
    figures.heatmap(scaled, ax=ax, annot=texts, vmin=0, vmax=1, cbar=False, annot_size=9)
    ax.set_xlabel("headline (see the table above)")
    ax.set_ylabel("")
    ax.tick_params(axis="x", rotation=0)
    ax.tick_params(axis="y", rotation=0)
    fig.tight_layout()
    return fig


def findings(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> dict[str, Any]:
    """The values the synthesis chapter glues into its prose, read off the profile.

    ``models`` are the real models (controls left out); ``controls`` the baselines in the run
    (their numbers are quoted only where the prose compares with them).
    """
    real = [m for m in models if m not in set(controls)]
    M = profile_matrix(prof)
    by = {k: g.set_index("model") for k, g in prof.groupby("criterion")}
    part1 = [c.key for c in CRITERIA if c.part == "I" and c.key in M.columns]
    best_set = M.loc[real, part1].mean(axis=1).idxmax()
    best_gap = M.loc[real, "NSGAP"].idxmax()
    n_gap_pos = int((by["NSGAP"].loc[real, "low"] > 0).sum())
    csts = by["CSTS"].loc[real]
    n_csts_chance = int(((csts["low"] <= 50) & (csts["high"] >= 50)).sum())
    best_rsa = by["RSA"].loc[real, "value"].idxmax()
    pair = by["PAIR"]
    return {
        "best_set": best_set, "best_gap": best_gap,
        "same_model": "the same model" if best_set == best_gap else "a different model",
        "n_real": len(real), "n_gap_pos": n_gap_pos, "n_csts_chance": n_csts_chance,
        "best_rsa": best_rsa, "best_rsa_value": float(by["RSA"].loc[best_rsa, "value"]),
        "bow_ties": float(100 * pair.loc["bow", "ties"]) if "bow" in pair.index else float("nan"),
        "random_c2": float(M.loc["random", "C2"]) if "random" in M.index else float("nan"),
        "gap_sentence": ("None of them separates the classes in the direction Montague semantics predicts."
                         if n_gap_pos == 0 else f"{n_gap_pos} of them separate the classes in the predicted direction."),
        "csts_sentence": "For every model" if n_csts_chance == len(real) else f"For {n_csts_chance} of the {len(real)} models",
    }


def ranks(prof: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Rank of each model within each criterion (1 = highest value; ties share the mean rank)."""
    rank = profile_matrix(prof).loc[list(models)].rank(axis=0, ascending=False)
    rank.columns.name = "rank (1 = highest)"
    return rank
