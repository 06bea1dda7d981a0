"""Units of a chapter's heavy work, declared before anything runs (``python -m compsem prefetch``).

Every study's ``study.planned_work(params)`` returns a list of :class:`WorkUnit`: one model's
embeddings of a chunk of texts (``"embed"``), one scorer's block of a Part IV matrix
(``"score"``), one C-STS fine-tuning run (``"train"``), one generator's batch of Part I windows
(``"generate"``). A unit is independent of the others, needs one device at most, and has a
stable ``key``: a rerun recognises what is already stored and does only the rest.

The embedding units are the same for every study, so they live here:

* :func:`embed_units` cuts each model's texts (a study's ``planned_texts``) into chunks;
* :func:`encode_chunk` runs on a worker: it loads the model and returns the vectors, writing
  nothing;
* :func:`store_vectors` runs where the cache is (the driver): one transaction per chunk;
* :func:`embed_done` says whether the cache already holds a chunk.

The chunks follow :func:`compsem.embed`'s own order (longest text first, 1,024 texts per model
call), so that a chunk prefetched here gives the very vectors a chapter's ``embed`` call would
have computed for the same texts.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cache import EmbeddingCache, text_key
from .encoders import get_encoder

__all__ = [
    "KINDS",
    "WorkUnit",
    "EMBED_CALL",
    "UNCACHED",
    "unit_key",
    "chunk_size_for",
    "embed_units",
    "embed_order",
    "encode_chunk",
    "store_vectors",
    "embed_done",
    "total_cost",
]

#: The kinds of unit, in the order a sweep lists them.
KINDS = ("embed", "score", "train", "generate")

#: Texts per encoder call in :func:`compsem.embed` (its ``chunk_size`` default); an embedding
#: unit holds a whole number of such calls.
EMBED_CALL = 1024

#: Specs that :func:`compsem.embed` never caches (cheaper to recompute): nothing to prefetch.
UNCACHED = ("glove-50d", "bow", "random", "bow:", "random:", "vec:")

#: Seconds a unit should last on the target device.
TARGET_SECONDS = 60.0


@dataclass(frozen=True)
class WorkUnit:
    """One independent piece of a chapter's heavy work.

    Attributes
    ----------
    kind : {"embed", "score", "train", "generate"}
    spec : str
        The model (encoder, scorer or generator spec) the unit runs.
    key : str
        Stable identity of the unit's result: the same parameters give the same key.
    study : str
        The study whose ``study.py`` runs and stores non-embedding units.
    payload : dict
        What the worker needs: the texts of a chunk, a block's rows and columns, a run's
        configuration. Never compared or hashed.
    count : int
        Texts, ordered pairs or runs in the unit.
    cost_s : float or None
        Estimated seconds on the benchmark machine (``benchmarks/results.json``), None unknown.
    size_gb : float or None
        The model's download size (``paper_models/<study>.csv``), a stand-in for its memory.
    """

    kind: str
    spec: str
    key: str
    study: str
    payload: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    count: int = 0
    cost_s: float | None = None
    size_gb: float | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown unit kind {self.kind!r}; choose from {', '.join(KINDS)}")

    @property
    def name(self) -> str:
        """A readable label: kind, model and the first characters of the key."""
        return f"{self.kind} {self.spec} [{self.key[:10]}]"


def unit_key(*parts: Any) -> str:
    """A 20-character hash of ``parts`` (joined by newlines after ``str``)."""
    return hashlib.sha256("\n".join(map(str, parts)).encode("utf-8")).hexdigest()[:20]


def chunk_size_for(rate: float | None, *, seconds: float = TARGET_SECONDS, step: int = EMBED_CALL) -> int:
    """Texts per embedding unit so that one lasts about ``seconds`` at ``rate`` texts per second:
    a whole number of ``step`` (at least one); ``step`` when the rate is unknown."""
    if not rate or not math.isfinite(rate) or rate <= 0:
        return step
    return max(1, round(rate * seconds / step)) * step


def embed_order(texts: Sequence[str]) -> list[str]:
    """Unique texts, longest first (ties in first-seen order): the order in which
    :func:`compsem.embed` encodes what it does not find in the cache."""
    return sorted(dict.fromkeys(texts), key=lambda t: -len(t))


def embed_units(
    study: str,
    per_model: Mapping[str, Sequence[str]],
    *,
    chunk: int | Mapping[str, int] | None = None,
    rates: Mapping[str, float] | None = None,
    sizes: Mapping[str, float] | None = None,
    groups: Mapping[str, Sequence[int]] | None = None,
    trust_remote_code: bool = False,
) -> list[WorkUnit]:
    """One ``"embed"`` unit per (model, chunk of its texts), for ``{spec: texts}``.

    Specs the cache never stores (:data:`UNCACHED`) and scorers that embed nothing (``lexical``,
    ``nli:``, ``gen:``) give no unit. ``chunk`` (texts per unit, one number or per spec) defaults
    to :func:`chunk_size_for` of the spec's rate in ``rates`` (texts per second).

    ``groups[spec]`` (optional) cuts a spec's distinct texts, in first-seen order, into
    consecutive groups of these sizes: the texts of the chapter's successive ``embed`` calls
    (each call encodes what the previous ones left). Each group is sorted and chunked on its
    own, so that the units encode in the very batches the chapter would (a text's vector can
    differ in its last bits with its batch-mates).
    """
    rates, sizes = rates or {}, sizes or {}
    units = []
    for spec, texts in per_model.items():
        if spec.startswith(UNCACHED) or spec == "lexical" or spec.startswith(("nli:", "gen:")):
            continue
        size = chunk.get(spec) if isinstance(chunk, Mapping) else chunk
        size = int(size) if size else chunk_size_for(rates.get(spec))
        if size < 1:
            raise ValueError(f"chunk size must be at least 1, got {size} for {spec}")
        distinct = list(dict.fromkeys(texts))
        bounds = list(itertools.accumulate((groups or {}).get(spec, [])))
        if bounds and bounds[-1] != len(distinct):
            raise ValueError(f"{spec}: groups of {bounds[-1]} texts for {len(distinct)} distinct texts")
        rate = rates.get(spec)
        for g0, g1 in zip([0, *bounds], bounds or [len(distinct)]):
            ordered = embed_order(distinct[g0:g1])
            for s in range(0, len(ordered), size):
                part = ordered[s : s + size]
                units.append(
                    WorkUnit(
                        "embed",
                        spec,
                        unit_key("embed", spec, *part),
                        study,
                        {"texts": part, "trust_remote_code": bool(trust_remote_code)},
                        len(part),
                        len(part) / rate if rate else None,
                        sizes.get(spec),
                    )
                )
    return units


def encode_chunk(
    spec: str, texts: Sequence[str], *, trust_remote_code: bool = False, device: str | None = None, batch_size: int = 32
) -> dict:
    """Encode ``texts`` (already in :func:`embed_units`' order) as :func:`compsem.embed` would:
    :data:`EMBED_CALL` texts per encoder call. Writes nothing.

    Returns ``{"identity", "spec", "dim", "vectors"}`` (vectors float32, row i for ``texts[i]``).
    """
    enc = get_encoder(spec, trust_remote_code=trust_remote_code, device=device)
    texts = list(texts)
    parts = [
        enc.encode(texts[s : s + EMBED_CALL], batch_size=batch_size, show_progress=False)
        for s in range(0, len(texts), EMBED_CALL)
    ]
    vectors = np.concatenate(parts) if parts else np.zeros((0, enc.dim), dtype=np.float32)
    return {
        "identity": enc.identity,
        "spec": enc.spec,
        "dim": int(enc.dim),
        "cacheable": bool(enc.cacheable),
        "vectors": np.ascontiguousarray(vectors, dtype=np.float32),
    }


@dataclass
class _Registered:
    """What :meth:`EmbeddingCache.register` reads of an encoder."""

    spec: str
    identity: str
    dim: int


def store_vectors(result: Mapping, texts: Sequence[str], store: EmbeddingCache | None = None) -> int:
    """Commit a chunk :func:`encode_chunk` returned into the embedding cache (one transaction);
    return the number of vectors stored."""
    store = store or EmbeddingCache()
    vectors = np.asarray(result["vectors"], dtype=np.float32)
    if vectors.shape != (len(texts), int(result["dim"])):
        raise ValueError(
            f"{result['spec']}: {vectors.shape} vectors for {len(texts)} texts of dimension {result['dim']}"
        )
    mkey = store.register(_Registered(result["spec"], result["identity"], int(result["dim"])))
    store.put_many(mkey, [text_key(t) for t in texts], vectors)
    return len(texts)


def embed_done(unit: WorkUnit, store: EmbeddingCache | None = None) -> bool:
    """Whether the cache holds every text of an embedding unit under one model of its spec
    (read without loading the model, as ``python -m compsem plan`` counts)."""
    store = store or EmbeddingCache()
    keys = [text_key(t) for t in unit.payload["texts"]]
    return store.count_cached(unit.spec, keys) == len(set(keys))


def total_cost(units: Sequence[WorkUnit]) -> float | None:
    """Sum of the units' estimated seconds (those with an estimate), or None when none has one."""
    costs = [u.cost_s for u in units if u.cost_s is not None]
    return float(sum(costs)) if costs else None
