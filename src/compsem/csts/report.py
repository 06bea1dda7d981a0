"""What Part II's chapters show: the paper beside ours, glued values, figures, headlines, try-it.

Every sentence of a chapter that states a size, a share or a comparison reads a value computed
here (``*_values`` functions return dicts of glue names → values), so a rerun on other data
reads true.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from compsem import figures
from compsem.encoders import validate_texts
from compsem.encoders.kinds import is_control
from compsem.fmt import plural as _plural
from compsem.sentences import chance_sentence, join_names, paired_leader_sentence, paired_ranking_sentence
from compsem.labels import labelled
from compsem import reference as _reference
from compsem.results import Headline, PlainText, Prose, headline_row
from compsem.stats import mean_replicates, outcomes_against_chance, shared_resamples

from . import metrics
from .data import LoadReport, load_csts, pair_index
from .metrics import pair_outcomes
from .differs import differs_values  # noqa: F401  (chapters 21-23, re-exported: the report face)
from .speed import ab_values, precision_rows, precision_values, profile_values, settings_gap_values  # noqa: F401  (chapter 22, re-exported: the report face)
from .authors import speed_values as authors_speed_values  # noqa: F401  (chapter 22, re-exported)
from .study import book_data, pair_accuracy, zero_shot_defaults, zero_shot_scores
from .tables import LABELS, zero_shot_table

# chapters 22-23 (re-exported: the report face)
from .views import (
    ablation_values,
    finetune_chapter_values,
    finetune_values,  # noqa: F401
    official_text,
    other_data_values,
    paired_replicates,
    paired_table,
    paired_runs_table,
    ranking_sentence,
    scaling_figure,
    scaling_values,
    seed_figure,
    seed_spread_text,
    setup_text,
)
from .lesson import LESSON  # the study's session of the course guide
from .tryit import TRY_IT  # the study's section of the try-it page
from .finding import FINDING  # the study's part of the synthesis (chapter 90)
from .paperclaims import CLAIMS  # noqa: F401  (the paper's claims and our verdicts: the Part page's table)

__all__ = [
    "LABELS",
    "TRY_IT",
    "HEADLINES",
    "VIEWS",
    "values",
    "headlines",
    "headline_data",
    "try_it",
    "paper_table",
    "data_values",
    "label_figure",
    "zero_shot_figure",
    "LESSON",
    "FINDING",
    "zero_shot_values",
    "zero_shot_ranking",
    "prompting_values",
    "differs_values",
    "table8_view",
    "with_paper_column",
    "prompting_demo",
    "prompting_run_values",
    "embedded_extreme_pct",
    "finetune_values",
    "ranking_sentence",
    "paired_replicates",
    "paired_table",
    "paired_runs_table",
    "seed_spread_text",
    "finetune_chapter_values",
    "other_data_values",
    "official_text",
    "ablation_values",
    "scaling_values",
    "setup_text",
    "seed_figure",
    "scaling_figure",
    "load_summary",
]

#: Part II's headline criterion in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline(
        "CSTS",
        "II",
        "C-STS zero-shot pair accuracy",
        "%",
        50.0,
        "sentence pairs",
        "with the condition attached, the C-High row scores above the C-Low row",
        direction="chapter 21: a pair is scored right when its C-High row scores above its C-Low row; a model "
        "that ignores the condition ties every pair and gets 50 %",
    ),
)


def paper_table(name: str) -> pd.DataFrame:
    """A paper table transcribed in ``data/reference/csts_<name>.csv``
    (:func:`compsem.reference.paper_table` for this study)."""
    return _reference.paper_table("csts", name)


def headline_data() -> pd.DataFrame:
    """The rows chapter 21 scores with its default parameters (read from its parameters cell: the
    re-annotated data, its split, its evaluation sample), which the synthesis scores too."""
    d = zero_shot_defaults()
    parts, _ = book_data(
        d["data"], split=d["split"], split_seed=d["split_seed"], eval_pairs=d["eval_pairs"], sample_seed=d["seed"]
    )
    return parts[d["eval_split"]]


def headlines(
    models: Sequence[str], *, n_boot: int = 1000, seed: int = 0, trust_remote_code: bool = False
) -> list[dict]:
    """Chapter 21's zero-shot pair accuracy with the condition attached, on chapter 21's own rows
    (:func:`headline_data`) and through the function that writes its result file
    (:func:`compsem.csts.tables.zero_shot_table`): value and interval are the chapter's
    ``pair_accuracy_%``, ``pair_accuracy_ci_low`` and ``pair_accuracy_ci_high`` for the same
    ``n_boot`` and ``seed``."""
    d = zero_shot_defaults()
    df = headline_data()
    scores = {
        (m, "attached"): zero_shot_scores(df, m, template=d["template"], trust_remote_code=trust_remote_code)[
            "attached"
        ].to_numpy()
        for m in models
    }
    zs = zero_shot_table(scores, df, n_boot=n_boot, seed=seed)
    # the replicates: each pair's outcome (1, ½, 0) on resamples of the pairs shared by every model
    h, lo = pair_index(df, label_ties="exclude")
    draws = shared_resamples(len(h), n_boot=n_boot, seed=seed) if n_boot and len(h) else None
    reps = {
        m: None if draws is None else mean_replicates(pair_outcomes(s[h], s[lo]), draws, scale=100.0)
        for (m, _), s in scores.items()
    }
    return [
        headline_row(
            HEADLINES[0],
            r.model,
            float(r["pair_accuracy_%"]),
            float(r.pair_accuracy_ci_low),
            float(r.pair_accuracy_ci_high),
            int(r.n_pairs),
            replicates=reps[r.model],
        )
        for _, r in zs.iterrows()
    ]


#: Two cosines closer than this are a tie in the try-it table (a bag of words gives exactly equal
#: cosines when both conditions add words neither sentence shares; float rounding aside).
TIE_TOL = 1e-9


def try_it(
    sentence1: str,
    sentence2: str,
    condition_high: str,
    condition_low: str,
    models: Sequence[str],
    *,
    trust_remote_code: bool = False,
) -> pd.DataFrame:
    """Part II zero-shot: cosine of the two sentences with each condition attached."""
    validate_texts([sentence1, sentence2, condition_high, condition_low])
    df = pd.DataFrame(
        {"sentence1": [sentence1] * 2, "sentence2": [sentence2] * 2, "condition": [condition_high, condition_low]}
    )
    rows = []
    for m in models:
        s = zero_shot_scores(df, m, trust_remote_code=trust_remote_code)
        hi, lo = float(s["attached"].iloc[0]), float(s["attached"].iloc[1])
        rows.append(
            {
                "model": m,
                "cos, condition ignored": float(s["ignored"].iloc[0]),
                "cos with C-High": hi,
                "cos with C-Low": lo,
                "C-High above C-Low": (
                    "undefined"
                    if not np.isfinite(hi - lo)
                    else ("tied" if abs(hi - lo) <= TIE_TOL else ("yes" if hi > lo else "no"))
                ),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# chapter 20: the data
# ---------------------------------------------------------------------------------------------
def load_summary(report: LoadReport, parts: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Rows, pairs, ties and mean label per split, next to what the loader read and left out."""
    rows = []
    for name, df in parts.items():
        hi = df[df["role"] == "high"]
        rows.append(
            {
                "split": name,
                "rows": len(df),
                "complete pairs": len(hi),
                "tied pairs": int(hi["tied"].sum()),
                "single rows": int((df["role"] == "single").sum()),
                "mean label": float(df["label"].mean()) if len(df) else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("split")


def data_values(report: LoadReport, parts: dict[str, pd.DataFrame]) -> dict:
    """Glue values of the data chapter: counts, label distribution, lengths, the paper's."""
    df = pd.concat(parts.values(), ignore_index=True)
    labels = df["label"]
    top = labels.round().value_counts(normalize=True)
    sents = pd.concat([df["sentence1"], df["sentence2"]]).drop_duplicates()
    stats = paper_table("dataset_stats").set_index("statistic")["value"]
    n_pairs = max(report.n_complete_pairs, 1)
    return {
        "csts_source": report.source,
        "csts_n_rows_read": report.n_rows_read,
        "csts_n_rows": report.n_rows,
        "csts_n_unlabelled": report.n_unlabelled,
        "csts_n_pairs": report.n_complete_pairs,
        "csts_n_single": report.n_single_rows,
        "csts_n_both_orders": report.n_both_orders,
        "csts_n_ties": report.n_tied_pairs,
        "csts_ties_pct": 100 * report.n_tied_pairs / n_pairs,
        "csts_n_same_cond": report.n_same_condition,
        "csts_n_train": len(parts["train"]),
        "csts_n_val": len(parts["validation"]),
        "csts_n_test": len(parts["test"]),
        "csts_n_test_pairs": int((parts["test"]["role"] == "high").sum()),
        "csts_label_mode": float(top.idxmax()) if len(top) else np.nan,
        "csts_label_mode_pct": 100 * float(top.max()) if len(top) else np.nan,
        "csts_label_extreme_pct": 100 * float(top.reindex([1.0, 5.0]).fillna(0).sum()),
        "csts_n_conditions": int(df["condition"].nunique()),
        "csts_sent_len": float(sents.str.split().str.len().mean()),
        "csts_cond_len": float(df["condition"].str.split().str.len().mean()),
        "paper_sent_len": float(stats["mean_sentence_words"]),
        "paper_cond_len": float(stats["mean_condition_words"]),
        "paper_n_instances": float(stats["n_instances"]),
        "paper_kappa": float(stats["fleiss_kappa"]),
        "csts_embedded_extreme_pct": embedded_extreme_pct(),
        "csts_embedded_n_pairs": load_csts("embedded")[1].n_complete_pairs,
        **table8_counts(paper_table("table8_best_settings")),
    }


def prompting_values(parsed: dict, t11: pd.DataFrame, t4: pd.DataFrame) -> dict:
    """Glue values of the prompting chapter's offline part: invalid and out-of-range rates of
    each parser on the sample answers, and the paper's Tables 4 and 11 read like with like
    (invalid answers at k = 0 without and with an instruction)."""
    worst = t11.loc[t11.invalid_pct.idxmax()]
    g4 = t4[t4.model == "GPT-4"]
    k0 = t11[t11.k == 0]
    out = {
        "pr_max_invalid": float(worst.invalid_pct),
        "pr_max_invalid_model": str(worst.model),
        "pr_gpt4_best": float(g4.spearman.max()),
        "pr_simcse": float(t4[t4.model.str.startswith("SimCSE")].spearman.iloc[0]),
        "pr_none0_invalid_mean": float(k0[k0.instruction == "none"].invalid_pct.mean()),
        "pr_instr0_invalid_mean": float(k0[k0.instruction != "none"].invalid_pct.mean()),
    }
    for rule, res in parsed.items():
        out[f"pr_demo_invalid_{rule}"] = float(res["invalid_rate"])
        out[f"pr_demo_oor_{rule}"] = float(res["out_of_range_rate"])
    return out


def table8_view() -> pd.DataFrame:
    """The paper's Table 8 as a page shows it: the transform flag as yes/no, the tri-encoder
    operation only where the paper gives one ("–" for cross- and bi-encoders, as the paper
    prints), indexed by model and encoding."""
    t = paper_table("table8_best_settings")
    t = t.assign(
        transform=t["transform"].map(lambda v: "yes" if str(v).strip().lower() == "true" else "no"),
        tri_op=t["tri_op"].fillna("–"),
    )
    return labelled(t.set_index(["model", "encoding"]), LABELS)


def with_paper_column(table: pd.DataFrame, paper: pd.Series, label: str) -> pd.DataFrame:
    """``table`` with the paper's value for each row (``paper``, indexed like ``table``) in a
    column ``label``, one decimal; a row the paper has no number for (the condition prior) says
    "not in the paper"."""
    col = table.index.map(paper)
    return table.assign(**{label: ["not in the paper" if pd.isna(v) else f"{float(v):.1f}" for v in col]})


def prompting_demo(samples: Sequence[str], parsed: dict) -> pd.DataFrame:
    """The sample answers beside what each parser reads from them (``parsed``: rule →
    :func:`compsem.csts.prompting.parse_answers` result), two decimals; an answer a parser cannot
    read says "invalid" (the chapter replaces it by a random draw)."""
    cols = {
        rule: ["invalid" if not np.isfinite(v) else f"{v:.2f}" for v in res["parsed"]] for rule, res in parsed.items()
    }
    return pd.DataFrame({"answer": list(samples), **cols})


def prompting_run_values(runs: pd.DataFrame, queries: pd.DataFrame, base: pd.DataFrame) -> dict:
    """Glue values of the prompting chapter's own run: the query rows, the condition prior on them
    and the sentence over the run's table, which says when no generator ran (no table then)."""
    sentence = (
        "The table above lists, per instruction and number of shots, the invalid rate and the correlations "
        f"on the {len(queries):,} query rows."
        if len(runs)
        else "No generator was named in this run, so there is no table of results above; name one in `models` "
        f"to score the {len(queries):,} query rows."
    )
    return {"pr_n_eval": len(queries), "pr_prior": float(base.spearman.iloc[0]), "pr_runs_sentence": Prose(sentence)}


def table8_counts(t8: pd.DataFrame) -> dict:
    """How many settings the paper's Table 8 lists and in how many it turns the transform on."""
    on = t8["transform"].astype(str).str.strip().str.lower().isin(["true", "1", "yes"])
    return {"paper_t8_n_settings": len(t8), "paper_t8_n_transform": int(on.sum())}


def embedded_extreme_pct() -> float:
    """Share (%) of the embedded hand-written set's labelled rows whose label is 1 or 5."""
    emb, _ = load_csts("embedded")
    return 100 * float(emb["label"].isin([1.0, 5.0]).mean())


def label_figure(df: pd.DataFrame):
    """Histogram of the labels of the C-High and C-Low rows (complete pairs)."""
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    part = df[df["role"].isin(["high", "low"])].assign(row=lambda d: "C-" + d["role"].str.capitalize())
    sns.histplot(
        part,
        x="label",
        hue="row",
        discrete=True,
        multiple="dodge",
        shrink=0.8,
        ax=ax,
        palette=figures.PALETTE[2:4],
        hue_order=["C-High", "C-Low"],
    )
    ax.set_xlabel("similarity label (1-5)")
    ax.set_ylabel("rows")
    return figures.shown(fig)


# ---------------------------------------------------------------------------------------------
# chapter 21: zero-shot
# ---------------------------------------------------------------------------------------------
def zero_shot_figure(zs: pd.DataFrame):
    """Spearman with its pair-bootstrap interval per model, condition ignored and attached."""
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * zs["model"].nunique() + 1.6))
    figures.interval_plot(
        zs,
        x="model",
        y="spearman",
        low="spearman_ci_low",
        high="spearman_ci_high",
        hue="condition",
        horizontal=True,
        reference=0.0,
        ax=ax,
        dodge=0.3,
        colors={"ignored": figures.PALETTE[7], "attached": figures.PALETTE[0]},
        xlabel="Spearman x100 (95 % pair-bootstrap interval)",
        ylabel="",
    )
    return figures.shown(fig)


