"""Part II's runs: zero-shot scores, baselines, fine-tuning sweeps (the only module that embeds
or trains).

* :func:`zero_shot_scores` — cosine of the two sentence embeddings from the shared cache, the
  condition ignored or attached to each sentence (the paper's Table 2 setting with the panel);
* :func:`zero_shot_textpair` — an untrained bi-encoder reading (sentence, condition) text pairs;
* :func:`baselines` — the condition prior and the constant predictor on an evaluation split;
* :func:`train_and_evaluate`, :func:`sweep` — fine-tune a fresh model per config × seed and
  score it; finished runs are kept on disk keyed by (config, seed, data, code version), so a
  rebuild re-trains nothing;
* :func:`planned_texts` — the unique texts a chapter embeds (``python -m compsem plan``).

The training functions import torch inside the function (heavy, optional for chapters that
only read tables).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import asdict

import numpy as np
import pandas as pd

from compsem import embed, measures, paths
from compsem.encoders import check_available, resolve_models
from compsem.store import write_json
from compsem.work import WorkUnit, embed_units

from . import metrics
from .data import load_csts, pair_index
from .splitting import splits, subsample_pairs

__all__ = ["DEFAULT_TEMPLATE", "models_for", "attach", "zero_shot_scores", "zero_shot_textpair", "pair_accuracy", "baselines",
           "score_row", "train_and_evaluate", "sweep", "planned_texts", "data_hash", "CODE_VERSION",
           "planned_work", "run_unit", "store_unit", "unit_done"]

DEFAULT_TEMPLATE = "{sentence} ({condition})"
#: bump when a change in training or models changes results (invalidates the run cache)
CODE_VERSION = "csts-train-2"


def models_for(models, *, kind: str = "encoder", trust_remote_code: bool = False) -> list[str]:
    """A chapter's ``models`` parameter as specs (``"panel"``, ``"paper"`` — the C-STS paper's
    models of this ``kind`` — or a list), checked before anything runs: offline, a model that
    would need a download fails here with one message naming it."""
    specs = resolve_models(models, study="csts", kind=kind, trust_remote_code=trust_remote_code)
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


def score_row(pred, df: pd.DataFrame, prefix: str = "") -> dict:
    """Spearman, Pearson, both pair accuracies and the counts for predictions on ``df``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        corr = metrics.correlations(pred, df["label"].to_numpy())
    hi_all, _ = pair_index(df, label_ties="include")
    hi_nt, _ = pair_index(df, label_ties="exclude")
    return {f"{prefix}spearman": corr["spearman"], f"{prefix}pearson": corr["pearson"], f"{prefix}n": corr["n"],
            f"{prefix}pair_accuracy": pair_accuracy(pred, df, label_ties="exclude"),
            f"{prefix}pair_accuracy_with_ties": pair_accuracy(pred, df, label_ties="include"),
            f"{prefix}n_pairs": len(hi_all), f"{prefix}n_tied_pairs": len(hi_all) - len(hi_nt)}


def zero_shot_scores(df: pd.DataFrame, model: str, *, template: str = DEFAULT_TEMPLATE,
                     trust_remote_code: bool = False) -> pd.DataFrame:
    """Cosine scores for every row of ``df`` under ``model``, condition ignored and attached.

    All texts go to one ``embed`` call (each unique text embedded once, cached on disk).
    Returns columns ``ignored`` and ``attached`` aligned with ``df``; NaN where an embedding is
    degenerate (e.g. all-OOV text under GloVe).
    """
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    texts = s1 + s2 + attach(s1, c, template) + attach(s2, c, template)
    X = embed(texts, model, trust_remote_code=trust_remote_code)
    n = len(df)
    return pd.DataFrame({"ignored": measures.cosine(X[:n], X[n:2 * n]),
                         "attached": measures.cosine(X[2 * n:3 * n], X[3 * n:])}, index=df.index)


def zero_shot_textpair(df: pd.DataFrame, encoder: str = "sbert-mini", *, pooling: str = "mean",
                       max_length: int = 64, trust_remote_code: bool = False) -> np.ndarray:
    """Scores of an *untrained* bi-encoder reading each sentence with the condition as a text
    pair, ``cos(f(s1; c), f(s2; c))`` (the paper's Table 2 setting), one per row of ``df``."""
    from .models import build_model  # torch: heavy, only when this runs
    from .training import predict  # torch

    model = build_model(encoder, encoding="bi", pooling=pooling, max_length=max_length, seed=0,
                        trust_remote_code=trust_remote_code)
    return predict(model, df)


