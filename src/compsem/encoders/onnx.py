"""ONNX Runtime as the encode backend of the shipped sentence-transformers encoders.

``sbert-mini`` and ``sbert-l`` (a transformer, mean or CLS pooling, optional normalisation) can
run their forward pass in ONNX Runtime at fp32 instead of torch. How it is chosen:

* the backend is requested by ``$COMPSEM_ENCODE_BACKEND`` (:data:`BACKENDS`): ``auto`` (the
  default), ``torch``, ``onnx`` or ``onnx-int8``;
* ``auto`` applies to the shipped specs (:data:`SHIPPED`) on the CPU. At the first call with at
  least :data:`MIN_TEXTS` texts, a check batch of that call's texts is encoded by both backends,
  interleaved, :data:`CHECK_ROUNDS` times. ONNX Runtime is used only if its vectors equal
  torch's within :data:`TOLERANCE` (max abs) and its median time is at least
  :data:`SPEEDUP_MIN` times shorter; otherwise torch runs. The choice is kept beside the export
  for this machine (:func:`machine_key`), so every later build here uses the same backend
  (two builds give the same digits). Smaller calls run on torch;
* ``onnx`` uses ONNX Runtime for any eligible sentence-transformers model whatever its speed,
  still only if the check batch agrees within :data:`TOLERANCE` (else torch, with a warning);
* ``onnx-int8`` is dynamic int8 quantisation of the weights: faster, but its vectors are not
  torch's (cosines moved by up to 0.14 on sbert-mini when measured), so it is never chosen by
  default and the encoder's identity (the embedding cache's key) gains :data:`INT8_LABEL`. fp32 ONNX leaves the identity
  unchanged: the vectors are the same within :data:`TOLERANCE`, so they share torch's key.

The graph is exported once with torch's TorchScript-based exporter (``torch.onnx.export(...,
dynamo=False)``, which needs the ``onnx`` package; the dynamo exporter would also need
``onnxscript``) and kept in ``<cache>/onnx/``, keyed by the model identity, the versions of
torch and onnx, the opset and :data:`EXPORT_VERSION` (or in the overlay folder when the cache is
read-only). :func:`backends_used` says which backend ran for each spec in this process; the
provenance of every result table carries it (``compsem.results.provenance``).
"""

from __future__ import annotations

import hashlib
import math
import os
import time
import warnings
from pathlib import Path

import numpy as np

from ..data import file_sha256
from ..errors import CacheWarning, CompsemError
from ..device import machine_key
from ..paths import cache_dir, overlay_dir
from ..progress import bar
from ..settings import setting
from ..store import BrokenStoreError, can_write, private_folder, read_json, write_atomic, write_json
from . import onnxtrust
from .base import package_version
from .facts import RecordError

__all__ = [
    "BACKENDS",
    "ENV",
    "SHIPPED",
    "TOLERANCE",
    "MIN_TEXTS",
    "SPEEDUP_MIN",
    "INT8_LABEL",
    "EXPORT_VERSION",
    "LONG_CHARS",
    "MAX_SCALE",
    "length_batches",
    "OnnxBackend",
    "BackendError",
    "requested_backend",
    "unsupported_reason",
    "attach",
    "backends_used",
    "export_key",
    "machine_key",
]

#: What ``$COMPSEM_ENCODE_BACKEND`` accepts.
BACKENDS: tuple[str, ...] = ("auto", "torch", "onnx", "onnx-int8")
ENV = "COMPSEM_ENCODE_BACKEND"
#: The specs ``auto`` considers (the shipped transformer encoders).
SHIPPED: tuple[str, ...] = ("sbert-mini", "sbert-l")
TOLERANCE = onnxtrust.TOLERANCE  # largest max abs difference from torch's vectors on the check batch
#: Calls with fewer texts run on torch (the first-use check would cost more than it saves).
MIN_TEXTS = 256
#: Texts in the check batch, and interleaved rounds of timing on it.
CHECK_SIZE = 64
CHECK_ROUNDS = 3
#: ``auto`` takes ONNX Runtime only when torch's median time is at least this many times its own.
SPEEDUP_MIN = 1.05
#: Texts under LONG_CHARS characters go in batches up to MAX_SCALE × larger (:func:`length_batches`).
LONG_CHARS, MAX_SCALE = 64, 8
#: What an int8 encoder's identity gains (its vectors differ from torch's).
INT8_LABEL = "|backend=onnxruntime-int8-dynamic"
#: Bump when the exported graph changes (the cached exports are then made again).
EXPORT_VERSION = 1
OPSET = 17