def _outcomes(scores, df: pd.DataFrame) -> np.ndarray:
    """Per untied pair of ``df``: 1 when the C-High row scores above the C-Low row, ½ on a tie,
    0 below (:func:`compsem.csts.metrics.pair_outcomes`); the items of every pair-accuracy test."""
    h, l_ = pair_index(df, label_ties="exclude")
    s = np.asarray(scores, dtype=float)
    return metrics.pair_outcomes(s[h], s[l_])


def zero_shot_ranking(
    zs: pd.DataFrame, scores: dict, df: pd.DataFrame, models: Sequence[str], *, n_boot: int = 1000, seed: int = 0
) -> dict:
    """The test sentences of the zero-shot chapter. Every model is scored on the same pairs, so
    every comparison is paired and counted: the largest absolute Spearman over ``zs``'s rows
    (pair-bootstrap replicates of ρ on the same resampled pairs, seeded by ``seed``:
    :func:`compsem.sentences.paired_leader_sentence`); the lowest pair accuracy with the condition
    attached (a paired bootstrap of the per-pair outcomes: :func:`compsem.sentences.paired_ranking_sentence`;
    a model whose every pair gives the same outcome is left out and named); and each model's
    pair accuracy with the condition attached against chance, by the exact sign test over the
    untied pairs (:func:`compsem.sentences.chance_sentence`), the words the chapter's findings take."""
    names = [f"{m} (condition {c})" for m, c in zip(zs["model"], zs["condition"])]
    gold, ids = df["label"].to_numpy(), df["pair_id"]
    reps = {
        n: np.abs(
            metrics.pair_bootstrap_replicates(
                np.asarray(scores[(m, c)], dtype=float), gold, ids, n_boot=n_boot, seed=seed
            )
        )
        for n, m, c in zip(names, zs["model"], zs["condition"])
    }
    abs_sentence = paired_leader_sentence(
        zs["spearman"].abs(),
        reps,
        names,
        what="absolute Spearman",
        digits=1,
        items="sentence pairs",
        controls=[n for n, m in zip(names, zs["model"]) if is_control(m)],
    )
    outcomes = {m: _outcomes(scores[(m, "attached")], df) for m in models}
    low_sentence = paired_ranking_sentence(
        outcomes,
        what="pair accuracy with the condition attached",
        higher=False,
        scale=100,
        digits=1,
        unit=" %",
        items="untied pairs",
        n_boot=n_boot,
        seed=seed,
        controls=[m for m in models if is_control(m)],
    )
    # every attached row of a model is tested against chance (the text-pair variant too), so that the
    # tests cover the rows the chapter's range counts (:func:`attached_rows`)
    real = {m: _outcomes(scores[(m, "attached")], df) for m in attached_rows(zs)}
    chance = (
        chance_sentence(
            real, what="with the condition attached, the pair accuracy", items="pairs", n_boot=n_boot, seed=seed
        )
        if real
        else "No encoder was run, only controls, so no encoder's pair accuracy is tested against chance."
    ) + _controls_beside({m: 100 * float(np.nanmean(o)) for m, o in outcomes.items() if is_control(m)})
    verdicts = {m: outcomes_against_chance(o, alpha=0.05 / max(len(real), 1), n_boot=0).words for m, o in real.items()}
    return {
        "zs_abs_sentence": Prose(abs_sentence),
        "zs_low_pairacc_sentence": Prose(low_sentence),
        "zs_chance_sentence": Prose(chance),
        "zs_chance_summary": Prose(chance_summary(verdicts)),
        "zs_chance_plain": PlainText(chance_summary(verdicts)),
    }


