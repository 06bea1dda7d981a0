"""The papers' own panels at the papers' data sizes, on paper (chapter 98, ``book/cluster.md``).

What ``python -m compsem prefetch`` would have to do for ``models="paper"``: one row per study ×
model, with its units, the texts, ordered pairs or runs per unit, the GPU memory per unit and
the hours on one GPU, then each study spread over 1, 4 and 16 GPUs. Everything here is an
**estimate**, built from two measured or published numbers and two rules:

* the CPU rate ``make bench`` measured for ``sbert-mini`` on the benchmark's machine
  (``benchmarks/results.json``, whose ``machine`` names the CPU; chapter 98 says whether it is
  this build's, :func:`compsem.book.machine.machine_values`);
* the GPU rate the sentence-transformers maintainers publish for the same weights
  (all-MiniLM-L6-v2, sentences per second on one V100: ``data/reference/published_sbert_speed.csv``).
  Their ratio, :func:`gpu_speedup`, converts the CPU seconds of the plan into GPU seconds;
* a model's rate scales inversely with its download size (``paper_models/<study>.csv`` ``size_gb``);
  :func:`size_rule_check` measures how well that holds on the published table itself;
* fine-tuning is assumed to gain the same factor on a GPU as encoding (not measured here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .. import work
from ..paths import repo_root
from ..faces import PaperRun
from ..reference import published_table
from ..studies import STUDIES
from ..work import WorkUnit
from .plan import REFERENCE_MODEL, throughputs
from .prefetch import planned_work

__all__ = ["GPU_REFERENCE", "MEMORY_FACTOR", "paper_runs", "gpu_speedup", "size_rule_check", "paper_scale_table",
           "paper_scale_summary", "page_values"]

#: The published model whose weights are :data:`~compsem.book.plan.REFERENCE_MODEL`'s.
GPU_REFERENCE = "all-MiniLM-L6-v2"
#: GPU memory per unit as a multiple of the weights' download size: inference (weights plus
#: activations) and fine-tuning with Adam (weights, gradients, two moments). Rules of thumb.
MEMORY_FACTOR = {"embed": 1.2, "score": 1.2, "train": 4.0}
def gpu_speedup(bench: str | Path | None = None) -> dict:
    """How much faster one GPU encodes than the benchmark machine's CPU, from two numbers.

    Returns ``{"gpu_rate", "cpu_rate", "speedup", "gpu"}``: the published GPU rate of
    :data:`GPU_REFERENCE` (sentences per second), the benchmark's measured rate of the same
    weights (texts the model encoded per second, cold cache), their ratio and the GPU the rate
    was published for. ``cpu_rate`` and ``speedup`` are None without a benchmark file. The two
    rates were not measured on the same texts (the published page does not say which), so
    the ratio is an estimate of the order of magnitude, not a measurement.
    """
    pub = published_table("sbert_speed").set_index("model")
    gpu_rate = float(pub.loc[GPU_REFERENCE, "sentences_per_s"])
    cpu_rate = throughputs(bench).get(REFERENCE_MODEL[0])
    return {"gpu_rate": gpu_rate, "cpu_rate": cpu_rate, "speedup": gpu_rate / cpu_rate if cpu_rate else None,
            "gpu": "V100"}


def size_rule_check() -> pd.DataFrame:
    """How well "rate ∝ 1 / size" predicts the published GPU rates: one row per published model
    with ``size_mb``, ``published`` (sentences per second), ``predicted`` (the rate of
    :data:`GPU_REFERENCE` × its size / the model's size) and ``ratio`` (predicted / published;
    1 is exact, 2 means the rule promises twice the real speed)."""
    pub = published_table("sbert_speed")
    ref = pub.set_index("model").loc[GPU_REFERENCE]
    predicted = float(ref["sentences_per_s"]) * float(ref["size_mb"]) / pub["size_mb"].astype(float)
    return pd.DataFrame({"model": pub["model"], "size_mb": pub["size_mb"].astype(int),
                         "published": pub["sentences_per_s"].astype(float), "predicted": predicted,
                         "ratio": predicted / pub["sentences_per_s"].astype(float)})


def paper_runs() -> dict[str, PaperRun]:
    """``{study: its PaperRun}`` for every study of the registry that declares one
    (``study.PAPER_RUN``), in the book's order."""
    runs = {s.name: getattr(s.module("study"), "PAPER_RUN", None) for s in STUDIES}
    return {name: run for name, run in runs.items() if run is not None}


def _makespan(costs: Sequence[float], workers: int) -> float:
    """Longest load when the costs are dealt, largest first, to the least-loaded of ``workers``."""
    loads = [0.0] * workers
    for c in sorted(costs, reverse=True):
        loads[loads.index(min(loads))] += c
    return max(loads)


