"""What Part II's fine-tuning chapters show (22: the sweep; 23: the ablation and the scaling
curve): the values their prose glues, the set-up in words and their figures.
:mod:`.report` re-exports every name, and its ``values(view)`` reaches them by view."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from compsem import figures
from compsem import reference as _reference
from compsem.paths import repo_root
from compsem.precisionrecords import cpu_words
from compsem.results import PlainText, Prose
from compsem.sentences import join_names, leader_sentence, paired_leader_sentence
from compsem.stats import paired_interval

from ..errors import DataError
from ..fmt import plural
from .authors import authors_values
from .config import PRESETS
from .metrics import pair_bootstrap_replicates
from .speed import ab_paths

__all__ = [
    "finetune_values",
    "ranking_sentence",
    "paired_replicates",
    "paired_table",
    "paired_runs_table",
    "seed_spread_text",
    "recorded_seeds",
    "recorded_seed_text",
    "finetune_chapter_values",
    "other_data_values",
    "official_text",
    "ablation_values",
    "scaling_values",
    "setup_text",
    "seed_figure",
    "scaling_figure",
    "precision_comparison",
    "precision_words",
    "precision_table",
]


def _vs_prior(diff: float) -> str:
    """``"3.2 points above"`` / ``"1.5 points below"`` / ``"undefined"`` for a Spearman difference."""
    if not np.isfinite(diff):
        return "undefined"
    return f"{abs(diff):.1f} points {'above' if diff >= 0 else 'below'}"


def vs_prior_sentence(best: str, best_diff: float, best_bi: str | None, bi_diff: float) -> str:
    """The top configuration and the top bi-encoder against the condition prior, said once when
    they are the same configuration: "the top configuration (`bi/mse`, a bi-encoder) is 21.2 points
    above a predictor that reads no sentence"; else the top bi-encoder is added ("..., and the top
    bi-encoder (`bi/quad+mse`) 16.0 points above it"); a run without a bi-encoder says so."""
    if best_bi == best:
        return f"the top configuration (`{best}`, a bi-encoder) is {_vs_prior(best_diff)} a predictor that reads no sentence"
    head = f"the top configuration (`{best}`) is {_vs_prior(best_diff)} a predictor that reads no sentence"
    if best_bi is None:
        return head + " (this run trained no bi-encoder)"
    return head + f", and the top bi-encoder (`{best_bi}`) {_vs_prior(bi_diff)} it"


def _minutes(runs: pd.DataFrame) -> str:
    """ "2.9 minutes (158 examples per second, median over runs" of ``runs``' own records."""
    return (
        f"{runs['train_seconds'].sum() / 60:.1f} minutes of training ({runs['examples_per_s'].median():.0f} "
        "examples per second, median over runs"
    )


def _recorded_on(runs: pd.DataFrame) -> str:
    """Where ``runs`` were trained, as their records say (``machine``, written since records hold it)."""
    named = sorted({str(m) for m in runs.get("machine", pd.Series(dtype=object)).dropna()})
    missing = int(runs.get("machine", pd.Series(np.nan, index=runs.index)).isna().sum())
    parts = [join_names(named, quote="")] if named else []
    if missing:
        parts.append(
            ("a machine its record does not name" if missing == 1 else "machines their records do not name")
            if missing == len(runs)
            else f"a machine not named by {plural(missing, 'record')}"
        )
    return " and ".join(parts)


#: Where a run's probe measured, in the words of a run trained in this build.
PROBE_HERE = "by this build's probe"


def _reused(runs: pd.DataFrame) -> np.ndarray:
    return runs.get("reused", pd.Series(False, index=runs.index)).fillna(False).astype(bool).to_numpy()


def _precision_at(df: pd.DataFrame, where: str) -> str:
    """The precision notes of ``df``'s runs, their probe's "here" said as ``where``."""
    notes = df["precision_used"].dropna().unique() if "precision_used" in df else []
    words = ", ".join(precision_words(str(n)).replace(" here)", f" {where})") for n in notes)
    return words or "a precision not recorded"


def precision_where(runs: pd.DataFrame) -> str:
    """The precision the runs trained in, with the probe's "here" said of the machine that measured
    it: "by this build's probe" for runs trained in this build, "on the machine that trained them"
    for runs read back from the run cache (:func:`training_time_text` keeps their times apart too)."""
    reused = _reused(runs)
    parts = []
    if (~reused).any():
        parts.append(_precision_at(runs[~reused], PROBE_HERE))
    if reused.any():
        cached = _precision_at(runs[reused], "on the machine that trained them")
        parts.append(cached + (" for the runs read back from the run cache" if (~reused).any() else ""))
    return "; ".join(parts) if parts else "not recorded"


