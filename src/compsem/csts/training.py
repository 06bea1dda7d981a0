"""Fine-tuning C-STS scorers: presets, objectives, batches, the training loop, prediction.

Objectives (labels scaled to [0, 1] with the training set's min and max):

* ``mse``: mean squared error between the score and the scaled label;
* ``quad``: the quadruplet margin loss on a pair's two rows,
  ``max(0, λ + cos(n1, n2) − cos(p1, p2))`` (bi- and tri-encoders only);
* ``quad+mse``: the sum of the two.

Two presets fix everything but the encoding and the objective: ``"official"`` follows the
authors' code (``princeton-nlp/c-sts``: ``run_sts.sh`` and ``utils/sts``), ``"cpu"`` is what the
book runs on two CPU cores. ``TrainConfig.preset(name, **overrides)`` builds one;
:data:`PRESET_NOTES` says where each setting comes from (the book's table of differences).
This module imports torch: chapters that only read tables do not import it.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd
import torch

from ..progress import wanted
from .data import pair_index
from .models import ENCODINGS, build_model

__all__ = ["OBJECTIVES", "PRESETS", "TrainConfig", "LabelScaler", "quad_loss", "objective_loss", "pair_batches",
           "row_batches", "seed_everything", "fit", "predict", "new_model"]

OBJECTIVES = ("mse", "quad", "quad+mse")

#: The two presets. Keys are :class:`TrainConfig` fields.
PRESETS: dict[str, dict] = {
    "official": dict(pooling="cls", transform=True, condition_transform=True, concat_gelu=True, cross_head="linear",
                     margin=1.0, grad_clip=None, max_length=512, batch_size=32, lr=1e-5, weight_decay=0.1, epochs=3,
                     warmup_ratio=0.1, train_layers=None, paired_mse=False, quad_ties="include", frozen_cache=False),
    "cpu": dict(pooling="mean", transform=False, condition_transform=False, concat_gelu=False, cross_head="sigmoid",
                margin=0.5, grad_clip=1.0, max_length=64, batch_size=16, lr=3e-4, weight_decay=0.0, epochs=1,
                warmup_ratio=0.1, train_layers=2, paired_mse=True, quad_ties="exclude", frozen_cache=True),
}


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines one fine-tuning run except the seed and the data.

    The defaults are the ``"cpu"`` preset; ``TrainConfig.preset("official")`` follows the
    authors' code. ``train_layers``: fine-tune the top k transformer layers (None: all).
    ``paired_mse``: MSE batches also hold both rows of each pair (the code pairs rows only for
    the quadruplet loss). ``quad_ties``: whether pairs with two equal labels enter the
    quadruplet loss (``include``: as the code, the first row in file order counts as C-High).
    ``frozen_cache``: reuse the frozen layers' hidden states across batches and runs.
    """

    encoding: str = "bi"
    objective: str = "mse"
    pooling: str = "mean"
    tri_op: str = "hadamard"
    transform: bool = False
    condition_transform: bool = False
    concat_gelu: bool = False
    cross_head: str = "sigmoid"
    lr: float = 3e-4
    weight_decay: float = 0.0
    epochs: int = 1
    batch_size: int = 16
    warmup_ratio: float = 0.1
    grad_clip: float | None = 1.0
    margin: float = 0.5
    max_length: int = 64
    train_layers: int | None = 2
    paired_mse: bool = True
    quad_ties: str = "exclude"
    frozen_cache: bool = True
    input_mode: str = "full"  # data ablation (cross-encoder): full | condition_only | sentences_only
    precision: str = "auto"  # auto (bf16/fp16 on GPU, fp32 on CPU) | fp32 | fp16 | bf16
    device: str = "auto"

    def __post_init__(self):
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {self.encoding!r}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if "quad" in self.objective and self.encoding == "cross":
            raise ValueError("the quadruplet loss needs a separate conditional encoding of each sentence; it applies "
                             "to bi- and tri-encoders only (use objective='mse' for the cross-encoder)")
        if self.batch_size < 2 or self.batch_size % 2:
            raise ValueError(f"batch_size counts rows and must be even (two rows per pair), got {self.batch_size}")
        if self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}")
        if self.quad_ties not in ("include", "exclude"):
            raise ValueError(f"quad_ties must be 'include' or 'exclude', got {self.quad_ties!r}")
        if self.precision not in ("auto", "fp32", "fp16", "bf16"):
            raise ValueError(f"precision must be auto, fp32, fp16 or bf16, got {self.precision!r}")

    @classmethod
    def preset(cls, name: str = "cpu", **overrides) -> "TrainConfig":
        """The ``"official"`` or ``"cpu"`` preset, with any field overridden."""
        if name not in PRESETS:
            raise ValueError(f"preset must be one of {list(PRESETS)}, got {name!r}")
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown TrainConfig field(s): {sorted(unknown)}")
        return cls(**{**PRESETS[name], **overrides})

    def with_(self, **changes) -> "TrainConfig":
        return replace(self, **changes)

    @property
    def label(self) -> str:
        """Short name, e.g. ``tri-hadamard/quad+mse``."""
        enc = f"tri-{self.tri_op}" if self.encoding == "tri" else self.encoding
        return f"{enc}/{self.objective}"

    def model_options(self) -> dict:
        return dict(pooling=self.pooling, tri_op=self.tri_op, max_length=self.max_length, input_mode=self.input_mode,
                    transform=self.transform, condition_transform=self.condition_transform,
                    concat_gelu=self.concat_gelu, cross_head=self.cross_head)