def attached_rows(zs: pd.DataFrame) -> list[str]:
    """The models' rows with the condition attached (controls and the condition prior left out),
    in table order: the panel's ("<sentence> (<condition>)") and the text-pair variant of
    :func:`compsem.csts.study.zero_shot_textpair` ("sbert-mini text pair"). The chapter's range of
    pair accuracies and its tests against chance both cover exactly these rows."""
    keep = (zs["condition"] == "attached").to_numpy() & ~np.array([is_control(m) for m in zs["model"]], dtype=bool)
    return [str(m) for m in zs["model"][keep] if not str(m).startswith("condition prior")]


def attached_rows_text(zs: pd.DataFrame) -> str:
    """ "the 4 rows of the models (`sbert-mini`, `use`, `glove-50d` and `sbert-mini text pair`)"."""
    rows = attached_rows(zs)
    return f"the {_plural(len(rows), 'row')} of the models ({join_names(rows)})" if rows else "no row of a model"


def _controls_beside(values: dict[str, float]) -> str:
    """ " The control `bow` (41.6 %) is shown beside the models, not tested among them." (empty
    without a control)."""
    if not values:
        return ""
    shown = join_names(list(values))
    nums = ", ".join(f"{v:.1f} %" for v in values.values())
    one = len(values) == 1
    return (
        f" The control{'' if one else 's'} {shown} ({nums}) {'is' if one else 'are'} shown beside the models, "
        "not tested among them."
    )


