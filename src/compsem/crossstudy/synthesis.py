"""The compositionality profile: one headline number per study and criterion, per model.

:func:`profile` asks each study's own report (``compsem.<study>.report.headlines``) for its
headline criteria on the shipped data, so a reader's hub model gets a full profile from the
``models`` parameter alone. Every number comes with a 95 % bootstrap interval (resampling the
unit named in :data:`CRITERIA`).

:func:`criteria_table`, :func:`profile_table`, :func:`profile_figure`, :func:`findings` and
:func:`ranks` turn the profile into what the synthesis chapter shows and glues; they read the
profile and compute nothing the studies did not.

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
from ..stats import degenerate_reason, leader_sentence, versus_reference
from ..studies import STUDIES

__all__ = ["CRITERIA", "STUDY_REPORTS", "profile", "profile_matrix", "criteria_table", "profile_table",
           "degenerate", "profile_figure", "findings", "ranks"]

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


def _rows(prof: pd.DataFrame, key: str, models: Sequence[str]) -> pd.DataFrame:
    g = prof[prof.criterion == key].set_index("model")
    return g.loc[[m for m in models if m in g.index]]


def _excluded(rows: pd.DataFrame) -> dict[str, str]:
    return {m: why for m, why in rows["degenerate"].items() if why}


def findings(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> dict[str, Any]:
    """The values and sentences the synthesis chapter glues into its prose, read off the profile.

    ``models`` are the real models (controls left out); ``controls`` the baselines in the run
    (their numbers are quoted only where the prose compares with them). Every comparison
    sentence comes from :func:`compsem.stats.leader_sentence`: "highest" only where the
    leader's interval clears the others', degenerate rows left out and named.
    """
    prof = _with_reference(prof)
    prof = prof.assign(degenerate=degenerate(prof))
    real = [m for m in models if m not in set(controls)]
    part1 = [c.key for c in CRITERIA if c.part == "I" and c.key in set(prof.criterion)]
    if len({_higher(k) for k in part1}) > 1:
        raise ValueError(f"the Part I criteria {part1} differ in direction (Headline.higher): their mean cannot be ranked")
    p1 = prof[prof.criterion.isin(part1)].groupby("model")[["value", "low", "high"]].mean().loc[real]
    p1_bad = {m: "a Part I criterion is degenerate" for m in real
              if (_rows(prof, part1[0], [m]).empty or any(_rows(prof, k, [m])["degenerate"].iloc[0] for k in part1))}
    gap = _rows(prof, "NSGAP", real)
    cond = _rows(prof, "CSTS", real)
    rsa = _rows(prof, "RSA", real)
    pair = prof[prof.criterion == "PAIR"].set_index("model")
    where = {m: versus_reference(r.low, r.high, r.reference, higher=_higher("CSTS")) for m, r in cond.iterrows()}
    wrong = [m for m, w in where.items() if w.startswith("significantly")]
    good = [m for m, w in where.items() if w in ("above", "below")]
    n_chance = sum(w == "indistinguishable" for w in where.values())
    bad = prof[(prof.degenerate != "") & prof.model.isin(real + list(controls))]
    n_gap_pos = int(((gap["low"] > 0) & (gap["degenerate"] == "")).sum())
    return {
        "n_real": len(real), "n_gap_pos": n_gap_pos, "gap_count": claims.of_total(n_gap_pos, int((gap["degenerate"] == "").sum()),
                                                          "ranked model"),
        "n_headlines": len(CRITERIA), "n_parts": len({c.part for c in CRITERIA}), "n_part1": len(part1),
        "set_sentence": Prose(leader_sentence(p1["value"], p1["low"], p1["high"], list(p1.index), excluded=p1_bad,
                                        what=f"mean of the {len(part1)} Part I criteria", digits=1, unit=" %",
                                        higher=_higher(part1[0]))),
        "gap_sentence_leader": Prose(leader_sentence(gap["value"], gap["low"], gap["high"], list(gap.index),
                                               excluded=_excluded(gap), what="non-subsectivity gap",
                                               higher=_higher("NSGAP"))),
        "gap_sentence": Prose("None of the ranked models separates the classes in the direction Montague semantics predicts."
                         if n_gap_pos == 0 else f"{n_gap_pos} of them separate the classes in the predicted direction."),
        "conditions_sentence": Prose(_conditions_sentence(cond, n_chance, wrong, good, where)),
        "rsa_sentence": Prose(leader_sentence(rsa["value"], rsa["low"], rsa["high"], list(rsa.index),
                                        excluded=_excluded(rsa), what="RSA with the reference",
                                        higher=_higher("RSA"))),
        "bow_ties": float(100 * pair.loc["bow", "ties"]) if "bow" in pair.index else float("nan"),
        "degenerate_sentence": Prose("No row of this profile is degenerate." if bad.empty else
                                "Left out of every ranking, and shown as n/a in the figure: " + "; ".join(
                                    f"`{r.model}` on {r.criterion} ({r.degenerate})" for r in bad.itertuples()) + "."),
        "random_c2": float(prof.set_index(["model", "criterion"]).loc[("random", "C2"), "value"])
        if ((prof.model == "random") & (prof.criterion == "C2")).any() else float("nan"),
    }


def _conditions_sentence(cond: pd.DataFrame, n_chance: int, wrong: list[str], good: list[str],
                   where: dict[str, str]) -> str:
    """``wrong``: models whose interval lies on the wrong side of chance (for the headline's
    direction), ``good`` on the right side; ``where`` their :func:`versus_reference` words."""
    n = len(cond)
    head = ("For every model the zero-shot pair accuracy of Part II has an interval that contains 50 %, the coin-flip "
            "level." if n_chance == n else
            f"For {n_chance} of the {n} models the zero-shot pair accuracy of Part II has an interval that contains "
            "50 %, the coin-flip level.")
    parts = [head]
    est = {m: estimate(cond.loc[m].value, cond.loc[m].low, cond.loc[m].high, 1, unit=" %") for m in cond.index}
    for side in ("significantly below", "significantly above"):
        ms = [m for m in wrong if where[m] == side]
        if len(ms) == 1:
            parts.append(f"`{ms[0]}` lies {side} chance ({est[ms[0]]}): it prefers the wrong condition more often "
                         "than a coin would, so the condition written into the sentence moves its vectors, but the "
                         "wrong way.")
        elif ms:
            named = ", ".join(f"`{m}` ({est[m]})" for m in ms[:-1]) + f" and `{ms[-1]}` ({est[ms[-1]]})"
            parts.append(f"{named} lie {side} chance: they prefer the wrong condition more often than a coin would, "
                         "so the condition written into the sentence moves their vectors, but the wrong way.")
    for m in good:
        parts.append(f"`{m}` lies {where[m]} chance ({est[m]}).")
    return " ".join(parts)


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
