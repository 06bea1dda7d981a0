"""What Part IV's chapters show: the paper beside ours, the values they glue, the tables they
print, the study's headline in the synthesis and the try-it table. Figures are in
:mod:`compsem.ssm.plots`.

:func:`values` returns ``{glue name: value}`` for one view of a chapter (``"pool"``,
``"judgements"``, ``"clusters"``, ``"mean_scores"``, ``"accuracy"``, ``"ssm"``, ``"space"``);
:func:`compsem.results.glue_all` glues such a dict (strings become inline code, as model names
are shown in the prose). The figures are :mod:`compsem.ssm.plots`' and the maps
:mod:`compsem.ssm.space`', both re-exported here so that a chapter needs only this face and
:mod:`compsem.ssm.study`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import reference
from ..fmt import estimate, deciding_digits, number, plural
from ..encoders import validate_texts
from ..results import Headline, PlainText, Prose, headline_row
from ..encoders.kinds import CONTROL_WHY, is_control
from ..sentences import join_names, leader_sentence, paired_leader_sentence
from ..stats import paired_interval, separation
from .data import CATEGORIES, Pool, load_study
from .metrics import distances
from .plots import mean_scores_heatmap, metric_intervals, reference_matrix, score_matrices, space_maps, zoom_maps
from .space import Layout, layouts, mates_near, pick_basis
from .study import REFERENCE, Run, score_all, score_texts
from .tables import (
    accuracy_frame,
    category_mean_draws,
    cluster_counts,
    mean_scores_frame,
    paired_ssm_draws,
    ssm_draws,
    ssm_frame,
)
from .lesson import LESSON  # the study's session of the course guide
from .tryit import TRY_IT  # the study's section of the try-it page
from .finding import FINDING  # the study's part of the synthesis (chapter 90)
from .paperclaims import CLAIMS  # noqa: F401  (the paper's claims and our verdicts: the Part page's table)

__all__ = [
    "LABELS",
    "TRY_IT",
    "HEADLINES",
    "headlines",
    "try_it",
    "paper_table",
    "values",
    "VIEWS",
    "pool_summary",
    "pair_counts",
    "LESSON",
    "FINDING",
    "cluster_members",
    "judgement_distribution",
    "cluster_table",
    "models_table",
    "mean_scores",
    "accuracy",
    "accuracy_by_label",
    "beside_paper",
    "ssm_metrics",
    "category_header",
    "basis_table",
    "stress_table",
    "reference_matrix",
    "score_matrices",
    "mean_scores_heatmap",
    "metric_intervals",
    "space_maps",
    "zoom_maps",
    "layouts",
    "pick_basis",
    "metric_header",
]

#: Part IV's headline criterion in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline(
        "RSA",
        "IV",
        "RSA with the reference (relatedness)",
        "r",
        0.0,
        "clusters",
        "Pearson r between the model's and the reference's distance matrices",
        direction="chapter 42: the closer a model's relatedness space is to the reference's, the higher its "
        "RSA; 0 is no agreement",
    ),
)


def paper_table(name: str) -> pd.DataFrame:
    """A table of the paper's numbers, ``data/reference/ssm_<name>.csv``
    (:func:`compsem.reference.paper_table`): ``"table2_accuracy"``, ``"table3_ssm"``, ``"pool"``.
    The pool's ``paper`` column stays text; a missing ``dataset`` is the empty string."""
    df = reference.paper_table("ssm", name, dtype={"paper": str})
    if "dataset" in df:
        df["dataset"] = df["dataset"].fillna("")
    return df


def category_header(c: str) -> str:
    """A category as a column header that can wrap ("inferential (reversed)")."""
    return c.replace("_reversed", " (reversed)").replace("_", " ")


# ---------------------------------------------------------------------------------------------
# the pool (chapter 40)
# ---------------------------------------------------------------------------------------------
def pool_summary(pool: Pool, cats) -> pd.DataFrame:
    """The paper's pool beside ours (one row per quantity)."""
    roles = pd.Series(pool.roles)
    sizes = pd.Series(pool.clusters).value_counts()
    labelled = int(np.isin(cats, CATEGORIES[:4]).sum())
    ours = {
        "clusters": pool.n_clusters,
        "sentences": len(pool),
        "premises": int((roles == "premise").sum()),
        "hypotheses": int((roles != "premise").sum()),
        "sentences per cluster (min-max)": f"{sizes.min()}-{sizes.max()}",
        "ordered pairs N^2": len(pool) ** 2,
        "judged premise-hypothesis pairs (both directions)": labelled,
        "judged pairs in all (incl. model-flagged irrelevant pairs)": labelled,
    }
    summary = paper_table("pool")
    summary.insert(1, "this book", summary["quantity"].map(ours))
    return summary


