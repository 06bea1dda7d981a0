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
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..data import read_table
from ..errors import DataError
from ..llm import Generator, RateLimiter, make_generator
from .data import build_operator_tables
from .study import difference_filter

__all__ = [
    "SYSTEM_PROMPT", "TEMPERATURE", "max_words", "fusion_messages", "clean_fusion", "split_sentences",
    "sentence_windows", "WindowReport", "fusion_generator", "RateLimiter", "FusionCheckpoint", "BudgetExhausted",
    "PipelineReport", "build_quintuples", "build_dataset", "documents_from_table",
]

log = logging.getLogger("compsem.setcomp")

#: The paper's system message (appendix A.1).
SYSTEM_PROMPT = "You are a paraphraser."
#: The paper's sampling temperature (appendix A.1).
TEMPERATURE = 0.5


def max_words(a: str, b: str) -> float:
    """The paper's length budget: half the combined whitespace word count of the two sources."""
    return 0.5 * (len(a.split()) + len(b.split()))


def fusion_messages(a: str, b: str) -> list[dict[str, str]]:
    """Chat messages asking to fuse ``a`` and ``b`` (the paper's prompt, appendix A.1).

    The budget is formatted as Python formats the float (``17.5``, ``20.0``), as the paper's
    f-string does.
    """
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Fuse the following two sentences in {max_words(a, b)} words: {a}\n{b}"},
    ]


