"""One fusion model, one batch of source pairs: the prompt, the answer, the checkpoint.

The part of the fusion pipeline (:mod:`compsem.setcomp.pipeline`) that touches the model:

* :func:`fusion_messages`, :func:`clean_fusion`: the paper's prompt and the answer's first line;
* :func:`fusion_generator`, :func:`fusion_name`: the generator as the paper sets it up, and the
  identity its fusions are checkpointed under (found without loading the model);
* :func:`fuse_batch`: one batch of ``(a, b)`` pairs sent to the generator, with retries, the
  answers returned (nothing written). The in-process pipeline and a ``"generate"`` unit of
  ``python -m compsem prefetch`` (on a worker) both call it;
* :class:`FusionCheckpoint`: the append-only JSONL of finished fusions, fsync'ed line by line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..encoders import resolve_models
from ..fmt import plural
from ..llm import Generator, RateLimiter, generator_name, make_generator

__all__ = [
    "SYSTEM_PROMPT",
    "TEMPERATURE",
    "max_words",
    "fusion_messages",
    "clean_fusion",
    "fusion_generator",
    "fusion_spec",
    "fusion_name",
    "fusion_key",
    "FusionCheckpoint",
    "BatchResult",
    "fuse_batch",
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


def _fusion_setup(
    spec: str,
    *,
    temperature: float = TEMPERATURE,
    max_new_tokens: int = 80,
    batch_size: int = 8,
    seed: int = 0,
    device: str | None = None,
    trust_remote_code: bool = False,
) -> tuple[str, dict]:
    """(spec, options of :func:`compsem.llm.make_generator`) of the paper's fusion model set-up."""
    if spec == "paper":
        spec = resolve_models("paper", study="setcomp", kind="generator")[0]
    if spec.startswith("gen:openai:"):
        return spec, {"temperature": temperature, "max_new_tokens": max_new_tokens}
    return spec, {
        "temperature": temperature,
        "do_sample": True,
        "max_new_tokens": max_new_tokens,
        "batch_size": batch_size,
        "seed": seed,
        "device": device,
        "trust_remote_code": trust_remote_code,
    }


def fusion_spec(spec: str) -> str:
    """The generator spec a fusion run uses: ``"paper"`` resolved, any other spec as given."""
    return _fusion_setup(spec)[0]


def fusion_generator(spec: str | Generator, **options) -> Generator:
    """A :mod:`compsem.llm` generator set up as the paper's fusion model (sampling at
    :data:`TEMPERATURE`; options ``temperature``, ``max_new_tokens`` (80), ``batch_size`` (8),
    ``seed`` (0), ``device``, ``trust_remote_code``).

    ``"paper"`` is the paper's own fusion model from ``data/reference/paper_models/setcomp.csv``
    (``gen:openai:gpt-3.5-turbo``). A generator object passes through unchanged (tests pass fakes).
    """
    if not isinstance(spec, str):
        return spec
    spec, kw = _fusion_setup(spec, **options)
    return make_generator(spec, **kw)


def fusion_name(spec: str, **options) -> str:
    """The ``name`` of :func:`fusion_generator`'s generator (its fusions' checkpoint identity),
    found without loading the model."""
    spec, kw = _fusion_setup(spec, **options)
    return generator_name(spec, **kw)


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
        self._append(self.path, {"key": key, "a": a, "b": b, "fusion": fusion, "backend": backend, "time": time.time()})
        self.done[key] = fusion

    def fail(self, key: str, a: str, b: str, error: str, backend: str) -> None:
        self._append(
            self.failures_path, {"key": key, "a": a, "b": b, "error": error, "backend": backend, "time": time.time()}
        )

    def record(self, result: "BatchResult", backend: str) -> None:
        """Append a :func:`fuse_batch` result: its fusions here, its failures to the failures file."""
        for key, (a, b, fusion) in result.fusions.items():
            self.add(key, a, b, fusion, backend)
        for key, (a, b, error) in result.failures.items():
            self.fail(key, a, b, error, backend)


@dataclass
class BatchResult:
    """What :func:`fuse_batch` got: ``fusions`` and ``failures`` (key -> ``(a, b, fusion or
    error)``), prompts sent and generator calls made, and whether the request budget ran out."""

    fusions: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    failures: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    n_requests: int = 0
    n_calls: int = 0
    budget_exhausted: bool = False

    def update(self, other: "BatchResult") -> None:
        """Add ``other``'s fusions, failures and counts to this one."""
        self.fusions.update(other.fusions)
        self.failures.update(other.failures)
        self.n_requests += other.n_requests
        self.n_calls += other.n_calls
        self.budget_exhausted |= other.budget_exhausted


def fuse_batch(
    gen: Generator,
    pairs: Sequence[tuple[str, str]],
    *,
    max_retries: int = 2,
    retry_wait: float = 2.0,
    limiter: RateLimiter | None = None,
    budget: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> BatchResult:
    """Send one batch of ``(a, b)`` source pairs to ``gen`` in one call; write nothing.

    A call that raises (or answers empty) is retried ``max_retries`` times for the pairs still
    missing, with waits ``retry_wait · 2^k``; what is still missing then is a failure. Each
    prompt first waits for ``limiter``. At most ``budget`` prompts are sent (retries count): a
    batch that would exceed it is cut, and one with nothing left to send stops with
    ``budget_exhausted``. A ``KeyboardInterrupt`` propagates.
    """
    name, res = gen.name, BatchResult()
    pending, last = list(pairs), ""
    for attempt in range(max_retries + 1):
        if budget is not None and res.n_requests + len(pending) > budget:
            pending = pending[: max(0, budget - res.n_requests)]
            if not pending:
                res.budget_exhausted = True
                return res
        for _ in pending:
            if limiter is not None:
                limiter.wait()
        res.n_requests += len(pending)
        res.n_calls += 1
        try:
            answers = gen([fusion_messages(a, b) for a, b in pending])
            if len(answers) != len(pending):
                raise RuntimeError(f"generator returned {len(answers)} answers for {len(pending)} prompts")
            missing = []
            for (a, b), ans in zip(pending, answers):
                text = clean_fusion(ans)
                if text:
                    res.fusions[fusion_key(name, a, b)] = (a, b, text)
                else:
                    missing.append((a, b))
            last = "empty answer" if missing else last
            pending = missing
        except Exception as exc:  # noqa: BLE001 - logged, retried, then recorded
            last = f"{type(exc).__name__}: {exc}"
            log.warning("fusion call failed (attempt %d of %d): %s", attempt + 1, max_retries + 1, last)
        if not pending:
            return res
        if attempt < max_retries:
            sleep(retry_wait * 2**attempt)
    res.failures = {fusion_key(name, a, b): (a, b, last) for a, b in pending}
    log.error("%s given up after %d attempts: %s", plural(len(pending), "fusion"), max_retries + 1, last)
    return res
