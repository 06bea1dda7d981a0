"""What the Part I chapters show: ours beside the paper, figures, headlines, try-it.

* the paper's row beside **any** model that maps to one (:func:`compsem.reference.paper_row`),
  labelled with whether the two are the same weights (our ``use`` is multilingual USE v3, the
  paper's "USE" is USE v4: never the same model);
* the statistical figures, drawn with seaborn through :mod:`compsem.figures`;
* the synthesis' :data:`HEADLINES` / :func:`headlines` and :func:`try_it`.

The per-chapter views (the tables and glued values of chapters 10–13, built from these
pieces) are the other half of this face, in :mod:`compsem.setcomp.chapters`, split off to keep
each module under 400 lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .. import figures
from .. import measures as M
from ..encoders import validate_texts
from ..reference import paper_match, paper_row, paper_table
from ..results import Headline, bootstrap_headline
from .data import build_operator_tables, load_quintuples
from .metrics import criterion_deltas, geometry
from .study import STUDY, difference_filter, embed_tables, embed_texts

__all__ = ["reference", "paper_name", "paper_label", "fmt_ci", "cells_beside_paper", "values_beside_paper",
           "raw_beside_paper", "plot_position_histograms", "plot_cells_summary", "plot_filter", "plot_norm_ratios",
           "ned_paper_check", "HEADLINES", "headlines", "try_it"]


def reference(name: str) -> pd.DataFrame:
    """A table of the paper's numbers, ``data/reference/setcomp_<name>.csv``."""
    return paper_table(STUDY, name)


def paper_name(spec: str) -> str | None:
    """The paper's row name ``spec`` stands beside, or ``None`` (``reference.paper_row``)."""
    return paper_row(STUDY, spec)


def paper_label(spec: str, source: str) -> str:
    """``"paper, Table 1 (SBERT-mini)"``, saying so when the paper's model is not ours."""
    row = paper_match(STUDY, spec)
    if row is None:
        return f"paper, {source}"
    if not bool(row["same_model"]):
        return f"paper, {source} ({row['paper_name']}: a different model from our {spec})"
    return f"paper, {source} ({row['paper_name']})"


def fmt_ci(est: float, low: float, high: float, digits: int = 1) -> str:
    """``"12.3 [10.1, 14.0]"``; without an interval just the estimate."""
    if not np.isfinite(est):
        return "n/a"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{est:.{digits}f}"
    return f"{est:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _paper_rows(ref: pd.DataFrame, models: Sequence[str], value_cols: Sequence[str]) -> pd.DataFrame:
    rows = []
    for m in models:
        name = paper_name(m)
        hit = ref[ref["model"] == name] if name else ref.iloc[0:0]
        if len(hit):
            r = hit.iloc[0]
            rows.append({"model": m, "source": paper_label(m, r["source"]), **{c: r[c] for c in value_cols}})
    rng = {c: f"{ref[c].min():g} … {ref[c].max():g}" for c in value_cols}
    rows.append({"model": "(16 encoders)", "source": f"paper, {ref['source'].iloc[0]}: range", **rng})
    return pd.DataFrame(rows)


def cells_beside_paper(ours: pd.DataFrame, ref: pd.DataFrame, measure: str, *, digits: int = 1) -> pd.DataFrame:
    """C1/C3 cell table for one measure: our rows (with 95% CIs) then the paper's matching rows.

    ``ours`` is :func:`compsem.setcomp.tables.cells_table` output; ``ref`` a reference table
    with columns ``model, measure, TT, TF, FT, FF, source``.
    """
    o = ours[ours["measure"] == measure]
    rows = []
    for model, g in o.groupby("model", sort=False):
        g = g.set_index("cell")
        rows.append({"model": model, "source": f"ours ({g['mode'].iloc[0]} ε range)",
                     **{c: fmt_ci(g.loc[c, "pct"], g.loc[c, "low"], g.loc[c, "high"], digits)
                        for c in ("TT", "TF", "FT", "FF")}})
    paper = _paper_rows(ref[ref["measure"] == measure], list(o["model"].unique()), ["TT", "TF", "FT", "FF"])
    return pd.concat([pd.DataFrame(rows), paper], ignore_index=True)


