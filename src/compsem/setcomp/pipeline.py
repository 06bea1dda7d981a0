"""Building base quintuples from documents with a fusion model (for readers with resources).

documents -> windows of three consecutive sentences -> fusions ``s1 = fuse(prev, curr)``,
``s2 = fuse(curr, next)`` through a :mod:`compsem.llm` generator -> quintuples -> difference
filter -> operator tables (:mod:`compsem.setcomp.data`).

* **Windows** (:func:`sentence_windows`): three sentences that are consecutive *in the source*.
  A sentence shorter than ``min_words`` breaks the run instead of being skipped, so no window
  joins sentences that were not neighbours. Windows start two sentences apart (``stride=2``),
  so no two windows share a fusion (a sliding window would reuse ``fuse(curr, next)`` of one
  window as ``fuse(prev, curr)`` of the next); ``stride=3`` shares no sentence either.
* **Generators**: any spec of :func:`compsem.llm.make_generator` (``gen:openai:NAME`` for an
  OpenAI-compatible endpoint, ``gen:hf:NAME`` for a local model) or any object with ``name``
  and ``__call__(prompts) -> answers``. The paper's prompt and temperature (0.5, sampling).
  Prompts go out ``batch_size`` at a time, one generator call per batch.
* **Resumable**: every finished fusion is appended to a JSONL checkpoint and fsync'ed at
  once; a rerun asks only for what is missing. A crash loses at most the batch in flight.
* **Bounded**: ``max_documents``, ``max_requests`` (prompts sent) and ``max_requests_per_second``.
* **Failures logged**: a fusion still missing after ``max_retries`` is written to
  ``<checkpoint>.failures.jsonl`` and to the ``compsem.setcomp`` logger; its windows are
  skipped, the run goes on.
* **Spread over workers** (``python -m compsem prefetch`` of chapter 10 with ``documents`` and
  ``generator``): :func:`generate_units` cuts the fusions the checkpoint lacks into
  ``"generate"`` units, whole batches in the order :func:`build_quintuples` would send them;
  a worker runs :func:`run_generate_unit` (the same :func:`~compsem.setcomp.fusion.fuse_batch`
  the pipeline calls), the driver appends its answers to the checkpoint
  (:func:`store_generate_unit`); the pipeline then finds every fusion there and sends nothing.

The set's difference filter and operator tables (``compsem.setcomp.study.build_dataset``)
embed, so they live in :mod:`compsem.setcomp.study`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..data import read_table
from ..errors import DataError
from ..fmt import noun, plural
from ..llm import Generator, RateLimiter
from ..paths import repo_root
from ..work import WorkUnit, unit_key
from .fusion import (
    SYSTEM_PROMPT,
    TEMPERATURE,
    BatchResult,
    FusionCheckpoint,
    clean_fusion,
    fuse_batch,
    fusion_generator,
    fusion_key,
    fusion_messages,
    fusion_name,
    fusion_spec,
    max_words,
)

__all__ = [
    "BUILD_DIR",
    "BUILD_OPTIONS",
    "build_arguments",
    "SYSTEM_PROMPT",
    "TEMPERATURE",
    "max_words",
    "fusion_messages",
    "clean_fusion",
    "split_sentences",
    "sentence_windows",
    "WindowReport",
    "fusion_generator",
    "RateLimiter",
    "FusionCheckpoint",
    "BudgetExhausted",
    "PipelineReport",
    "build_quintuples",
    "documents_from_table",
    "fusion_pairs",
    "generate_units",
    "run_generate_unit",
    "store_generate_unit",
    "generate_unit_done",
    "BatchResult",
    "fuse_batch",
    "fusion_key",
    "fusion_name",
    "resolve_path",
]

log = logging.getLogger("compsem.setcomp")


_SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences at ``. ! ?`` followed by space and a capital or digit.

    A plain rule-based splitter (no model); abbreviations such as "Mr. Smith" will be split.
    Empty pieces are dropped.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return [s.strip() for s in _SENT_END.split(text.strip()) if s.strip()]


@dataclass
class WindowReport:
    """Counts of :func:`sentence_windows`."""

    n_documents: int = 0
    n_sentences: int = 0
    n_short: int = 0  # sentences under min_words (they break runs, never joined over)
    n_windows: int = 0


def sentence_windows(
    documents: Iterable[str] | Mapping[str, str],
    *,
    max_documents: int | None = None,
    min_words: int = 4,
    stride: int = 2,
    report: WindowReport | None = None,
) -> list[dict]:
    """Windows ``{doc_id, index, s_prev, s_curr, s_next}`` of three consecutive source sentences.

    ``index`` is the position of ``s_prev`` among the document's sentences. A sentence with
    fewer than ``min_words`` words cannot be in a window and breaks the run (its neighbours are
    not joined over it). Within each run of usable sentences, windows start at the run's first
    sentence and every ``stride`` sentences after it; ``stride >= 2`` means no two windows
    share a fusion. ``documents`` is an iterable of texts (ids ``d00000``, ...) or a mapping
    id -> text; at most ``max_documents`` are read. Counts go into ``report`` when given.
    """
    if int(stride) < 2:
        raise ValueError(
            f"stride must be at least 2 (stride 1 makes neighbouring windows share a fusion), got {stride}"
        )
    rep = report if report is not None else WindowReport()
    items = documents.items() if isinstance(documents, Mapping) else ((f"d{i:05d}", d) for i, d in enumerate(documents))
    out = []
    for n, (doc_id, text) in enumerate(items):
        if max_documents is not None and n >= max_documents:
            break
        sents = split_sentences(text)
        ok = [len(s.split()) >= min_words for s in sents]
        rep.n_documents += 1
        rep.n_sentences += len(sents)
        rep.n_short += ok.count(False)
        start = 0
        while start < len(sents):
            if not ok[start]:
                start += 1
                continue
            end = start
            while end < len(sents) and ok[end]:
                end += 1
            for i in range(start, end - 2, int(stride)):
                out.append(
                    {
                        "doc_id": str(doc_id),
                        "index": i,
                        "s_prev": sents[i],
                        "s_curr": sents[i + 1],
                        "s_next": sents[i + 2],
                    }
                )
            start = end
    rep.n_windows = len(out)
    return out


class BudgetExhausted(RuntimeError):
    """``max_requests`` was reached; what is done is in the checkpoint."""


@dataclass
class PipelineReport:
    """What :func:`build_quintuples` did."""

    n_documents: int = 0
    n_sentences: int = 0
    n_short_sentences: int = 0
    n_triples: int = 0  # windows formed
    n_fusions: int = 0  # distinct fusions the windows need (2 per window: none shared)
    n_quintuples: int = 0
    n_requests: int = 0  # prompts sent to the generator
    n_calls: int = 0  # generator calls (batches)
    n_from_checkpoint: int = 0
    n_failed_fusions: int = 0
    n_skipped_triples: int = 0
    stopped_early: bool = False
    failures: list[dict] = field(default_factory=list)


def build_quintuples(
    documents: Iterable[str] | Mapping[str, str],
    generator: str | Generator,
    checkpoint: str | Path,
    *,
    max_documents: int | None = None,
    max_requests: int | None = None,
    max_requests_per_second: float | None = 1.0,
    batch_size: int = 8,
    max_retries: int = 2,
    retry_wait: float = 2.0,
    min_words: int = 4,
    stride: int = 2,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    **generator_options,
) -> tuple[pd.DataFrame, PipelineReport]:
    """Documents -> quintuples, resumable through ``checkpoint``.

    Windows come from :func:`sentence_windows` (``min_words``, ``stride``); each fusion they
    need is requested once, only when the checkpoint lacks it, ``batch_size`` prompts per
    generator call, at most ``max_requests_per_second`` prompts per second on average. A call
    that raises (or answers empty) is retried ``max_retries`` times for the prompts still
    missing, with waits ``retry_wait · 2^k``; what is still missing is logged as failed and its
    windows are skipped. When ``max_requests`` prompts have been sent the run stops early
    (``report.stopped_early``). A ``KeyboardInterrupt`` propagates; the checkpoint keeps every
    fusion finished before it. ``generator_options`` go to :func:`fusion_generator`.

    Returns the quintuple table (``id, doc_id, index, s_prev, s_curr, s_next, s1, s2``) and a
    :class:`PipelineReport`.
    """
    gen = fusion_generator(generator, batch_size=batch_size, **generator_options)
    name = gen.name
    ckpt = FusionCheckpoint(checkpoint)
    limiter = RateLimiter(max_requests_per_second, clock=clock, sleep=sleep)
    rep = PipelineReport()
    wrep = WindowReport()
    windows = sentence_windows(documents, max_documents=max_documents, min_words=min_words, stride=stride, report=wrep)
    rep.n_documents, rep.n_sentences, rep.n_short_sentences = wrep.n_documents, wrep.n_sentences, wrep.n_short
    rep.n_triples = len(windows)
    pairs = fusion_pairs(windows)
    rep.n_fusions = len(pairs)
    rep.n_from_checkpoint = sum(fusion_key(name, a, b) in ckpt.done for a, b in pairs)
    todo = [p for p in pairs if fusion_key(name, *p) not in ckpt.done]
    try:
        for i in range(0, len(todo), int(batch_size)):
            res = fuse_batch(
                gen,
                todo[i : i + int(batch_size)],
                max_retries=max_retries,
                retry_wait=retry_wait,
                limiter=limiter,
                sleep=sleep,
                budget=None if max_requests is None else max_requests - rep.n_requests,
            )
            ckpt.record(res, name)
            rep.n_requests += res.n_requests
            rep.n_calls += res.n_calls
            rep.n_failed_fusions += len(res.failures)
            rep.failures += [{"a": a, "b": b, "error": err} for a, b, err in res.failures.values()]
            if res.budget_exhausted:
                raise BudgetExhausted(f"max_requests={max_requests} reached")
    except BudgetExhausted as exc:
        log.warning("%s; stopping (rerun to continue from the checkpoint)", exc)
        rep.stopped_early = True
    rows = []
    for w in windows:
        s1 = ckpt.done.get(fusion_key(name, w["s_prev"], w["s_curr"]))
        s2 = ckpt.done.get(fusion_key(name, w["s_curr"], w["s_next"]))
        if s1 is None or s2 is None:
            rep.n_skipped_triples += 1
            continue
        rows.append({**w, "s1": s1, "s2": s2})
    df = pd.DataFrame(rows, columns=["doc_id", "index", "s_prev", "s_curr", "s_next", "s1", "s2"])
    df.insert(0, "id", [f"{d}-{i:04d}" for d, i in zip(df["doc_id"], df["index"])])
    rep.n_quintuples = len(df)
    if ckpt.n_corrupt:
        log.warning("checkpoint %s: %s ignored", ckpt.path, plural(ckpt.n_corrupt, "unreadable line"))
    return df, rep


def fusion_pairs(windows: Iterable[Mapping[str, str]]) -> list[tuple[str, str]]:
    """The distinct source pairs ``(s_prev, s_curr)``, ``(s_curr, s_next)`` the windows need, in
    the order the pipeline requests them."""
    return list(dict.fromkeys(p for w in windows for p in ((w["s_prev"], w["s_curr"]), (w["s_curr"], w["s_next"]))))


def resolve_path(path: str | Path) -> Path:
    """A reader's path: ``~`` expanded, a relative path taken from the repository root (the same
    for a chapter run in ``notebooks/`` and for ``python -m compsem prefetch`` run anywhere)."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else repo_root() / path