def chance_summary(verdicts: dict[str, str]) -> str:
    """What the sign tests of :func:`zero_shot_ranking` say about the encoders as a group, in the
    words the tests allow: "respond to the condition in the wrong direction" when every model's
    pair accuracy lies below chance, "better than chance" when every one lies above it,
    "show no evidence of using the condition" when none differs from chance, else how many lie
    on each side."""
    n = len(verdicts)
    below = sum(v == "below" for v in verdicts.values())
    above = sum(v == "above" for v in verdicts.values())
    if n and below == n:
        return (
            "every encoder of the panel responds to the condition, in the wrong direction: its pair accuracy "
            "lies below chance"
        )
    if n and above == n:
        return "every encoder of the panel separates C-High from C-Low better than chance"
    if not below and not above:
        return "no encoder of the panel shows evidence of a pair accuracy different from chance"
    return (
        f"the encoders differ: {below} of the {n} lie below chance, {above} above it and {n - below - above} "
        f"show no evidence of a difference from it"
    )


#: How the zero-shot chapter names a text-pair row (``"sbert-mini text pair"``): it reads the
#: condition as a second text, never through the template.
TEXT_PAIR = " text pair"


def zero_shot_values(
    zs: pd.DataFrame,
    scores: dict,
    df: pd.DataFrame,
    models: Sequence[str],
    paper: pd.DataFrame,
    prior: pd.Series,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    template: str | None = None,
) -> dict:
    """Glue values of the zero-shot chapter: extremes (:func:`zero_shot_ranking`), verdict on
    pair accuracy, the prior; each encoder's row with the condition attached and the
    ``template`` that attached it (what the course guide's lab compares its own rows with)."""
    # the models' rows; a control (bow) is shown beside them, never counted among the encoders
    control = np.array([is_control(m) for m in zs["model"]], dtype=bool)
    zs_all, zs = zs, zs[~control]
    if not len(zs):  # a rerun with controls only: they are all the chapter has to describe
        zs = zs_all
    att = zs[zs["condition"] == "attached"]
    ctrl = zs_all[(zs_all["condition"] == "attached").to_numpy() & control]
    best = zs.loc[zs["spearman"].abs().idxmax()]
    n_pairs = len(pair_index(df, label_ties="exclude")[0])
    pa = att["pair_accuracy_%"]
    rise = {m: scores[(m, "attached")] - scores[(m, "ignored")] for m in models}
    worst = min(models, key=lambda m: pair_accuracy(scores[(m, "attached")], df))
    is_hi = (df["role"] == "high").to_numpy()
    return {
        "zs_max_abs_spearman": float(zs["spearman"].abs().max()),
        "zs_best_model": f"{best.model} (condition {best.condition})",
        "zs_best_spearman": float(best.spearman),
        "zs_pairacc_min": float(pa.min()),
        "zs_pairacc_max": float(pa.max()),
        "zs_paper_max": float(paper["csts_spearman"].abs().max()),
        "zs_n_ci_zero": int(((zs.spearman_ci_low <= 0) & (zs.spearman_ci_high >= 0)).sum()),
        "zs_n_cells": len(zs),
        "zs_paper_stsb_min": float(paper[~paper["model"].str.startswith("RoBERTa")]["stsb_spearman"].min()),
        "zs_n_pairs": n_pairs,
        # every complete pair scored (what eval_pairs counts), ties included; zs_n_pairs: the untied ones
        "zs_n_complete_pairs": len(pair_index(df, label_ties="include")[0]),
        "zs_n_rows": len(df),
        "zs_n_attached": len(att),
        "zs_attached_rows_text": Prose(attached_rows_text(zs_all)),
        "zs_attached_text": PlainText(
            join_names(
                [
                    f"{m} {v:.1f} %"
                    for m, v in zip(att["model"], att["pair_accuracy_%"])
                    if not str(m).endswith(TEXT_PAIR)
                ],
                quote="",
            )
            or "no encoder was run"
        ),
        "zs_textpair_text": PlainText(
            join_names(
                [
                    f"{m} ({v:.1f} %)"
                    for m, v in zip(att["model"], att["pair_accuracy_%"])
                    if str(m).endswith(TEXT_PAIR)
                ],
                quote="",
            )
            or "none in this run"
        ),
        "zs_template": PlainText(f'"{template}"' if template else "the chapter's default"),
        "zs_controls_attached_text": PlainText(
            "; ".join(f"the control {m}: {v:.1f} %" for m, v in zip(ctrl["model"], ctrl["pair_accuracy_%"]))
            or "no control was run"
        ),
        "zs_share_up_min": (up := min(100 * float(np.mean(r[np.isfinite(r)] > 0)) for r in rise.values())),
        "zs_share_up_text": Prose(_share_text(up)),
        "zs_worst_model": worst,
        "zs_worst_pairacc": pair_accuracy(scores[(worst, "attached")], df),
        "zs_rise_high": float(np.nanmean(rise[worst][is_hi])),
        "zs_rise_low": float(np.nanmean(rise[worst][~is_hi])),
        "zs_prior_spearman": float(prior["spearman"]),
        "zs_prior_pairacc": float(prior["pair_accuracy"]),
        **zero_shot_ranking(zs_all, scores, df, models, n_boot=n_boot, seed=seed),
    }


def _share_text(pct: float) -> str:
    """ "in every row" at 100 %, else "in at least x % of the rows" with x rounded *down* to one
    decimal, so that "at least" stays true (99.96 reads 99.9, never "at least 100 %")."""
    if not np.isfinite(pct):
        return "in an undefined share of the rows"
    if pct >= 100:
        return "in every row"
    return f"in at least {np.floor(pct * 10) / 10:.1f} % of the rows"


#: the chapter views whose glue values :func:`values` computes
VIEWS = {
    "data": "data_values",
    "zero_shot": "zero_shot_values",
    "finetune": "finetune_chapter_values",
    "ablation": "ablation_values",
    "scaling": "scaling_values",
    "prompting": "prompting_values",
}


def values(view: str, *args, **kwargs) -> dict[str, object]:
    """The glue values of one chapter view (the study contract's ``report.values``): ``view`` in
    :data:`VIEWS`, the arguments those of the function it names. Glue them with
    :func:`compsem.results.glue_all`."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {sorted(VIEWS)}, got {view!r}")
    return globals()[VIEWS[view]](*args, **kwargs)