def training_time_text(runs: pd.DataFrame) -> str:
    """How long the runs of a chapter trained, kept apart by who timed them: the runs trained in
    this build ("Training in this build took 2.9 minutes (158 examples per second, median over
    runs, in bf16 autocast, chosen by this build's probe: bf16 measured 1.99× fp32 here)") and
    the runs read back from the run cache, whose times and precision are their records' (trained on
    the machine each record names, its probe's words "here" meaning that machine), never this
    build's."""
    reused = _reused(runs)
    out = []
    fresh, cached = runs[~reused], runs[reused]
    probe = PROBE_HERE
    prec = _precision_at

    if len(fresh):
        out.append(
            f"{plural(len(fresh), 'run')} of {len(runs)} trained in this build: {_minutes(fresh)}, in "
            f"{prec(fresh, probe)})"
        )
    if len(cached):
        out.append(
            f"{plural(len(cached), 'run')} of {len(runs)} {'was' if len(cached) == 1 else 'were'} read back from the "
            f"run cache, not trained in this build: {'its record holds' if len(cached) == 1 else 'their records hold'} "
            f"{_minutes(cached)}, in {prec(cached, 'on the machine that trained ' + ('it' if len(cached) == 1 else 'them'))}), "
            "trained on "
            f"{_recorded_on(cached)}"
        )
    return "; ".join(out) if out else "no run was trained"


def finetune_values(
    summary: pd.DataFrame,
    runs: pd.DataFrame,
    base: pd.DataFrame,
    *,
    split: str = "test",
    headline: str = "bi/quad+mse",
    replicates: dict | None = None,
) -> dict:
    """Glue values of the fine-tuning chapter: best config, per-encoding bests, the baseline, the
    headline config (``headline``, read by the Part's opening page) against the prior; the
    ranking sentence from paired replicates when given (:func:`ranking_sentence`)."""
    prior = base.set_index("split").loc[split]
    col = f"{split}_spearman_mean"
    best = summary.loc[summary[col].idxmax()]
    enc = summary["config"].str.split("/").str[0].str.split("-").str[0]
    by_enc = summary.assign(encoding=enc).groupby("encoding")[col].max()
    bi = summary[enc == "bi"]
    best_bi = bi.loc[bi[col].idxmax()] if len(bi) else None
    sd = float(best[f"{split}_spearman_std"])
    head = summary[summary["config"].str.endswith(headline)]
    head_val = float(head[col].max()) if len(head) else np.nan
    head_runs = runs[runs["config"] == headline] if "config" in runs else runs.iloc[:0]
    n_pairs = int((head_runs if len(head_runs) else runs)["n_train_pairs"].iloc[0])
    q_first, q_last = runs.get("loss_first_quarter"), runs.get("loss_last_quarter")
    fell = float((q_last < q_first).mean()) * 100 if q_first is not None else np.nan
    precision = runs["precision_used"].dropna().unique() if "precision_used" in runs else []
    rank = ranking_sentence(summary, split=split, replicates=replicates)
    return {
        "ft_rank_sentence": Prose(rank),
        "ft_rank_plain": PlainText(rank.replace("`", "")),
        "ft_best_config": best.config,
        "ft_best_test": float(best[col]),
        "ft_best_minus_prior": float(best[col] - prior["spearman"]),
        "ft_best_pairacc": float(best[f"{split}_pair_accuracy_mean"]),
        "ft_best_sd_text": Prose(
            f"{sd:.1f}"
            if np.isfinite(sd)
            else "not measured in this run (one seed)"
            + (f"; {own}" if (own := recorded_seed_text(recorded_seeds(), best.config)) else "")
        ),
        "ft_max_std_text": Prose(seed_spread_text(summary, split=split)),
        "ft_cross": float(by_enc.get("cross", np.nan)),
        "ft_bi": float(by_enc.get("bi", np.nan)),
        "ft_tri": float(by_enc.get("tri", np.nan)),
        "ft_bi_best": float(best_bi[col]) if best_bi is not None else np.nan,
        "ft_bi_minus_prior": float(best_bi[col] - prior["spearman"]) if best_bi is not None else np.nan,
        "ft_best_vs_prior_text": _vs_prior(float(best[col] - prior["spearman"])),
        "ft_bi_vs_prior_text": _vs_prior(float(best_bi[col] - prior["spearman"]) if best_bi is not None else np.nan),
        "ft_vs_prior_sentence": Prose(
            vs_prior_sentence(
                str(best.config),
                float(best[col] - prior["spearman"]),
                None if best_bi is None else str(best_bi.config),
                np.nan if best_bi is None else float(best_bi[col] - prior["spearman"]),
            )
        ),
        "ft_headline_config": headline,
        "ft_headline_test": head_val,
        "ft_headline_vs_prior_text": _vs_prior(head_val - float(prior["spearman"])),
        # the Part's opening page reads these three from this chapter, as plain text
        "ft_headline_config_plain": PlainText(headline),
        "ft_best_config_plain": PlainText(best.config),
        "ft_headline_vs_prior_plain": PlainText(_vs_prior(head_val - float(prior["spearman"]))),
        "ft_headline_n_pairs": n_pairs,
        "ft_n_test_pairs": int(runs[f"{split}_n_pairs"].iloc[0]),
        "ft_prior": float(prior["spearman"]),
        "ft_prior_pearson": float(prior["pearson"]),
        "ft_prior_seen_pct": float(prior["share_conditions_seen_%"]),
        "ft_loss_fell_pct": fell,
        "ft_n_test_rows": int(runs[f"{split}_n"].iloc[0]),
        "ft_n_train_rows": int(runs["n_train_rows"].iloc[0]),
        "ft_train_minutes": float(runs["train_seconds"].sum() / 60),
        "ft_examples_per_s": float(runs["examples_per_s"].median()),
        "ft_precision": precision_where(runs) if len(precision) else "not recorded",
        "ft_n_reused": int(runs.get("reused", pd.Series(False, index=runs.index)).sum()),
        "ft_train_text": Prose(training_time_text(runs)),
        "ft_n_runs": len(runs),
        "ft_n_configs": len(summary),
        "ft_encodings_text": Prose(
            join_names(
                [f"{by_enc[e]:.1f} ({e})" for e in ("cross", "bi", "tri") if e in by_enc and np.isfinite(by_enc[e])],
                quote="",
            )
            or "undefined"
        ),
        "ft_seed_plain": PlainText(seed_spread_text(summary, split=split).replace("`", "")),
    }