def documents_from_table(
    path: str | Path, *, text_column: str = "text", id_column: str | None = None
) -> dict[str, str]:
    """Read documents (one per row) from CSV/JSONL/parquet for :func:`build_quintuples`."""
    df = read_table(path, required=[text_column] + ([id_column] if id_column else []), text_columns=[text_column])
    ids = df[id_column].astype(str).tolist() if id_column else [f"d{i:05d}" for i in range(len(df))]
    if len(set(ids)) != len(ids):
        raise DataError("duplicate document ids", file=str(path), column=id_column)
    return dict(zip(ids, df[text_column].tolist()))


# -- "generate" units (python -m compsem prefetch) -------------------------------------------
_CHECKPOINTS: dict[str, tuple[tuple[int, int] | None, FusionCheckpoint]] = {}


def _signature(path: str) -> tuple[int, int] | None:
    try:
        st = Path(path).stat()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


def _checkpoint(path: str | Path) -> FusionCheckpoint:
    """The checkpoint at ``path``, read again only when the file changed since (a sweep asks
    about every unit, and stores one unit at a time)."""
    path = str(Path(path).resolve())
    sig, hit = _signature(path), _CHECKPOINTS.get(path)
    if hit is None or hit[0] != sig:
        hit = _CHECKPOINTS[path] = (sig, FusionCheckpoint(path))
    return hit[1]


