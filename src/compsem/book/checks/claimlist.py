"""The appendix's claims (chapter 99) and what the pages' check files share: the appendix's
sentence about the cache, checked on ``benchmarks/results.json``, its bf16 comparison, produced
from ``benchmarks/gpu.json`` (its other sentences about the GPU check are checked by
``book/checks/99_reproducibility.py``), the list of every checked claim of the book
(:func:`claims_table`, from the records :func:`compsem.claims.check` writes), the precision
benchmark's check (:func:`bf16_cpu_training`) and a chapter's glued number
(:func:`glued_number`). :mod:`.appendix` re-exports the first three."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from compsem import claims
from compsem.encoders import get_encoder
from compsem.errors import CompsemError
from compsem.labels import cell
from compsem.book.checks.claimcheck import page_checks
from compsem.book.executed import glued_values

__all__ = [
    "PAGE",
    "CLAIMS",
    "check_claims",
    "gpu_values",
    "claims_table",
    "bf16_cpu_training",
    "NOISE_POINTS",
    "glued_number",
]

#: Two Spearman scores (x100) "agree within noise" when they differ by less than this: a threshold
#: stated here, as compsem.claims states its bands.
NOISE_POINTS = 1.0

PAGE = "99_reproducibility"

#: The appendix's sentences that state a result in words, checked by :func:`check_claims`.
CLAIMS = {
    "never_cached": "glove-50d and bow are never cached, although reading vectors back from the cache "
    "is faster than recomputing them"
}


def glued_number(executed: Path | None, notebook: str, key: str) -> float:
    """The number a chapter glued under ``key`` (its executed copy in ``executed``): what a page's
    check file reads to check a sentence against the chapter's own numbers."""
    path = Path(executed or ".") / f"{notebook}.ipynb"
    value = glued_values(path).get(key) if path.is_file() else None
    if value is None:
        raise CompsemError(f"{path} has no glued value {key!r}: run the chapter first (make book)")
    return float(value.strip().strip("'\""))


def _read_rate(bench: dict, dim: int) -> tuple[str, float]:
    """The cache's read rate measured at the smallest vector size not below ``dim`` (reading
    smaller vectors is no slower), as ``(size, vectors/s)``."""
    sizes = sorted(int(k) for k in bench["cache"])
    size = next((s for s in sizes if s >= dim), sizes[-1])
    return str(size), float(bench["cache"][str(size)]["read_per_s"])


def check_claims(bench: dict | None, *, dims: dict[str, int] | None = None, sentences: dict = CLAIMS) -> None:
    """Check the appendix's sentences on the benchmark record (nothing without one); its
    sentences about the GPU check are checked by ``book/checks/99_reproducibility.py``. ``dims``
    gives each uncached model's vector size (default: from the encoders)."""
    if bench is None:
        return
    enc = bench["encode"]
    uncached = [m for m in ("glove-50d", "bow") if m in enc]
    dims = dims or {m: int(get_encoder(m).dim) for m in uncached}
    numbers, faster = {}, True
    for m in uncached:
        size, read = _read_rate(bench, dims[m])
        numbers |= {
            f"{m} recomputed (texts/s)": round(enc[m]["cold_texts_per_s"]),
            f"{m}: cached: {size}-d vectors read (vectors/s)": round(read),
            f"{m} cached": enc[m]["cached"],
        }
        faster &= read > enc[m]["cold_texts_per_s"] and not enc[m]["cached"]
    claims.check(
        sentences["never_cached"],
        page=PAGE,
        holds=bool(uncached) and faster,
        numbers=numbers,
        rule="neither model is cached, and the cache reads vectors of its size faster than it recomputes",
    )


def bf16_cpu_training(precision: dict, sentence: str, *, page: str) -> dict:
    """Check that bf16 autocast trained faster than fp32 on the benchmark's CPU, for every
    configuration of ``benchmarks/csts_precision.json``, with test Spearman scores within
    :data:`NOISE_POINTS` of each other."""
    cfg = precision["configs"]
    numbers = {
        f"{c}: examples/s fp32, bf16; Spearman difference": f"{r['fp32_examples_per_s']:.0f}, "
        f"{r['bf16_examples_per_s']:.0f}; {r['bf16_minus_fp32']:+.2f}"
        for c, r in cfg.items()
    }
    holds = bool(cfg) and all(
        r["bf16_examples_per_s"] > r["fp32_examples_per_s"] and abs(r["bf16_minus_fp32"]) < NOISE_POINTS
        for r in cfg.values()
    )
    return claims.check(
        sentence,
        page=page,
        holds=holds,
        numbers=numbers,
        rule=f"bf16 faster for every configuration, Spearman within {NOISE_POINTS:g} point",
    )


def gpu_values(gpu: dict | None) -> dict[str, str]:
    """What the appendix glues from the GPU check: how bf16 weights encode against fp32
    (``gpu_bf16_speed``: "about 29 % slower")."""
    if gpu is None:
        return {"gpu_bf16_speed": "not measured (no GPU check recorded)"}
    e = gpu["encode"]
    return {"gpu_bf16_speed": claims.comparative(e["gpu_bf16"]["texts_per_s"], e["gpu_default"]["texts_per_s"])}


def claims_table(root: Path, executed: Path) -> pd.DataFrame:
    """Every checked claim of the book: its page, the sentence, the rule, the numbers it was
    judged on and the outcome (a glued value the sentence quotes shows as "…"). The pages' own
    check files (``book/checks/``) run first, on the executed chapters in ``executed``, so that
    their claims are listed beside the hidden cells'."""
    book = Path(root) / "book"
    pages = [f"book/{p.name}" for p in sorted(book.glob("*.md"))] + [
        p.stem for p in sorted(Path(executed).glob("*.ipynb"))
    ]
    _, problems = page_checks(book / "checks", pages, Path(executed))
    rows = [
        {
            "page": r["page"],
            "sentence": re.sub(r"\{glue:[^}]+\}", "…", r["sentence"]),
            "rule": r.get("rule", ""),
            "numbers": "; ".join(f"{k} = {cell(v)}" for k, v in r["numbers"].items()),
            "outcome": r["outcome"],
        }
        for r in claims.records()
    ]
    rows += [
        {"page": p.split(":", 1)[0], "sentence": p, "rule": "", "numbers": "", "outcome": "fails"} for p in problems
    ]
    return pd.DataFrame(rows, columns=["page", "sentence", "rule", "numbers", "outcome"])
