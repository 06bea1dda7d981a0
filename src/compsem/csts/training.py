"""Fine-tuning C-STS scorers: objectives, paired batches, the training loop and evaluation.

Objectives (labels scaled to [0, 1] with the training set's min and max):

* ``mse``: mean squared error between the score and the scaled label;
* ``quad``: the quadruplet margin loss on a pair's two rows,
  ``max(0, λ + cos(n1, n2) − cos(p1, p2))`` where ``cos(p1, p2)`` is the score of the pair's
  C-High row and ``cos(n1, n2)`` that of its C-Low row (bi- and tri-encoders only);
* ``quad+mse``: the sum of the two.

Every batch holds both rows of each of its sentence pairs, so the quadruplet term is always
defined. Optimiser AdamW, linear schedule with 10 % warm-up, gradient-norm clipping.
"""

from __future__ import annotations

import math
import random
import time
import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import torch
from scipy import stats as sstats

from ..reference import paper_table
from .data import pair_index
from .metrics import correlations
from .models import ENCODINGS, build_model
from .splitting import subsample_pairs
from .zeroshot import pair_accuracy

__all__ = [
    "OBJECTIVES",
    "TrainConfig",
    "LabelScaler",
    "quad_loss",
    "objective_loss",
    "pair_index",
    "pair_batches",
    "subsample_pairs",
    "fit",
    "predict",
    "correlations",
    "train_and_evaluate",
    "sweep",
]

