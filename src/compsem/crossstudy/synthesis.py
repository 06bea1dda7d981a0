"""The compositionality profile: one headline number per study and criterion, per model.

:func:`profile` asks each study's own report (``compsem.<study>.report.headlines``) for its
headline criteria on the shipped data, so a reader's hub model gets a full profile from the
``models`` parameter alone. Every number comes with a 95 % bootstrap interval (resampling the
unit named in :data:`CRITERIA`).

:func:`criteria_table`, :func:`profile_table`, :func:`profile_figure`, :func:`findings` and
:func:`ranks` turn the profile into what the synthesis chapter shows and glues; they read the
profile and compute nothing the studies did not. The chapter's introduction (:func:`questions`),
its notes on how each headline is computed (:func:`methods`) and its findings, one paragraph per
study (:func:`paragraphs`), come from each study's ``report.FINDING``
(:class:`compsem.faces.Finding`): no criterion is named here.

A row that cannot be ranked (every comparison a tie, every item exactly at the no-effect value,
or a reason the study gives in an optional ``degenerate`` column of its headline rows) is left
out of every "highest" sentence, the rank table and the heat map's colours, and named on the
page (:func:`degenerate`, :func:`compsem.stats.degenerate_reason`).

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

from .. import claims, figures
from ..errors import check_trust_remote_code
from ..fmt import estimate, number
from ..results import Headline, Prose
from ..stats import degenerate_reason
from ..studies import STUDIES

__all__ = ["CRITERIA", "STUDY_REPORTS", "profile", "profile_matrix", "criteria_table", "profile_table",
           "degenerate", "profile_figure", "findings", "questions", "methods", "paragraphs", "ranks"]

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


def _higher(key: str) -> bool:
    """The criterion's direction (:attr:`compsem.results.Headline.higher`): True when higher is better."""
    return next(c.higher for c in CRITERIA if c.key == key)


def _fmt(value: float, unit: str, pct_digits: int = 1) -> str:
    """Percentages to ``pct_digits`` decimals, other values to two; never "-0.00"."""
    return number(value, pct_digits if unit == "%" else 2)


def criteria_table() -> pd.DataFrame:
    """The headlines' definitions, one row per criterion (key as index)."""
    return pd.DataFrame([{"key": c.key, "Part": c.part, "headline": c.label, "meaning": c.meaning, "unit": c.unit,
                          "resampled": c.resampled, "better": "higher" if c.higher else "lower",
                          "chance / no effect": "–" if np.isnan(c.reference) else f"{c.reference:g}" + (" %" if c.unit == "%" else "")}
                         for c in CRITERIA]).set_index("key")


def profile_table(prof: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Criteria (labels) × models, each cell ``"value [low, high]"`` (percentages to one decimal
    and marked "%", other values to two: a model's column mixes units, and each cell says which
    it holds); a criterion without an interval shows its value alone, a degenerate one
    (:func:`degenerate`) ends in "(n/a)"."""
    def cell(r):
        pct = r.unit == "%"
        return estimate(r.value, r.low, r.high, 1 if pct else 2, unit=" %" if pct else "") + (" (n/a)" if r.bad else "")

    prof = _with_reference(prof)
    table = prof.assign(bad=degenerate(prof) != "")
    table = table.assign(text=table.apply(cell, axis=1)).pivot(index="criterion", columns="model", values="text")
    keys = [c.key for c in CRITERIA if c.key in table.index]
    table = table.loc[keys, list(models)]
    table.index = [c.label for c in CRITERIA if c.key in keys]
    table.columns.name = None
    return table


def degenerate(prof: pd.DataFrame) -> pd.Series:
    """Why each profile row must stay out of rankings (``""`` when it may be ranked), indexed
    like ``prof``: :func:`compsem.stats.degenerate_reason` on its value, interval, reference,
    tie share and a study's own ``degenerate`` column when there is one."""
    flagged = prof["degenerate"].fillna("") if "degenerate" in prof else pd.Series("", index=prof.index)
    odd = [f for f in flagged if not isinstance(f, str)]
    if odd:
        raise TypeError(f"a study's 'degenerate' column must hold a reason in words, or '' when the row may be "
                        f"ranked; got {odd[0]!r}")
    ties = prof["ties"] if "ties" in prof else pd.Series(np.nan, index=prof.index)
    return pd.Series([degenerate_reason(r.value, r.low, r.high, reference=r.reference if "reference" in prof else np.nan,
                                        ties=t, flagged=f)
                      for r, t, f in zip(prof.itertuples(), ties, flagged)], index=prof.index, name="degenerate")


def _reference(key: str) -> float:
    return next(c.reference for c in CRITERIA if c.key == key)


def _with_reference(prof: pd.DataFrame) -> pd.DataFrame:
    return prof if "reference" in prof else prof.assign(reference=prof["criterion"].map(_reference))


def profile_figure(prof: pd.DataFrame, models: Sequence[str]):
    """Heat map of the profile: rows models, columns criteria; a cell's colour is its value's
    position between the worst and the best ranked model of its column (best: the highest value,
    or the lowest where the criterion's ``higher`` is False), its text the value
    (percentages rounded to whole numbers). A degenerate cell (:func:`degenerate`) is left
    blank, takes no part in the colour scale and reads "n/a". Returns the matplotlib Figure."""
    prof = _with_reference(prof)
    bad = prof.assign(bad=degenerate(prof) != "").pivot(index="model", columns="criterion", values="bad")
    M = profile_matrix(prof).loc[list(models)]
    bad = bad.reindex(index=M.index, columns=M.columns).fillna(False).astype(bool)
    ranked = M.mask(bad)
    lo, hi = ranked.min(axis=0), ranked.max(axis=0)
    scaled = (ranked - lo) / (hi - lo).replace(0, np.nan)
    flip = [k for k in scaled.columns if not _higher(k)]   # lower is better there: the best is yellow
    scaled[flip] = 1 - scaled[flip]
    # a column with one ranked value (or all equal) gets the middle colour, not a blank cell
    scaled = scaled.where(ranked.isna() | (hi - lo != 0), 0.5)
    texts = pd.DataFrame({k: ["n/a" if b else _fmt(v, _unit(k), 0) for v, b in zip(M[k], bad[k])] for k in M.columns},
                         index=M.index)
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(1.0 * M.shape[1] + 2.5, 0.55 * M.shape[0] + 1.6))
    figures.heatmap(scaled, ax=ax, annot=texts, vmin=0, vmax=1, cbar=False, annot_size=9)
    ax.grid(False)
    for i, j in zip(*np.nonzero(bad.to_numpy())):   # grey, with "n/a": not part of the colour scale
        ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor="0.92", edgecolor="white", linewidth=0.5))
        ax.text(j + 0.5, i + 0.5, "n/a", ha="center", va="center", fontsize=9, color="0.3")
    ax.set_xlabel("headline (see the table above)")
    ax.set_ylabel("")
    ax.tick_params(axis="x", rotation=0)
    ax.tick_params(axis="y", rotation=0)
    fig.tight_layout()
    return fig