@dataclass(frozen=True)
class LabelScaler:
    """Affine map of labels to [0, 1] from the training labels' min and max."""

    lo: float
    hi: float

    @classmethod
    def fit(cls, y) -> "LabelScaler":
        y = np.asarray(y, dtype=float)
        if y.size == 0:
            raise ValueError("cannot fit a label scaler on no labels")
        lo, hi = float(np.min(y)), float(np.max(y))
        if hi <= lo:
            raise ValueError(f"all training labels equal {lo}; cannot scale them to [0, 1]")
        return cls(lo, hi)

    def transform(self, y):
        return (np.asarray(y, dtype=float) - self.lo) / (self.hi - self.lo)

    def inverse(self, z):
        return np.asarray(z, dtype=float) * (self.hi - self.lo) + self.lo


# ---------------------------------------------------------------------------------------------
# losses
# ---------------------------------------------------------------------------------------------
def quad_loss(score_high: torch.Tensor, score_low: torch.Tensor, margin: float) -> torch.Tensor:
    """Mean over pairs of ``max(0, margin + score_low − score_high)`` (torch version of
    :func:`compsem.csts.metrics.quad_margin_loss`); 0 when there is no pair."""
    if score_high.shape != score_low.shape:
        raise ValueError(f"score_high and score_low shapes differ: {tuple(score_high.shape)} vs {tuple(score_low.shape)}")
    if score_high.numel() == 0:
        return score_high.sum() * 0.0
    return torch.clamp(margin + score_low - score_high, min=0.0).mean()


def objective_loss(objective: str, scores: torch.Tensor, targets: torch.Tensor, n_pairs: int, margin: float,
                   quad_mask: torch.Tensor | None = None):
    """Loss of one batch laid out as ``[high rows of the pairs..., low rows..., other rows...]``.

    ``quad_mask`` (shape ``(n_pairs,)``, bool) selects the pairs that enter the quadruplet term
    (e.g. no label ties); MSE uses every row.
    """
    mse = torch.nn.functional.mse_loss(scores, targets)
    if objective == "mse":
        return mse
    hi, lo = scores[:n_pairs], scores[n_pairs:2 * n_pairs]
    if quad_mask is not None:
        hi, lo = hi[quad_mask], lo[quad_mask]
    q = quad_loss(hi, lo, margin)
    return q if objective == "quad" else q + mse