_USED: dict[str, set[str]] = {}


class BackendError(CompsemError, ValueError):
    """An encode backend that does not exist, or that this model cannot run on."""


def backends_used() -> dict[str, str]:
    """``{spec: backends}`` of every encode that ran in this process through an encoder with a
    backend choice: ``"torch"``, ``"onnxruntime fp32"``, ``"onnxruntime int8 (dynamic)"``, or
    two joined by ``" + "`` when small calls ran on torch before the check chose ONNX Runtime."""
    return {spec: " + ".join(sorted(used)) for spec, used in _USED.items()}


def requested_backend(value: str | None = None) -> str:
    """``value`` or ``$COMPSEM_ENCODE_BACKEND`` (default ``auto``), checked against :data:`BACKENDS`."""
    if value is None:
        return setting(ENV)  # checked like every COMPSEM_* variable (compsem.settings)
    got = value.strip() or "auto"
    if got not in BACKENDS:
        raise BackendError(f"encode backend {got!r} is not known ({ENV}); accepted: {', '.join(BACKENDS)}")
    return got


def _pooling(st_model) -> str | None:
    pool = st_model[1]
    mode = getattr(pool, "pooling_mode", None) or pool.get_config_dict().get("pooling_mode")
    if mode is None:  # older sentence-transformers: one flag per mode
        flags = {m: bool(getattr(pool, f"pooling_mode_{m}_tokens", False)) for m in ("mean", "cls")}
        mode = next((m for m, on in flags.items() if on), None) if sum(flags.values()) == 1 else None
    return mode if mode in ("mean", "cls") else None


def unsupported_reason(st_model, device: str) -> str | None:
    """Why this sentence-transformers model cannot run in ONNX Runtime here, or None if it can:
    it must be on the CPU and be a transformer + mean or CLS pooling (+ normalisation)."""
    names = [type(m).__name__ for m in st_model]
    if not device.startswith("cpu"):
        return f"it runs on {device}, and the ONNX backend is for the CPU"
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return f"its modules are {'+'.join(names)}, not Transformer+Pooling(+Normalize)"
    if _pooling(st_model) is None:
        return "its pooling is neither mean nor CLS"
    if not hasattr(st_model[0], "auto_model"):
        return "its transformer module holds no Hugging Face model"
    return None