def baselines(train: pd.DataFrame, evals: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The condition-prior baseline (each condition's mean training label; the sentences are
    ignored) and the share of evaluation conditions seen in training, per evaluation split."""
    rows = []
    for name, df in evals.items():
        pred = metrics.condition_prior(train["condition"], train["label"], df["condition"])
        seen = float(np.isin(df["condition"].astype(str), train["condition"].astype(str).unique()).mean())
        rows.append({"baseline": "condition prior", "split": name, **score_row(pred, df),
                     "share_conditions_seen_%": 100 * seen})
    return pd.DataFrame(rows)


def data_hash(*frames: pd.DataFrame) -> str:
    """A short hash of the rows (texts and labels) of the given frames."""
    h = hashlib.sha1()
    for df in frames:
        cols = df[["sentence1", "sentence2", "condition", "label"]]
        h.update(pd.util.hash_pandas_object(cols, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]


def _run_path(key: dict):
    digest = hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:20]
    return paths.cache_dir() / "csts_runs" / f"{digest}.json"


def _run_key(encoder: str, train_df: pd.DataFrame, eval_sets: dict[str, pd.DataFrame], cfg, *, seed: int) -> dict:
    """What identifies a fine-tuning run in the run cache: config, seed, encoder, data, code version."""
    return {"cfg": asdict(cfg), "seed": seed, "encoder": encoder, "version": CODE_VERSION,
            "data": data_hash(train_df, *eval_sets.values()), "evals": sorted(eval_sets)}


def train_and_evaluate(encoder: str, train_df: pd.DataFrame, eval_sets: dict[str, pd.DataFrame], cfg, *, seed: int,
                       trust_remote_code: bool = False, reuse: bool = True) -> dict:
    """Build a fresh model, fine-tune it, and score it on each evaluation set.

    Returns a flat dict: the config fields, ``seed``, ``encoder``, first/last epoch losses,
    training time and throughput, and per evaluation set Spearman, Pearson, both pair
    accuracies and counts (``<split>_…``). With ``reuse`` a finished run with the same key
    (config, seed, encoder, data hash, :data:`CODE_VERSION`) is read back instead of re-run.
    """
    path = _run_path(_run_key(encoder, train_df, eval_sets, cfg, seed=seed))
    if reuse and path.is_file():
        return {**json.loads(path.read_text()), "reused": True}
    row = _train_row(encoder, train_df, eval_sets, cfg, seed=seed, trust_remote_code=trust_remote_code)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(row, default=float))
    return {**row, "reused": False}


def _train_row(encoder: str, train_df: pd.DataFrame, eval_sets: dict[str, pd.DataFrame], cfg, *, seed: int,
               trust_remote_code: bool = False) -> dict:
    """Fine-tune a fresh model and score it: the run record, written nowhere."""
    from .training import fit, new_model, predict  # torch: heavy, only when training

    model = new_model(encoder, cfg, seed=seed, trust_remote_code=trust_remote_code)
    hist = fit(model, train_df, cfg, seed=seed)
    row = {"encoder": encoder, "config": cfg.label, "seed": seed, **asdict(cfg),
           "loss_first_epoch": hist["epoch_loss"][0], "loss_last_epoch": hist["epoch_loss"][-1],
           "train_seconds": hist["seconds"], "n_train_rows": hist["n_train_rows"],
           "n_quad_pairs": hist["n_quad_pairs"],
           "examples_per_s": hist["n_train_rows"] * cfg.epochs / max(hist["seconds"], 1e-9)}
    for name, df in eval_sets.items():
        row.update(score_row(predict(model, df), df, prefix=f"{name}_"))
    return row


def sweep(encoder: str, train_df: pd.DataFrame, eval_sets: dict[str, pd.DataFrame], configs, seeds, *,
          trust_remote_code: bool = False, reuse: bool = True) -> pd.DataFrame:
    """:func:`train_and_evaluate` for every config × seed (progress bar); one row per run."""
    from tqdm.auto import tqdm

    todo = [(c, s) for c in configs for s in seeds]
    rows = [train_and_evaluate(encoder, train_df, eval_sets, c, seed=s, trust_remote_code=trust_remote_code,
                               reuse=reuse) for c, s in tqdm(todo, desc="runs")]
    return pd.DataFrame(rows)


def book_data(data="reannotated", *, split_seed: int = 0, train_pairs=None, eval_pairs=None, sample_seed: int = 0,
              split: str = "pair", **load_kw):
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


#: the zero-shot chapter's defaults (``notebooks/21_csts_zeroshot.ipynb``), for :func:`planned_texts`
ZERO_SHOT_DEFAULTS = {"data": "reannotated", "split": "pair", "split_seed": 0, "eval_split": "test", "eval_pairs": 250,
                      "template": DEFAULT_TEMPLATE, "seed": 0}


def planned_texts(params: dict) -> list[str]:
    """The unique texts a Part II chapter with these parameters embeds per panel model (the
    zero-shot chapter: plain sentences and sentence + condition strings of its evaluation rows;
    parameters not given take the chapter's defaults, :data:`ZERO_SHOT_DEFAULTS`)."""
    params = {**ZERO_SHOT_DEFAULTS, **params}
    parts, _ = book_data(params["data"], split_seed=params["split_seed"], eval_pairs=params["eval_pairs"],
                         sample_seed=params["seed"], split=params["split"])
    split = params["eval_split"]
    df = pd.concat(parts.values()) if split == "all" else parts[split]
    template = params["template"]
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    return list(dict.fromkeys(s1 + s2 + attach(s1, c, template) + attach(s2, c, template)))


# -- planned work (python -m compsem prefetch) ----------------------------------------------
def planned_work(params: dict, *, rates=None, chunk=None) -> list[WorkUnit]:
    """The chapter's heavy work as :class:`compsem.work.WorkUnit`.

    A fine-tuning chapter (its parameters name ``configs``) gives one ``"train"`` unit per
    model × config × seed, keyed as the run cache keys the run; another chapter gives
    ``"embed"`` units over :func:`planned_texts` (``rates``: texts per second per spec, sizing
    the chunks; ``chunk``: texts per unit).
    """
    trc = params.get("trust_remote_code", False) is True   # a literal True only
    # not checked here: a model that cannot load fails its own units, reported by name
    specs = resolve_models(params.get("models", "panel"), study="csts", kind="encoder", trust_remote_code=trc)
    if "configs" not in params:
        texts = planned_texts(params)
        per_model = texts if isinstance(texts, dict) else {m: texts for m in specs}
        return embed_units("csts", per_model, chunk=chunk, rates=rates, trust_remote_code=trc)
    from .training import TrainConfig  # torch: heavy, only when a fine-tuning chapter is planned

    parts, _ = book_data(params.get("data", "reannotated"), split=params.get("split", "pair"),
                         split_seed=params.get("split_seed", 0), train_pairs=params.get("train_pairs"),
                         eval_pairs=params.get("eval_pairs"))
    evals = {name: parts[name] for name in params.get("eval_splits", ["test"])}
    cfgs = [TrainConfig.preset(params.get("preset", "cpu"), encoding=c.split("/")[0], objective=c.split("/")[1],
                               **params.get("overrides", {})) for c in params["configs"]]
    rate = (rates or {})
    units = []
    for model in specs:
        for cfg in cfgs:
            for seed in params.get("seeds", [0]):
                key = _run_path(_run_key(model, parts["train"], evals, cfg, seed=seed)).stem
                examples = len(parts["train"]) * cfg.epochs
                units.append(WorkUnit("train", model, key, "csts",
                                      {"train": parts["train"], "evals": evals, "cfg": cfg, "seed": seed,
                                       "trust_remote_code": trc}, 1,
                                      examples / rate[model] if rate.get(model) else None))
    return units


def run_unit(unit: WorkUnit) -> dict:
    """Train and score one ``"train"`` unit (on a worker; writes nothing): the run record."""
    p = unit.payload
    return _train_row(unit.spec, p["train"], p["evals"], p["cfg"], seed=p["seed"],
                      trust_remote_code=p["trust_remote_code"])


def unit_done(unit: WorkUnit) -> bool:
    """Whether the run cache holds a ``"train"`` unit's run."""
    return (paths.cache_dir() / "csts_runs" / f"{unit.key}.json").is_file()


def store_unit(unit: WorkUnit, row: dict) -> None:
    """Write a run record where :func:`train_and_evaluate` reads it (atomic)."""
    write_json(paths.cache_dir() / "csts_runs" / f"{unit.key}.json", row, default=float)