def role_range(pool: Pool, role: str) -> str:
    """How many hypotheses of ``role`` a cluster has, as the pool gives them: "2 to 4", or
    "exactly 3" when every cluster has the same number."""
    roles, clusters = np.asarray(pool.roles), np.asarray(pool.clusters)
    counts = [int((roles[clusters == c] == role).sum()) for c in sorted(set(clusters.tolist()))]
    if not counts:
        return "no"
    lo, hi = min(counts), max(counts)
    return f"exactly {lo}" if lo == hi else f"{lo} to {hi}"


def _pool_values(pool: Pool, cats) -> dict:
    paper_n = paper_table("pool").set_index("quantity")["paper"]
    return {
        "ssm_synonymous_range": PlainText(role_range(pool, "synonymous")),
        "ssm_inferential_range": PlainText(role_range(pool, "inferential")),
        "ssm_n_sentences": len(pool),
        "ssm_n_clusters": pool.n_clusters,
        "ssm_n_pairs": len(pool) ** 2,
        "ssm_paper_n_sentences": int(paper_n["sentences"]),
        "ssm_paper_n_clusters": int(paper_n["clusters"]),
        "ssm_paper_n_judged": int(paper_n["judged pairs in all (incl. model-flagged irrelevant pairs)"]),
        "ssm_paper_extra_pairs": int(paper_n["judged pairs in all (incl. model-flagged irrelevant pairs)"])
        - int(paper_n["judged premise-hypothesis pairs (both directions)"]),
    }


def pair_counts(cats) -> pd.DataFrame:
    """Ordered pairs per category."""
    return (
        pd.Series(np.asarray(cats).ravel()).value_counts().reindex(list(CATEGORIES)).rename("ordered pairs").to_frame()
    )


def cluster_members(pool: Pool, R_ref, cluster: int) -> pd.DataFrame:
    """One cluster's sentences with the reference judgement in both directions."""
    members = [i for i in range(len(pool)) if pool.clusters[i] == cluster]
    if not members:
        raise ValueError(f"no cluster {cluster}; the pool's clusters are {sorted(set(pool.clusters.tolist()))}")
    p = pool.premise_of()[members[0]]
    return pd.DataFrame(
        {
            "id": [pool.ids[i] for i in members],
            "role": [pool.roles[i] for i in members],
            "text": [pool.texts[i] for i in members],
            "R(p, h)": [R_ref[p, i] if i != p else np.nan for i in members],
            "R(h, p)": [R_ref[i, p] if i != p else np.nan for i in members],
        }
    )


def judgement_distribution(R_ref, cats) -> pd.DataFrame:
    """Judged pairs per category x score."""
    labelled = np.isin(cats, CATEGORIES[:4])
    dist = pd.crosstab(pd.Series(cats[labelled], name="category"), pd.Series(R_ref[labelled], name="score"))
    return dist.reindex(list(CATEGORIES[:4]))


def _judgement_values(R_ref, cats) -> dict:
    return {
        "ssm_share_inf_rev_zero": 100 * float((R_ref[cats == "inferential_reversed"] == 0).mean()),
        "ssm_share_syn_one": 100 * float((R_ref[np.isin(cats, ["synonymous", "synonymous_reversed"])] == 1).mean()),
    }


def cluster_table(pool: Pool) -> pd.DataFrame:
    """One row per cluster (sizes, mean words)."""
    table = pd.DataFrame(
        {
            "cluster": pool.clusters,
            "sentence_id": pool.ids,
            "role": pool.roles,
            "n_words": [len(t.split()) for t in pool.texts],
        }
    )
    return (
        table.groupby("cluster")
        .agg(
            n_sentences=("sentence_id", "size"),
            n_synonymous=("role", lambda r: int((r == "synonymous").sum())),
            n_inferential=("role", lambda r: int((r == "inferential").sum())),
            mean_words=("n_words", "mean"),
        )
        .reset_index()
    )


def _cluster_values(pool: Pool) -> dict:
    return {"ssm_mean_words": float(pd.Series([len(t.split()) for t in pool.texts]).mean())}


