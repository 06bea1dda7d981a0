"""The appendix's claims (chapter 99) and what the pages' check files share: the appendix's
sentence about the cache, checked on ``benchmarks/results.json`` (its sentences about the GPU check
are checked by ``book/checks/gpu.py``), the list of every checked claim of the book
(:func:`claims_table`, from the records :func:`compsem.claims.check` writes) and a chapter's glued
number (:func:`glued_number`). :mod:`.appendix` re-exports the first two."""

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

__all__ = ["PAGE", "CLAIMS", "check_claims", "claims_table", "glued_number"]

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
    sentences about the GPU check are checked by ``book/checks/gpu.py``. ``dims``
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