def clean_fusion(text: str) -> str:
    """The first non-empty line of a model's answer, stripped ("" when there is none)."""
    for line in str(text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


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
    n_short: int = 0            # sentences under min_words (they break runs, never joined over)
    n_windows: int = 0


def sentence_windows(documents: Iterable[str] | Mapping[str, str], *, max_documents: int | None = None,
                     min_words: int = 4, stride: int = 2, report: WindowReport | None = None) -> list[dict]:
    """Windows ``{doc_id, index, s_prev, s_curr, s_next}`` of three consecutive source sentences.

    ``index`` is the position of ``s_prev`` among the document's sentences. A sentence with
    fewer than ``min_words`` words cannot be in a window and breaks the run (its neighbours are
    not joined over it). Within each run of usable sentences, windows start at the run's first
    sentence and every ``stride`` sentences after it; ``stride >= 2`` means no two windows
    share a fusion. ``documents`` is an iterable of texts (ids ``d00000``, ...) or a mapping
    id -> text; at most ``max_documents`` are read. Counts go into ``report`` when given.
    """
    if int(stride) < 2:
        raise ValueError(f"stride must be at least 2 (stride 1 makes neighbouring windows share a fusion), got {stride}")
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
                out.append({"doc_id": str(doc_id), "index": i, "s_prev": sents[i], "s_curr": sents[i + 1],
                            "s_next": sents[i + 2]})
            start = end
    rep.n_windows = len(out)
    return out


def fusion_generator(spec: str | Generator, *, temperature: float = TEMPERATURE, max_new_tokens: int = 80,
                     batch_size: int = 8, seed: int = 0, device: str | None = None,
                     trust_remote_code: bool = False) -> Generator:
    """A :mod:`compsem.llm` generator set up as the paper's fusion model (sampling at 0.5).

    A generator object passes through unchanged (tests pass fakes).
    """
    if not isinstance(spec, str):
        return spec
    if spec.startswith("gen:openai:"):
        return make_generator(spec, temperature=temperature, max_new_tokens=max_new_tokens)
    return make_generator(spec, temperature=temperature, do_sample=True, max_new_tokens=max_new_tokens,
                          batch_size=batch_size, seed=seed, device=device, trust_remote_code=trust_remote_code)


def fusion_key(generator_name: str, a: str, b: str) -> str:
    """Checkpoint key of one fusion request (generator identity and both sources)."""
    return hashlib.sha256(f"{generator_name}\x00{a}\x00{b}".encode()).hexdigest()[:32]


class FusionCheckpoint:
    """Append-only JSONL of finished fusions; each line is flushed and fsync'ed when written.

    A truncated last line (a crash mid-write) is ignored on reading and counted in
    ``n_corrupt``; every complete line is kept.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.failures_path = self.path.with_name(self.path.name + ".failures.jsonl")
        self.done: dict[str, str] = {}
        self.n_corrupt = 0
        if self.path.is_file():
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        rec = json.loads(line)
                        self.done[rec["key"]] = rec["fusion"]
                    except (json.JSONDecodeError, KeyError, TypeError):
                        self.n_corrupt += 1

    def _append(self, path: Path, rec: dict) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def add(self, key: str, a: str, b: str, fusion: str, backend: str) -> None:
        self._append(self.path, {"key": key, "a": a, "b": b, "fusion": fusion, "backend": backend,
                                 "time": time.time()})
        self.done[key] = fusion

    def fail(self, key: str, a: str, b: str, error: str, backend: str) -> None:
        self._append(self.failures_path, {"key": key, "a": a, "b": b, "error": error, "backend": backend,
                                          "time": time.time()})


class BudgetExhausted(RuntimeError):
    """``max_requests`` was reached; what is done is in the checkpoint."""


@dataclass
class PipelineReport:
    """What :func:`build_quintuples` did."""

    n_documents: int = 0
    n_sentences: int = 0
    n_short_sentences: int = 0
    n_triples: int = 0              # windows formed
    n_fusions: int = 0              # distinct fusions the windows need (2 per window: none shared)
    n_quintuples: int = 0
    n_requests: int = 0             # prompts sent to the generator
    n_calls: int = 0                # generator calls (batches)
    n_from_checkpoint: int = 0
    n_failed_fusions: int = 0
    n_skipped_triples: int = 0
    stopped_early: bool = False
    failures: list[dict] = field(default_factory=list)


def build_quintuples(documents: Iterable[str] | Mapping[str, str], generator: str | Generator,
                     checkpoint: str | Path, *, max_documents: int | None = None, max_requests: int | None = None,
                     max_requests_per_second: float | None = 1.0, batch_size: int = 8, max_retries: int = 2,
                     retry_wait: float = 2.0, min_words: int = 4, stride: int = 2,
                     sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                     **generator_options) -> tuple[pd.DataFrame, PipelineReport]:
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
    windows = sentence_windows(documents, max_documents=max_documents, min_words=min_words, stride=stride,
                               report=wrep)
    rep.n_documents, rep.n_sentences, rep.n_short_sentences = wrep.n_documents, wrep.n_sentences, wrep.n_short
    rep.n_triples = len(windows)
    pairs = list(dict.fromkeys(p for w in windows for p in ((w["s_prev"], w["s_curr"]), (w["s_curr"], w["s_next"]))))
    rep.n_fusions = len(pairs)
    rep.n_from_checkpoint = sum(fusion_key(name, a, b) in ckpt.done for a, b in pairs)
    todo = [p for p in pairs if fusion_key(name, *p) not in ckpt.done]
    failed: set[str] = set()

    def run_batch(batch: list[tuple[str, str]]) -> None:
        pending, last = list(batch), ""
        for attempt in range(max_retries + 1):
            if max_requests is not None and rep.n_requests + len(pending) > max_requests:
                pending = pending[:max(0, max_requests - rep.n_requests)]
                if not pending:
                    raise BudgetExhausted(f"max_requests={max_requests} reached")
            for _ in pending:
                limiter.wait()
            rep.n_requests += len(pending)
            rep.n_calls += 1
            try:
                answers = gen([fusion_messages(a, b) for a, b in pending])
                if len(answers) != len(pending):
                    raise RuntimeError(f"generator returned {len(answers)} answers for {len(pending)} prompts")
                missing = []
                for (a, b), ans in zip(pending, answers):
                    text = clean_fusion(ans)
                    if text:
                        ckpt.add(fusion_key(name, a, b), a, b, text, name)
                    else:
                        missing.append((a, b))
                last = "empty answer" if missing else last
                pending = missing
            except Exception as exc:  # noqa: BLE001 - logged, retried, then recorded
                last = f"{type(exc).__name__}: {exc}"
                log.warning("fusion call failed (attempt %d of %d): %s", attempt + 1, max_retries + 1, last)
            if not pending:
                return
            if attempt < max_retries:
                sleep(retry_wait * 2 ** attempt)
        for a, b in pending:
            key = fusion_key(name, a, b)
            failed.add(key)
            rep.n_failed_fusions += 1
            rep.failures.append({"a": a, "b": b, "error": last})
            ckpt.fail(key, a, b, last, name)
        log.error("%d fusion(s) given up after %d attempts: %s", len(pending), max_retries + 1, last)

    try:
        for i in range(0, len(todo), int(batch_size)):
            run_batch(todo[i:i + int(batch_size)])
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
        log.warning("checkpoint %s: %d unreadable line(s) ignored", ckpt.path, ckpt.n_corrupt)
    return df, rep


def documents_from_table(path: str | Path, *, text_column: str = "text", id_column: str | None = None) -> dict[str, str]:
    """Read documents (one per row) from CSV/JSONL/parquet for :func:`build_quintuples`."""
    df = read_table(path, required=[text_column] + ([id_column] if id_column else []), text_columns=[text_column])
    ids = df[id_column].astype(str).tolist() if id_column else [f"d{i:05d}" for i in range(len(df))]
    if len(set(ids)) != len(ids):
        raise DataError("duplicate document ids", file=str(path), column=id_column)
    return dict(zip(ids, df[text_column].tolist()))


def build_dataset(documents: Iterable[str] | Mapping[str, str], generator: str | Generator, workdir: str | Path, *,
                  filter_encoders: str | list[str] = "sbert-mini", filter_threshold: float = 0.25,
                  filter_rule: str = "quintuple", embed_fn: Callable | None = None, **kwargs) -> dict:
    """The whole construction: documents -> quintuples -> difference filter -> operator tables.

    Writes into ``workdir``: ``fusions.jsonl`` (the checkpoint; rerun the same call to resume),
    ``quintuples.jsonl`` (loadable with :func:`compsem.setcomp.data.load_quintuples`) and
    ``overlap.jsonl``, ``difference.jsonl``, ``union.jsonl`` (loadable with
    :func:`compsem.setcomp.data.load_operator_table`). ``kwargs`` go to :func:`build_quintuples`.

    Returns ``{"quintuples", "tables", "filter", "report"}``.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    q, rep = build_quintuples(documents, generator, workdir / "fusions.jsonl", **kwargs)
    if len(q) == 0:
        raise DataError("no quintuple could be built (no document with three consecutive usable sentences, or "
                        "every fusion failed); see the failures file beside the checkpoint", file=str(workdir))
    filt = difference_filter(q, encoders=filter_encoders, threshold=filter_threshold, rule=filter_rule,
                             embed_fn=embed_fn)
    tables = build_operator_tables(q, difference_mask=filt.difference_mask)
    q.to_json(workdir / "quintuples.jsonl", orient="records", lines=True, force_ascii=False)
    for op, t in tables.items():
        t.to_json(workdir / f"{op}.jsonl", orient="records", lines=True, force_ascii=False)
    log.info("built %d quintuples; difference filter pass rate %.1f%% under %s", len(q), 100 * filt.pass_rate,
             ", ".join(filt.encoders))
    return {"quintuples": q, "tables": tables, "filter": filt, "report": rep}