# ---------------------------------------------------------------------------------------------
# score matrices (chapter 41)
# ---------------------------------------------------------------------------------------------
def models_table(run: Run) -> pd.DataFrame:
    """One row per model: symmetric or not ("yes"/"no"), identity (what the cache is keyed by),
    NaN sentences."""
    return pd.DataFrame(
        [
            {
                "scorer": s.name,
                "symmetric": "yes" if s.symmetric else "no",
                "identity": s.identity,
                "sentences with NaN scores": int((~s.valid).sum()),
            }
            for s in run.scored.values()
        ]
    )


def mean_scores(run: Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(tidy mean R per category, categories x models table with the reference)."""
    means, wide = _mean_scores(run)
    return means, wide.T.rename_axis(index="pair category", columns="scorer")


def _mean_scores(run: Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    means = mean_scores_frame(run.with_reference, run.cats)
    wide = means.pivot(index="scorer", columns="category", values="mean_R")[list(CATEGORIES)]
    return means, wide.reindex([REFERENCE, *run.scored])


def _mean_score_values(run: Run, *, n_boot: int = 1000, seed: int = 0) -> dict:
    """The directional gaps, and which scorer gives irrelevant pairs the highest mean score,
    only as far as a paired cluster bootstrap allows (every scorer's replicates on the same
    cluster draws, :func:`.tables.category_mean_draws`: clusters are resampled because pairs
    that share a sentence or a cluster are dependent)."""
    _, wide = _mean_scores(run)
    gap = {name: float(wide.loc[name, "inferential"] - wide.loc[name, "inferential_reversed"]) for name in wide.index}
    first = next(iter(run.scored))
    names = list(run.scored)
    est = [float(wide.loc[n, "irrelevant"]) for n in names]
    if n_boot:  # every scorer scores the same pairs: paired replicates on the same cluster draws
        reps = {
            n: category_mean_draws(
                run.scored[n].R, run.cats, run.pool.clusters, category="irrelevant", n_boot=n_boot, seed=seed
            )
            for n in names
        }
        text = paired_leader_sentence(
            est,
            reps,
            names,
            what="mean score on irrelevant pairs",
            items="irrelevant pairs (clusters resampled)",
            controls=[n for n in names if is_control(n)],
            lead=False,  # a higher score on irrelevant pairs is no lead
        )
    else:
        nan = [np.nan] * len(names)
        text = leader_sentence(
            est,
            nan,
            nan,
            names,
            what="mean score on irrelevant pairs",
            excluded={n: CONTROL_WHY for n in names if is_control(n)},
        )
    return {
        "ssm_first_scorer": first,
        "ssm_first_dir_gap": gap[first],
        "ssm_ref_dir_gap": gap[REFERENCE],
        "ssm_irrelevant_sentence": Prose(text),
    }


# ---------------------------------------------------------------------------------------------
# the metrics (chapter 42)
# ---------------------------------------------------------------------------------------------
def accuracy(run: Run, *, n_boot: int = 1000, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(tidy Table 2 analogue, models x categories with the interval under each accuracy)."""
    acc = accuracy_frame(run.scored, run.R_ref, run.cats, run.pool.clusters, n_boot=n_boot, seed=seed)
    # estimate and interval at one precision: an estimate inside its interval is printed inside it
    cell = [
        f"{number(a)}<br><small>[{number(lo)}, {number(hi)}]</small>" if n_boot else number(a)
        for a, lo, hi in zip(acc.accuracy, acc.ci_low, acc.ci_high)
    ]
    wide = acc.assign(cell=cell).pivot(index="scorer", columns="category", values="cell").reindex(list(run.scored))
    wide = wide[[c for c in CATEGORIES if c in wide.columns]]
    return acc, wide.rename(columns=category_header).rename_axis(index=None, columns=None)


def accuracy_by_label(acc: pd.DataFrame, *, n_boot: int = 1000) -> pd.DataFrame:
    """Models x categories: the accuracy of the predicted label (the paper's rule for NLI
    models), the thresholded one beside it, for the models that predict labels; empty when
    none does."""
    has = acc[acc.accuracy_label.notna()]
    if has.empty:
        return pd.DataFrame()
    cell = [
        f"{number(a)} / {number(t)}" + (f"<br><small>[{number(lo)}, {number(hi)}]</small>" if n_boot else "")
        for a, t, lo, hi in zip(has.accuracy_label, has.accuracy, has.ci_low_label, has.ci_high_label)
    ]
    wide = has.assign(cell=cell).pivot(index="scorer", columns="category", values="cell")
    wide = wide.reindex(list(dict.fromkeys(has.scorer)))[[c for c in CATEGORIES if c in wide.columns]]
    return wide.rename(columns=category_header).rename_axis(index=None, columns=None)


def nli_rows(table3: pd.DataFrame) -> int:
    """How many rows of the paper's Table 3 are NLI models (a row names the NLI set it was trained on)."""
    return int(table3["dataset"].fillna("").astype(str).str.strip().ne("").sum())


def lowest_text(values: pd.Series, *, digits: int = 2) -> str:
    """Which scorer has the lowest point value of ``values`` (scorer -> value), with the value;
    a point value only, no test (several tied at the lowest are all named)."""
    v = values.dropna()
    if v.empty:
        return "no scorer has a value"
    low = [n for n in v.index if v[n] == v.min()]
    return f"lowest point value {number(float(v.min()), digits)}, {join_names(low)}"


def _accuracy_values(run: Run, acc: pd.DataFrame) -> dict:
    """The accuracies the chapter's prose cites, with the paper's Table 2 beside them."""
    accw = acc.pivot(index="scorer", columns="category", values="accuracy")
    sym = [n for n, s in run.scored.items() if s.symmetric]
    inf_sum = accw["inferential"] + accw["inferential_reversed"]
    paper2 = paper_table("table2_accuracy")
    p2 = paper2.set_index("model")
    nan = float("nan")
    return {
        "ssm_sym_infsum_min": float(inf_sum[sym].min()) if sym else nan,
        "ssm_sym_infsum_max": float(inf_sum[sym].max()) if sym else nan,
        "ssm_sym_syn_min": float(accw.loc[sym, ["synonymous", "synonymous_reversed"]].min().min()) if sym else nan,
        "ssm_paper_simcse_inf": float(p2.loc["SimCSE", "inferential"]),
        "ssm_irrelevant_min": float(accw["irrelevant"].min()),
        "ssm_within_min": float(accw["within_cluster"].min()),
        "ssm_irrelevant_low": Prose(lowest_text(accw["irrelevant"], digits=3)),
        "ssm_within_low": Prose(lowest_text(accw["within_cluster"])),
        "ssm_paper_simcse_infrev": float(p2.loc["SimCSE", "inferential_reversed"]),
        "ssm_paper_irrelevant_bert_max": float(paper2.loc[paper2.model.str.contains("BERT"), "irrelevant"].max()),
    }


def ssm_metrics(run: Run, *, n_boot: int = 1000, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(tidy Table 3 analogue with the reference's own row, models x (metric_space) table)."""
    tab = ssm_frame(run.with_reference, run.R_ref, run.cats, run.pool.clusters, n_boot=n_boot, seed=seed)
    wide = tab.pivot(index="scorer", columns="space", values=["sparsity", "ch", "rsa"]).reindex(
        list(run.with_reference)
    )
    wide.columns = [f"{m}_{s}" for m, s in wide.columns]
    cols = ["sparsity_rel", "sparsity_dis", "ch_rel", "ch_dis", "rsa_rel", "rsa_dis"]
    return tab, wide.reindex(columns=cols)


def metric_header(column: str) -> str:
    """A Table 3 column as a reader's header: ``"sparsity_rel"`` → ``"sparsity (relatedness)"``."""
    metric, _, space = column.rpartition("_")
    names = {"rel": "relatedness", "dis": "discrepancy"}
    if space not in names:
        return column.replace("_", " ")
    label = {"ch": "CH", "rsa": "RSA"}.get(metric, metric)
    return f"{label} ({names[space]})"


#: Part IV's extension of :data:`compsem.labels.LABELS`: pair categories, Table 3's columns and
#: the pool's and maps' counts, as a page's headers and row labels.
LABELS = {
    **{c: category_header(c) for c in CATEGORIES},
    "n_sentences": "sentences",
    "mean_words": "mean words",
    "n_synonymous": "synonymous hypotheses",
    "n_inferential": "inferential hypotheses",
    "stress1": "stress-1 (Kruskal)",
    **{f"{m}_{sp}": metric_header(f"{m}_{sp}") for m in ("sparsity", "ch", "rsa") for sp in ("rel", "dis")},
}


def controls_sentence(
    values: Mapping[str, float],
    replicates: Mapping[str, np.ndarray],
    controls: Sequence[str],
    *,
    items: str = "items",
    digits: int = 2,
    level: float = 0.95,
) -> str:
    """Each model against each control on the same ``items``: the paired difference model − control
    with its percentile interval from replicates on shared resamples (:func:`compsem.stats.separation`,
    the synthesis's test of a model against its controls). With ``m`` comparisons each interval is
    at ``1 − (1 − level)/m`` (Bonferroni), so that all ``m`` hold together at ``level``, and the
    sentence says so. Every difference below zero: "every control lies above every model"; every one
    above: "every model lies above every control"; otherwise the count of each outcome, with the
    pairs. ``""`` without a model or a control."""
    ctrl = [c for c in controls if c in values and np.isfinite(values[c])]
    models = [n for n in values if n not in controls and np.isfinite(values[n])]
    pairs = [(m, c) for m in models for c in ctrl]
    if not pairs:
        return ""
    each = 1 - (1 - level) / len(pairs)
    pct = f"{round(100 * each, 2):g} %"
    seps = {
        (m, c): separation(values[m], values[c], replicates.get(m), replicates.get(c), level=each) for m, c in pairs
    }

    def shown(m, c):
        d = seps[(m, c)]
        return f"`{m}` − `{c}` {estimate(d.difference, d.low, d.high, digits)}"

    held = (
        f"{plural(len(pairs), 'paired comparison')} of a model with a control on the same {items}, each interval at "
        f"{pct}"
        + (f" by Bonferroni so that all {len(pairs)} hold together at {100 * level:g} %" if len(pairs) > 1 else "")
    )
    outcomes = {o: [p for p in pairs if seps[p].outcome == o] for o in ("lower", "higher")}
    them = "both controls" if len(ctrl) == 2 else "the control" if len(ctrl) == 1 else f"all {len(ctrl)} controls"
    named = f"{them} ({join_names(ctrl)})"
    if len(outcomes["lower"]) == len(pairs):
        close = max(pairs, key=lambda p: seps[p].high)
        return (
            f"{named[0].upper()}{named[1:]} lie{'s' if len(ctrl) == 1 else ''} above every model: every difference model − "
            f"control has its interval below zero ({held}; the closest to zero: {shown(*close)})."
        )
    if len(outcomes["higher"]) == len(pairs):
        close = min(pairs, key=lambda p: seps[p].low)
        return (
            f"Every model lies above {named}: every difference model − control has its interval above zero ({held}; "
            f"the closest to zero: {shown(*close)})."
        )
    words = {
        "lower": "below zero (the control higher)",
        "higher": "above zero (the model higher)",
        "no evidence of a difference": "including zero (no evidence of a difference)",
        "undefined": "undefined (the paired test cannot vary)",
    }
    groups = [(w, [p for p in pairs if seps[p].outcome == o]) for o, w in words.items()]
    return (
        f"Of the {held}: "
        + "; ".join(f"{len(g)} {w}: " + ", ".join(shown(*p) for p in g) for w, g in groups if g)
        + "."
    )


def lead_digits(
    values: pd.Series, replicates: Mapping[str, np.ndarray], controls: Sequence[str] = (), *, digits: int = 2
) -> int:
    """The decimals at which the paired intervals of :func:`compsem.stats.paired_leader_sentence`
    (the highest of ``values`` that is no control against each other such name, each at its
    Bonferroni level) show whether they include zero (:func:`compsem.fmt.deciding_digits`, from
    ``digits`` up)."""
    names = [n for n in values.index if n not in set(controls) and n in replicates and np.isfinite(values[n])]
    if len(names) < 2:
        return digits
    best = max(names, key=lambda n: values[n])
    others = [n for n in names if n != best]
    level = 1 - 0.05 / len(others)
    bounds = [b for n in others for b in paired_interval(replicates[best], replicates[n], level=level)]
    return deciding_digits(bounds, digits)


def ch_sentence(ch: pd.Series, reference_ch: float, controls: Sequence[str] = ()) -> str:
    """Each scorer's CH point value against the reference's, in words: which models lie above it
    and which do not, the controls beside them and not ranked. CH has no interval, so the
    sentence compares point values and says so."""
    ctrl = [n for n in ch.index if n in set(controls)]
    models = [n for n in ch.index if n not in set(ctrl) and np.isfinite(ch[n])]

    def listed(ns):
        return join_names([f"`{n}` ({number(float(ch[n]), 2)})" for n in sorted(ns, key=lambda n: -ch[n])], quote="")

    above = [n for n in models if ch[n] > reference_ch]
    rest = [n for n in models if n not in above]
    if not models:
        head = "No model of this run has a CH value"
    elif not rest:
        head = f"Every model's CH lies above the reference's: {listed(above)}"
    elif not above:
        head = f"No model's CH lies above the reference's: {listed(rest)}"
    else:
        head = f"The CH of {listed(above)} lies above the reference's; that of {listed(rest)} does not"
    tail = f"; the controls {listed(ctrl)} are shown beside them and not ranked" if ctrl else ""
    return head + tail + " (CH has no interval: these are point values, not a test or a ranking)."


def _ssm_values(tab: pd.DataFrame, run: Run | None = None, *, n_boot: int = 1000, seed: int = 0) -> dict:
    """The Table 3 values the chapter's prose cites, with the paper's beside them. "Closest" and
    "densest" from paired cluster-bootstrap replicates of every scorer on the same resamples
    (:func:`.tables.paired_ssm_draws`) when ``run`` is given and its scorers share their valid
    sentences; otherwise only as far as the unpaired intervals allow."""
    t3 = tab.set_index(["scorer", "space"])
    rel = t3.xs("rel", level="space").drop(REFERENCE)
    best, bestch, worst = rel["rsa"].idxmax(), rel["ch"].idxmax(), rel["sparsity"].idxmax()
    p3 = paper_table("table3_ssm").set_index(["model", "dataset"])
    dis = t3.xs("dis", level="space").drop(REFERENCE, errors="ignore")
    nan = pd.Series(np.nan, index=rel.index)
    names = list(rel.index)
    draws = (
        paired_ssm_draws({n: run.scored[n] for n in names}, run.R_ref, run.pool.clusters, n_boot=n_boot, seed=seed)
        if run is not None and n_boot
        else None
    )
    # the paper's sparsity: smaller is sparser, so the highest value is the least sparse (densest) space
    dense = "sparsity value (smaller is sparser): the least sparse, densest space"
    if draws is not None:
        rsa_text = paired_leader_sentence(
            rel["rsa"],
            {n: d[1] for n, d in draws.items()},
            names,
            what="RSA with the reference",
            digits=lead_digits(rel["rsa"], {n: d[1] for n, d in draws.items()}, [n for n in names if is_control(n)]),
            items="sentence clusters",
            controls=[n for n in names if is_control(n)],
        )
        against = controls_sentence(
            {n: float(rel.loc[n, "rsa"]) for n in names},
            {n: d[1] for n, d in draws.items()},
            [n for n in names if is_control(n)],
            items="sentence clusters",
        )
        rsa_text += (" " + against) if against else ""
        spars_text = paired_leader_sentence(
            rel["sparsity"],
            {n: d[0] for n, d in draws.items()},
            names,
            what=dense,
            digits=3,
            items="sentence clusters",
            controls=[n for n in names if is_control(n)],
            lead=False,  # the densest space is no lead
        )
    else:
        ctrl = {n: CONTROL_WHY for n in names if is_control(n)}
        rsa_text = leader_sentence(
            rel["rsa"],
            rel.get("rsa_low", nan),
            rel.get("rsa_high", nan),
            names,
            what="RSA with the reference",
            excluded=ctrl,
        )
        spars_text = leader_sentence(
            rel["sparsity"],
            rel.get("sparsity_low", nan),
            rel.get("sparsity_high", nan),
            names,
            what=dense,
            digits=3,
            excluded=ctrl,
        )
    return {
        "ssm_rsa_sentence": Prose(rsa_text),
        "ssm_sparsity_sentence": Prose(spars_text),
        "ssm_dis_count": Prose(plural(len(dis), "asymmetric scorer")),
        "ssm_best_rsa_name": best,
        "ssm_best_rsa": float(rel.loc[best, "rsa"]),
        "ssm_best_rsa_lo": float(rel.loc[best].get("rsa_low", np.nan)),
        "ssm_best_rsa_hi": float(rel.loc[best].get("rsa_high", np.nan)),
        "ssm_best_rsa_labelled": float(rel.loc[best, "rsa_labelled"]),
        "ssm_ch_sentence": Prose(
            ch_sentence(rel["ch"], float(t3.loc[(REFERENCE, "rel"), "ch"]), [n for n in names if is_control(n)])
        ),
        "ssm_best_ch_name": bestch,
        "ssm_best_ch": float(rel.loc[bestch, "ch"]),
        "ssm_ref_ch_rel": float(t3.loc[(REFERENCE, "rel"), "ch"]),
        "ssm_ref_sparsity_rel": float(t3.loc[(REFERENCE, "rel"), "sparsity"]),
        "ssm_worst_sparsity_name": worst,
        "ssm_worst_sparsity": float(rel.loc[worst, "sparsity"]),
        "ssm_paper_simcse_ch": float(p3.loc[("SimCSE", ""), "ch_rel"]),
        "ssm_paper_human_ch": float(p3.loc[("Human", ""), "ch_rel"]),
        "ssm_n_dis": len(dis),
        "ssm_dis_rsa_best": float(dis["rsa"].max()) if len(dis) else float("nan"),
        "ssm_dis_rsa_text": Prose(
            "no scorer"
            if not len(dis)
            else f"RSA {number(float(dis['rsa'].iloc[0]), 2)}"
            if len(dis) == 1
            else f"highest point value of RSA {number(float(dis['rsa'].max()), 2)}, `{dis['rsa'].idxmax()}` (no test)"
        ),
        "ssm_paper_n_nli": nli_rows(paper_table("table3_ssm")),
    }


def beside_paper(run: Run, tab: pd.DataFrame, acc: pd.DataFrame) -> pd.DataFrame:
    """Each model of the run that stands beside a row of the paper's Tables 2 and 3
    (:func:`compsem.reference.paper_match`): our values, then the paper's, one row each.

    Accuracy follows the paper's rules: the predicted label for a model that predicts one
    (NLI), the 0.5 threshold otherwise. Empty when no model of the run maps to a paper row.
    """
    t2 = paper_table("table2_accuracy").set_index(["model", "dataset"])
    t3 = paper_table("table3_ssm").set_index(["model", "dataset"])
    metrics = [f"{m}_{sp}" for m in ("sparsity", "ch", "rsa") for sp in ("rel", "dis")]
    cats = [c for c in CATEGORIES[:5] if c in t2.columns]
    rows = []
    for spec, name in zip(run.specs, run.scored):
        hit = reference.paper_match("ssm", spec)
        key = (str(hit["paper_name"]), str(hit.get("paper_variant") or "")) if hit else None
        if key is None or key not in t3.index:
            continue
        ours = tab[tab.scorer == name].set_index("space")
        a = acc[acc.scorer == name].set_index("category")
        rule = "predicted label" if a["accuracy_label"].notna().any() else "R > 0.5"
        col = "accuracy_label" if rule == "predicted label" else "accuracy"
        label = " ".join(k for k in key if k)
        mine = {
            m: float(ours.loc[m.rsplit("_", 1)[1], m.rsplit("_", 1)[0]])
            if m.rsplit("_", 1)[1] in ours.index
            else np.nan
            for m in metrics
        }
        rows.append(
            {
                "model": name,
                "source": "this book",
                "paper row": label,
                "same weights": bool(hit["same_model"]),
                "accuracy rule": rule,
                **mine,
                **{c: float(a.loc[c, col]) for c in cats},
            }
        )
        rows.append(
            {
                "model": name,
                "source": "paper",
                "paper row": label,
                "same weights": bool(hit["same_model"]),
                "accuracy rule": "predicted label" if rule == "predicted label" else "score > 0.5",
                **{m: float(t3.loc[key, m]) for m in metrics},
                **{c: float(t2.loc[key, c]) for c in cats},
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# the sentence-space maps (chapter 43)
# ---------------------------------------------------------------------------------------------
def basis_table(pool: Pool, basis) -> pd.DataFrame:
    """The three basis sentences and the colour channel each one drives."""
    return pd.DataFrame(
        {"channel": ["R", "G", "B"], "cluster": pool.clusters[basis], "sentence": [pool.texts[b] for b in basis]}
    )


def stress_table(maps: Mapping[tuple[str, str], Layout]) -> pd.DataFrame:
    """Kruskal's stress-1 of each map (one row per model x space)."""
    return pd.DataFrame(
        [
            {"scorer": name, "space": sp, "stress1": lay.stress1, "n_sentences": int(lay.valid.sum())}
            for (name, sp), lay in maps.items()
        ]
    )


def _space_values(maps: Mapping[tuple[str, str], Layout], pool: Pool, basis, model: str, *, k: int = 10) -> dict:
    """Stress range of the relatedness maps, and of the sentences among the ``k`` nearest to the
    red basis sentence on the map, the basis itself left out, how many there are and how many are
    its cluster-mates (reference and ``model``; :func:`.space.mates_near`)."""
    rel = stress_table(maps).query("space == 'rel'").set_index("scorer")["stress1"]
    cl_b = pool.clusters[basis[0]]
    values = {
        "ssm_zoom_name": model,
        "ssm_zoom_k": k,
        "ssm_stress_ref": float(rel[REFERENCE]),
        "ssm_stress_min": float(rel.drop(REFERENCE).min()),
        "ssm_stress_max": float(rel.drop(REFERENCE).max()),
    }
    for suffix, name in (("", model), ("_ref", REFERENCE)):  # the window without the basis sentence itself
        lay = maps[(name, "rel")]
        others, mates = mates_near(lay.xy, int(lay.basis(basis[:1])[0]), pool.clusters[np.flatnonzero(lay.valid)], k=k)
        values[f"ssm_zoom_others{suffix}"], values[f"ssm_zoom_mates{suffix}"] = others, mates
    values["ssm_cluster_mates_b"] = int((pool.clusters == cl_b).sum()) - 1
    return values


# ---------------------------------------------------------------------------------------------
# the synthesis and the try-it page
# ---------------------------------------------------------------------------------------------
def headlines(
    models: Sequence[str], *, trust_remote_code: bool = False, n_boot: int = 1000, seed: int = 0
) -> list[dict]:
    """RSA of each model's relatedness space with the project's reference (cluster bootstrap)."""
    pool, R_ref, cats = load_study()
    scored = score_all(pool, list(models), progress=False, trust_remote_code=trust_remote_code)
    frame = ssm_frame(scored, R_ref, cats, pool.clusters, n_boot=n_boot, seed=seed)
    rows = []
    for name, spec in zip(scored, models):
        rel = frame[(frame.scorer == name) & (frame.space == "rel")].iloc[0]
        rows.append(
            headline_row(
                HEADLINES[0],
                spec,
                float(rel.rsa),
                float(rel.get("rsa_low", np.nan)),
                float(rel.get("rsa_high", np.nan)),
                int(rel.n_sentences),
                replicates=_rsa_replicates(scored[name], R_ref, pool.clusters, n_boot, seed),
            )
        )
    return rows


def _rsa_replicates(s, R_ref, labels, n_boot: int, seed: int) -> np.ndarray | None:
    """The relatedness RSA on cluster resamples that depend only on the clusters and ``seed``
    (:func:`~compsem.ssm.tables.cluster_counts`), so two models with the same valid sentences pair;
    None without draws or when a model leaves sentences out (its clusters differ)."""
    v = np.asarray(s.valid, dtype=bool)
    if not n_boot or not v.all():
        return None
    labels = np.asarray(labels)
    _, C = cluster_counts(labels, n_boot=n_boot, seed=seed)
    return ssm_draws(distances(s.R, symmetric=s.symmetric)["rel"], distances(R_ref)["rel"], labels, C)[1]


def try_it(
    premise: str, hypotheses: Sequence[str], models: Sequence[str], *, trust_remote_code: bool = False
) -> pd.DataFrame:
    """Part IV on a tiny pool (premise + hypotheses), in long form: one row per model, matrix
    (``R``, the score matrix; ``D_rel``, ``D_dis``, its distances), premise-side text ``row``
    (``P``, ``H1``, ...) and hypothesis-side text ``column``, with the ``value``. The offline
    lexical scorer comes first; symmetric scorers have no ``D_dis``."""
    texts = validate_texts([premise, *hypotheses])
    labels = ["P"] + [f"H{i + 1}" for i in range(len(hypotheses))]
    frames = []
    for spec in ["lexical", *models]:
        R, symmetric = score_texts(spec, texts, trust_remote_code=trust_remote_code)
        for key, M in {"R": R, **{f"D_{k}": v for k, v in distances(R, symmetric=symmetric).items()}}.items():
            n = len(labels)
            frames.append(
                pd.DataFrame(
                    {
                        "model": spec,
                        "matrix": key,
                        "row": np.repeat(labels, n),
                        "column": np.tile(labels, n),
                        "value": np.asarray(M, dtype=float).ravel(),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


#: The views of Part IV's chapters whose prose glues values, and what each one needs.
VIEWS: dict[str, str] = {
    "pool": "pool, cats",
    "judgements": "R_ref, cats",
    "clusters": "pool",
    "mean_scores": "run (n_boot=, seed=)",
    "accuracy": "run, acc (from accuracy())",
    "ssm": "tab (from ssm_metrics()), run (n_boot=, seed=)",
    "space": "maps, pool, basis, model, *, k",
}
_VALUES = {
    "pool": _pool_values,
    "judgements": _judgement_values,
    "clusters": _cluster_values,
    "mean_scores": _mean_score_values,
    "accuracy": _accuracy_values,
    "ssm": _ssm_values,
    "space": _space_values,
}


def values(view: str, *args, **kwargs) -> dict[str, object]:
    """``{glue name: value}`` of one chapter view (see :data:`VIEWS` for the arguments each
    takes), glued with ``compsem.results.glue_all(report.values(view, ...))``."""
    if view not in _VALUES:
        raise ValueError(f"unknown Part IV view {view!r}; choose from {', '.join(VIEWS)}")
    return _VALUES[view](*args, **kwargs)
