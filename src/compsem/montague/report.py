"""What Part III's chapters show: the paper beside ours, figures, the synthesis headlines and try-it."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import measures as M
from ..encoders import validate_texts
from ..figures import heatmap, interval_plot
from ..results import Headline, bootstrap_headline, headline_row
from ..reference import paper_row, paper_table
from .data import load_vocabulary, join_phrase
from .metrics import READINGS, non_subsectivity, single_intersectivity
from .study import embed_texts, run_models

__all__ = ["HEADLINES", "headlines", "try_it", "PAPER_MODEL_OF", "paper_model_of", "load_paper_table",
           "compare_with_paper",
           "plot_type_matrix", "plot_set_diagrams", "cell", "class_gap", "plot_nonsubsective"]

#: Our panel name -> the paper's model of the same kind (same weights for sbert-mini); the full
#: mapping, with the paper's other models by hub id, is ``data/reference/paper_models.csv``
#: (:func:`paper_model_of`).
PAPER_MODEL_OF: dict[str, str] = {"sbert-mini": "MiniLM", "glove-50d": "GloVe"}


def paper_model_of(spec: str) -> str | None:
    """The row name of the paper's tables that ``spec`` stands beside (``"MiniLM"`` for
    ``sbert-mini``), from ``data/reference/paper_models.csv``; ``None`` if the paper has none."""
    return paper_row("montague", spec) or PAPER_MODEL_OF.get(spec)

#: Part III's headline criteria in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline("AAN", "III", "AAN single-phrase intersectivity", "share", float("nan"), "adjectives",
             "d(phrase, each word) ≤ d(each word, the rest of the phrase) (authors' code; Eq. 3 compares "
             "word pairs)"),
    Headline("PAIR", "III", "pair test, intersective vs privative", "share", 0.5, "adjectives",
             "Eq. 5 (strict <, n2 > n1) with an intersective a1 and a privative a2; theory expects > 0.5"),
    Headline("NSGAP", "III", "non-subsectivity gap (NS − S)", "difference", 0.0, "adjectives",
             "Eq. 7 (strict <) holds more often for non-subsective than subsective adjectives; theory "
             "expects > 0"),
)
_H = {h.key: h for h in HEADLINES}


def _per_adjective(x: np.ndarray, axis_keep: int = 0) -> np.ndarray:
    """Mean over every axis but ``axis_keep`` (NaN ignored; an all-NaN adjective stays NaN)."""
    axes = tuple(i for i in range(x.ndim) if i != axis_keep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axes) if axes else x


def _gap_boot(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int):
    """mean(a) − mean(b) with adjectives resampled within each group."""
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    rng = np.random.default_rng(seed)
    est = float(a.mean() - b.mean())
    draws = rng.choice(a, (n_boot, a.size)).mean(1) - rng.choice(b, (n_boot, b.size)).mean(1)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return est, float(lo), float(hi), int(a.size + b.size)


def headlines(models: Sequence[str], *, reading: str = "official", n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """AAN intersectivity, intersective-vs-privative pair consistency, non-subsectivity gap, under
    ``reading`` (the authors' code by default, as in the chapters)."""
    vocab = load_vocabulary()
    cats = np.asarray(vocab.categories)
    results = run_models(list(models), vocab=vocab, reading=reading, progress=False)
    rows = []
    for m, r in results.items():
        rows.append(bootstrap_headline(_H["AAN"], m, _per_adjective(r.single_aan, 0), n_boot=n_boot, seed=seed))
        si, pr = cats == "S-I", cats == "NS-Pr"
        block = r.pairs[np.ix_(si, pr)]                     # (a1 in S-I, a2 in NS-Pr, n1, n2)
        valid = ~np.isnan(block)
        tie_share = float(r.pair_ties[np.ix_(si, pr)][valid].mean()) if valid.any() else float("nan")
        rows.append(bootstrap_headline(_H["PAIR"], m, _per_adjective(block, 0), n_boot=n_boot, seed=seed,
                                       ties=tie_share))
        ni = _per_adjective(r.nonsub, 0)
        ns = np.isin(cats, ["NS-Pl", "NS-Pr"])
        s = np.isin(cats, ["S-I", "S-NI"])
        rows.append(headline_row(_H["NSGAP"], m, *_gap_boot(ni[ns], ni[s], n_boot, seed)))
    return rows


def _verdict(x: float) -> str:
    return "undefined" if not np.isfinite(x) else ("holds" if x else "fails")


def try_it(adjectives: Sequence[str], nouns: Sequence[str], models: Sequence[str], *,
           reading: str = "official") -> pd.DataFrame:
    """Part III tests on the reader's adjectives and nouns (cosine distance), written as given.

    For each adjective a and noun n: single-phrase intersectivity of "a n" (Eq. 3; the same in
    both readings) and non-subsectivity (Eq. 7). With at least two adjectives and two nouns, the
    pair test (Eq. 5) for every ordered adjective pair (a1, a2), as the share of noun pairs
    (n1, n2) for which ``d(a1 n1, a1 n2) < d(a2 n1, a2 n2)`` (``<=`` under ``reading="equations"``).
    (Loops run over the reader's few words only.)
    """
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; choose from {', '.join(READINGS)}")
    strict = reading == "official"
    adjectives, nouns = validate_texts(adjectives), validate_texts(nouns)
    if not adjectives or not nouns:
        raise ValueError("give at least one adjective and one noun")
    words = list(adjectives) + list(nouns)
    phrases = [join_phrase(a, n) for a in adjectives for n in nouns]
    A, N = len(adjectives), len(nouns)
    rows = []
    for m in models:
        E = embed_texts(words + phrases, m).astype(np.float64)
        W, P = E[:len(words)], E[len(words):]
        d_ww = M.cosine_distance_matrix(W, warn=False)
        d_pw = M.cosine_distance_matrix(P, W, warn=False)
        a_idx, n_idx = np.divmod(np.arange(A * N), N)
        single = single_intersectivity(d_pw, d_ww, np.stack([a_idx, A + n_idx], axis=1))
        nonsub = non_subsectivity(d_pw[np.arange(A * N), a_idx], d_pw[np.arange(A * N), A + n_idx], strict=strict)
        for k, phrase in enumerate(phrases):
            rows.append({"model": m, "phrase": phrase, "test": "single-phrase intersectivity (Eq. 3)",
                         "verdict": _verdict(single[k])})
            rows.append({"model": m, "phrase": phrase, "test": "closer to adjective than noun (Eq. 7)",
                         "verdict": _verdict(nonsub[k])})
        if A >= 2 and N >= 2:
            # Eq. 5 per ordered adjective pair, as the share of noun pairs (n1 != n2). Summed over
            # both orders of a pair the shares add to 1 (ties aside), so only the split is informative.
            D = M.cosine_distance_matrix(P, warn=False).reshape(A, N, A, N)
            within = D[np.arange(A), :, np.arange(A), :]                  # (A, N, N): d(a n1, a n2)
            off = ~np.eye(N, dtype=bool)
            for i in range(A):
                for j in range(A):
                    if i != j:
                        holds = (within[i][off] < within[j][off] - 1e-9) if strict else (
                            within[i][off] <= within[j][off] + 1e-9)
                        rows.append({"model": m, "phrase": f"{adjectives[i]} vs {adjectives[j]}",
                                     "test": "pair test (Eq. 5): share of noun pairs that hold",
                                     "verdict": f"{100 * holds.mean():.0f} %"})
    return pd.DataFrame(rows)


def load_paper_table(table: int) -> pd.DataFrame:
    """The paper's numbers from ``data/reference/montague_table<table>.csv`` (tables 1, 6, 7, 8)."""
    return paper_table("montague", f"table{table}")


def compare_with_paper(ours: pd.DataFrame, table: int, model: str,
                       paper_model: str | None = None) -> pd.DataFrame:
    """Our cells beside the paper's for one model; ``diff = ours - paper``.

    ``ours`` is a :func:`category_table` or :func:`type_pair_table` frame. Only cells the paper
    reports are kept.
    """
    paper_model = paper_model or paper_model_of(model) or model
    ref = load_paper_table(table)
    ref = ref[ref["model"] == paper_model]
    if ref.empty:
        raise KeyError(f"the paper's Table {table} has no model {paper_model!r}")
    keys = ["category"] if "category" in ref.columns else ["type1", "type2"]
    m = ref[keys + ["value"]].rename(columns={"value": "paper"}).merge(
        ours[keys + ["consistency", "ci_low", "ci_high"]].rename(columns={"consistency": "ours"}),
        on=keys, how="left")
    m.insert(0, "model", model)
    if "reading" in ours.columns and len(ours):
        m.insert(1, "reading", ours["reading"].iloc[0])
    m["paper_model"] = paper_model
    m["diff"] = m["ours"] - m["paper"]
    m["paper_in_ci"] = (m["paper"] >= m["ci_low"] - 1e-9) & (m["paper"] <= m["ci_high"] + 1e-9)
    return m




def plot_type_matrix(matrix: pd.DataFrame, ax, *, title: str = "", vmin: float = 0.0, vmax: float = 1.0,
                     cmap: str | None = None, fmt: str = ".2f", center: float | None = None,
                     span: float | None = None, fontsize: float = 9):
    """Draw a 5 × 5 type-pair matrix (:func:`as_matrix`) as an annotated heat map on ``ax``
    (:func:`compsem.figures.heatmap`, seaborn).

    ``center`` switches to a diverging map around that value (for differences); its colour range
    is ``center ± span`` (default: the largest deviation in the matrix). Pass the same ``span``
    to panels that readers should compare by colour. ``fmt`` is a format spec (``".2f"``,
    ``"+.2f"``; ``"{:.2f}"`` is accepted too); ``fontsize`` is that of the cell values."""
    vals = matrix.to_numpy(dtype=float)
    if center is not None:
        if span is None:
            span = np.nanmax(np.abs(vals - center)) if np.isfinite(vals).any() else 1.0
        span = span or 1.0
        vmin, vmax = center - span, center + span
    spec = fmt[2:-1] if fmt.startswith("{:") and fmt.endswith("}") else fmt
    m = matrix.copy()
    m.index.name, m.columns.name = "type of a1", "type of a2"
    heatmap(m, ax=ax, fmt=spec, center=center, vmin=vmin, vmax=vmax, cmap=cmap, annot_size=fontsize,
            title=title or None)
    ax.tick_params(axis="x", labelrotation=45)
    return ax


def plot_set_diagrams(axes=None):
    """Four panels: how the phrase set P relates to the noun set N (and the adjective set A)
    for the four adjective classes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Ellipse

    if axes is None:
        _, axes = plt.subplots(1, 4, figsize=(12, 3.2))
    specs = [
        ("subsective intersective\n(red dog)", [("N", (0.38, 0.5), 0.28, "tab:blue"), ("A", (0.62, 0.5), 0.28, "tab:orange")],
         "P = A ∩ N", (0.5, 0.5), (0.16, 0.34)),
        ("subsective non-intersective\n(skilful student)", [("N", (0.5, 0.5), 0.36, "tab:blue")],
         "P ⊆ N", (0.56, 0.44), (0.30, 0.26)),
        ("privative non-subsective\n(counterfeit law)", [("N", (0.33, 0.5), 0.26, "tab:blue")],
         "P ∩ N = ∅", (0.78, 0.5), (0.26, 0.34)),
        ("plain non-subsective\n(alleged king)", [("N", (0.38, 0.5), 0.28, "tab:blue")],
         "P ⊄ N, P ∩ N ≠ ∅", (0.66, 0.5), (0.40, 0.34)),
    ]
    for ax, (title, circles, plabel, pc, pwh) in zip(axes, specs):
        for name, c, r, col in circles:
            ax.add_patch(Circle(c, r, fc=col, alpha=0.25, ec=col, lw=1.5))
            ax.text(c[0] + (-0.7 if name == "N" else 0.7) * r, c[1] + 0.75 * r, name, color=col,
                    fontsize=14, ha="center", weight="bold")
        ax.add_patch(Ellipse(pc, *pwh, fc="none", ec="black", lw=2, ls="--"))
        ax.text(0.5, 0.02, plabel, ha="center", va="bottom", fontsize=12)
        ax.set_title(title, fontsize=12)
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.02, 0.95)
        ax.set_aspect("equal")
        ax.axis("off")
    return axes




def cell(table: pd.DataFrame, column: str = "consistency", **where) -> float:
    """The one value of ``column`` in the row of ``table`` matching every ``where`` column, NaN
    when no row matches (e.g. a model the run did not include)."""
    mask = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    row = table.loc[mask, column]
    return float(row.iloc[0]) if len(row) else float("nan")


def class_gap(ns: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Per model, the consistency of the non-subsectivity test pooled over the subsective classes
    (S-I, S-NI) and over the non-subsective ones (NS-Pl, NS-Pr), each cell weighted by its
    phrase count ``n``, and the gap non-subsective − subsective (positive: the expected direction)."""
    def pooled(classes):
        d = ns[ns.category.isin(classes)]
        w = d.consistency * d.n
        return w.groupby(d.model).sum() / d.n.groupby(d.model).sum()
    out = pd.DataFrame({"subsective (S-I, S-NI)": pooled(["S-I", "S-NI"]),
                        "non-subsective (NS-Pl, NS-Pr)": pooled(["NS-Pl", "NS-Pr"])})
    out["gap (non-sub − sub)"] = out.iloc[:, 1] - out.iloc[:, 0]
    return out.reindex(list(models))


def plot_nonsubsective(ns: pd.DataFrame, paper8: pd.DataFrame, categories: Sequence[str], ax=None):
    """Non-subsectivity consistency per adjective class and model with its interval
    (:func:`compsem.figures.interval_plot`), the paper's Table 8 values as black markers."""
    ax = interval_plot(ns.assign(category=pd.Categorical(ns.category, list(categories))).sort_values("category"),
                       x="category", y="consistency", low="ci_low", high="ci_high", hue="model", ax=ax,
                       reference=0.5, ylabel="consistency (Eq. 8)")
    xs = np.arange(len(categories))
    for pm, mk in [("MiniLM", "x"), ("GloVe", "+")]:
        p = paper8[paper8.model == pm].set_index("category").reindex(list(categories))
        ax.scatter(xs, p.value, marker=mk, color="black", s=50, zorder=5, label=f"paper: {pm}")
    ax.set_ylim(-0.02, 1.05)
    ax.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
    return ax
