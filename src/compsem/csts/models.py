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

Activation and dropout of the heads come from the encoder's config, as in the authors' code:
the transform and the concat head use ``hidden_act`` (through ``transformers``' ``ACT2FN``) and
``classifier_dropout`` (``hidden_dropout_prob`` when that is unset); the cross-encoder's
linear head uses ``hidden_dropout_prob``.

Frozen-layer cache: when only the top layers train, the hidden states after the frozen lower
layers depend on the input text alone, so :meth:`CSTSModel.use_frozen_cache` keeps them per
input in a :class:`compsem.csts.frozen.FrozenStore` (memory, and disk across runs) and later
batches run the top layers only (BERT-like encoders; tested to give the same scores as the full
pass, up to the dropout the frozen layers would have applied in training).
:meth:`CSTSModel.fill_frozen_cache` fills it for all the inputs of a data set at once: tokenised
once, sorted by token count, in batches of about :data:`.frozen.FILL_TOKENS` padded tokens
under ``torch.inference_mode``.

Padding-free top layers: with ``packed=True`` (the default) the layers that run per batch —
the top layers on the cached states, or all layers without the cache — see only the real tokens
(:mod:`compsem.csts.packed`: the linear layers, dropout and LayerNorm on the packed tokens, the
padded shape for attention alone). Scores at evaluation equal the padded pass's; in training
only the dropout masks are drawn differently. ``packed=False`` keeps the padded pass of the
encoder's own ``forward`` (and a backbone whose blocks are not BERT-like always uses it).
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path

import torch
from torch import nn

from compsem.errors import HubUnavailableError, check_trust_remote_code

from .config import ENCODINGS, resolve_backbone
from .frozen import FILL_TOKENS, FrozenStore, fill_batches
from .packed import DRAWS, pack_index, packed_layers, supports_packing, unpack

__all__ = [
    "ENCODINGS",
    "POOLINGS",
    "TRI_OPS",
    "CROSS_HEADS",
    "resolve_backbone",
    "load_backbone",
    "Pooler",
    "CSTSModel",
    "build_model",
]

POOLINGS = ("cls", "cls_mlp", "mean")
TRI_OPS = ("concat", "hadamard")
CROSS_HEADS = ("linear", "sigmoid")


_BACKBONES: dict = {}


def load_backbone(name: str, *, fresh_copy: bool = True, trust_remote_code: bool = False):
    """``(AutoModel, AutoTokenizer)`` for an encoder name (see :func:`resolve_backbone`), read
    from disk once per process; each call returns a deep copy (``fresh_copy=True``) so that
    fine-tuning one model never changes the next one's start."""
    check_trust_remote_code(trust_remote_code, where="load_backbone")
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


def _activation(config) -> nn.Module:
    """The encoder's own activation (``config.hidden_act`` through ``ACT2FN``; GELU if unset)."""
    from transformers.activations import ACT2FN

    act = getattr(config, "hidden_act", "gelu")
    return ACT2FN[act] if isinstance(act, str) else act


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
        transform: bool = False,
        condition_transform: bool = False,
        concat_gelu: bool = False,
        cross_head: str = "sigmoid",
        dropout: float | None = None,
        packed: bool = True,
        dropout_draw: str = "one",
    ):
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
        self.packed = bool(packed)
        if dropout_draw not in DRAWS:
            raise ValueError(f"dropout_draw must be one of {DRAWS}, got {dropout_draw!r}")
        self.dropout_draw = dropout_draw  # how the packed layers draw dropout masks (packed.DRAWS)
        d = backbone.config.hidden_size
        cfg = backbone.config
        p_hidden = float(getattr(cfg, "hidden_dropout_prob", 0.1) if dropout is None else dropout)
        p_cls = getattr(cfg, "classifier_dropout", None)
        p = p_hidden if (dropout is not None or p_cls is None) else float(p_cls)
        self.dim = d
        self.pooler = Pooler(pooling, d)
        self.transform = nn.Sequential(nn.Dropout(p), nn.Linear(d, d), _activation(cfg)) if transform else None
        self.condition_transform = (
            nn.Sequential(nn.Dropout(p), nn.Linear(d, d)) if (condition_transform and encoding == "tri") else None
        )
        if encoding == "cross":
            self.head = (
                nn.Sequential(nn.Dropout(p_hidden), nn.Linear(d, 1)) if cross_head == "linear" else nn.Linear(d, 1)
            )
        else:
            self.head = None
        self.mix = None
        if encoding == "tri" and tri_op == "concat":
            self.mix = nn.Sequential(nn.Dropout(p), nn.Linear(2 * d, d), *([_activation(cfg)] if concat_gelu else []))
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
            for layer in list(layers)[len(layers) - train_layers :]:
                for prm in layer.parameters():
                    prm.requires_grad_(True)
            self._n_frozen = len(layers) - train_layers
        return sum(prm.numel() for prm in self.backbone.parameters() if prm.requires_grad)

    def use_frozen_cache(self, store: FrozenStore | dict | None) -> None:
        """Keep the hidden states after the frozen layers per input in ``store`` (a
        :class:`FrozenStore`, or a dict for an in-memory one), which models built from the same
        backbone with the same ``max_length``, frozen layers and precision may share; ``None``
        switches the cache off."""
        if isinstance(store, dict):
            wrapped = FrozenStore(None)
            wrapped._mem = store
            store = wrapped
        self._cache = store

    @contextmanager
    def _layers(self, part: str):
        parent, attr = self._slot
        full = getattr(parent, attr)
        sub = full[: self._n_frozen] if part == "lower" else full[self._n_frozen :]
        setattr(parent, attr, nn.ModuleList(list(sub)))
        try:
            yield
        finally:
            setattr(parent, attr, full)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def _tokenize(self, a, b):
        batch = self.tokenizer(
            list(a),
            None if b is None else list(b),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        return {k: v.to(self.device) for k, v in batch.items()}

    def _lower_states(
        self, keys: list, *, batch_size: int | None = None, order: str = "tokens", max_tokens: int | None = None
    ) -> None:
        """Run the frozen layers on ``keys`` (distinct, not cached) and store the states, in
        batches of ``batch_size`` (all at once by default) and at most ``max_tokens`` padded
        tokens, in ``order`` (:func:`.frozen.fill_batches`)."""
        was = self.backbone.training
        self.backbone.eval()
        try:
            for part, sub in fill_batches(
                self.tokenizer,
                keys,
                max_length=self.max_length,
                batch_size=batch_size or len(keys),
                order=order,
                max_tokens=max_tokens,
            ):
                sub = {k: v.to(self.device) for k, v in sub.items()}
                with torch.inference_mode(), self._layers("lower"):
                    h = self.backbone(**sub).last_hidden_state
                lens = sub["attention_mask"].sum(1).tolist()
                self._cache.add(part, [hh[: int(n)].clone() for hh, n in zip(h, lens)])
        finally:
            self.backbone.train(was)

    def fill_frozen_cache(
        self, s1, s2, c, *, batch_size: int = 512, order: str = "tokens", max_tokens: int | None = FILL_TOKENS
    ) -> int:
        """Compute the frozen layers' states of every input the rows ``(s1, s2, c)`` need that
        the cache lacks — tokenised once, sorted by token count (``order``, see
        :func:`.frozen.fill_batches`), in batches of at most ``batch_size`` rows and
        ``max_tokens`` padded tokens under ``inference_mode`` — and return how many."""
        if self._cache is None or self._n_frozen == 0:
            return 0
        todo = self._cache.missing(self.frozen_keys(s1, s2, c))
        if todo:
            self._lower_states(todo, batch_size=batch_size, order=order, max_tokens=max_tokens)
        return len(todo)

    def _packs(self, layers) -> bool:
        """Whether the padding-free pass (:mod:`.packed`) runs ``layers`` of this backbone."""
        return (
            self.packed
            and getattr(self.tokenizer, "padding_side", "right") == "right"
            and supports_packing(self.backbone, layers)
        )

    def _all_layers(self) -> list:
        slot = self._slot or _layer_slot(self.backbone)
        return [] if slot is None else list(getattr(*slot))

    def _encode(self, a: list[str], b: list[str] | None = None) -> torch.Tensor:
        if self._cache is None or self._n_frozen == 0:
            batch = self._tokenize(a, b)
            mask = batch["attention_mask"]
            layers = self._all_layers()
            if layers and hasattr(self.backbone, "embeddings") and self._packs(layers):
                emb = self.backbone.embeddings(input_ids=batch["input_ids"], token_type_ids=batch.get("token_type_ids"))
                flat = pack_index(mask)
                x = packed_layers(layers, emb.reshape(-1, self.dim).index_select(0, flat), mask, draw=self.dropout_draw)
                return self.pooler(unpack(x, flat, tuple(mask.shape)), mask)
            out = self.backbone(**batch)
            return self.pooler(out.last_hidden_state, mask)
        keys = list(zip(a, b if b is not None else [None] * len(a)))
        missing = self._cache.missing(keys)
        if missing:
            self._lower_states(missing)
        top = self._all_layers()[self._n_frozen :]
        if self._packs(top):
            # padding-free: the cached states are already one row per real token
            hs = [self._cache.get(k) for k in keys]
            lens = torch.tensor([h.shape[0] for h in hs], device=self.device)
            mask = (torch.arange(int(lens.max()), device=self.device)[None, :] < lens[:, None]).long()
            x = torch.cat(hs).to(self.device)
            if top:
                x = packed_layers(top, x, mask, draw=self.dropout_draw)
            return self.pooler(unpack(x, pack_index(mask), tuple(mask.shape)), mask)
        batch = self._tokenize(a, b)
        seq = batch["input_ids"].shape[1]
        states = torch.zeros(len(keys), seq, self.dim, device=self.device)
        for i, k in enumerate(keys):
            hk = self._cache.get(k)
            states[i, : hk.shape[0]] = hk

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

    # -- inputs -----------------------------------------------------------------------------
    def _cross_texts(self, s1, s2, c) -> list[str]:
        sep = self.tokenizer.sep_token or " "
        if self.input_mode == "condition_only":
            return list(c)
        if self.input_mode == "sentences_only":
            return [f"{a} {sep} {bb}" for a, bb in zip(s1, s2)]
        return [f"{a} {sep} {bb} {sep} {cc}" for a, bb, cc in zip(s1, s2, c)]

    def frozen_keys(self, s1, s2, c) -> list[tuple[str, str | None]]:
        """The inputs ``(text, text pair or None)`` the encoder reads for these rows."""
        if self.encoding == "cross":
            return [(t, None) for t in self._cross_texts(s1, s2, c)]
        if self.encoding == "bi":
            return list(zip(list(s1) + list(s2), list(c) + list(c)))
        return [(t, None) for t in dict.fromkeys(list(s1) + list(s2) + list(c))]

    def score_keys(self, s1, s2, c) -> list:
        """One key per row: rows with equal keys read the same input and score the same at
        evaluation (the cross-encoder's text, else the row's three texts)."""
        return self._cross_texts(s1, s2, c) if self.encoding == "cross" else list(zip(s1, s2, c))

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
            e1, e2, ec = self._sent(z[:n]), self._sent(z[n : 2 * n]), z[2 * n :]
            if self.condition_transform is not None:
                ec = self.condition_transform(ec)
            return self._mix(ec, e1), self._mix(ec, e2)
        raise ValueError("embed_pair is defined for bi- and tri-encoders only")

    def forward(self, s1, s2, c) -> torch.Tensor:
        if not (len(s1) == len(s2) == len(c)):
            raise ValueError(f"s1, s2, c must have the same length, got {len(s1)}, {len(s2)}, {len(c)}")
        if self.encoding == "cross":
            # an input shared by several rows (both rows of a pair in the ablations) is encoded once
            texts = self._cross_texts(s1, s2, c)
            uniq = list(dict.fromkeys(texts))
            z = self._encode(uniq)
            if len(uniq) < len(texts):
                where = {t: i for i, t in enumerate(uniq)}
                z = z[torch.tensor([where[t] for t in texts], device=z.device)]
            out = self.head(self._sent(z)).squeeze(-1)
            return torch.sigmoid(out) if self.cross_head == "sigmoid" else out
        u1, u2 = self.embed_pair(s1, s2, c)
        return nn.functional.cosine_similarity(u1.float(), u2.float(), dim=-1)


def build_model(
    encoder: str, *, encoding: str = "bi", seed: int | None = None, trust_remote_code: bool = False, **options
) -> CSTSModel:
    """Load ``encoder`` (see :func:`resolve_backbone`) and wrap it as a :class:`CSTSModel`
    (``options``: the keyword arguments of :class:`CSTSModel`). ``seed`` seeds torch before
    the new heads are initialised."""
    backbone, tok = load_backbone(encoder, trust_remote_code=trust_remote_code)
    if seed is not None:
        torch.manual_seed(seed)
    return CSTSModel(backbone, tok, encoding=encoding, **options)