def generate_units(
    documents: Iterable[str] | Mapping[str, str],
    generator: str,
    checkpoint: str | Path,
    *,
    study: str = "setcomp",
    batch_size: int = 8,
    per_unit: int | None = None,
    rate: float | None = None,
    max_documents: int | None = None,
    min_words: int = 4,
    stride: int = 2,
    max_requests: int | None = None,
    max_requests_per_second: float | None = 1.0,
    max_retries: int = 2,
    retry_wait: float = 2.0,
    **generator_options,
) -> list[WorkUnit]:
    """One ``"generate"`` unit per batch of the fusions the windows need and ``checkpoint``
    lacks, in the order and batches :func:`build_quintuples` (same arguments) would send them.

    ``per_unit`` (fusions per unit; default: ``rate`` prompts per second times a minute, else
    one batch) is rounded up to whole batches of ``batch_size``. A unit's key hashes the
    generator's identity and its fusions' keys: the same batch, the same unit.

    Rate limits and budgets belong to the pipeline and apply to units only so far:
    ``max_requests`` caps the fusions planned (the first ones; a retry is not counted);
    ``max_requests_per_second`` spaces the prompts of one worker process (the local engine
    keeps the pipeline's rate; ``n`` Ray workers send up to ``n`` times as many). A web API's
    own rate limit is best kept with ``--engine local``.
    """
    name = fusion_name(generator, batch_size=batch_size, **generator_options)
    windows = sentence_windows(documents, max_documents=max_documents, min_words=min_words, stride=stride)
    done = _checkpoint(checkpoint).done
    todo = [p for p in fusion_pairs(windows) if fusion_key(name, *p) not in done][:max_requests]
    size = per_unit or (rate * 60.0 if rate else batch_size)
    size = max(1, -(-int(size) // int(batch_size))) * int(batch_size)
    spec, units = fusion_spec(generator), []
    for s in range(0, len(todo), size):
        pairs = todo[s : s + size]
        keys = [fusion_key(name, a, b) for a, b in pairs]
        payload = {
            "pairs": pairs,
            "keys": keys,
            "name": name,
            "checkpoint": str(checkpoint),
            "batch_size": int(batch_size),
            "options": dict(generator_options),
            "max_retries": max_retries,
            "retry_wait": retry_wait,
            "max_requests_per_second": max_requests_per_second,
        }
        units.append(
            WorkUnit(
                "generate",
                spec,
                unit_key("generate", name, *keys),
                study,
                payload,
                len(pairs),
                len(pairs) / rate if rate else None,
            )
        )
    return units


_LIMITERS: dict[float | None, RateLimiter] = {}
_GENERATOR: dict = {}


def _generator(spec: str, batch_size: int, options: tuple) -> Generator:
    """The fusion generator, kept for the next unit of this process (a Ray worker runs many)."""
    key = (spec, batch_size, options)
    if _GENERATOR.get("key") != key:
        _GENERATOR.clear()
        _GENERATOR.update(key=key, gen=fusion_generator(spec, batch_size=batch_size, **dict(options)))
    return _GENERATOR["gen"]


def run_generate_unit(unit: WorkUnit) -> BatchResult:
    """Fuse a ``"generate"`` unit's pairs (on a worker; writes nothing): its batches one after
    another through :func:`~compsem.setcomp.fusion.fuse_batch`, as the pipeline sends them."""
    p = unit.payload
    gen = _generator(unit.spec, p["batch_size"], tuple(sorted(p["options"].items())))
    if gen.name != p["name"]:
        raise RuntimeError(
            f"{unit.spec} is {gen.name!r} here but was planned as {p['name']!r}: its fusions would "
            "be checkpointed under another identity (another base URL or settings?)"
        )
    limiter = _LIMITERS.setdefault(p["max_requests_per_second"], RateLimiter(p["max_requests_per_second"]))
    out, bs = BatchResult(), p["batch_size"]
    for s in range(0, len(p["pairs"]), bs):
        out.update(
            fuse_batch(
                gen, p["pairs"][s : s + bs], max_retries=p["max_retries"], retry_wait=p["retry_wait"], limiter=limiter
            )
        )
    return out


def store_generate_unit(unit: WorkUnit, result: BatchResult) -> None:
    """Append a unit's fusions to its checkpoint, its failures to the failures file (the driver)."""
    path = unit.payload["checkpoint"]
    ckpt = _checkpoint(path)
    ckpt.record(result, unit.payload["name"])
    _CHECKPOINTS[str(Path(path).resolve())] = (_signature(str(Path(path).resolve())), ckpt)
    if result.failures:
        log.warning(
            "%s: %s failed (see %s); a rerun asks for them again",
            unit.name,
            plural(len(result.failures), "fusion"),
            ckpt.failures_path,
        )


def generate_unit_done(unit: WorkUnit) -> bool:
    """Whether the checkpoint holds every fusion of a ``"generate"`` unit."""
    done = _checkpoint(unit.payload["checkpoint"]).done
    return all(k in done for k in unit.payload["keys"])


# -- chapter 10's parameters for a build ------------------------------------------------
#: Where chapter 10 builds a set by default (from the repository root).
BUILD_DIR = "results/setcomp-build"
#: What chapter 10's ``build_options`` may set, beside ``documents``, ``generator`` and
#: ``build_dir`` (the arguments of :func:`~compsem.setcomp.pipeline.documents_from_table`,
#: :func:`~compsem.setcomp.pipeline.build_quintuples` and
#: :func:`~compsem.setcomp.fusion.fusion_generator`; their defaults apply).
BUILD_OPTIONS = (
    "text_column",
    "id_column",
    "max_documents",
    "min_words",
    "stride",
    "batch_size",
    "max_retries",
    "retry_wait",
    "max_requests",
    "max_requests_per_second",
    "temperature",
    "max_new_tokens",
    "seed",
    "device",
)


def build_arguments(params: Mapping) -> tuple[dict[str, str], str, Path, dict]:
    """(documents, generator spec, build folder, pipeline options) of chapter 10's parameters
    (``documents``, ``generator``, ``build_dir``, ``build_options``, ``trust_remote_code``);
    an option not in :data:`BUILD_OPTIONS` or an empty ``generator`` is refused by name."""
    options = dict(params.get("build_options") or {})
    unknown = sorted(set(options) - set(BUILD_OPTIONS))
    if unknown:
        raise ValueError(
            f"build_options has no {noun(len(unknown), 'option')} {unknown}; it takes {', '.join(BUILD_OPTIONS)}"
        )
    if not params.get("generator"):
        raise ValueError(
            "documents is set but generator is empty: name the fusion model, a compsem.llm spec "
            "('gen:openai:NAME', 'gen:hf:NAME') or 'paper'"
        )
    table = {k: options.pop(k) for k in ("text_column", "id_column") if k in options}
    docs = documents_from_table(resolve_path(params["documents"]), **table)
    trc = params.get("trust_remote_code", False) is True
    return (
        docs,
        params["generator"],
        resolve_path(params.get("build_dir") or BUILD_DIR),
        {**options, "trust_remote_code": trc},
    )
