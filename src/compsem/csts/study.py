"""Part II's runs: zero-shot scores, baselines, fine-tuning sweeps (the only module that embeds
or trains).

* :func:`zero_shot_scores` — cosine of the two sentence embeddings from the shared cache, the
  condition ignored or attached to each sentence (the paper's Table 2 setting with the panel);
* :func:`zero_shot_textpair` — an untrained bi-encoder reading (sentence, condition) text pairs;
* :func:`baselines` — the condition prior and the constant predictor on an evaluation split;
* :func:`train_and_evaluate`, :func:`sweep` — fine-tune a fresh model per config × seed and
  score it; finished runs are kept on disk (``<cache>/csts_runs/<run_key>.json``, written
  atomically with :mod:`compsem.store`) keyed by :func:`run_key` (config with its resolved
  precision, seed, encoder identity, data hash, code version), so a rebuild re-trains nothing;
  a broken run file is named in a warning and recomputed;
* :func:`run` — a chapter's whole fine-tuning sweep as a :class:`CstsRun` (with ``provenance()``);
  ``eval_data=`` scores the trained models on any published C-STS file too, beside the prior;
* :func:`resolve_models`, :func:`planned_texts` — the study contract's faces.

The training functions import torch inside the function (heavy, optional for chapters that
only read tables).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pandas as pd

from compsem import device, embed, encoders, measures, notebooks
from compsem.encoders import check_available
from compsem.encoders.kinds import ModelSlot
from compsem.faces import PaperRun
from compsem.reference import paper_table
from compsem.paths import notebooks_dir
from compsem.work import WorkUnit, embed_units

from ..progress import bar
from . import metrics
from .config import TrainConfig, configs_from, scaling_sizes
from .data import load_csts, pair_index

# the prompting chapter reaches its runs through this face
from .prompting import MAX_NEW_TOKENS, PARSERS, build_prompt, build_prompts, parse_answers, run_prompting  # noqa: F401

# the run cache's key and files (re-exported: the study's face)
from .runcache import (
    CODE_VERSION,
    backbone_identity,  # noqa: F401
    data_hash,
    load_run,
    run_key,
    run_path,
    run_records,
    save_run,
)
from .splitting import splits, subsample_pairs

__all__ = [
    "PAPER_RUN",
    "DEFAULT_TEMPLATE",
    "ZERO_SHOT_CHAPTER",
    "zero_shot_defaults",
    "resolve_models",
    "attach",
    "zero_shot_scores",
    "zero_shot_textpair",
    "pair_accuracy",
    "baselines",
    "score_row",
    "train_and_evaluate",
    "sweep",
    "planned_texts",
    "data_hash",
    "CODE_VERSION",
    "run_key",
    "run_path",
    "run_records",
    "planned_work",
    "run_unit",
    "store_unit",
    "unit_done",
    "backbone_identity",
    "CstsRun",
    "run",
    "book_data",
    "configs_from",
    "scaling_sizes",
    "scaling",
    "MODEL_SLOTS",
]

#: The kind of model each chapter's ``models`` takes, by chapter number (the planner and the
#: runner refuse another kind before any work, compsem.encoders.kinds):
#: zero-shot encoders (21), fine-tuned backbones (22; 23 one at a time), prompted generators
#: (24).
MODEL_SLOTS = {
    "21": ModelSlot("encoder"),
    "22": ModelSlot("finetune"),
    "23": ModelSlot("finetune", at_most=1),
    "24": ModelSlot("generator"),
}

DEFAULT_TEMPLATE = "{sentence} ({condition})"


def resolve_models(models, *, trust_remote_code: bool = False, kind: str = "encoder") -> list[str]:
    """A chapter's ``models`` parameter as specs (``"panel"``, ``"paper"`` — the C-STS paper's
    models of this ``kind`` — or a list), checked before anything runs: offline, a model that
    would need a download fails here with one message naming it."""
    specs = encoders.resolve_models(models, study="csts", kind=kind, trust_remote_code=trust_remote_code)
    return check_available(specs, trust_remote_code=trust_remote_code, study="csts")


def attach(sentences, conditions, template: str = DEFAULT_TEMPLATE) -> list[str]:
    """``template`` filled with each (sentence, condition)."""
    return [template.format(sentence=s, condition=c) for s, c in zip(sentences, conditions)]


def pair_accuracy(scores, df: pd.DataFrame, *, label_ties: str = "exclude") -> float:
    """:func:`compsem.csts.metrics.pair_accuracy` over the complete pairs of ``df``;
    ``label_ties="exclude"`` leaves out pairs with two equal labels, ``"include"`` counts them
    with the first row in file order as C-High (what the authors' code trains on)."""
    s = np.asarray(scores, dtype=float)
    hi, lo = pair_index(df, label_ties=label_ties)
    return metrics.pair_accuracy(s[hi], s[lo])


def score_row(pred, df: pd.DataFrame, prefix: str = "", *, ci: bool = False, seed: int = 0) -> dict:
    """Spearman, Pearson, both pair accuracies and the counts for predictions on ``df``; with
    ``ci`` also the Spearman's 95 % pair-bootstrap interval (``spearman_ci_low``/``_high``,
    :func:`~compsem.csts.metrics.pair_bootstrap_ci`, 1,000 resamples with ``seed``), which lets a
    page rank fine-tuned configurations only as far as their intervals allow."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        corr = metrics.correlations(pred, df["label"].to_numpy())
    hi_all, _ = pair_index(df, label_ties="include")
    hi_nt, _ = pair_index(df, label_ties="exclude")
    return {
        f"{prefix}spearman": corr["spearman"],
        f"{prefix}pearson": corr["pearson"],
        f"{prefix}n": corr["n"],
        f"{prefix}pair_accuracy": pair_accuracy(pred, df, label_ties="exclude"),
        f"{prefix}pair_accuracy_with_ties": pair_accuracy(pred, df, label_ties="include"),
        f"{prefix}n_pairs": len(hi_all),
        f"{prefix}n_tied_pairs": len(hi_all) - len(hi_nt),
        **(
            {}
            if not ci
            else dict(
                zip(
                    (f"{prefix}spearman_ci_low", f"{prefix}spearman_ci_high"),
                    metrics.pair_bootstrap_ci(pred, df["label"], df["pair_id"], seed=seed),
                )
            )
        ),
    }


def zero_shot_scores(
    df: pd.DataFrame, model: str, *, template: str = DEFAULT_TEMPLATE, trust_remote_code: bool = False
) -> pd.DataFrame:
    """Cosine scores for every row of ``df`` under ``model``, condition ignored and attached.

    All texts go to one ``embed`` call (each unique text embedded once, cached on disk).
    Returns columns ``ignored`` and ``attached`` aligned with ``df``; NaN where an embedding is
    degenerate (e.g. all-OOV text under GloVe).
    """
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    texts = s1 + s2 + attach(s1, c, template) + attach(s2, c, template)
    X = embed(texts, model, trust_remote_code=trust_remote_code)
    n = len(df)
    return pd.DataFrame(
        {"ignored": measures.cosine(X[:n], X[n : 2 * n]), "attached": measures.cosine(X[2 * n : 3 * n], X[3 * n :])},
        index=df.index,
    )


def zero_shot_textpair(
    df: pd.DataFrame,
    encoder: str = "sbert-mini",
    *,
    pooling: str = "mean",
    max_length: int = 64,
    trust_remote_code: bool = False,
) -> np.ndarray:
    """Scores of an *untrained* bi-encoder reading each sentence with the condition as a text
    pair, ``cos(f(s1; c), f(s2; c))`` (the paper's Table 2 setting), one per row of ``df``."""
    from .models import build_model  # torch: heavy, only when this runs
    from .training import predict  # torch

    model = build_model(
        encoder, encoding="bi", pooling=pooling, max_length=max_length, seed=0, trust_remote_code=trust_remote_code
    )
    return predict(model, df)


def baselines(train: pd.DataFrame, evals: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The condition-prior baseline (each condition's mean training label; the sentences are
    ignored) and the share of evaluation conditions seen in training, per evaluation split."""
    rows = []
    for name, df in evals.items():
        pred = metrics.condition_prior(train["condition"], train["label"], df["condition"])
        seen = float(np.isin(df["condition"].astype(str), train["condition"].astype(str).unique()).mean())
        rows.append(
            {"baseline": "condition prior", "split": name, **score_row(pred, df), "share_conditions_seen_%": 100 * seen}
        )
    return pd.DataFrame(rows)


def train_and_evaluate(
    encoder: str,
    train_df: pd.DataFrame,
    eval_sets: dict[str, pd.DataFrame],
    cfg,
    *,
    seed: int,
    trust_remote_code: bool = False,
    reuse: bool = True,
    extra_evals=None,
) -> dict:
    """Build a fresh model, fine-tune it, and score it on each evaluation set.

    Returns a flat dict: the config fields, ``seed``, ``encoder``, first/last epoch and
    first/last quarter-of-steps losses, training time and throughput, the precision used, and
    per evaluation set Spearman, Pearson, both pair accuracies and counts (``<split>_…``).
    With ``reuse`` a finished run with the same :func:`run_key` is read back instead of re-run
    (``reused: True``). ``extra_evals`` (name → frame) are scored too but kept out of the key
    and the record: a reader's other file (they force a retrain when the run is cached), scored
    with the Spearman's pair-bootstrap interval as the evaluation splits are.
    """
    key = run_key(encoder, train_df, eval_sets, cfg, seed=seed)
    cached = load_run(key) if reuse else None
    if cached is not None and not extra_evals:
        return {**cached, "reused": True}
    model, row = _fit_and_score(encoder, train_df, eval_sets, cfg, seed=seed, trust_remote_code=trust_remote_code)
    from .training import predict  # torch: heavy, only when training

    if cached is None:
        save_run(key, row)
    extra = {}
    for name, df in (extra_evals or {}).items():
        extra.update(score_row(predict(model, df), df, prefix=f"{name}_", ci=True))
    return {**(cached or row), **extra, "reused": cached is not None}


def machine_words(device_name: str = "auto") -> str:
    """The machine a run trains on, as its record keeps it: the GPU's name on a GPU, else the CPU
    in words (:func:`compsem.precisionrecords.cpu_words`, e.g. "AMD Zen 4 (AMD EPYC)")."""
    from compsem import cpu
    from compsem.precisionrecords import cpu_words

    dev = device.resolve_device(None if device_name == "auto" else device_name)
    if dev.startswith("cuda"):
        import torch

        return f"GPU {torch.cuda.get_device_name(0)}"
    flags = [f for f, on in cpu.cpu_flags().items() if on]
    return cpu_words(cpu.cpu_model(), cpu.cpu_family(), flags)


def _fit_and_score(
    encoder: str,
    train_df: pd.DataFrame,
    eval_sets: dict[str, pd.DataFrame],
    cfg,
    *,
    seed: int,
    trust_remote_code: bool = False,
):
    """Fine-tune a fresh model and score it on ``eval_sets``: ``(model, run record)``, written nowhere."""
    from .training import fit, new_model, predict  # torch: heavy, only when training

    model = new_model(encoder, cfg, seed=seed, trust_remote_code=trust_remote_code, identity=backbone_identity(encoder))
    hist = fit(model, train_df, cfg, seed=seed)
    row = {
        "encoder": encoder,
        "config": cfg.label,
        "seed": seed,
        **asdict(cfg),
        "loss_first_epoch": hist["epoch_loss"][0],
        "loss_last_epoch": hist["epoch_loss"][-1],
        "loss_first_quarter": hist["loss_first_quarter"],
        "loss_last_quarter": hist["loss_last_quarter"],
        "train_seconds": hist["seconds"],
        "fill_seconds": hist["fill_seconds"],
        "n_train_rows": hist["n_train_rows"],
        "n_train_pairs": int(train_df["pair_id"].nunique()),
        "n_quad_pairs": hist["n_quad_pairs"],
        "precision_used": hist["precision"],
        "machine": machine_words(cfg.device),
        "fused_adamw": hist["fused_adamw"],
        "examples_per_s": hist["n_train_rows"] * cfg.epochs / max(hist["seconds"], 1e-9),
    }
    for name, df in eval_sets.items():
        pred = predict(model, df)
        row.update(score_row(pred, df, prefix=f"{name}_", ci=True))
        row[f"{name}_predictions"] = [float(x) for x in np.asarray(pred, dtype=float)]
    return model, row


def sweep(
    encoder: str,
    train_df: pd.DataFrame,
    eval_sets: dict[str, pd.DataFrame],
    configs,
    seeds,
    *,
    trust_remote_code: bool = False,
    reuse: bool = True,
    extra_evals=None,
    predictions: bool = False,
) -> pd.DataFrame:
    """:func:`train_and_evaluate` for every config × seed (progress bar); one row per run. The
    runs' predictions per evaluation split (``<split>_predictions``, a list per row, aligned with
    the split's rows) are kept only with ``predictions``."""
    todo = [(c, s) for c in configs for s in seeds]
    rows = [
        train_and_evaluate(
            encoder,
            train_df,
            eval_sets,
            c,
            seed=s,
            trust_remote_code=trust_remote_code,
            reuse=reuse,
            extra_evals=extra_evals,
        )
        for c, s in bar(todo, desc="runs")
    ]
    out = pd.DataFrame(rows)
    return out if predictions else out.drop(columns=[c for c in out.columns if c.endswith("_predictions")])


def book_data(
    data="reannotated",
    *,
    split_seed: int = 0,
    train_pairs=None,
    eval_pairs=None,
    sample_seed: int = 0,
    split: str = "pair",
    **load_kw,
):
    """Load ``data`` (any :func:`load_csts` source, or a dict of per-split files), split it,
    subsample the training pairs (``train_pairs``: a count or share, None = all) and the
    evaluation pairs (``eval_pairs``), and return ``(parts, report)``. ``split`` is ``"pair"``
    (each pair in one split) or ``"sentence"`` (stricter: no sentence in two splits), see
    :func:`compsem.csts.splitting.splits`."""
    df, report = load_csts(**data, **load_kw) if isinstance(data, dict) else load_csts(data, **load_kw)
    parts = splits(df, seed=split_seed, split=split)
    if train_pairs is not None and len(parts["train"]):
        parts["train"] = subsample_pairs(parts["train"], train_pairs, seed=sample_seed)
    if eval_pairs is not None:
        for name in ("validation", "test"):
            if len(parts[name]):
                parts[name] = subsample_pairs(parts[name], eval_pairs, seed=sample_seed)
    return parts, report


#: The zero-shot chapter, whose parameters cell holds the defaults :func:`planned_texts` and the
#: synthesis's headline rows use.
ZERO_SHOT_CHAPTER = "21_csts_zeroshot.ipynb"


def zero_shot_defaults() -> dict:
    """The zero-shot chapter's defaults, read from its parameters cell (:data:`ZERO_SHOT_CHAPTER`,
    through :func:`compsem.notebooks.defaults`): the one place they are written."""
    return notebooks.defaults(notebooks_dir() / ZERO_SHOT_CHAPTER)


def planned_texts(params: dict) -> dict[str, list[str]]:
    """``{model spec: unique texts}`` a Part II chapter with these parameters embeds (the
    zero-shot chapter: plain sentences and sentence + condition strings of its evaluation rows,
    for each of its ``models``; parameters not given take the chapter's defaults,
    :func:`zero_shot_defaults`)."""
    params = {**zero_shot_defaults(), **params}
    parts, _ = book_data(
        params["data"],
        split_seed=params["split_seed"],
        eval_pairs=params["eval_pairs"],
        sample_seed=params["seed"],
        split=params["split"],
    )
    split = params["eval_split"]
    df = pd.concat(parts.values()) if split == "all" else parts[split]
    template = params["template"]
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    texts = list(dict.fromkeys(s1 + s2 + attach(s1, c, template) + attach(s2, c, template)))
    specs = encoders.resolve_models(
        params.get("models", "panel"), study="csts", trust_remote_code=params.get("trust_remote_code", False) is True
    )
    return {spec: texts for spec in specs}


# ---------------------------------------------------------------------------------------------
# a chapter's fine-tuning sweep as one run
# ---------------------------------------------------------------------------------------------
@dataclass
class CstsRun:
    """A chapter's fine-tuning runs: the data parts, the configs, one row per
    (model, config, seed) in ``runs`` (their predictions in ``predictions``), the condition prior on the same rows in ``baselines``,
    and, with ``eval_data``, the reader's other file scored as the split ``"other"``."""

    models: list[str]
    identities: dict[str, str]
    parts: dict[str, pd.DataFrame]
    report: object
    configs: list[TrainConfig]
    seeds: list[int]
    runs: pd.DataFrame
    baselines: pd.DataFrame
    params: dict = field(default_factory=dict)
    other_report: object = None
    #: each run's predictions on each evaluation split, ``{(model, config, seed, split): array}``
    #: aligned with ``parts[split]`` (paired comparisons of configurations on the same rows)
    predictions: dict = field(default_factory=dict)
    other_rows: pd.DataFrame | None = None  # with eval_data, the reader's rows (split "other")

    @property
    def eval_splits(self) -> list[str]:
        return list(self.params.get("eval_splits", ["test"])) + (["other"] if self.other_report is not None else [])

    def provenance(self, **extra) -> dict:
        """Models, their identities, data source and checksums per split, parameters, code version."""
        checks = {name: data_hash(df) for name, df in self.parts.items() if len(df)}
        other = None if self.other_report is None else self.other_report.source
        if self.other_report is not None:
            checks["other"] = data_hash(self.other_rows)
            extra = {"other_scores": self.other_scores(), **extra}
        return dict(
            models=self.models,
            identities=self.identities,
            data=str(self.report.source),
            data_checksums=checks,
            other_data=other,
            parameters=self.params,
            code_version=CODE_VERSION,
            **extra,
        )

    def other_scores(self) -> list[dict]:
        """Each run's scores on the reader's ``eval_data`` (split ``"other"``, with the Spearman's
        interval and the condition prior on the same rows: :func:`.tables.split_scores`); [] without."""
        from .tables import split_scores  # tables imports this module

        return (
            [] if self.other_report is None else split_scores(self.runs, self.baselines, ["other"]).to_dict("records")
        )


def run(
    models=("sbert-mini",),
    *,
    configs=("bi/quad+mse",),
    preset: str = "cpu",
    overrides: dict | None = None,
    seeds=(0,),
    data="reannotated",
    split: str = "pair",
    split_seed: int = 0,
    train_pairs=None,
    eval_pairs=None,
    eval_splits=("test",),
    sample_seed: int = 0,
    eval_data=None,
    trust_remote_code: bool = False,
    reuse: bool = True,
) -> CstsRun:
    """Fine-tune every model × config × seed on the training part of ``data`` and score the
    evaluation splits (:func:`sweep`; cached runs are read back unless ``reuse`` is false, as a
    run whose seconds are compared must train).

    ``eval_data``: any other C-STS source :func:`load_csts` reads (a published per-split file, the
    re-annotated validation file with its −1 rows — left out and counted — or a dict of split
    files), scored as the split ``"other"`` by the same trained models, the condition prior
    beside it.
    """
    specs = resolve_models(models, trust_remote_code=trust_remote_code)
    parts, report = book_data(
        data,
        split_seed=split_seed,
        train_pairs=train_pairs,
        eval_pairs=eval_pairs,
        sample_seed=sample_seed,
        split=split,
    )
    evals = {name: parts[name] for name in eval_splits}
    extra, other_report = None, None
    if eval_data is not None:
        other, other_report = load_csts(**eval_data) if isinstance(eval_data, dict) else load_csts(eval_data)
        extra = {"other": other}
    cfgs = configs_from(configs, preset, overrides)
    base = baselines(parts["train"], {**evals, **(extra or {})})
    runs = pd.concat(
        [
            sweep(
                m,
                parts["train"],
                evals,
                cfgs,
                list(seeds),
                trust_remote_code=trust_remote_code,
                reuse=reuse,
                extra_evals=extra,
                predictions=True,
            ).assign(model=m)
            for m in specs
        ],
        ignore_index=True,
    )
    pcols = [f"{name}_predictions" for name in evals if f"{name}_predictions" in runs]
    predictions = {
        (r.model, r.config, int(r.seed), c[: -len("_predictions")]): np.asarray(getattr(r, c), dtype=float)
        for r in runs.itertuples()
        for c in pcols
    }
    runs = runs.drop(columns=[c for c in runs.columns if c.endswith("_predictions")])
    params = dict(
        configs=list(configs),
        preset=preset,
        overrides=dict(overrides or {}),
        seeds=list(seeds),
        data=str(data),
        split=split,
        split_seed=split_seed,
        train_pairs=train_pairs,
        eval_pairs=eval_pairs,
        eval_splits=list(eval_splits),
        sample_seed=sample_seed,
        eval_data=None if eval_data is None else str(eval_data),
    )
    return CstsRun(
        models=specs,
        identities={m: backbone_identity(m) for m in specs},
        parts=parts,
        report=report,
        configs=cfgs,
        seeds=list(seeds),
        runs=runs,
        baselines=base,
        params=params,
        other_report=other_report,
        predictions=predictions,
        other_rows=None if extra is None else extra["other"],
    )


def scaling(
    encoder: str,
    parts: dict,
    configs,
    sizes,
    *,
    seeds=(0,),
    sample_seed: int = 0,
    eval_splits=("test",),
    trust_remote_code: bool = False,
    predictions: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scaling curve: for each size of :func:`scaling_sizes` (``None`` = all training pairs,
    which is the same data, hence the same :func:`run_key`, as the fine-tuning chapter's run:
    read back, not retrained), fine-tune ``configs`` on that many training pairs and refit the
    condition prior on the same rows. Returns ``(runs, priors)``, both with ``train_pairs``; the
    runs keep their predictions per evaluation split with ``predictions`` (:func:`sweep`)."""
    evals = {name: parts[name] for name in eval_splits}
    train = parts["train"]
    n_all = int(train["pair_id"].nunique())
    rows, priors = [], []
    for n in scaling_sizes(sizes, n_all):
        sub = train if n == n_all else subsample_pairs(train, n, seed=sample_seed)
        rows.append(
            sweep(
                encoder, sub, evals, configs, list(seeds), trust_remote_code=trust_remote_code, predictions=predictions
            ).assign(train_pairs=n)
        )
        priors.append(baselines(sub, evals).assign(train_pairs=n))
    return pd.concat(rows, ignore_index=True), pd.concat(priors, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# planned work (python -m compsem prefetch)
# ---------------------------------------------------------------------------------------------
def planned_work(params: dict, *, rates=None, chunk=None) -> list[WorkUnit]:
    """The chapter's heavy work as :class:`compsem.work.WorkUnit`: a fine-tuning chapter (its
    parameters name ``configs``) gives one ``"train"`` unit per model × config × seed, keyed by
    :func:`run_key`; another chapter gives ``"embed"`` units over :func:`planned_texts`
    (``rates``: texts or examples per second per spec; ``chunk``: texts per unit)."""
    trc = params.get("trust_remote_code", False) is True
    if "configs" not in params:
        return embed_units("csts", planned_texts(params), chunk=chunk, rates=rates, trust_remote_code=trc)
    # not checked here: a model that cannot load fails its own units, reported by name
    specs = encoders.resolve_models(params.get("models", ["sbert-mini"]), study="csts", trust_remote_code=trc)
    parts, _ = book_data(
        params.get("data", "reannotated"),
        split=params.get("split", "pair"),
        split_seed=params.get("split_seed", 0),
        train_pairs=params.get("train_pairs"),
        eval_pairs=params.get("eval_pairs"),
        sample_seed=params.get("sample_seed", 0),
    )
    evals = {name: parts[name] for name in params.get("eval_splits", ["test"])}
    cfgs = configs_from(params["configs"], params.get("preset", "cpu"), params.get("overrides"))
    rate = rates or {}
    # a precision forced by $COMPSEM_PRECISION goes into the unit itself: a worker elsewhere (Ray)
    # need not share this process's environment
    forced = device.forced_precision()
    cfgs = [replace(c, precision=forced) if forced and c.precision == "auto" else c for c in cfgs]
    units = []
    for model in specs:
        for cfg in cfgs:
            for seed in params.get("seeds", [0]):
                examples = len(parts["train"]) * cfg.epochs
                units.append(
                    WorkUnit(
                        "train",
                        model,
                        run_key(model, parts["train"], evals, cfg, seed=seed),
                        "csts",
                        {"train": parts["train"], "evals": evals, "cfg": cfg, "seed": seed, "trust_remote_code": trc},
                        1,
                        examples / rate[model] if rate.get(model) else None,
                    )
                )
    return units


def run_unit(unit: WorkUnit) -> dict:
    """Train and score one ``"train"`` unit (on a worker; writes nothing): the run record."""
    p = unit.payload
    return _fit_and_score(
        unit.spec, p["train"], p["evals"], p["cfg"], seed=p["seed"], trust_remote_code=p["trust_remote_code"]
    )[1]


def unit_done(unit: WorkUnit) -> bool:
    """Whether the run cache holds a ``"train"`` unit's run."""
    return load_run(unit.key) is not None


def store_unit(unit: WorkUnit, row: dict) -> None:
    """Write a run record where :func:`train_and_evaluate` reads it (atomic)."""
    save_run(unit.key, row)


def _paper_run_note() -> str:
    """What chapter 98 costs for Part II: the book's data and grid, not the paper's (whose
    training split is ``train_share`` % of ``n_instances``, ``data/reference/csts_dataset_stats.csv``,
    and whose runs sweep the learning rate and the weight decay)."""
    ref = paper_table("csts", "dataset_stats").set_index("statistic")["value"]
    paper_train = float(ref["train_share"]) / 100 * float(ref["n_instances"])
    parts, _ = book_data(split_seed=0, train_pairs=PAPER_RUN.params["train_pairs"])
    runs = len(PAPER_RUN.params["configs"]) * len(PAPER_RUN.params["seeds"])
    return (
        f"costed at the book's data and grid, not the paper's: {len(parts['train']):,} training rows of the "
        f"re-annotated set per run (the paper's training split is about {paper_train:,.0f} rows) and {runs} runs "
        f"per model ({len(PAPER_RUN.params['configs'])} configurations × {len(PAPER_RUN.params['seeds'])} seeds at "
        "the official preset's one learning rate and weight decay, where the paper sweeps both)"
    )


#: The paper's fine-tuning grid (chapter 98): every configuration, three seeds, the official
#: preset, all the book's training pairs (:func:`_paper_run_note` says how that differs from the paper's).
PAPER_RUN = PaperRun(
    "22_csts_finetune.ipynb",
    {
        "models": "paper",
        "preset": "official",
        "seeds": [0, 1, 2],
        "configs": ["cross/mse", "bi/mse", "bi/quad", "bi/quad+mse", "tri/mse", "tri/quad", "tri/quad+mse"],
        "train_pairs": None,
        "eval_pairs": None,
        "eval_splits": ["validation", "test"],
    },
    note=lambda: _paper_run_note(),
)