# ---------------------------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------------------------
def pair_batches(df: pd.DataFrame, batch_size: int, rng: np.random.Generator, *, label_ties: str = "include"):
    """Shuffle complete sentence pairs and cut them into batches of ``batch_size // 2`` pairs;
    each batch is ``(high_rows, low_rows)``. Rows outside complete pairs are left out."""
    hi, lo = pair_index(df, label_ties=label_ties)
    order = rng.permutation(len(hi))
    k = max(1, batch_size // 2)
    return [(hi[order[i:i + k]], lo[order[i:i + k]]) for i in range(0, len(order), k)]


def row_batches(n: int, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled row positions cut into batches of ``batch_size`` (the code's MSE sampler)."""
    order = rng.permutation(n)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def _batches(df: pd.DataFrame, cfg: TrainConfig, rng) -> list[tuple[np.ndarray, int, np.ndarray | None]]:
    """``(row positions, n_pairs, quad_mask)`` per batch, pairs first (high rows, then low)."""
    tied = df["tied"].to_numpy(bool) if "tied" in df.columns else np.zeros(len(df), bool)
    if cfg.objective == "mse" and not cfg.paired_mse:
        return [(b, 0, None) for b in row_batches(len(df), cfg.batch_size, rng)]
    mask_ties = cfg.objective != "mse" and cfg.quad_ties == "exclude"
    # tied pairs stay in the batch (their rows count for MSE) and are masked out of the quad term
    return [(np.concatenate([hi, lo]), len(hi), ~tied[hi] if mask_ties else None)
            for hi, lo in pair_batches(df, cfg.batch_size, rng)]


# ---------------------------------------------------------------------------------------------
# training and prediction
# ---------------------------------------------------------------------------------------------
def _device(cfg: TrainConfig) -> torch.device:
    if cfg.device != "auto":
        return torch.device(cfg.device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _autocast_dtype(cfg: TrainConfig, device: torch.device):
    if device.type != "cuda" or cfg.precision == "fp32":
        return None
    if cfg.precision == "fp16":
        return torch.float16
    if cfg.precision == "bf16" or torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float16


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


_FROZEN: dict = {}


def new_model(encoder: str, cfg: TrainConfig, *, seed: int, trust_remote_code: bool = False):
    """A fresh model for ``cfg`` (heads seeded), lower layers frozen, frozen cache attached."""
    seed_everything(seed)
    model = build_model(encoder, encoding=cfg.encoding, seed=seed, trust_remote_code=trust_remote_code,
                        **cfg.model_options())
    model.freeze_lower(cfg.train_layers)
    if cfg.frozen_cache and cfg.train_layers is not None:
        key = (encoder, cfg.max_length, cfg.train_layers)
        model.use_frozen_cache(_FROZEN.setdefault(key, {}))
    return model


def fit(model, train_df: pd.DataFrame, cfg: TrainConfig, *, seed: int, progress: bool = False) -> dict:
    """Fine-tune ``model`` in place on ``train_df``; returns the loss history and the scaler.

    Returns ``losses`` (per step), ``epoch_loss`` (mean per epoch), ``scaler``, ``n_steps``,
    ``seconds``, ``n_train_rows`` and ``n_quad_pairs`` (pairs that entered the quadruplet term).
    """
    from tqdm.auto import tqdm
    from transformers import get_linear_schedule_with_warmup

    seed_everything(seed)
    device = _device(cfg)
    model.to(device)
    model.train()
    scaler = LabelScaler.fit(train_df["label"].to_numpy())
    y = torch.tensor(scaler.transform(train_df["label"].to_numpy()), dtype=torch.float32)
    s1, s2, cc = train_df["sentence1"].tolist(), train_df["sentence2"].tolist(), train_df["condition"].tolist()
    rng = np.random.default_rng(seed)
    plan = [_batches(train_df, cfg, rng) for _ in range(cfg.epochs)]
    total = sum(len(p) for p in plan)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    opt = torch.optim.AdamW([
        {"params": [p for n, p in named if not any(k in n for k in no_decay)], "weight_decay": cfg.weight_decay},
        {"params": [p for n, p in named if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ], lr=cfg.lr)
    sched = get_linear_schedule_with_warmup(opt, int(math.ceil(cfg.warmup_ratio * total)), total)
    amp = _autocast_dtype(cfg, device)
    grad_scaler = torch.amp.GradScaler("cuda") if amp == torch.float16 else None
    clip = cfg.grad_clip if cfg.grad_clip else None
    losses, epoch_loss = [], []
    n_quad = 0
    t0 = time.perf_counter()
    with tqdm(total=total, desc=f"train {cfg.label}", leave=False, mininterval=2) as bar:
        for epoch_plan in plan:
            ep = []
            for idx, n_pairs, qmask in epoch_plan:
                with torch.autocast(device_type=device.type, dtype=amp, enabled=amp is not None):
                    scores = model([s1[i] for i in idx], [s2[i] for i in idx], [cc[i] for i in idx])
                mask = None if qmask is None else torch.as_tensor(qmask, device=device)
                n_quad += n_pairs if mask is None else int(mask.sum())
                loss = objective_loss(cfg.objective, scores.float(), y[idx].to(device), n_pairs, cfg.margin, mask)
                opt.zero_grad(set_to_none=True)
                if grad_scaler is not None:
                    grad_scaler.scale(loss).backward()
                    grad_scaler.unscale_(opt)
                    if clip:
                        torch.nn.utils.clip_grad_norm_([p for _, p in named], clip)
                    grad_scaler.step(opt)
                    grad_scaler.update()
                else:
                    loss.backward()
                    if clip:
                        torch.nn.utils.clip_grad_norm_([p for _, p in named], clip)
                    opt.step()
                sched.step()
                losses.append(float(loss.detach()))
                ep.append(losses[-1])
                bar.update(1)
            epoch_loss.append(float(np.mean(ep)) if ep else float("nan"))
    return {"losses": losses, "epoch_loss": epoch_loss, "scaler": scaler, "n_steps": total,
            "seconds": time.perf_counter() - t0, "n_train_rows": len(train_df),
            "n_quad_pairs": n_quad // cfg.epochs if "quad" in cfg.objective else 0}


@torch.no_grad()
def predict(model, df: pd.DataFrame, *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
    """Scores of ``model`` for every row of ``df`` (eval mode, no gradients), shape ``(n,)``.

    Rows are scored in order of text length (less padding), results returned in row order.
    """
    from tqdm.auto import tqdm

    model.eval()
    n = len(df)
    s1, s2, c = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    order = np.argsort([len(a) + len(b) + len(x) for a, b, x in zip(s1, s2, c)], kind="stable")
    out = np.zeros(n)
    for i in tqdm(range(0, n, batch_size), desc="predict", leave=False, disable=not wanted(progress), mininterval=2):
        idx = order[i:i + batch_size]
        out[idx] = model([s1[j] for j in idx], [s2[j] for j in idx], [c[j] for j in idx]).float().cpu().numpy()
    return out
