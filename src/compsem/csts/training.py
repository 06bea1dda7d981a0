"""Fine-tuning C-STS scorers: presets, objectives, batches, the training loop, prediction.

Objectives (labels scaled to [0, 1] with the training set's min and max):

* ``mse``: mean squared error between the score and the scaled label;
* ``quad``: the quadruplet margin loss on a pair's two rows,
  ``max(0, λ + cos(n1, n2) − cos(p1, p2))`` (bi- and tri-encoders only);
* ``quad+mse``: the sum of the two.

Two presets fix everything but the encoding and the objective: ``"official"`` follows the
authors' code (``princeton-nlp/c-sts``: ``run_sts.sh`` defaults and ``utils/sts``), ``"cpu"`` is
what the book runs on two CPU cores. ``TrainConfig.preset(name, **overrides)`` builds one;
``paper_table8=True`` with an ``encoder`` takes the paper's per-model choices (Table 8). The
Part's opening page (``book/part2_csts.md``) says where each setting comes from.

Speed on CPU, same numbers within noise: ``precision="auto"`` trains under bf16 autocast on a
CPU with native bf16 (:func:`compsem.device.autocast_dtype`), batches are cut from shuffled
buckets of similar length, the frozen layers' states are computed once for the whole training
set in large batches and kept on disk across runs, and AdamW runs fused where torch offers it.
This module imports torch: chapters that only read tables do not import it.
"""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pandas as pd
import torch

from compsem import device as D

from ..progress import bar as progress_bar
from .config import OBJECTIVES, PRESETS, TABLE8_MODELS, LabelScaler, TrainConfig, table8_choice
from .data import pair_index
from .frozen import FrozenStore, store_folder
from .models import build_model

__all__ = [
    "OBJECTIVES",
    "PRESETS",
    "TrainConfig",
    "LabelScaler",
    "quad_loss",
    "objective_loss",
    "pair_batches",
    "row_batches",
    "seed_everything",
    "fit",
    "predict",
    "new_model",
    "run_precision",
    "table8_choice",
    "TABLE8_MODELS",
    "bucketed_batches",
]


# ---------------------------------------------------------------------------------------------
# losses
# ---------------------------------------------------------------------------------------------
def quad_loss(score_high: torch.Tensor, score_low: torch.Tensor, margin: float) -> torch.Tensor:
    """Mean over pairs of ``max(0, margin + score_low − score_high)`` (torch version of
    :func:`compsem.csts.metrics.quad_margin_loss`); 0 when there is no pair."""
    if score_high.shape != score_low.shape:
        raise ValueError(
            f"score_high and score_low shapes differ: {tuple(score_high.shape)} vs {tuple(score_low.shape)}"
        )
    if score_high.numel() == 0:
        return score_high.sum() * 0.0
    return torch.clamp(margin + score_low - score_high, min=0.0).mean()


def objective_loss(
    objective: str,
    scores: torch.Tensor,
    targets: torch.Tensor,
    n_pairs: int,
    margin: float,
    quad_mask: torch.Tensor | None = None,
):
    """Loss of one batch laid out as ``[high rows of the pairs..., low rows..., other rows...]``.

    ``quad_mask`` (shape ``(n_pairs,)``, bool) selects the pairs that enter the quadruplet term
    (e.g. no label ties); MSE uses every row.
    """
    mse = torch.nn.functional.mse_loss(scores, targets)
    if objective == "mse":
        return mse
    hi, lo = scores[:n_pairs], scores[n_pairs : 2 * n_pairs]
    if quad_mask is not None:
        hi, lo = hi[quad_mask], lo[quad_mask]
    q = quad_loss(hi, lo, margin)
    return q if objective == "quad" else q + mse


# ---------------------------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------------------------
#: batches per length bucket (see :func:`bucketed_batches`)
BUCKET_BATCHES = 32


