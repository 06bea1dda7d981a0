"""Building base quintuples from documents with a fusion model (for readers with resources).

documents -> consecutive sentence triples -> fusions ``s1 = fuse(prev, curr)``,
``s2 = fuse(curr, next)`` through a pluggable backend -> quintuples -> difference filter ->
operator tables (:mod:`compsem.setcomp.dataset`).

* **Backends**: :class:`OpenAIChatBackend` (any OpenAI-compatible ``/chat/completions``
  endpoint, standard library only, the paper's prompt and temperature 0.5) and
  :class:`HFGenerationBackend` (a local Hugging Face generation model through the
  ``transformers`` pipeline). Anything with ``fuse(a, b) -> str`` and a ``name`` works.
* **Resumable**: every finished fusion is appended to a JSONL checkpoint and fsync'ed at
  once; a rerun reads the checkpoint and asks the backend only for what is missing. A crash
  or a rate-limit error loses at most the request in flight.
* **Bounded**: ``max_documents``, ``max_requests`` and ``max_requests_per_second``.
* **Failures logged**: a fusion that still fails after ``max_retries`` is written to
  ``<checkpoint>.failures.jsonl`` and to the ``compsem.setcomp`` logger; its triples are
  skipped, the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pandas as pd

from ..errors import DataError
from ..llm import RateLimiter

__all__ = [
    "SYSTEM_PROMPT",
    "TEMPERATURE",
    "max_words",
    "fusion_messages",
    "split_sentences",
    "consecutive_triples",
    "FusionBackend",
    "OpenAIChatBackend",
    "HFGenerationBackend",
    "RateLimiter",
    "FusionCheckpoint",
    "BudgetExhausted",
    "PipelineReport",
    "build_quintuples",
    "build_dataset",
    "documents_from_table",
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


_SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences at ``. ! ?`` followed by space and a capital or digit.

    A plain rule-based splitter (no model); abbreviations such as "Mr. Smith" will be split.
    Empty pieces are dropped.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return [s.strip() for s in _SENT_END.split(text.strip()) if s.strip()]


def consecutive_triples(documents: Iterable[str] | Mapping[str, str], *, max_documents: int | None = None,
                        min_words: int = 4) -> Iterator[dict[str, str]]:
    """Yield ``{doc_id, index, s_prev, s_curr, s_next}`` for every window of three sentences.

    ``documents`` is an iterable of texts (ids ``d00000``, ...) or a mapping id -> text.
    Sentences shorter than ``min_words`` words are dropped before windowing. At most
    ``max_documents`` documents are read.
    """
    items = documents.items() if isinstance(documents, Mapping) else ((f"d{i:05d}", d) for i, d in enumerate(documents))
    for n, (doc_id, text) in enumerate(items):
        if max_documents is not None and n >= max_documents:
            break
        sents = [s for s in split_sentences(text) if len(s.split()) >= min_words]
        for i in range(len(sents) - 2):
            yield {"doc_id": str(doc_id), "index": i, "s_prev": sents[i], "s_curr": sents[i + 1],
                   "s_next": sents[i + 2]}


class FusionBackend(Protocol):
    """Anything that fuses two sentences into one."""

    name: str

    def fuse(self, a: str, b: str) -> str: ...


class OpenAIChatBackend:
    """An OpenAI-compatible chat endpoint (``POST {base_url}/chat/completions``), stdlib only.

    Parameters
    ----------
    model : the model name sent to the endpoint (the paper used ``gpt-3.5-turbo``).
    base_url : e.g. ``https://api.openai.com/v1`` or a local server (vLLM, llama.cpp, ...).
    api_key : defaults to ``$OPENAI_API_KEY``; may be empty for local servers.
    temperature : the paper's 0.5.
    """

    def __init__(self, model: str = "gpt-3.5-turbo", *, base_url: str = "https://api.openai.com/v1",
                 api_key: str | None = None, temperature: float = TEMPERATURE, timeout: float = 60.0,
                 opener: Callable | None = None):
        self.model, self.base_url, self.temperature, self.timeout = model, base_url.rstrip("/"), temperature, timeout
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.name = f"openai-chat:{model}@{self.base_url}|T={temperature}"
        self._opener = opener

    def request_body(self, a: str, b: str) -> dict:
        return {"model": self.model, "messages": fusion_messages(a, b), "temperature": self.temperature}

    def fuse(self, a: str, b: str) -> str:
        import urllib.request

        req = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=json.dumps(self.request_body(a, b)).encode(),
            headers={"Content-Type": "application/json",
                     **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})}, method="POST")
        opener = self._opener or urllib.request.urlopen
        with opener(req, timeout=self.timeout) as resp:
            payload = json.loads(resp.read().decode())
        try:
            text = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise RuntimeError(f"unexpected response from {self.base_url}: {str(payload)[:300]}") from exc
        return text.strip()


class HFGenerationBackend:
    """A local Hugging Face causal LM through ``transformers.pipeline("text-generation")``.

    Uses the tokenizer's chat template when it has one, else a plain
    ``system\\n\\nuser\\n`` prompt. Sampling at the paper's temperature, seeded.
    """

    def __init__(self, model: str, *, temperature: float = TEMPERATURE, max_new_tokens: int = 80,
                 seed: int = 0, device: str | int | None = None):
        from transformers import pipeline, set_seed

        set_seed(seed)
        self.generator = pipeline("text-generation", model=model, device=device)
        self.temperature, self.max_new_tokens = temperature, max_new_tokens
        self.name = f"hf-generate:{model}|T={temperature}|seed={seed}"

    def prompt(self, a: str, b: str) -> str:
        msgs = fusion_messages(a, b)
        tok = self.generator.tokenizer
        if getattr(tok, "chat_template", None):
            return tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        return f"{msgs[0]['content']}\n\n{msgs[1]['content']}\n"

    def fuse(self, a: str, b: str) -> str:
        p = self.prompt(a, b)
        out = self.generator(p, do_sample=True, temperature=self.temperature, max_new_tokens=self.max_new_tokens,
                             return_full_text=False)
        text = out[0]["generated_text"].strip()
        return text.split("\n")[0].strip() if text else text


def fusion_key(backend_name: str, a: str, b: str) -> str:
    """Checkpoint key of one fusion request (backend identity and both sources)."""
    return hashlib.sha256(f"{backend_name}\x00{a}\x00{b}".encode()).hexdigest()[:32]


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
    n_triples: int = 0
    n_quintuples: int = 0
    n_requests: int = 0
    n_from_checkpoint: int = 0
    n_failed_fusions: int = 0
    n_skipped_triples: int = 0
    stopped_early: bool = False
    failures: list[dict] = field(default_factory=list)


def build_quintuples(documents: Iterable[str] | Mapping[str, str], backend: FusionBackend,
                     checkpoint: str | Path, *, max_documents: int | None = None,
                     max_requests: int | None = None, max_requests_per_second: float | None = 1.0,
                     max_retries: int = 2, retry_wait: float = 2.0, min_words: int = 4,
                     sleep: Callable[[float], None] = time.sleep,
                     clock: Callable[[], float] = time.monotonic) -> tuple[pd.DataFrame, PipelineReport]:
    """Documents -> quintuples, resumable through ``checkpoint``.

    Each distinct (a, b) fusion is requested once (``fuse(curr, next)`` of one triple is
    ``fuse(prev, curr)`` of the next) and only when the checkpoint lacks it. A request that
    raises is retried ``max_retries`` times with waits ``retry_wait · 2^k``; then it is logged
    as failed and its triples are skipped. When ``max_requests`` is reached the run stops
    early (``report.stopped_early``) and returns what it has. Exceptions that are not
    ``Exception`` (``KeyboardInterrupt``) propagate; the checkpoint keeps every fusion
    finished before them.

    Returns the quintuple table (``id, doc_id, index, s_prev, s_curr, s_next, s1, s2``) and a
    :class:`PipelineReport`.
    """
    ckpt = FusionCheckpoint(checkpoint)
    limiter = RateLimiter(max_requests_per_second, clock=clock, sleep=sleep)
    rep = PipelineReport()
    failed: set[str] = set()
    triples = list(consecutive_triples(documents, max_documents=max_documents, min_words=min_words))
    rep.n_triples = len(triples)
    rep.n_documents = len({t["doc_id"] for t in triples})

    def get(a: str, b: str) -> str | None:
        key = fusion_key(backend.name, a, b)
        if key in ckpt.done:
            rep.n_from_checkpoint += 1
            return ckpt.done[key]
        if key in failed:
            return None
        last = None
        for attempt in range(max_retries + 1):
            if max_requests is not None and rep.n_requests >= max_requests:
                raise BudgetExhausted(f"max_requests={max_requests} reached")
            limiter.wait()
            rep.n_requests += 1
            try:
                text = backend.fuse(a, b)
                if not isinstance(text, str) or not text.strip():
                    raise ValueError("backend returned an empty fusion")
                ckpt.add(key, a, b, text.strip(), backend.name)
                return text.strip()
            except Exception as exc:  # noqa: BLE001 - logged, retried, then recorded
                last = f"{type(exc).__name__}: {exc}"
                log.warning("fusion failed (attempt %d of %d): %s", attempt + 1, max_retries + 1, last)
                if attempt < max_retries:
                    sleep(retry_wait * 2 ** attempt)
        failed.add(key)
        rep.n_failed_fusions += 1
        rec = {"a": a, "b": b, "error": last}
        rep.failures.append(rec)
        ckpt.fail(key, a, b, last or "", backend.name)
        log.error("fusion given up after %d attempts: %s", max_retries + 1, last)
        return None

    rows = []
    try:
        for tr in triples:
            s1 = get(tr["s_prev"], tr["s_curr"])
            s2 = get(tr["s_curr"], tr["s_next"]) if s1 is not None else None
            if s1 is None or s2 is None:
                rep.n_skipped_triples += 1
                continue
            rows.append({**tr, "s1": s1, "s2": s2})
    except BudgetExhausted as exc:
        log.warning("%s; stopping with %d quintuples (rerun to continue from the checkpoint)", exc, len(rows))
        rep.stopped_early = True
    df = pd.DataFrame(rows, columns=["doc_id", "index", "s_prev", "s_curr", "s_next", "s1", "s2"])
    df.insert(0, "id", [f"{d}-{i:04d}" for d, i in zip(df["doc_id"], df["index"])])
    rep.n_quintuples = len(df)
    if ckpt.n_corrupt:
        log.warning("checkpoint %s: %d unreadable line(s) ignored", ckpt.path, ckpt.n_corrupt)
    return df, rep


def documents_from_table(path: str | Path, *, text_column: str = "text", id_column: str | None = None) -> dict[str, str]:
    """Read documents (one per row) from CSV/JSONL/parquet for :func:`build_quintuples`."""
    from ..data import read_table

    df = read_table(path, required=[text_column] + ([id_column] if id_column else []), text_columns=[text_column])
    ids = df[id_column].astype(str).tolist() if id_column else [f"d{i:05d}" for i in range(len(df))]
    if len(set(ids)) != len(ids):
        raise DataError("duplicate document ids", file=str(path), column=id_column)
    return dict(zip(ids, df[text_column].tolist()))


def build_dataset(documents: Iterable[str] | Mapping[str, str], backend: FusionBackend, workdir: str | Path, *,
                  filter_encoders: str | list[str] = "sbert-mini", filter_threshold: float = 0.25,
                  embed_fn: Callable | None = None, **kwargs) -> dict:
    """The whole construction: documents -> quintuples -> difference filter -> operator tables.

    Writes into ``workdir``: ``fusions.jsonl`` (the checkpoint; rerun the same call to resume),
    ``quintuples.jsonl`` (loadable with :func:`compsem.setcomp.load_quintuples`) and
    ``overlap.jsonl``, ``difference.jsonl``, ``union.jsonl`` (loadable with
    :func:`compsem.setcomp.load_operator_table`). ``kwargs`` go to :func:`build_quintuples`.

    Returns ``{"quintuples", "tables", "filter", "report"}``.
    """
    from .dataset import build_operator_tables, difference_filter

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    q, rep = build_quintuples(documents, backend, workdir / "fusions.jsonl", **kwargs)
    if len(q) == 0:
        raise DataError("no quintuple could be built (no document with three usable sentences, or every "
                        "fusion failed); see the failures file beside the checkpoint", file=str(workdir))
    filt = difference_filter(q, encoders=filter_encoders, threshold=filter_threshold, embed_fn=embed_fn)
    tables = build_operator_tables(q, difference_mask=filt.mask)
    q.to_json(workdir / "quintuples.jsonl", orient="records", lines=True, force_ascii=False)
    for op, t in tables.items():
        t.to_json(workdir / f"{op}.jsonl", orient="records", lines=True, force_ascii=False)
    log.info("built %d quintuples; difference filter pass rate %.1f%% under %s", len(q), 100 * filt.pass_rate,
             ", ".join(filt.encoders))
    return {"quintuples": q, "tables": tables, "filter": filt, "report": rep}