def paired_replicates(res, *, split: str = "test", n_boot: int = 1000, seed: int = 0) -> dict[str, np.ndarray]:
    """Pair-bootstrap replicates of the test Spearman of every (model, config) of a
    :class:`compsem.csts.study.CstsRun`, all on the *same* resamples of ``split``'s sentence pairs
    (:func:`compsem.csts.metrics.pair_bootstrap_replicates` with one ``seed``), averaged over the
    run's seeds: the difference of two configurations' replicates is a paired bootstrap of the
    difference of their mean Spearman. Keys: the config label, or "model config" when the run
    has several models. Empty when the runs recorded no predictions."""
    df = res.parts[split]
    several = len({k[0] for k in res.predictions}) > 1
    by: dict[str, list[np.ndarray]] = {}
    for (model, config, _, sp), pred in res.predictions.items():
        if sp == split:
            by.setdefault(f"{model} {config}" if several else config, []).append(
                pair_bootstrap_replicates(pred, df["label"], df["pair_id"], n_boot=n_boot, seed=seed)
            )
    return {k: np.mean(v, axis=0) for k, v in by.items()}


def paired_runs_table(
    runs: pd.DataFrame, df: pd.DataFrame, by: str, *, split: str = "test", n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Every ordered pair (a, b) of the values of ``runs[by]`` (chapter 23: the input modes of the
    ablation, the training sizes of the scaling curve), all scored on the same rows ``df`` of
    ``split``: the difference of their mean test Spearman over seeds (a − b) and its paired 95 %
    interval, from pair-bootstrap replicates on the *same* resamples of the sentence pairs
    (:func:`compsem.csts.metrics.pair_bootstrap_replicates` with one ``seed``, the draws of
    :func:`compsem.stats.shared_resamples`) averaged over the seeds, through
    :func:`compsem.stats.paired_interval`. ``runs`` carries each run's ``<split>_predictions``
    (:func:`compsem.csts.study.sweep` with ``predictions=True``); without them the table is empty
    (with its columns). The result files ``ablation_paired`` / ``scaling_paired`` of Part II's verdicts."""
    cols = ["a", "b", "split", "difference", "low", "high", "level", "n_boot"]
    pcol = f"{split}_predictions"
    if pcol not in runs or runs[pcol].isna().all():
        return pd.DataFrame(columns=cols)
    gold, ids = df["label"].to_numpy(), df["pair_id"]
    reps: dict = {}
    for key, grp in runs.groupby(by, sort=False):
        arrs = [np.asarray(p, dtype=float) for p in grp[pcol]]
        if any(a.shape != (len(df),) for a in arrs):
            raise DataError(f"runs of {by} = {key!r}: predictions do not match the {len(df)} rows of {split}")
        reps[key] = np.mean([pair_bootstrap_replicates(a, gold, ids, n_boot=n_boot, seed=seed) for a in arrs], axis=0)
    means = runs.groupby(by, sort=False)[f"{split}_spearman"].mean()
    rows = []
    for a in reps:
        for b in reps:
            if a != b:
                lo, hi = paired_interval(reps[a], reps[b])
                rows.append([a, b, split, float(means[a] - means[b]), lo, hi, 0.95, n_boot])
    return pd.DataFrame(rows, columns=cols)


def _names(summary: pd.DataFrame) -> list[str]:
    """The configuration labels of ``summary`` as :func:`paired_replicates` keys them."""
    if summary.get("model", pd.Series([0])).nunique() <= 1:
        return list(summary["config"])
    return list(summary["model"] + " " + summary["config"])


def paired_table(summary: pd.DataFrame, replicates: dict, *, split: str = "test", level: float = 0.95) -> pd.DataFrame:
    """Every ordered pair (a, b) of configurations scored on the same ``split`` pairs: the
    difference of their mean Spearman (a − b) with the paired percentile interval of the
    replicates' differences (:func:`paired_replicates`, :func:`compsem.stats.paired_interval`).
    The result file ``finetune_paired`` that Part II's verdicts read for a comparison of two
    configurations; empty (with its columns) when the runs recorded no predictions."""
    cols = ["a", "b", "split", "difference", "low", "high", "level", "n_boot"]
    names, means = _names(summary), summary[f"{split}_spearman_mean"].to_numpy(float)
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j or a not in replicates or b not in replicates:
                continue
            lo, hi = paired_interval(replicates[a], replicates[b], level=level)
            rows.append([a, b, split, means[i] - means[j], lo, hi, level, len(replicates[a])])
    return pd.DataFrame(rows, columns=cols)


def ranking_sentence(summary: pd.DataFrame, *, split: str = "test", replicates: dict | None = None) -> str:
    """Which configuration scores highest on ``split``, said only as far as the evidence allows.
    With ``replicates`` (:func:`paired_replicates`: every configuration scored on the same test
    pairs) a paired bootstrap of each difference decides
    (:func:`compsem.sentences.paired_leader_sentence`: "clear of" only when the interval of the
    difference excludes zero). Without them, each configuration's mean Spearman with the mean of
    its runs' pair-bootstrap intervals (:func:`compsem.sentences.leader_sentence`; an interval not
    recorded separates nothing)."""
    col = f"{split}_spearman"
    names = _names(summary)
    if replicates and all(n in replicates for n in names):
        return paired_leader_sentence(
            summary[f"{col}_mean"],
            replicates,
            names,
            what="test Spearman",
            digits=1,
            noun="configuration",
            items=f"{split} pairs",
        )
    nan = pd.Series(np.nan, index=summary.index)
    lo, hi = summary.get(f"{col}_ci_low_mean", nan), summary.get(f"{col}_ci_high_mean", nan)
    return leader_sentence(summary[f"{col}_mean"], lo, hi, names, what="test Spearman", digits=1, noun="configuration")


def recorded_seeds(paths=None) -> list[dict]:
    """The book's own measurements of the seed spread: for every A/B record of
    ``benchmarks/csts_ab.py`` that holds several seeds (``paths``, by default
    :func:`compsem.csts.speed.ab_paths`), the file, its machine, each side's code version (a
    commit; an uncommitted tree, ``+dirty``, is named as one) and per configuration and side the
    standard deviation over seeds (``ddof=1``) of chapter 22's test Spearman. A record without
    seeds is skipped; one that cannot be read raises :class:`compsem.errors.DataError`."""
    out = []
    for path in ab_paths() if paths is None else [Path(p) for p in paths]:
        try:
            rec = json.loads(Path(path).read_text(encoding="utf-8"))
            seeds = rec.get("seeds")
            if not seeds:
                continue
            sd = {
                (side, cfg): float(np.std(np.asarray(v, dtype=float), ddof=1))
                for side, by_cfg in seeds["spearman"].items()
                for cfg, v in by_cfg.items()
                if len(v) >= 2
            }
            versions = {"base": rec["base_commit"], "head": seeds.get("head_commit") or rec["head_commit"]}
            out.append(
                {
                    "file": f"benchmarks/{Path(path).name}",
                    "cpu": rec["machine"]["cpu_model"],
                    "seeds": [int(x) for x in seeds["seeds"]],
                    "versions": versions,
                    "sd": sd,
                }
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{path}: not an A/B record with seeds ({exc!r})") from None
    return out


def _version(v: str) -> str:
    return f"an uncommitted tree based on `{v.split('+')[0][:7]}`" if "+dirty" in v else f"commit `{v[:7]}`"


def recorded_seed_text(records: list[dict], config: str | None = None) -> str:
    """The seed standard deviations of :func:`recorded_seeds` in words, for every configuration
    or for one (``config``); ``""`` when no record holds several seeds (or none holds ``config``)."""
    parts = []
    for r in records:
        sd = {k: v for k, v in r["sd"].items() if config is None or k[1] == config}
        if not sd:
            continue
        lo, hi = min(sd.values()), max(sd.values())
        spread = f"of {lo:.1f}" if f"{lo:.1f}" == f"{hi:.1f}" else f"from {lo:.1f} to {hi:.1f}"
        where = (
            f"`{r['file']}`: chapter 22 with seeds {join_names([str(x) for x in r['seeds']], quote='')} on {r['cpu']}, "
            f"at {_version(r['versions']['base'])} and at {_version(r['versions']['head'])}"
        )
        what = f"`{config}`" if config else f"{plural(len({k[1] for k in sd}), 'configuration')}"
        parts.append(
            f"the book's own seed record ({where}) gives a standard deviation over seeds of the test "
            f"Spearman {spread} points for {what}"
        )
    return "; ".join(parts)


def seed_spread_text(summary: pd.DataFrame, *, split: str = "test", records: list[dict] | None = None) -> str:
    """The seed spread in words: the largest standard deviation over seeds of a configuration's
    Spearman when the runs have two or more seeds; with one seed, that this run does not measure
    it, the book's own seed measurements where a record holds them (:func:`recorded_seeds`, read
    when ``records`` is None), and the range of the seed SDs the paper's Table 3 reports
    (``csts_table3_finetune.csv``)."""
    sd = summary[f"{split}_spearman_std"]
    if sd.notna().any():
        return f"{float(sd.max()):.1f} points (largest standard deviation over seeds)"
    records = recorded_seeds() if records is None else records
    own = recorded_seed_text(records)
    paper = _reference.paper_table("csts", "table3_finetune")
    return (
        "not measured in this run (one seed per configuration); "
        + (f"{own}; " if own else "")
        + f"the paper's Table 3 reports seed standard deviations from {paper.spearman_std.min():.1f} to "
        f"{paper.spearman_std.max():.1f} points over {plural(int(paper.n_seeds.max()), 'seed')}"
    )


def finetune_chapter_values(res, summary: pd.DataFrame, *, split: str = "test", headline: str = "bi/quad+mse") -> dict:
    """Every glue value of the fine-tuning chapter from its :class:`compsem.csts.study.CstsRun`:
    :func:`finetune_values`, the set-up in words (with the precision the runs used), the
    ``official`` preset in words, the authors' code run beside it against this run's ``bi/mse``
    (else the headline configuration, else the first; :func:`compsem.csts.authors.authors_values`) and, with
    ``eval_data``, :func:`other_data_values`."""
    v = finetune_values(
        summary, res.runs, res.baselines, split=split, headline=headline, replicates=paired_replicates(res, split=split)
    )
    v["ft_setup"] = setup_text(res.configs[0], res.seeds, v["ft_precision"])
    v["ft_official"] = official_text()
    pick = next((c for c in ("bi/mse", headline) if (summary["config"] == c).any()), summary["config"].iloc[0])
    row = summary[summary["config"] == pick].iloc[0]
    v.update(authors_values(float(row[f"{split}_spearman_mean"]), str(pick)))
    if res.other_report is not None:
        v.update(other_data_values(res))
    return v


def other_data_values(res, *, split: str = "other") -> dict:
    """Glue values of a reader's ``eval_data`` file: rows read and left out, the headline
    config's Spearman on it and the condition prior on the same rows."""
    rep = res.other_report
    base = res.baselines.set_index("split").loc[split]
    col = f"{split}_spearman"
    best = res.runs.groupby("config")[col].mean()
    return {
        "od_source": str(rep.source),
        "od_rows_read": rep.n_rows_read,
        "od_unlabelled": rep.n_unlabelled,
        "od_rows": rep.n_rows,
        "od_best_config": str(best.idxmax()),
        "od_best": float(best.max()),
        "od_prior": float(base["spearman"]),
        "od_vs_prior_text": _vs_prior(float(best.max() - base["spearman"])),
    }


def official_text() -> str:
    """The ``official`` preset in words, read from :data:`compsem.csts.config.PRESETS`."""
    o = PRESETS["official"]
    layers = "the full network" if o["train_layers"] is None else f"the top {o['train_layers']} layers"
    pool = {"cls": "[CLS] pooling", "mean": "mean pooling", "cls_mlp": "[CLS] + MLP pooling"}[o["pooling"]]
    return (
        f"{layers}, {pool} {'with' if o['transform'] else 'without'} the Dropout–Linear–activation transform, "
        f"margin {o['margin']:g}, length {o['max_length']}, {o['batch_size']} rows per step × "
        f"{o['grad_accum']} accumulation steps ({o['batch_size'] * o['grad_accum']} rows per update), learning "
        f"rate {o['lr']:g}, weight decay {o['weight_decay']:g}, {o['epochs']} epochs"
    )


def ablation_values(abl_sum: pd.DataFrame, base: pd.DataFrame, abl_runs: pd.DataFrame, modes) -> dict:
    """Glue values of the data ablation: each input mode's test Spearman and the paper's (Table
    10), the prior on the same rows, the training size."""
    g = abl_sum.set_index("input_mode")["test_spearman_mean"]
    p10 = _reference.paper_table("csts", "table10_ablation").set_index("input_mode")
    out = {f"abl_{m}": float(g.get(m, np.nan)) for m in modes}
    out.update({f"abl_p_{m}": float(p10["spearman"].get(m, np.nan)) for m in modes})
    out.update(
        {
            "abl_prior": float(base["spearman"].iloc[0]),
            "abl_n_train": int(abl_runs["n_train_rows"].iloc[0]),
            "abl_n_train_pairs": int(abl_runs["n_train_pairs"].iloc[0]),
            "abl_paper_model": str(p10["model"].iloc[0]),
            "abl_full_minus_cond": float(g.get("full", np.nan) - g.get("condition_only", np.nan)),
        }
    )
    return out


def scaling_values(scale: pd.DataFrame, prior_curve: pd.DataFrame, cfg, seeds) -> dict:
    """Glue values of the scaling curve: first and last point of the first config and of the
    prior, the sizes, Figure 3's two stated values, the set-up."""
    first_cfg = scale["config"].iloc[0]
    part = scale[scale["config"] == first_cfg].groupby("train_pairs")["test_spearman"].mean().sort_index()
    pc = prior_curve.groupby("train_pairs")["spearman"].first().sort_index()
    fig3 = _reference.paper_table("csts", "figure3_scaling").sort_values("train_examples")
    sizes = sorted(scale["train_pairs"].unique())
    prec = precision_where(scale) if "precision_used" in scale and scale["precision_used"].notna().any() else None
    return {
        "sc_config": str(first_cfg),
        "sc_first": float(part.iloc[0]),
        "sc_last": float(part.iloc[-1]),
        "sc_n_first": int(part.index[0]),
        "sc_n_last": int(part.index[-1]),
        "sc_sizes": ", ".join(f"{int(n):,}" for n in sizes),
        "sc_prior_first": float(pc.iloc[0]),
        "sc_prior_last": float(pc.iloc[-1]),
        "sc_above_prior_last": _vs_prior(float(part.iloc[-1] - pc.iloc[-1])),
        "sc_fig3_model": str(fig3["model"].iloc[0]),
        "sc_fig3_n_low": int(fig3["train_examples"].iloc[0]),
        "sc_fig3_low": float(fig3["spearman"].iloc[0]),
        "sc_fig3_n_high": int(fig3["train_examples"].iloc[-1]),
        "sc_fig3_high": float(fig3["spearman"].iloc[-1]),
        "sc_setup": setup_text(cfg, seeds, prec),
        "sc_shape_text": Prose(curve_shape(part, len(list(seeds)))),
    }


def curve_shape(points: pd.Series, n_seeds: int) -> str:
    """The shape of a scaling curve by a declared rule on its point estimates (``points``: the mean
    test Spearman per number of training pairs): each step from one size to the next rises when
    the later point lies above the earlier, falls when below, stays level when equal; the curve
    is monotone increasing when every step rises. The steps are point estimates of
    ``n_seeds`` seed(s) each, not tested one by one: the words say so."""
    pts = points.sort_index()
    if len(pts) < 2:
        return f"our curve has {plural(len(pts), 'point')}, so it has no step to read"
    sizes, vals = [int(n) for n in pts.index], pts.to_numpy(float)
    steps = np.diff(vals)
    n = len(steps)
    basis = f"by the point estimates ({plural(n_seeds, 'seed')} each; no step is tested on its own)"
    if (steps > 0).all():
        return f"our curve rises at each of its {plural(n, 'step')} from one size to the next, {basis}: monotone increasing by this rule"

    def where(mask):
        return ", ".join(f"{sizes[i]:,} to {sizes[i + 1]:,} pairs" for i in np.flatnonzero(mask))

    parts = [f"rises at {int((steps > 0).sum())} of its {plural(n, 'step')} from one size to the next"]
    if (steps < 0).any():
        parts.append(f"falls at {int((steps < 0).sum())} ({where(steps < 0)})")
    if (steps == 0).any():
        parts.append(f"stays level at {int((steps == 0).sum())} ({where(steps == 0)})")
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"our curve {said}, {basis}: not monotone increasing by this rule"


#: the reasons a run record gave before precision="auto" was measured (the CPU-flag rule)
_FLAG_RULE = (
    "(CPU with native bf16)",
    "(this CPU has no native bf16)",
    "(GPU: faster than bf16 autocast for this model)",
)


def precision_words(note: str) -> str:
    """A run record's ``precision_used`` as the page states it: as recorded, except a note of a
    run trained before the precision was measured (:data:`_FLAG_RULE`, read back from a run
    cache), whose reason was a CPU flag or a GPU default and is no measurement: it says so."""
    note = str(note)
    for old in _FLAG_RULE:
        if note.endswith(old):
            return f"{note.removesuffix(old).strip()} (a cached run, trained when the precision was chosen by a rule, not measured)"
    return note


def setup_text(cfg, seeds, precision: str | None = None) -> str:
    """What one run of a chapter is, in words, from its config (for the prose); ``precision``:
    the run record's ``precision_used`` (e.g. "bf16 autocast (bf16 measured 1.90× fp32 here)")."""
    layers = "all layers" if cfg.train_layers is None else f"the top {plural(cfg.train_layers, 'layer')}"
    n = len(list(seeds))
    prec = f", {precision}" if precision else ""
    return (
        f"{layers} of the encoder trained for {plural(cfg.epochs, 'epoch')} at learning rate {cfg.lr:g}, batch "
        f"{cfg.batch_size}, {n} seed{'s' if n != 1 else ''}{prec}"
    )


def seed_figure(runs: pd.DataFrame, prior: float, *, split: str = "test"):
    """Spearman per configuration: one dot per seed, mean ± std, the condition prior dashed."""
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    sns.pointplot(
        runs, x="config", y=f"{split}_spearman", errorbar="sd", capsize=0.2, linestyle="none", color="0.2", ax=ax
    )
    sns.stripplot(runs, x="config", y=f"{split}_spearman", color=figures.PALETTE[0], alpha=0.6, ax=ax)
    ax.axhline(prior, color="0.3", ls="--", lw=1, label="condition prior")
    ax.legend(frameon=False, loc="lower right")
    ax.set_xlabel("")
    ax.set_ylabel(f"{split} Spearman x100")
    ax.tick_params(axis="x", rotation=30)
    return figures.shown(fig)


def scaling_figure(scale_sum: pd.DataFrame, prior, *, split: str = "test"):
    """Spearman against the number of training pairs, one line per encoding (mean ± std);
    ``prior`` is a number or a Series of the condition prior indexed by training pairs."""
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for (enc, part), colour in zip(scale_sum.groupby("encoding"), figures.PALETTE):
        part = part.sort_values("train_pairs")
        ax.errorbar(
            part["train_pairs"],
            part[f"{split}_spearman_mean"],
            yerr=part[f"{split}_spearman_std"].fillna(0),
            marker="o",
            capsize=3,
            color=colour,
            label=f"{enc}-encoder",
        )
    if isinstance(prior, pd.Series):  # the prior refitted on each training subset
        ax.plot(prior.index, prior.to_numpy(), color="0.3", ls="--", lw=1, marker=".", label="condition prior")
    else:
        ax.axhline(prior, color="0.3", ls="--", lw=1, label="condition prior")
    ax.set_xscale("log")
    ax.set_xlabel("training sentence pairs")
    ax.set_ylabel(f"{split} Spearman x100")
    ax.legend(frameon=False)
    return figures.shown(fig)


def precision_comparison(path=None) -> dict:
    """Glue values of the fp32-against-bf16 comparison that ``make bench`` measured on one machine
    (``benchmarks/csts_precision.json``, :mod:`benchmarks.bench_csts`): ``ft_prec_table``, per
    configuration the test Spearman of the two precisions, their difference, the examples per
    second and the loop's GFLOP/s (:func:`precision_table`), and ``ft_prec_text``, which names the
    machine and states the largest difference and whether the ranking of the configurations is the
    same. Without the file, ``ft_prec_text`` says it was not measured and the table is None."""
    path = Path(path) if path else repo_root() / "benchmarks" / "csts_precision.json"
    if not path.is_file():
        return {
            "ft_prec_text": Prose(
                "The test Spearman of fp32 against bf16 training was not measured for this book "
                "(`make bench` measures it)"
            ),
            "ft_prec_table": None,
        }
    rec = json.loads(path.read_text(encoding="utf-8"))
    conf = rec["configs"]
    diffs = {k: float(v["bf16_minus_fp32"]) for k, v in conf.items()}
    worst = max(diffs, key=lambda k: abs(diffs[k]))
    rank = {p: sorted(conf, key=lambda k: -conf[k][f"{p}_test_spearman"]) for p in ("fp32", "bf16")}
    m = rec["machine"]
    same = "the same" if rank["fp32"] == rank["bf16"] else "not the same"
    where = cpu_words(m["cpu_model"], m.get("cpu_family"), m.get("cpu_flags", ()))
    text = (
        f"Measured by `make bench` on {where}, {m['cpu_count']} cores, on {rec['measured'][:10]}, with one seed per "
        f"configuration and {rec['train_rows']:,} training rows, the test Spearman of fp32 and bf16 training differs by "
        f"at most {abs(diffs[worst]):.2f} points ({worst}), and the ranking of the configurations is {same} in both "
        f"precisions. That is one seed per precision on one machine, so it does not show that the precision moves "
        f"a score by less than the seed-to-seed spread; a difference between configurations smaller than that "
        f"spread may not carry over to a build that trains in the other precision"
    )
    return {"ft_prec_text": Prose(text), "ft_prec_max_diff": abs(diffs[worst]), "ft_prec_table": precision_table(rec)}


def precision_table(rec: dict) -> pd.DataFrame:
    """Per configuration of a ``csts_precision.json`` record: the test Spearman in fp32 and in
    bf16 and their difference, the examples per second of each, and, where the record has the
    loop's utilisation, its GFLOP/s in each precision and the share of that precision's
    matrix-product limit measured in the same run."""
    util = (rec.get("utilisation") or {}).get("configs", {})
    rows = []
    for k, c in rec["configs"].items():
        row = {
            "configuration": k,
            "Spearman fp32": f"{c['fp32_test_spearman']:.2f}",
            "Spearman bf16": f"{c['bf16_test_spearman']:.2f}",
            "bf16 − fp32": f"{c['bf16_minus_fp32']:+.2f}",
        }
        for p in ("fp32", "bf16"):
            if f"{p}_examples_per_s" in c:
                row[f"examples/s {p}"] = f"{c[f'{p}_examples_per_s']:.0f}"
        for p in ("fp32", "bf16"):
            u = util.get(k, {})
            if f"{p}_loop_gflop_per_s" in u:
                row[f"loop GFLOP/s {p} (share of its limit)"] = (
                    f"{u[f'{p}_loop_gflop_per_s']:.0f} ({100 * u[f'{p}_share_of_{p}_limit']:.0f} %)"
                )
        rows.append(row)
    return pd.DataFrame(rows).set_index("configuration").fillna("not measured")