def values_beside_paper(ours: pd.DataFrame, ref: pd.DataFrame, value_cols: Sequence[str],
                        ref_cols: Sequence[str] | None = None) -> pd.DataFrame:
    """Generic: our wide rows (``model`` + ``value_cols``) then the paper's matching rows."""
    ref_cols = list(ref_cols or value_cols)
    o = ours.copy()
    o.insert(1, "source", "ours")
    r = ref.rename(columns=dict(zip(ref_cols, value_cols)))
    paper = _paper_rows(r, list(ours["model"].unique()), list(value_cols))
    return pd.concat([o, paper], ignore_index=True)


def raw_beside_paper(raw: pd.DataFrame, ref: pd.DataFrame, columns: Mapping[str, tuple[str, str, str | None]], *,
                     digits: int = 4) -> pd.DataFrame:
    """Tables 12 and 14: our mean ± std of raw-measure differences beside the paper's.

    ``raw`` is :func:`compsem.setcomp.tables.raw_scores_table` output; ``columns`` maps a
    display label to ``(our quantity, paper mean column, paper std column or None)``.
    """
    rows = []
    for (meas, model), g in raw.groupby(["measure", "model"], sort=False):
        g = g.set_index("quantity")
        rows.append({"measure": meas, "model": model, "source": "ours",
                     **{lab: f"{g.loc[q, 'mean']:.{digits}g} ± {g.loc[q, 'std']:.{digits}g}"
                        for lab, (q, _, _) in columns.items()}})
        name = paper_name(model)
        hit = ref[(ref["model"] == name) & (ref["measure"] == meas)] if name else ref.iloc[0:0]
        if len(hit):
            r = hit.iloc[0]
            rows.append({"measure": meas, "model": model, "source": paper_label(model, r["source"]),
                         **{lab: (f"{r[mc]:g} ± {r[sc]:g}" if sc else f"{r[mc]:g}")
                            for lab, (_, mc, sc) in columns.items()}})
    return pd.DataFrame(rows)


def ned_paper_check(*, tol: float = 0.001) -> pd.DataFrame:
    """Does the paper's NED equal plain ``(1 − cos)/2``? Its Table 14, model by model.

    The mean of ``M(B, D)`` is printed for cosine and NED; were NED ``(1 − cos)/2``, the NED
    mean would be ``(1 − cos mean)/2`` exactly (a mean commutes with a linear map). Columns:
    ``cos M(B,D)``, ``NED M(B,D)`` (the paper's), ``(1 − cos)/2``, ``NED − (1 − cos)/2`` and
    ``fits`` (``|difference| ≤ tol``; the table prints four decimals).
    """
    t = reference("difference_scores").pivot_table(index="model", columns="measure", values="m_bd", sort=False)
    out = pd.DataFrame({"cos M(B,D)": t["cos"], "NED M(B,D)": t["ned"], "(1 − cos)/2": (1 - t["cos"]) / 2})
    out["NED − (1 − cos)/2"] = out["NED M(B,D)"] - out["(1 − cos)/2"]
    out["fits"] = out["NED − (1 − cos)/2"].abs() <= tol
    return out


# ----------------------------------------------------------------------------- figures (seaborn)


def plot_position_histograms(geoms: Mapping[str, M.PlaneGeometry], *, title: str, lo: float = -1.0, hi: float = 3.0,
                             bins: int = 40):
    """One histogram per model of the signed position ``s = 1 − t`` of the projection P.

    ``s`` is the paper's variable ∠(B,P)/∠(A,B) (Figures 4 and 6: 1 = at A, 0 = at B) with a sign:
    the two agree whenever P is not beyond B, and ``s < 0`` marks P beyond B. Values outside
    ``[lo, hi]`` are clipped into the end bins (their share is printed in the panel);
    degenerate samples are counted in the panel title.
    """
    figures.set_theme()
    models = list(geoms)
    colors = figures.model_colors(models)
    fig, axes = plt.subplots(1, len(models), figsize=(3.0 * len(models), 2.8), squeeze=False)
    edges = np.linspace(lo, hi, bins + 1)
    for ax, m in zip(axes[0], models):
        g = geoms[m]
        v = 1.0 - g.t[~g.degenerate]
        clipped = float(np.mean((v < lo) | (v > hi))) if v.size else 0.0
        sns.histplot(x=np.clip(v, lo, hi), bins=edges, color=colors[m], ax=ax)
        ax.axvspan(0, 1, color="0.5", alpha=0.08)
        for x in (0, 1):
            ax.axvline(x, color="k", lw=0.8, ls="--")
        ax.set_title(f"{m}" + (f" ({g.n_degenerate} degenerate)" if g.n_degenerate else ""), fontsize=10)
        ax.set_xlabel("signed ∠(B,P)/∠(A,B)  (0 = B, 1 = A)", fontsize=9)
        ax.set_ylabel("")
        if clipped:
            ax.text(0.02, 0.95, f"{100 * clipped:.0f}% clipped", transform=ax.transAxes, fontsize=8, va="top")
    axes[0][0].set_ylabel("samples")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_cells_summary(tab: pd.DataFrame, *, value: str = "pct", label: str = "", ax=None, cell: str | None = "TT"):
    """One percentage per model (and measure) with its 95% interval (:func:`compsem.figures.interval_plot`)."""
    figures.set_theme()
    t = tab if cell is None else tab[tab["cell"] == cell]
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 + 1.1 * t["model"].nunique(), 3.2))
    measures = list(dict.fromkeys(t["measure"]))
    figures.interval_plot(t, x="model", y=value, low="low", high="high", hue="measure" if len(measures) > 1 else None,
                          colors={m: figures.PALETTE[i] for i, m in enumerate(measures)}, ax=ax, xlabel="",
                          ylabel=label)
    ax.figure.tight_layout()
    return ax.figure