OBJECTIVES = ("mse", "quad", "quad+mse")


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines one fine-tuning run except the seed and the data.

    Defaults are CPU-friendly (short inputs, few epochs); the paper used batch 32, 3 epochs,
    lr in {1e-5, 3e-5}, weight decay in {0, 0.1}.
    """

    encoding: str = "bi"
    objective: str = "mse"
    pooling: str = "mean"
    tri_op: str = "hadamard"
    lr: float = 3e-5
    weight_decay: float = 0.0
    epochs: int = 3
    batch_size: int = 16  # rows per batch (= batch_size // 2 sentence pairs)
    warmup_ratio: float = 0.1
    grad_clip: float = 1.0
    margin: float = 0.5  # λ of the quadruplet loss
    max_length: int = 64
    train_layers: int | None = None  # fine-tune only the top k transformer layers (None: all)
    input_mode: str = "full"  # data ablation (cross-encoder): full | condition_only | sentences_only
    precision: str = "auto"  # auto (bf16/fp16 on GPU, fp32 on CPU) | fp32 | fp16 | bf16
    device: str = "auto"

    def __post_init__(self):
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {self.encoding!r}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if "quad" in self.objective and self.encoding == "cross":
            raise ValueError(
                "the quadruplet loss needs a separate conditional encoding of each sentence; "
                "it applies to bi- and tri-encoders only (use objective='mse' for the cross-encoder)"
            )
        if self.batch_size < 2 or self.batch_size % 2:
            raise ValueError(f"batch_size counts rows and must be even (two rows per pair), got {self.batch_size}")
        if self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}")
        if self.precision not in ("auto", "fp32", "fp16", "bf16"):
            raise ValueError(f"precision must be auto, fp32, fp16 or bf16, got {self.precision!r}")

    @property
    def label(self) -> str:
        """Short name, e.g. ``tri-hadamard/quad+mse``."""
        enc = f"tri-{self.tri_op}" if self.encoding == "tri" else self.encoding
        return f"{enc}/{self.objective}"


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
    """Mean over pairs of ``max(0, margin + score_low − score_high)``.

    ``score_high[i]`` = cos(p1, p2) of pair i's C-High row, ``score_low[i]`` = cos(n1, n2) of
    its C-Low row (shape ``(n_pairs,)`` each).
    """
    if score_high.shape != score_low.shape:
        raise ValueError(f"score_high and score_low shapes differ: {tuple(score_high.shape)} vs {tuple(score_low.shape)}")
    return torch.clamp(margin + score_low - score_high, min=0.0).mean()


def objective_loss(objective: str, scores: torch.Tensor, targets: torch.Tensor, n_pairs: int, margin: float):
    """Loss of one batch laid out as ``[high rows of the pairs..., low rows of the pairs...]``."""
    mse = torch.nn.functional.mse_loss(scores, targets)
    if objective == "mse":
        return mse
    q = quad_loss(scores[:n_pairs], scores[n_pairs:], margin)
    return q if objective == "quad" else q + mse


# ---------------------------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------------------------
def pair_batches(df: pd.DataFrame, batch_size: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffle sentence pairs and cut them into batches of ``batch_size // 2`` pairs.

    Each batch is ``(high_rows, low_rows)``: both rows of every pair in the batch.
    """
    hi, lo = pair_index(df)
    order = rng.permutation(len(hi))
    k = max(1, batch_size // 2)
    return [(hi[order[i : i + k]], lo[order[i : i + k]]) for i in range(0, len(order), k)]


# ---------------------------------------------------------------------------------------------
# training
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


def fit(model, train_df: pd.DataFrame, cfg: TrainConfig, *, seed: int, progress: bool = False) -> dict:
    """Fine-tune ``model`` in place on ``train_df``; returns the loss history and the scaler.

    Returns a dict with ``losses`` (per step), ``epoch_loss`` (mean per epoch), ``scaler``
    (:class:`LabelScaler` fitted on the training labels), ``n_steps`` and ``seconds``.
    """
    from transformers import get_linear_schedule_with_warmup

    seed_everything(seed)
    device = _device(cfg)
    model.to(device)
    model.train()
    scaler = LabelScaler.fit(train_df["label"].to_numpy())
    y = torch.tensor(scaler.transform(train_df["label"].to_numpy()), dtype=torch.float32)
    s1 = train_df["sentence1"].tolist()
    s2 = train_df["sentence2"].tolist()
    cc = train_df["condition"].tolist()
    rng = np.random.default_rng(seed)
    n_batches = math.ceil(len(pair_index(train_df)[0]) / max(1, cfg.batch_size // 2))
    total = n_batches * cfg.epochs
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    params = [
        {"params": [p for n, p in named if not any(k in n for k in no_decay)], "weight_decay": cfg.weight_decay},
        {"params": [p for n, p in named if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(params, lr=cfg.lr)
    sched = get_linear_schedule_with_warmup(opt, int(math.ceil(cfg.warmup_ratio * total)), total)
    amp = _autocast_dtype(cfg, device)
    grad_scaler = torch.amp.GradScaler("cuda") if amp == torch.float16 else None
    losses, epoch_loss = [], []
    t0 = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc=cfg.label, leave=False)
    for _ in range(cfg.epochs):
        ep = []
        for hi, lo in pair_batches(train_df, cfg.batch_size, rng):
            idx = np.concatenate([hi, lo])
            with torch.autocast(device_type=device.type, dtype=amp, enabled=amp is not None):
                scores = model([s1[i] for i in idx], [s2[i] for i in idx], [cc[i] for i in idx])
            loss = objective_loss(cfg.objective, scores.float(), y[idx].to(device), len(hi), cfg.margin)
            opt.zero_grad(set_to_none=True)
            if grad_scaler is not None:
                grad_scaler.scale(loss).backward()
                grad_scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_([p for _, p in named], cfg.grad_clip)
                grad_scaler.step(opt)
                grad_scaler.update()
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_([p for _, p in named], cfg.grad_clip)
                opt.step()
            sched.step()
            losses.append(float(loss.detach()))
            ep.append(losses[-1])
            if bar is not None:
                bar.update(1)
        epoch_loss.append(float(np.mean(ep)))
    if bar is not None:
        bar.close()
    return {
        "losses": losses,
        "epoch_loss": epoch_loss,
        "scaler": scaler,
        "n_steps": total,
        "seconds": time.perf_counter() - t0,
        "n_train_rows": len(train_df),
    }


@torch.no_grad()
def predict(model, df: pd.DataFrame, *, batch_size: int = 64) -> np.ndarray:
    """Scores of ``model`` for every row of ``df`` (eval mode, no gradients), shape ``(n,)``."""
    model.eval()
    out = []
    for i in range(0, len(df), batch_size):
        part = df.iloc[i : i + batch_size]
        out.append(
            model(part["sentence1"].tolist(), part["sentence2"].tolist(), part["condition"].tolist()).float().cpu().numpy()
        )
    return np.concatenate(out) if out else np.zeros(0)


def train_and_evaluate(
    encoder: str,
    train_df: pd.DataFrame,
    eval_sets: dict[str, pd.DataFrame],
    cfg: TrainConfig,
    *,
    seed: int,
    progress: bool = False,
) -> dict:
    """Build a fresh model, fine-tune it, and score it on each evaluation set.

    Returns a flat dict: the config fields, ``seed``, ``encoder``, the first and last epoch
    losses, the training time and ``<split>_spearman`` / ``<split>_pearson`` per eval set.
    """
    seed_everything(seed)
    model = build_model(
        encoder,
        encoding=cfg.encoding,
        pooling=cfg.pooling,
        tri_op=cfg.tri_op,
        max_length=cfg.max_length,
        input_mode=cfg.input_mode,
        seed=seed,
    )
    model.freeze_lower(cfg.train_layers)
    hist = fit(model, train_df, cfg, seed=seed, progress=progress)
    row = {"encoder": encoder, "config": cfg.label, "seed": seed, **asdict(cfg)}
    row.update(
        loss_first_epoch=hist["epoch_loss"][0],
        loss_last_epoch=hist["epoch_loss"][-1],
        train_seconds=hist["seconds"],
        n_train_rows=hist["n_train_rows"],
        examples_per_s=hist["n_train_rows"] * cfg.epochs / max(hist["seconds"], 1e-9),
    )
    for name, df in eval_sets.items():
        pred = predict(model, df)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            corr = correlations(pred, df["label"].to_numpy())
        row[f"{name}_spearman"] = corr["spearman"]
        row[f"{name}_pearson"] = corr["pearson"]
        row[f"{name}_n"] = corr["n"]
        if "role" in df.columns:
            row[f"{name}_pair_accuracy"] = pair_accuracy(pred, df)
    del model
    return row


def sweep(
    encoder: str,
    train_df: pd.DataFrame,
    eval_sets: dict[str, pd.DataFrame],
    configs: list[TrainConfig],
    seeds,
    *,
    progress: bool = True,
) -> pd.DataFrame:
    """``train_and_evaluate`` for every config × seed; one row per run."""
    rows = []
    it = [(c, s) for c in configs for s in seeds]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(it, desc="runs", mininterval=30)
        it = bar
    for cfg, seed in it:
        rows.append(train_and_evaluate(encoder, train_df, eval_sets, cfg, seed=seed))
    return pd.DataFrame(rows)


def default_configs(encodings=("cross", "bi", "tri"), objectives=OBJECTIVES, *, tri_ops=("hadamard",), **common):
    """The Table 3 grid: every encoding × objective that applies (Quad not for cross)."""
    out = []
    for enc in encodings:
        for obj in objectives:
            if enc == "cross" and "quad" in obj:
                continue
            for op in tri_ops if enc == "tri" else ("hadamard",):
                out.append(TrainConfig(encoding=enc, objective=obj, tri_op=op, **common))
    return out


def summarise(runs: pd.DataFrame, *, by=("config",), splits=("validation", "test")) -> pd.DataFrame:
    """Mean ± std over seeds of each split's Spearman and Pearson."""
    cols = [f"{s}_{m}" for s in splits for m in ("spearman", "pearson", "pair_accuracy") if f"{s}_{m}" in runs]
    g = runs.groupby(list(by), sort=False)[cols]
    mean = g.mean().add_suffix("_mean")
    std = g.std(ddof=1).add_suffix("_std")
    out = pd.concat([mean, std], axis=1)
    out["n_seeds"] = runs.groupby(list(by), sort=False).size()
    return out.reset_index()


def mean_pm_std(summary: pd.DataFrame, col: str, *, digits: int = 1) -> list[str]:
    """``"mean ± std"`` strings for ``summary[col + "_mean"]`` / ``summary[col + "_std"]`` (the
    output of :func:`summarise`); the mean alone where the std is undefined (a single seed)."""
    m, s = summary[f"{col}_mean"], summary[f"{col}_std"]
    return [
        "nan" if not np.isfinite(a) else f"{a:.{digits}f} ± {b:.{digits}f}" if np.isfinite(b) else f"{a:.{digits}f}"
        for a, b in zip(m.astype(float), s.astype(float))
    ]


__all__ += ["default_configs", "summarise", "seed_everything", "mean_pm_std"]


def pair_bootstrap_ci(pred, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of Spearman ×100, resampling *sentence pairs* (both rows of a
    pair stay together, as they are not independent). Replicates whose Spearman is undefined
    are dropped."""
    rho = pair_bootstrap_replicates(pred, gold, pair_ids, n_boot=n_boot, seed=seed)
    rho = rho[np.isfinite(rho)]
    a = (1 - level) / 2
    return float(np.quantile(rho, a)), float(np.quantile(rho, 1 - a))


def pair_bootstrap_replicates(pred, gold, pair_ids, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Spearman ×100 of ``n_boot`` pair-resampled replicates (vectorised), shape ``(n_boot,)``.

    Replicate b uses the pairs ``default_rng(seed).integers(0, n_pairs, (n_boot, n_pairs))[b]``
    (pairs in sorted-id order), all rows of each drawn pair.
    """
    from scipy.stats import rankdata

    pred = np.asarray(pred, dtype=float)
    gold = np.asarray(gold, dtype=float)
    ids = np.asarray(pair_ids).astype(str)
    uniq, inv = np.unique(ids, return_inverse=True)
    members = [np.flatnonzero(inv == j) for j in range(len(uniq))]
    if len({len(m) for m in members}) != 1:
        raise ValueError("pair_bootstrap_ci needs the same number of rows in every pair")
    M = np.stack(members)  # (n_pairs, rows_per_pair)
    rng = np.random.default_rng(seed)
    draw = rng.integers(0, len(uniq), size=(n_boot, len(uniq)))
    idx = M[draw].reshape(n_boot, -1)  # (B, n_rows)
    rp = rankdata(pred[idx], axis=1)
    rg = rankdata(gold[idx], axis=1)
    rp -= rp.mean(1, keepdims=True)
    rg -= rg.mean(1, keepdims=True)
    den = np.sqrt((rp**2).sum(1) * (rg**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100 * (rp * rg).sum(1) / den


def reference(name: str) -> pd.DataFrame:
    """A paper table transcribed in ``data/reference/csts_<name>.csv``."""
    return paper_table("csts", name)


__all__ += ["pair_bootstrap_ci", "pair_bootstrap_replicates", "reference", "zero_shot_textpair"]


def zero_shot_textpair(df: pd.DataFrame, encoder: str = "sbert-mini", *, pooling: str = "mean", max_length: int = 64) -> np.ndarray:
    """Zero-shot scores of an *untrained* bi-encoder that reads each sentence together with the
    condition as a text pair, ``cos(f(s1; c), f(s2; c))`` — the paper's Table 2 setting.

    Uses the Hugging Face backbone of :mod:`compsem.csts.models` (mean pooling by default, as
    all-MiniLM-L6-v2 was trained), no fine-tuning. Returns one score per row of ``df``.
    """
    model = build_model(encoder, encoding="bi", pooling=pooling, max_length=max_length, seed=0)
    return predict(model, df)