def _part(name: str) -> str:
    return next(s.roman for s in STUDIES if s.name == name)


def _finding(report):
    """The study's :class:`compsem.faces.Finding` (``report.FINDING``), or None."""
    return getattr(report, "FINDING", None)


def questions() -> str:
    """The chapter's introduction: what each Part asks, from every study's ``FINDING.question``
    ("Part I asks whether …; Part II whether …; … and Part IV whether …")."""
    asked = [(_part(n), f.question) for n, r in STUDY_REPORTS.items() if (f := _finding(r)) is not None]
    if not asked:
        return "No study declares what it asks (its report's FINDING)."
    said = [f"Part {asked[0][0]} asks whether {asked[0][1]}"] + [f"Part {p} whether {q}" for p, q in asked[1:]]
    return (said[0] if len(said) == 1 else "; ".join(said[:-1]) + "; and " + said[-1]) + "."


def methods() -> str:
    """How each study's headlines are computed (every study's ``FINDING.method``), one paragraph."""
    return " ".join(f.method for r in STUDY_REPORTS.values() if (f := _finding(r)) is not None)


def paragraphs(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> list[str]:
    """One paragraph per study that declares a ``FINDING`` and has rows in the profile:
    ``*topic.*`` and the sentences its ``FINDING.sentences`` produces from the profile's rows of
    its criteria (with their ``reference``, ``higher`` and ``degenerate`` columns)."""
    prof = _with_reference(prof)
    prof = prof.assign(degenerate=degenerate(prof), higher=prof["criterion"].map(_higher))
    if "ties" not in prof:
        prof = prof.assign(ties=np.nan)
    real = [m for m in models if m not in set(controls)]
    out = []
    for r in STUDY_REPORTS.values():
        f = _finding(r)
        rows = prof[prof.criterion.isin([h.key for h in r.HEADLINES])]
        if f is not None and not rows.empty:
            out.append(f"*{f.topic}.* {f.sentences(rows.reset_index(drop=True), real, list(controls))}")
    return out


def findings(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> dict[str, Any]:
    """The values the synthesis chapter glues into its prose, read off the profile and the
    registry: how many models, headlines and Parts, what each Part asks (:func:`questions`), and
    which rows are degenerate. The studies' paragraphs are :func:`paragraphs`.

    ``models`` are every model of the run, ``controls`` the baselines among them.
    """
    prof = _with_reference(prof)
    prof = prof.assign(degenerate=degenerate(prof))
    real = [m for m in models if m not in set(controls)]
    bad = prof[(prof.degenerate != "") & prof.model.isin(real + list(controls))]
    return {
        "n_real": len(real), "n_headlines": len(CRITERIA), "n_parts": len({c.part for c in CRITERIA}),
        "questions": Prose(questions()), "methods": Prose(methods()),
        "degenerate_sentence": Prose("No row of this profile is degenerate." if bad.empty else
                                     "Left out of every ranking, and shown as n/a in the figure: " + "; ".join(
                                         f"`{r.model}` on {r.criterion} ({r.degenerate})" for r in bad.itertuples())
                                     + "."),
    }


def ranks(prof: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Rank of each model within each criterion (1 = best: the highest value, or the lowest where
    the criterion's :attr:`~compsem.results.Headline.higher` is False; ties share the mean rank).
    A degenerate row (:func:`degenerate`) is not ranked: its cell reads "n/a" and the others
    are ranked without it. Ranks say nothing about whether neighbours' intervals overlap."""
    prof = _with_reference(prof)
    bad = prof.assign(bad=degenerate(prof) != "").pivot(index="model", columns="criterion", values="bad")
    M = profile_matrix(prof).loc[list(models)]
    bad = bad.reindex(index=M.index, columns=M.columns).fillna(False).astype(bool)
    ranked = M.mask(bad)
    rank = pd.DataFrame({k: ranked[k].rank(ascending=not _higher(k)) for k in ranked.columns}, index=ranked.index)
    out = rank.apply(lambda col: col.map(lambda r: "n/a" if not np.isfinite(r) else f"{r:g}"))
    out.columns.name = "rank (1 = best)"
    return out