def export_key(identity: str, *, int8: bool = False) -> str:
    """The cached export's key: the model identity, the exporter's versions, opset, int8."""
    parts = [
        identity,
        f"torch={package_version('torch')}",
        f"onnx={package_version('onnx')}",
        f"opset={OPSET}",
        f"export={EXPORT_VERSION}",
        f"int8={int8}",
    ]
    if int8:
        parts.append(f"onnxruntime={package_version('onnxruntime')}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


class _Graph:
    """The torch module that is exported: transformer, pooling and normalisation in one graph."""

    def __new__(cls, st_model):
        import torch

        class Graph(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = st_model[0].auto_model
                self.mode = _pooling(st_model)
                self.normalize = len(st_model) == 3

            def forward(self, input_ids, attention_mask, token_type_ids=None):
                kw = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
                h = self.model(input_ids=input_ids, attention_mask=attention_mask, **kw).last_hidden_state
                if self.mode == "cls":
                    pooled = h[:, 0]
                else:  # the same sum and clamp as sentence-transformers' mean pooling
                    m = attention_mask.unsqueeze(-1).to(h.dtype)
                    pooled = (h * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)
                if self.normalize:
                    pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                return pooled

        return Graph().eval()


def length_batches(texts: list[str], batch_size: int) -> list[np.ndarray]:
    """Indices of ``texts`` in batches, longest texts first (sorted by characters, ties in input
    order). A batch whose longest text has at least :data:`LONG_CHARS` characters holds
    ``batch_size`` texts; shorter ones go in proportionally larger batches (up to :data:`MAX_SCALE`
    times), so that short phrases are not mostly call overhead. Rows never attend to each other:
    the vectors depend on the batching only through float rounding."""
    order = np.argsort([-len(t) for t in texts], kind="stable")
    out, s = [], 0
    while s < len(order):
        longest = max(1, len(texts[order[s]]))
        size = batch_size if longest >= LONG_CHARS else min(MAX_SCALE * batch_size, batch_size * LONG_CHARS // longest)
        out.append(order[s : s + size])
        s += size
    return out


class OnnxBackend:
    """ONNX Runtime for one sentence-transformers model (see the module's docstring)."""

    def __init__(self, st_model, *, spec: str, identity: str, mode: str):
        self.st, self.spec, self.identity, self.mode = st_model, spec, identity, mode
        self.int8 = mode == "onnx-int8"
        self.session = None
        self.decision: dict | None = {"backend": "onnxruntime int8 (dynamic)"} if self.int8 else None
        self.inputs = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in self._features(["a check"])]

    def _features(self, texts: list[str]) -> dict:
        """The model's own tokenisation (sentence-transformers' ``preprocess``, ``tokenize`` before 6)."""
        module = self.st[0]
        return module.preprocess(texts) if hasattr(module, "preprocess") else module.tokenize(texts)

    # -- the export ---------------------------------------------------------------------------
    def _folder(self) -> Path:
        name = f"{self.spec.replace('/', '_').replace(':', '_')[:40]}-{export_key(self.identity, int8=self.int8)}"
        main = cache_dir("onnx", create=False) / name
        if (main / "model.onnx").is_file() or can_write(main):
            return main
        # a read-only shared cache: exports go to this user's private overlay (checked, 0700)
        return private_folder(overlay_dir()) / "onnx" / name

    def _export(self, path: Path) -> None:
        import torch

        batch = self._features(["a short one", "a somewhat longer text for the export to trace"])
        args = tuple(batch[k] for k in self.inputs)
        axes = {k: {0: "batch", 1: "tokens"} for k in self.inputs} | {"embedding": {0: "batch"}}

        def write(tmp: Path) -> None:
            with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
                warnings.simplefilter("ignore")  # the tracer's notes on shape-constant branches
                torch.onnx.export(
                    _Graph(self.st),
                    args,
                    str(tmp),
                    dynamo=False,
                    input_names=self.inputs,
                    output_names=["embedding"],
                    dynamic_axes=axes,
                    opset_version=OPSET,
                )
            if self.int8:
                from onnxruntime.quantization import QuantType, quantize_dynamic

                fp32 = tmp.with_name(tmp.name + ".fp32")
                os.replace(tmp, fp32)
                try:
                    quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8)
                finally:
                    fp32.unlink(missing_ok=True)

        write_atomic(path, write)
        onnxtrust.vouch(sha := file_sha256(path))
        write_json(
            path.with_name("export.json"),
            {
                "identity": self.identity,
                "sha256": sha,
                "torch": package_version("torch"),
                "onnx": package_version("onnx"),
                "opset": OPSET,
                "export_version": EXPORT_VERSION,
                "int8": self.int8,
            },
            indent=1,
        )

    def _load(self):
        """Open the export (made first when missing or not matching its record); one this user
        did not write is used only after it agrees with torch on a probe drawn from
        ``self._about_to_embed``, the texts of the call that opens it
        (:mod:`compsem.encoders.onnxtrust`)."""
        import onnxruntime as ort
        import torch

        path = self._folder() / "model.onnx"
        sha = file_sha256(path) if path.is_file() else None
        if sha is not None:
            try:
                meta = read_json(path.with_name("export.json"))
                ok = isinstance(meta, dict) and meta.get("identity") == self.identity and meta.get("sha256") == sha
            except (FileNotFoundError, BrokenStoreError):
                ok = False
            if not ok:
                warnings.warn(f"{path} does not match its export record; exporting {self.spec} again", stacklevel=3)
                sha = None
        if sha is None:
            self._export(path := self._writable(path))
        self.session, self.path = self._session(path, ort, torch), path
        if onnxtrust.trusted(file_sha256(path)):
            return
        # an export this user neither wrote nor verified here: checked against torch once (onnxtrust)
        diff = (
            math.inf
            if self.int8
            else onnxtrust.probe_difference(
                lambda t: self._torch(t, 8),
                lambda t: self.encode_onnx(t, batch_size=8),
                getattr(self, "_about_to_embed", ()),
            )
        )
        if diff <= onnxtrust.TOLERANCE:
            onnxtrust.vouch(file_sha256(path), wrote=False)  # for this process: the next one draws again
            return
        warnings.warn(
            f"{path} was not written or verified by you on this machine and "
            f"{'is an int8 export' if self.int8 else f'differs from torch by {diff:.1e} on probe sentences'}"
            f"; exporting {self.spec} again",
            stacklevel=3,
        )
        self._export(path := self._writable(path))
        self.session, self.path = self._session(path, ort, torch), path

    def _writable(self, path: Path) -> Path:
        """``path``, or its twin in this user's private overlay when its folder cannot be written."""
        if can_write(path):
            return path
        return private_folder(overlay_dir()) / "onnx" / path.parent.name / path.name

    @staticmethod
    def _session(path: Path, ort, torch):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = torch.get_num_threads()
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # no busy-waiting between calls: the idle threads would take the cores from torch (the
        # check, the other encoders, training) and from other users of a shared machine
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    # -- encoding -----------------------------------------------------------------------------
    def encode_onnx(self, texts: list[str], *, batch_size: int = 32, show_progress: bool = False) -> np.ndarray:
        """Embed ``texts`` in ONNX Runtime: sorted by length (as sentence-transformers does),
        tokenised by the model's own tokenizer, batch by batch (:func:`length_batches`: short
        texts in larger batches), in the original order."""

        if self.session is None:
            self._about_to_embed = texts  # what the trust check draws its probe from
            self._load()
        out = None
        for idx in bar(length_batches(texts, batch_size), show=show_progress, desc=f"{self.spec} (onnx)"):
            feats = self._features([texts[i] for i in idx])
            got = self.session.run(None, {k: feats[k].numpy().astype(np.int64) for k in self.inputs})[0]
            if out is None:
                out = np.empty((len(texts), got.shape[1]), dtype=np.float32)
            out[idx] = got
        return out

    def _torch(self, texts: list[str], batch_size: int) -> np.ndarray:
        return self.st.encode(texts, batch_size=batch_size, show_progress_bar=False, convert_to_numpy=True)

    def check(self, texts: list[str], *, batch_size: int = 32) -> dict:
        """Encode a check batch of ``texts`` with both backends, interleaved
        :data:`CHECK_ROUNDS` times; return the max abs difference and the median times."""
        step = max(1, len(texts) // CHECK_SIZE)
        batch = list(texts[::step][:CHECK_SIZE])
        a, b = self._torch(batch, batch_size), self.encode_onnx(batch, batch_size=batch_size)  # warm-up
        t_torch, t_onnx = [], []
        for _ in range(CHECK_ROUNDS):
            t0 = time.perf_counter()
            self._torch(batch, batch_size)
            t1 = time.perf_counter()
            self.encode_onnx(batch, batch_size=batch_size)
            t_torch.append(t1 - t0)
            t_onnx.append(time.perf_counter() - t1)
        return {
            "texts": len(batch),
            "max_abs": float(np.abs(a - b).max()),
            "torch_s": float(np.median(t_torch)),
            "onnx_s": float(np.median(t_onnx)),
            "speedup": float(np.median(t_torch) / np.median(t_onnx)),
        }

    def _decision_file(self) -> Path:
        """Where the choice of ``auto`` is kept for this machine (next to the export)."""
        return self._folder() / f"decision-{machine_key()}.json"

    def decide(self, texts: list[str], *, batch_size: int = 32) -> dict:
        """Measure once (:meth:`check`) and keep the choice: for the rest of the process, and on
        disk for this machine (:func:`machine_key`), so that every later build here encodes with
        the same backend and prints the same digits. ``onnx`` (asked for by name) measures
        speed afresh; a stored choice whose file is damaged is measured again."""
        stored = self._decision_file()
        if self.mode == "auto" and stored.is_file():
            try:
                self.decision = {**onnxtrust.read_decision(stored, self.identity), "stored": str(stored)}
                return self.decision
            except RecordError as exc:  # checked, not trusted: measured again
                warnings.warn(f"{exc}: ignored; measuring again", CacheWarning, stacklevel=3)
        try:
            res = self.check(texts, batch_size=batch_size)
        except Exception as exc:  # noqa: BLE001 - any failure of the export or the runtime: torch runs
            self.decision = {"backend": "torch", "reason": f"ONNX Runtime failed: {type(exc).__name__}: {exc}"[:300]}
            warnings.warn(f"{self.spec}: {self.decision['reason']}; encoding with torch", stacklevel=3)
            return self.decision
        equal = res["max_abs"] <= TOLERANCE
        faster = res["speedup"] >= SPEEDUP_MIN or self.mode == "onnx"
        use = "onnxruntime fp32" if equal and faster else "torch"
        why = (
            "equal within the tolerance and faster"
            if use != "torch"
            else "vectors differ by more than the tolerance"
            if not equal
            else "not measured faster"
        )
        if not equal and self.mode == "onnx":
            warnings.warn(
                f"{self.spec}: ONNX Runtime's vectors differ from torch's by {res['max_abs']:.1e} "
                f"(more than {TOLERANCE:.0e}); encoding with torch",
                stacklevel=3,
            )
        self.decision = {"backend": use, "reason": why, "identity": self.identity, **res}
        if self.mode == "auto":
            try:
                write_json(stored, self.decision, indent=1)
            except OSError:  # a read-only folder: the choice holds for this process only
                pass
        return self.decision

    def encode(self, texts: list[str], *, batch_size: int, show_progress: bool) -> np.ndarray | None:
        """The vectors from ONNX Runtime, or None where torch is to run (the caller's own path)."""
        if self.int8:
            _USED.setdefault(self.spec, set()).add(self.decision["backend"])
            return self.encode_onnx(texts, batch_size=batch_size, show_progress=show_progress)
        if self.decision is None and len(texts) >= MIN_TEXTS:
            self.decide(texts, batch_size=batch_size)
        use = (self.decision or {}).get("backend", "torch")
        _USED.setdefault(self.spec, set()).add(use)
        if use == "torch":
            return None
        return self.encode_onnx(texts, batch_size=batch_size, show_progress=show_progress)


def attach(st_model, *, spec: str, identity: str, device: str, backend: str | None = None) -> OnnxBackend | None:
    """The ONNX backend of a sentence-transformers encoder, or None where torch always runs.

    ``backend`` (default ``$COMPSEM_ENCODE_BACKEND``): ``auto`` attaches to the shipped specs
    that can run in ONNX Runtime; ``onnx`` and ``onnx-int8`` to any model that can (and raise
    :class:`BackendError`, saying why, for one that cannot); ``torch`` to none.
    """
    mode = requested_backend(backend)
    if mode == "torch" or (mode == "auto" and spec not in SHIPPED):
        return None
    why = unsupported_reason(st_model, device)
    if why is not None:
        if mode == "auto":
            return None
        raise BackendError(f"{spec} cannot be encoded with {mode}: {why}; use {ENV}=torch or auto")
    if package_version("onnxruntime") is None or package_version("onnx") is None:
        if mode == "auto":
            return None
        raise BackendError(f"{mode} needs the PyPI packages onnxruntime and onnx (pinned in requirements-lock.txt)")
    return OnnxBackend(st_model, spec=spec, identity=identity, mode=mode)