def plot_filter(rep, threshold: float):
    """The two neighbour cosines of every quintuple under the first filter encoder, pass or fail."""
    figures.set_theme()
    spec = rep.encoders[0]
    df = pd.DataFrame({"cos(prev, curr)": rep.cos_prev_curr[spec], "cos(curr, next)": rep.cos_curr_next[spec],
                       "quintuple": np.where(rep.mask, "passes", "fails")})
    fig, ax = plt.subplots(figsize=(4.6, 4.0))
    sns.scatterplot(df, x="cos(prev, curr)", y="cos(curr, next)", hue="quintuple", hue_order=["passes", "fails"],
                    palette=[figures.PALETTE[2], "0.6"], s=18, ax=ax)
    for line in (ax.axvline, ax.axhline):
        line(threshold, color="k", ls="--", lw=0.8)
    ax.set_title(f"difference filter under {spec}")
    fig.tight_layout()
    return fig


def plot_norm_ratios(ratios: Mapping[str, np.ndarray], *, lo: float = 0.5, hi: float = 1.5):
    """Histogram of ``|E_A| / |E_B|`` per model (the paper's Figure 10), clipped to [lo, hi]."""
    figures.set_theme()
    colors = figures.model_colors(list(ratios))
    fig, axes = plt.subplots(1, len(ratios), figsize=(3.0 * len(ratios), 2.8), squeeze=False)
    for ax, (m, r) in zip(axes[0], ratios.items()):
        sns.histplot(x=np.clip(r[np.isfinite(r)], lo, hi), bins=np.linspace(lo, hi, 42), color=colors[m], ax=ax)
        ax.axvline(1, color="k", ls="--", lw=0.8)
        ax.set_title(m, fontsize=10)
        ax.set_xlabel("|E_A| / |E_B|", fontsize=9)
        ax.set_ylabel("")
    axes[0][0].set_ylabel("samples")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- the synthesis' headlines

#: Part I's headline criteria in the cross-study profile (cosine, ε = 0).
HEADLINES: tuple[Headline, ...] = (
    Headline("C1", "I", "C1 overlap: both margins ≥ 0", "%", float("nan"), "overlap samples",
             "the overlap sentence is closer to each input than the inputs are to each other"),
    Headline("C2", "I", "C2 overlap projects between A and B", "%", float("nan"), "overlap samples",
             "the overlap's shadow in plane(A, B) lies between the inputs"),
    Headline("C3", "I", "C3 difference: both margins ≥ 0", "%", float("nan"), "difference samples",
             "the difference sentence is closer to A than to B, and A–B closer than B–D"),
    Headline("C5", "I", "C5 difference projects near A", "%", float("nan"), "difference samples",
             "the difference's shadow lies within a quarter of angle(A, B) of A"),
    Headline("C6", "I", "C6 union projects between A and B", "%", float("nan"), "union samples",
             "the union's shadow lies between the inputs"),
)
_H = {h.key: h for h in HEADLINES}


def headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
              filter_encoder: str = "sbert-mini") -> list[dict]:
    """C1, C2, C3, C5, C6 on the shipped quintuples (cosine, ε = 0; difference filter fixed)."""
    q = load_quintuples().reset_index(drop=True)
    flt = difference_filter(q, encoders=filter_encoder)
    tables = build_operator_tables(q, difference_mask=flt.mask)
    emb = embed_tables(tables, list(models))
    rows = []
    for m, e in emb.items():
        for key, op in (("C1", "overlap"), ("C3", "difference")):
            d = criterion_deltas(e[op]["a"], e[op]["b"], e[op]["t"], op, measure="cos")
            both = np.where(np.isnan(d["d1"]) | np.isnan(d["d2"]), np.nan, (d["d1"] >= 0) & (d["d2"] >= 0))
            rows.append(bootstrap_headline(_H[key], m, both, n_boot=n_boot, seed=seed, scale=100))
        geoms = geometry({m: e}, "overlap")[m], geometry({m: e}, "difference")[m], geometry({m: e}, "union")[m]
        for key, g, region in (("C2", geoms[0], "between"), ("C5", geoms[1], "near_a"), ("C6", geoms[2], "between")):
            t = np.where(g.degenerate, np.nan, g.t)
            with np.errstate(invalid="ignore"):
                hit = (t >= 0) & (t <= 1) if region == "between" else np.abs(t) <= 0.25
            rows.append(bootstrap_headline(_H[key], m, np.where(np.isnan(t), np.nan, hit), n_boot=n_boot, seed=seed,
                                           scale=100))
    return rows


def _verdict(x: float) -> str:
    return "undefined" if not np.isfinite(x) else ("holds" if x else "fails")


def _union_case(ratio: float, t: float, *, comparable: float = 0.1, near: float = 0.25) -> tuple[str, str, bool]:
    """(norm case, expected region, whether ``t`` lies in it) for one union, with the union
    chapter's thresholds: comparable norms → between A and B; otherwise near the longer input."""
    if not np.isfinite(ratio):
        return "undefined", "between A and B", False
    if abs(ratio - 1) <= comparable:
        return "comparable norms", "between A and B: 0 ≤ t ≤ 1", bool(0 <= t <= 1)
    if ratio > 1:
        return "A longer", f"near A: |t| ≤ {near:g}", bool(abs(t) <= near)
    return "B longer", f"near B: |t − 1| ≤ {near:g}", bool(abs(t - 1) <= near)


def try_it(a: str, b: str, overlap: str, difference: str, union: str, models: Sequence[str]) -> pd.DataFrame:
    """Part I criteria at ε = 0 (cosine) for one A, B and a candidate O, D and U.

    Columns: model, criterion, value (the margin or position), verdict.
    """
    texts = validate_texts([a, b, overlap, difference, union])
    rows = []
    for m in models:
        A, B, O, D, U = (x[None] for x in embed_texts(texts, m))
        dO = criterion_deltas(A, B, O, "overlap", measure="cos")
        dD = criterion_deltas(A, B, D, "difference", measure="cos")
        gO, gD, gU = (M.plane_geometry(A, B, X, warn=False) for X in (O, D, U))
        ratio = float(M.norm_ratio(A, B, warn=False)[0])
        # C6's expected region follows the norm case, as in the union chapter (tables.union_table)
        case, region, in_region = _union_case(ratio, float(gU.t[0]))
        checks = [
            ("C1 Δ1 = cos(A,O) − cos(A,B)", dO["d1"][0], dO["d1"][0] >= 0),
            ("C1 Δ2 = cos(B,O) − cos(A,B)", dO["d2"][0], dO["d2"][0] >= 0),
            ("C2 position t of O (0 = A, 1 = B)", gO.t[0], 0 <= gO.t[0] <= 1),
            ("C3 Δ1 = cos(A,D) − cos(B,D)", dD["d1"][0], dD["d1"][0] >= 0),
            ("C3 Δ2 = cos(A,B) − cos(B,D)", dD["d2"][0], dD["d2"][0] >= 0),
            ("C4 Δ3 = cos(A−B, D) − cos(A−B, B)", dD["d3"][0], dD["d3"][0] >= 0),
            ("C5 position t of D (near A: |t| ≤ 0.25)", gD.t[0], abs(gD.t[0]) <= 0.25),
            ("C6 norm ratio |A|/|B| (comparable: within 0.1 of 1)", ratio, case),
            (f"C6 position t of U (expected {region})", gU.t[0], in_region),
        ]
        for name, value, ok in checks:
            if isinstance(ok, str):          # the norm case is a description, not a pass or a fail
                verdict = ok
            else:
                verdict = _verdict(float(ok) if np.isfinite(value) else np.nan)
            rows.append({"model": m, "criterion": name, "value": float(value), "verdict": verdict})
    return pd.DataFrame(rows)