def bucketed_batches(lengths, k: int, rng: np.random.Generator, *, bucket_batches: int = BUCKET_BATCHES) -> list:
    """Batches (index arrays) of at most ``k`` of the ``len(lengths)`` items, each of similar
    length: shuffle, cut into buckets of ``bucket_batches * k`` items, sort each bucket by
    length (stable), cut it into batches of ``k``, and shuffle the order of all batches. Every
    item appears exactly once; only a bucket's last batch may be short."""
    lengths = np.asarray(lengths)
    order = rng.permutation(len(lengths))
    size = max(1, bucket_batches * k)
    batches = []
    for i in range(0, len(order), size):
        chunk = order[i : i + size]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[j : j + k] for j in range(0, len(chunk), k)]
    return [batches[b] for b in rng.permutation(len(batches))]


def pair_batches(
    df: pd.DataFrame, batch_size: int, rng: np.random.Generator, *, label_ties: str = "include", lengths=None
):
    """Shuffle complete sentence pairs and cut them into batches of ``batch_size // 2`` pairs;
    each batch is ``(high_rows, low_rows)``. Rows outside complete pairs are left out. With
    ``lengths`` (one per row), batches hold pairs of similar length (:func:`bucketed_batches`)."""
    hi, lo = pair_index(df, label_ties=label_ties)
    k = max(1, batch_size // 2)
    if lengths is None:
        order = rng.permutation(len(hi))
        return [(hi[order[i : i + k]], lo[order[i : i + k]]) for i in range(0, len(order), k)]
    ln = np.asarray(lengths)
    return [(hi[b], lo[b]) for b in bucketed_batches(np.maximum(ln[hi], ln[lo]), k, rng)]


def row_batches(n: int, batch_size: int, rng: np.random.Generator, *, lengths=None) -> list[np.ndarray]:
    """Shuffled row positions cut into batches of ``batch_size`` (the code's MSE sampler); with
    ``lengths``, of similar length (:func:`bucketed_batches`)."""
    if lengths is not None:
        return bucketed_batches(lengths, batch_size, rng)
    order = rng.permutation(n)
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def _lengths(df: pd.DataFrame) -> np.ndarray:
    """Characters per row (both sentences and the condition): a cheap proxy for tokens."""
    return (df["sentence1"].str.len() + df["sentence2"].str.len() + df["condition"].str.len()).to_numpy()


def _batches(df: pd.DataFrame, cfg: TrainConfig, rng) -> list[tuple[np.ndarray, int, np.ndarray | None]]:
    """``(row positions, n_pairs, quad_mask)`` per batch, pairs first (high rows, then low)."""
    tied = df["tied"].to_numpy(bool) if "tied" in df.columns else np.zeros(len(df), bool)
    lengths = _lengths(df) if cfg.bucket else None
    if cfg.objective == "mse" and not cfg.paired_mse:
        return [(b, 0, None) for b in row_batches(len(df), cfg.batch_size, rng, lengths=lengths)]
    mask_ties = cfg.objective != "mse" and cfg.quad_ties == "exclude"
    # tied pairs stay in the batch (their rows count for MSE) and are masked out of the quad term
    return [
        (np.concatenate([hi, lo]), len(hi), ~tied[hi] if mask_ties else None)
        for hi, lo in pair_batches(df, cfg.batch_size, rng, lengths=lengths)
    ]


# ---------------------------------------------------------------------------------------------
# training and prediction
# ---------------------------------------------------------------------------------------------
def _device(cfg: TrainConfig) -> torch.device:
    return torch.device(D.resolve_device(None if cfg.device == "auto" else cfg.device))


def run_precision(cfg: TrainConfig) -> tuple[str, object, str]:
    """``(device, autocast dtype or None, note)`` of a run with ``cfg``: what
    :func:`compsem.device.autocast_dtype` decides, and in words for the run record."""
    dev = str(_device(cfg))
    return dev, D.autocast_dtype(dev, cfg.precision), D.precision_note(dev, cfg.precision)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


_FROZEN: dict = {}


def new_model(
    encoder: str,
    cfg: TrainConfig,
    *,
    seed: int,
    trust_remote_code: bool = False,
    identity: str | None = None,
    disk: bool = True,
):
    """A fresh model for ``cfg`` (heads seeded), lower layers frozen, frozen cache attached
    (shared in this process by models of the same encoder, length, frozen layers and precision;
    on disk too when ``disk`` and an encoder ``identity`` are given)."""
    seed_everything(seed)
    model = build_model(
        encoder, encoding=cfg.encoding, seed=seed, trust_remote_code=trust_remote_code, **cfg.model_options()
    )
    model.freeze_lower(cfg.train_layers)
    if cfg.frozen_cache and cfg.train_layers is not None and model._n_frozen:
        _, amp, _ = run_precision(cfg)
        prec = "fp32" if amp is None else str(amp).removeprefix("torch.")
        key = (identity or encoder, cfg.max_length, model._n_frozen, prec, disk and identity is not None)
        if key not in _FROZEN:
            folder = store_folder(identity, cfg.max_length, model._n_frozen, prec) if key[-1] else None
            _FROZEN[key] = FrozenStore(folder, disk_dtype="float32" if amp is None else "float16")
        model.use_frozen_cache(_FROZEN[key])
    return model


def _optimizer(named, cfg: TrainConfig, device: torch.device):
    """AdamW with the usual no-decay groups; fused where torch offers it on this device."""
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    groups = [
        {"params": [p for n, p in named if not any(k in n for k in no_decay)], "weight_decay": cfg.weight_decay},
        {"params": [p for n, p in named if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    try:
        return torch.optim.AdamW(groups, lr=cfg.lr, fused=True), True
    except (RuntimeError, TypeError, ValueError):  # an older torch or a device without the fused kernel
        return torch.optim.AdamW(groups, lr=cfg.lr), False


def fit(model, train_df: pd.DataFrame, cfg: TrainConfig, *, seed: int, progress: bool = True) -> dict:
    """Fine-tune ``model`` in place on ``train_df``; returns the loss history and the scaler.

    Returns ``losses`` (per step), ``epoch_loss`` (mean per epoch), ``scaler``, ``n_steps``,
    ``seconds``, ``n_train_rows`` and ``n_quad_pairs`` (pairs that entered the quadruplet term).
    ``progress``: a bar over the steps (never where ``TQDM_DISABLE`` is set, as in the book).
    """
    from transformers import get_linear_schedule_with_warmup

    seed_everything(seed)
    device = _device(cfg)
    _, amp, note = run_precision(cfg)
    model.to(device)
    model.train()
    model.train_precision = cfg.precision  # predict() scores in the same precision
    scaler = LabelScaler.fit(train_df["label"].to_numpy())
    y = torch.tensor(scaler.transform(train_df["label"].to_numpy()), dtype=torch.float32)
    s1, s2, cc = train_df["sentence1"].tolist(), train_df["sentence2"].tolist(), train_df["condition"].tolist()
    rng = np.random.default_rng(seed)
    plan = [_batches(train_df, cfg, rng) for _ in range(cfg.epochs)]
    n_micro = sum(len(p) for p in plan)
    total = sum(math.ceil(len(p) / cfg.grad_accum) for p in plan)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    opt, fused = _optimizer(named, cfg, device)
    sched = get_linear_schedule_with_warmup(opt, int(math.ceil(cfg.warmup_ratio * total)), total)
    grad_scaler = torch.amp.GradScaler("cuda") if amp == torch.float16 else None
    clip = cfg.grad_clip if cfg.grad_clip else None
    losses, epoch_loss = [], []
    n_quad = 0
    t0 = time.perf_counter()
    with torch.autocast(device_type=device.type, dtype=amp or torch.float32, enabled=amp is not None):
        n_filled = model.fill_frozen_cache(s1, s2, cc)
    t_fill = time.perf_counter() - t0

    def update():
        if grad_scaler is not None:
            grad_scaler.unscale_(opt)
        if clip:
            torch.nn.utils.clip_grad_norm_([p for _, p in named], clip)
        if grad_scaler is not None:
            grad_scaler.step(opt)
            grad_scaler.update()
        else:
            opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)

    opt.zero_grad(set_to_none=True)
    with progress_bar(total=n_micro, show=progress, desc=f"train {cfg.label}", leave=False, mininterval=2) as bar:
        for epoch_plan in plan:
            ep = []
            for j, (idx, n_pairs, qmask) in enumerate(epoch_plan):
                with torch.autocast(device_type=device.type, dtype=amp or torch.float32, enabled=amp is not None):
                    scores = model([s1[i] for i in idx], [s2[i] for i in idx], [cc[i] for i in idx])
                mask = None if qmask is None else torch.as_tensor(qmask, device=device)
                n_quad += n_pairs if mask is None else int(mask.sum())
                loss = objective_loss(cfg.objective, scores.float(), y[idx].to(device), n_pairs, cfg.margin, mask)
                # one update per grad_accum micro-batches (the last group of an epoch may be shorter)
                group = min(cfg.grad_accum, len(epoch_plan) - (j // cfg.grad_accum) * cfg.grad_accum)
                scaled = loss / group
                (grad_scaler.scale(scaled) if grad_scaler is not None else scaled).backward()
                if (j + 1) % cfg.grad_accum == 0 or j + 1 == len(epoch_plan):
                    update()
                losses.append(float(loss.detach()))
                ep.append(losses[-1])
                bar.update(1)
            epoch_loss.append(float(np.mean(ep)) if ep else float("nan"))
    q = max(1, len(losses) // 4)
    return {
        "losses": losses,
        "epoch_loss": epoch_loss,
        "scaler": scaler,
        "n_steps": total,
        "n_micro_batches": n_micro,
        "seconds": time.perf_counter() - t0,
        "fill_seconds": t_fill,
        "n_frozen_filled": n_filled,
        "n_train_rows": len(train_df),
        "precision": note,
        "fused_adamw": fused,
        "loss_first_quarter": float(np.mean(losses[:q])) if losses else float("nan"),
        "loss_last_quarter": float(np.mean(losses[-q:])) if losses else float("nan"),
        "n_quad_pairs": n_quad // cfg.epochs if "quad" in cfg.objective else 0,
    }


@torch.no_grad()
def predict(
    model, df: pd.DataFrame, *, batch_size: int = 64, progress: bool = False, precision: str | None = None
) -> np.ndarray:
    """Scores of ``model`` for every row of ``df`` (eval mode, no gradients), shape ``(n,)``;
    ``precision`` (as :class:`TrainConfig`'s) sets the autocast; by default the precision the
    model was trained in (fp32 for an untrained model).

    Rows that read the same input (:meth:`~compsem.csts.models.CSTSModel.score_keys`: both rows of
    a pair in the cross-encoder's ablations) are scored once; rows are scored in order of text
    length (less padding), results returned in row order.
    """
    model.eval()
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    keys = model.score_keys(s1, s2, c)
    first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))  # each key's first row
    rows = np.array(sorted(first.values()), dtype=int)
    back = np.array([first[k] for k in keys], dtype=int)  # every row -> the row scored for it
    s1, s2, c = [s1[i] for i in rows], [s2[i] for i in rows], [c[i] for i in rows]
    n = len(rows)
    order = np.argsort([len(a) + len(b) + len(x) for a, b, x in zip(s1, s2, c)], kind="stable")
    out = np.zeros(n)
    dev = model.device
    precision = precision or getattr(model, "train_precision", None)
    amp = None if precision is None else D.autocast_dtype(str(dev), precision)
    with torch.autocast(device_type=dev.type, dtype=amp or torch.float32, enabled=amp is not None):
        model.fill_frozen_cache(s1, s2, c)
    for i in progress_bar(range(0, n, batch_size), show=progress, desc="predict", leave=False, mininterval=2):
        idx = order[i : i + batch_size]
        with torch.autocast(device_type=dev.type, dtype=amp or torch.float32, enabled=amp is not None):
            pred = model([s1[j] for j in idx], [s2[j] for j in idx], [c[j] for j in idx])
        out[idx] = pred.float().cpu().numpy()
    full = np.zeros(len(back))
    full[rows] = out
    return full[back]