def paper_scale_table(*, bench: str | Path | None = None) -> pd.DataFrame:
    """One row per study × model of the papers' own panels at the papers' data sizes.

    Columns: ``study``, ``model``, ``kind``, ``units``, ``per_unit`` (texts, ordered pairs or
    runs per unit), ``gpu_gb_per_unit`` (estimate: ``size_gb`` × :data:`MEMORY_FACTOR`) and
    ``gpu_hours`` (estimate: the benchmark's CPU seconds, scaled by model size and data size,
    divided by :func:`gpu_speedup`). Embedding and scoring units are re-cut to last about a
    minute on a GPU; a model without a size or a benchmark (a web API) has no estimate. A study
    whose ``PAPER_RUN`` plans no work (no paper panel) has one row of kind ``"no paper panel"``;
    a study the registry declares without a paper (``absent=("paper", ...)``) one of kind
    ``"no paper"``.
    """
    speedup = gpu_speedup(bench)["speedup"]
    rows = [{"study": s.name, "model": None, "kind": "no paper", "units": None, "per_unit": None,
             "gpu_gb_per_unit": None, "gpu_hours": None} for s in STUDIES if "paper" in s.absent]
    for study, run in paper_runs().items():
        _, units = planned_work(repo_root() / "notebooks" / run.notebook, dict(run.params), bench=bench)
        f_texts, f_pairs = run.scale()
        by_model: dict[tuple[str, str], list[WorkUnit]] = {}
        for u in units:
            by_model.setdefault((u.spec, u.kind), []).append(u)
        if not by_model:   # a study whose paper reports no model this project can run: said, not left out
            rows.append({"study": study, "model": None, "kind": "no paper panel", "units": None, "per_unit": None,
                         "gpu_gb_per_unit": None, "gpu_hours": None})
        for (spec, kind), us in by_model.items():
            scale = f_pairs if kind == "score" else (1.0 if kind == "train" else f_texts)
            count = sum(u.count for u in us) * scale
            known = [u.cost_s for u in us if u.cost_s is not None]
            gpu_s = (sum(known) * scale / speedup) if speedup and known and len(known) == len(us) else None
            n = len(us) if kind == "train" else (max(1, math.ceil(gpu_s / work.TARGET_SECONDS)) if gpu_s else None)
            size = us[0].size_gb
            rows.append({"study": study, "model": spec, "kind": kind, "units": n,
                         "per_unit": round(count / n) if n else None,
                         "gpu_gb_per_unit": round(size * MEMORY_FACTOR[kind], 1) if size else None,
                         "gpu_hours": gpu_s / 3600 if gpu_s else None})
    return pd.DataFrame(rows).astype({"units": "Int64", "per_unit": "Int64"})


def paper_scale_summary(table: pd.DataFrame, gpus: Sequence[int] = (1, 4, 16)) -> pd.DataFrame:
    """One row per study of :func:`paper_scale_table`: its units, GPU hours and the wall-clock
    hours on ``g`` GPUs (every unit of the study dealt, longest first, to the least-loaded GPU;
    models without an estimate left out)."""
    rows = []
    for study, part in table.groupby("study", sort=False):
        ok = part[part.gpu_hours.notna() & part.units.notna()]
        costs = [h / int(u) for h, u in zip(ok.gpu_hours, ok.units) for _ in range(int(u))]
        n = int(part.model.notna().sum())
        rows.append({"study": study, "models": n, "units": int(ok.units.sum()),
                     "models_without_estimate": n - len(ok),
                     **{f"hours_on_{g}_gpus": _makespan(costs, g) if costs else None for g in gpus}})
    return pd.DataFrame(rows)


def page_values(speed: dict, summary: pd.DataFrame, rule: pd.DataFrame) -> dict:
    """What chapter 98 glues: the rates and their ratio (:func:`gpu_speedup`), the size rule's
    error (:func:`size_rule_check`: the model it misses most, ``rule_low`` its predicted /
    published and ``rule_off`` the factor it is off by; ``rule_worst``: the largest factor
    either way among the other models) and each study's hours on 1 and 16 GPUs
    (:func:`paper_scale_summary`)."""
    worst = rule.ratio.idxmin()
    others = rule.ratio.drop(index=worst)
    values = {"gpu_speedup": speed["speedup"], "gpu_rate": speed["gpu_rate"], "cpu_rate": speed["cpu_rate"],
              "rule_worst_model": str(rule.loc[worst, "model"]), "rule_low": float(rule.ratio[worst]),
              "rule_off": 1 / float(rule.ratio[worst]),
              "rule_worst": max(float(others.max()), 1 / float(others.min()))}
    for row in summary.itertuples():
        values.update({f"{row.study}_hours_1": row.hours_on_1_gpus, f"{row.study}_hours_16": row.hours_on_16_gpus})
    return values
