"""The papers' own panels at the papers' data sizes, on paper (chapter 98, ``book/cluster.md``).

What ``python -m compsem prefetch`` would have to do for ``models="paper"``: one row per study ×
model, with its units, the texts, ordered pairs or runs per unit, the GPU memory per unit and
the hours on one GPU, then each study spread over 1, 4 and 16 GPUs. Everything here is an
**estimate**, built from measured rates where the book has them and from rules where it does
not; each is named on the page:

* the CPU rates ``make bench`` measured on the benchmark's machine (``benchmarks/results.json``,
  whose ``machine`` names the CPU; chapter 98 says whether it is this build's,
  :func:`compsem.book.appendices.machine.machine_values`): ``sbert-mini``'s encoding and the fine-tuning
  runs' examples per second;
* the GPU rates the GPU check measured for the same model and the same fine-tuning
  configurations (``benchmarks/gpu.json``, ``benchmarks/gpu_check.py``). Their ratios,
  :func:`gpu_speedup` (encoding, scoring) and :func:`train_speedup` (fine-tuning), convert the
  plan's CPU seconds into GPU seconds. Without a GPU record the encoding ratio comes from the
  rate the sentence-transformers maintainers publish for the same weights (all-MiniLM-L6-v2 on
  one V100: ``data/reference/published_sbert_speed.csv``), and fine-tuning is *assumed* to gain
  the encoding factor; the page says which;
* a model's rate scales inversely with its download size (``paper_models/<study>.csv``
  ``size_gb``; assumed): :func:`size_rule_check` measures how well that holds on the published table;
* GPU memory per unit is the download size × :data:`MEMORY_FACTOR` (assumed, rules of thumb).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from compsem import work
from compsem.paths import repo_root
from compsem.faces import PaperRun
from compsem.fmt import number
from compsem.errors import DataError
from compsem.reference import paper_match, paper_panel, published_table
from compsem.results import PlainText, Prose
from compsem.studies import STUDIES
from compsem.work import WorkUnit
from compsem.book.running.plan import REFERENCE_MODEL, throughputs
from compsem.book.running.prefetch import planned_work

__all__ = [
    "GPU_REFERENCE",
    "MEMORY_FACTOR",
    "paper_runs",
    "gpu_speedup",
    "train_speedup",
    "rate_notes",
    "size_rule_check",
    "paper_scale_table",
    "paper_scale_summary",
    "hours_headers",
    "page_values",
]

#: The published model whose weights are :data:`~compsem.book.running.plan.REFERENCE_MODEL`'s.
GPU_REFERENCE = "all-MiniLM-L6-v2"
#: GPU memory per unit as a multiple of the weights' download size: inference (weights plus
#: activations) and fine-tuning with Adam (weights, gradients, two moments). Rules of thumb.
MEMORY_FACTOR = {"embed": 1.2, "score": 1.2, "train": 4.0}


def _gpu_record(gpu: str | Path | None) -> dict | None:
    """The GPU check's record (``benchmarks/gpu.json`` by default), None without one."""
    path = Path(gpu) if gpu else repo_root() / "benchmarks" / "gpu.json"
    return json.loads(path.read_text()) if path.is_file() else None


def gpu_speedup(bench: str | Path | None = None, *, gpu: str | Path | None = None) -> dict:
    """How much faster one GPU encodes than the benchmark machine's CPU.

    Returns ``{"gpu_rate", "cpu_rate", "speedup", "gpu", "source", "published_rate",
    "published_speedup"}``: the GPU's rate for ``sbert-mini`` (texts per second) measured by the
    GPU check (``gpu``, default ``benchmarks/gpu.json``; ``source`` ``"measured"``), or, without
    one, the published rate of :data:`GPU_REFERENCE` on a V100 (``source`` ``"published"``); the
    benchmark's measured rate of the same weights (texts the model encoded per second, cold
    cache); their ratio; the GPU's name; and the published rate with its ratio, for comparison.
    ``cpu_rate`` and the ratios are None without a benchmark file. The GPU and CPU rates were not
    measured on the same texts, so the ratio is an estimate of the order of magnitude.
    """
    pub = published_table("sbert_speed").set_index("model")
    published = float(pub.loc[GPU_REFERENCE, "sentences_per_s"])
    cpu_rate = throughputs(bench).get(REFERENCE_MODEL[0])
    rec = _gpu_record(gpu) or {}
    measured = (rec.get("encode", {}).get("gpu_default") or {}).get("texts_per_s")
    gpu_rate = float(measured) if measured else published
    return {
        "gpu_rate": gpu_rate,
        "cpu_rate": cpu_rate,
        "speedup": gpu_rate / cpu_rate if cpu_rate else None,
        "gpu": rec.get("machine", {}).get("gpu", "GPU") if measured else "V100",
        "source": "measured" if measured else "published",
        "published_rate": published,
        "published_speedup": published / cpu_rate if cpu_rate else None,
    }


def _fp32_runs(numbers: dict) -> dict[str, float]:
    """``{config: examples per second}`` of a benchmark record's full-precision fine-tuning runs,
    whichever study wrote them: the CPU benchmark's ``results`` rows (``path`` ``"fp32"``) and
    the GPU check's ``runs`` (``"<config> fp32"``, precision asked for)."""
    out = {}
    for entry in numbers.get("studies", {}).values():
        for r in entry.get("results", []) if isinstance(entry.get("results"), list) else []:
            if r.get("path") == "fp32" and r.get("examples_per_s") and r.get("config"):
                out[str(r["config"])] = float(r["examples_per_s"])
        for name, r in (entry.get("runs") or {}).items() if isinstance(entry.get("runs"), dict) else []:
            if name.endswith(" fp32") and isinstance(r, dict) and r.get("examples_per_s"):
                out[name[: -len(" fp32")]] = float(r["examples_per_s"])
    return out


def train_speedup(bench: str | Path | None = None, *, gpu: str | Path | None = None) -> dict:
    """How much faster one GPU fine-tunes than the benchmark machine's CPU, from measurements.

    Returns ``{"gpu_rates", "cpu_rates", "configs", "speedup", "gpu"}``: the full-precision
    training examples per second of every configuration both the GPU check (``gpu``) and the
    CPU benchmark (``bench``) ran, and the ratio of their means (the planner costs a run at the
    CPU's mean rate, so this ratio turns its seconds into seconds at the GPU's mean rate).
    ``speedup`` is None where either record lacks such runs: chapter 98 then says that the
    encoding factor is assumed instead.
    """
    path = Path(bench) if bench else repo_root() / "benchmarks" / "results.json"
    cpu = _fp32_runs(json.loads(path.read_text())) if path.is_file() else {}
    rec = _gpu_record(gpu) or {}
    gpu_runs = _fp32_runs(rec)
    configs = [c for c in cpu if c in gpu_runs]
    g, c = [gpu_runs[k] for k in configs], [cpu[k] for k in configs]
    return {
        "gpu_rates": g,
        "cpu_rates": c,
        "configs": configs,
        "speedup": (sum(g) / len(g)) / (sum(c) / len(c)) if configs else None,
        "gpu": rec.get("machine", {}).get("gpu", "GPU"),
    }


def size_rule_check() -> pd.DataFrame:
    """How well "rate ∝ 1 / size" predicts the published GPU rates: one row per published model
    with ``size_mb``, ``published`` (sentences per second), ``predicted`` (the rate of
    :data:`GPU_REFERENCE` × its size / the model's size) and ``ratio`` (predicted / published;
    1 is exact, 2 means the rule promises twice the real speed)."""
    pub = published_table("sbert_speed")
    ref = pub.set_index("model").loc[GPU_REFERENCE]
    predicted = float(ref["sentences_per_s"]) * float(ref["size_mb"]) / pub["size_mb"].astype(float)
    return pd.DataFrame(
        {
            "model": pub["model"],
            "size_mb": pub["size_mb"].astype(int),
            "published": pub["sentences_per_s"].astype(float),
            "predicted": predicted,
            "ratio": predicted / pub["sentences_per_s"].astype(float),
        }
    )


def paper_runs() -> dict[str, PaperRun]:
    """``{study: its PaperRun}`` for every study of the registry that declares one
    (``study.PAPER_RUN``), in the book's order."""
    runs = {s.name: getattr(s.module("study"), "PAPER_RUN", None) for s in STUDIES}
    return {name: run for name, run in runs.items() if run is not None}


#: The kind of row :func:`paper_scale_table` gives a paper model the chapter's run does not plan.
NOT_PLANNED = "not planned"


def _not_planned_reason(spec: str) -> str:
    """Why a model of the paper's panel has no unit in its chapter's plan, from its spec's kind."""
    if spec.startswith("vec:"):
        return f"{NOT_PLANNED}: word vectors, a table lookup with no GPU work"
    if spec.startswith("gen:"):
        return f"{NOT_PLANNED}: a generator, which this chapter's run does not prompt"
    return f"{NOT_PLANNED}: not in this chapter's run"


def _paper_specs(study: str) -> list[str]:
    """Every runnable model of the study's paper panel, of every kind ([] for a study the
    paper-model mapping does not know)."""
    try:
        return paper_panel(study, kind=None)
    except DataError:
        return []


def _makespan(costs: Sequence[float], workers: int) -> float:
    """Longest load when the costs are dealt, largest first, to the least-loaded of ``workers``."""
    loads = [0.0] * workers
    for c in sorted(costs, reverse=True):
        loads[loads.index(min(loads))] += c
    return max(loads)


def paper_scale_table(*, bench: str | Path | None = None, gpu: str | Path | None = None) -> pd.DataFrame:
    """One row per study × model of the papers' own panels at the papers' data sizes.

    Columns: ``study``, ``model``, ``kind``, ``units``, ``per_unit`` (texts, ordered pairs or
    runs per unit), ``gpu_gb_per_unit`` (estimate: ``size_gb`` × :data:`MEMORY_FACTOR`) and
    ``gpu_hours`` (estimate: the benchmark's CPU seconds, scaled by model size and data size,
    divided by :func:`gpu_speedup`, or by :func:`train_speedup` for a fine-tuning run, the
    encoding factor where no fine-tuning was measured on a GPU). Embedding and scoring units are re-cut to last about a
    minute on a GPU; a model without a size or a benchmark (a web API) has no estimate. A study
    whose ``PAPER_RUN`` plans no work (no paper panel) has one row of kind ``"no paper panel"``;
    a study the registry declares without a paper (``absent=("paper", ...)``) one of kind
    ``"no paper"``. A model of the paper's panel (``reference.paper_panel``, every kind) that
    the chapter's run does not plan has a row of kind "not planned: <why>" and no estimate.
    """
    speedup = gpu_speedup(bench, gpu=gpu)["speedup"]
    train = train_speedup(bench, gpu=gpu)["speedup"] or speedup
    rows = [
        {
            "study": s.name,
            "model": None,
            "kind": "no paper",
            "units": None,
            "per_unit": None,
            "gpu_gb_per_unit": None,
            "gpu_hours": None,
        }
        for s in STUDIES
        if "paper" in s.absent
    ]
    for study, run in paper_runs().items():
        _, units = planned_work(repo_root() / "notebooks" / run.notebook, dict(run.params), bench=bench)
        f_texts, f_pairs = run.scale()
        by_model: dict[tuple[str, str], list[WorkUnit]] = {}
        for u in units:
            by_model.setdefault((u.spec, u.kind), []).append(u)
        if not by_model:  # a study whose paper reports no model this project can run: said, not left out
            rows.append(
                {
                    "study": study,
                    "model": None,
                    "kind": "no paper panel",
                    "units": None,
                    "per_unit": None,
                    "gpu_gb_per_unit": None,
                    "gpu_hours": None,
                }
            )
        for (spec, kind), us in by_model.items():
            scale = f_pairs if kind == "score" else (1.0 if kind == "train" else f_texts)
            count = sum(u.count for u in us) * scale
            known = [u.cost_s for u in us if u.cost_s is not None]
            factor = train if kind == "train" else speedup
            gpu_s = (sum(known) * scale / factor) if factor and known and len(known) == len(us) else None
            n = len(us) if kind == "train" else (max(1, math.ceil(gpu_s / work.TARGET_SECONDS)) if gpu_s else None)
            size = us[0].size_gb
            rows.append(
                {
                    "study": study,
                    "model": spec,
                    "kind": kind,
                    "units": n,
                    "per_unit": round(count / n) if n else None,
                    "gpu_gb_per_unit": round(size * MEMORY_FACTOR[kind], 1) if size else None,
                    "gpu_hours": gpu_s / 3600 if gpu_s else None,
                }
            )
        planned = {spec for spec, _ in by_model}
        for spec in _paper_specs(study):
            if spec not in planned:
                rows.append(
                    {
                        "study": study,
                        "model": spec,
                        "kind": _not_planned_reason(spec),
                        "units": None,
                        "per_unit": None,
                        "gpu_gb_per_unit": None,
                        "gpu_hours": None,
                    }
                )
    return pd.DataFrame(rows).astype({"units": "Int64", "per_unit": "Int64"})


def paper_scale_summary(table: pd.DataFrame, gpus: Sequence[int] = (1, 4, 16)) -> pd.DataFrame:
    """One row per study of :func:`paper_scale_table`: its planned models, units, the planned
    models without an estimate, the paper's models the run does not plan, and the wall-clock
    hours on ``g`` GPUs (every unit of the study dealt, longest first, to the least-loaded GPU;
    models without an estimate left out)."""
    rows = []
    for study, part in table.groupby("study", sort=False):
        skipped = part.kind.astype(str).str.startswith(NOT_PLANNED)
        ok = part[part.gpu_hours.notna() & part.units.notna()]
        costs = [h / int(u) for h, u in zip(ok.gpu_hours, ok.units) for _ in range(int(u))]
        n = int((part.model.notna() & ~skipped).sum())
        rows.append(
            {
                "study": study,
                "models": n,
                "units": int(ok.units.sum()),
                "models_without_estimate": n - len(ok),
                "paper_models_not_planned": int(skipped.sum()),
                **{f"hours_on_{g}_gpus": _makespan(costs, g) if costs else None for g in gpus},
            }
        )
    return pd.DataFrame(rows)


def hours_headers(speed: dict, gpus: Sequence[int] = (1, 4, 16)) -> dict[str, str]:
    """The column headers of :func:`paper_scale_summary`'s hours, naming the GPU whose rate made
    the estimate (:func:`gpu_speedup`'s ``gpu``: one NVIDIA H200 measured, or the published
    V100): ``{"hours_on_4_gpus": "hours on 4 × NVIDIA H200 (estimate)"}``; the estimates hold
    for GPUs of that kind only."""
    gpu = speed.get("gpu") or "GPU"
    return {f"hours_on_{g}_gpus": f"hours on {g} × {gpu} (estimate)" for g in gpus}


def _rates(xs: Sequence[float]) -> str:
    lo, hi = min(xs), max(xs)
    return f"{lo:,.0f}" if round(lo) == round(hi) else f"{lo:,.0f}–{hi:,.0f}"


def rate_notes(speed: dict, train: dict | None = None) -> dict[str, Prose]:
    """The two sentences of chapter 98 that say where its GPU factors come from, produced from
    the records: ``gpu_note`` (encoding and scoring: the GPU check's measured rate, or the
    published V100 rate when there is no GPU record) and ``train_note`` (fine-tuning: the GPU
    check's measured fine-tuning rates against the CPU benchmark's, or the encoding factor,
    labelled as assumed, when either was not measured)."""
    if speed["source"] == "measured":
        gpu = (
            f"the rate the GPU check measured for the same model on one {speed['gpu']} "
            f"({speed['gpu_rate']:,.0f} texts per second, `benchmarks/gpu.json`). Their ratio, "
            f"{number(speed['speedup'], 0)}×, turns the plan's encoding and scoring CPU seconds into GPU seconds. "
            "The two rates come from different texts, so the ratio gives the order of magnitude. For comparison, "
            "the rate the sentence-transformers maintainers publish for the same weights (all-MiniLM-L6-v2) on "
            f"one V100 ({speed['published_rate']:,.0f} sentences per second, "
            f"`data/reference/published_sbert_speed.csv`) gives {number(speed['published_speedup'], 0)}×"
        )
    else:
        gpu = (
            "the rate the sentence-transformers maintainers publish for the same weights (all-MiniLM-L6-v2) on "
            f"one V100 ({speed['gpu_rate']:,.0f} sentences per second, `data/reference/published_sbert_speed.csv`; "
            f"no GPU check was recorded). Their ratio, {number(speed['speedup'], 0)}×, turns the plan's CPU "
            "seconds into GPU seconds; the two rates come from different texts, so it gives the order of magnitude"
        )
    if train and train.get("speedup"):
        note = (
            f"fine-tuning: the GPU check's full-precision fine-tuning of the same "
            f"{len(train['configs'])} configurations on one {train['gpu']} ran at {_rates(train['gpu_rates'])} "
            f"examples per second, the CPU benchmark's at {_rates(train['cpu_rates'])}; the ratio of their means, "
            f"{number(train['speedup'], 1)}×, turns the plan's training CPU seconds into GPU seconds"
        )
    else:
        note = (
            f"fine-tuning is *assumed* to gain the encoding factor ({number(speed['speedup'], 0)}×): no fine-tuning "
            "rate was measured on both a GPU and the benchmark's CPU"
        )
    return {"gpu_note": Prose(gpu), "train_note": Prose(note)}


def _sameness(table: pd.DataFrame) -> dict:
    """``<study>_n_same`` and ``<study>_standins`` for every study of the table with planned models."""
    out = {}
    for study, part in table.groupby("study", sort=False):
        planned = part[part.model.notna() & ~part.kind.astype(str).str.startswith(NOT_PLANNED)]
        if planned.empty:
            continue
        same = [bool((paper_match(study, m) or {}).get("same_model")) for m in planned.model]
        others = [str(m) for m, ok in zip(planned.model, same) if not ok]
        out[f"{study}_n_same"] = sum(same)
        out[f"{study}_standins"] = PlainText(", ".join(others) if others else "none")
    return out


def scale_notes() -> str:
    """One sentence per study whose :class:`~compsem.faces.PaperRun` has a note: how its counts
    are scaled to the paper's, or what is costed at the book's size (chapter 98)."""
    by_name = {s.name: s for s in STUDIES}
    notes = [
        f"Part {by_name[name].roman if name in by_name else name}: {text}."
        for name, run in paper_runs().items()
        if (text := run.note())
    ]
    return " ".join(notes) if notes else "Every study is costed at the data it ships, which is the paper's."


def page_values(
    speed: dict,
    summary: pd.DataFrame,
    rule: pd.DataFrame,
    train: dict | None = None,
    table: pd.DataFrame | None = None,
) -> dict:
    """What chapter 98 glues: the rates and their ratio (:func:`gpu_speedup`), the sentences
    naming where each GPU factor comes from (:func:`rate_notes`, with :func:`train_speedup`'s
    ``train``), the memory rules (:data:`MEMORY_FACTOR`), the size rule's error
    (:func:`size_rule_check`: the model it misses most, ``rule_low`` its predicted / published
    and ``rule_off`` the factor it is off by; ``rule_worst``: the largest factor either way among
    the other models; ``rule_min_mb``, ``rule_max_mb``: the sizes it was checked on) and each
    study's hours on 1 and 16 GPUs and its count of paper models that ``models="paper"`` runs
    (``<study>_n_models``: :func:`paper_scale_summary`). With ``table``
    (:func:`paper_scale_table`) also ``<study>_n_same`` (of those, the paper's very models,
    ``same_model`` in ``paper_models/<study>.csv``) and ``<study>_standins`` (the others, named),
    and ``scale_notes``: each study's :attr:`compsem.faces.PaperRun.note`."""
    worst = rule.ratio.idxmin()
    others = rule.ratio.drop(index=worst)
    values = {
        "gpu_name": PlainText(speed.get("gpu") or "GPU"),
        "gpu_speedup": speed["speedup"],
        "gpu_rate": speed["gpu_rate"],
        "cpu_rate": speed["cpu_rate"],
        "memory_infer": MEMORY_FACTOR["embed"],
        "memory_train": MEMORY_FACTOR["train"],
        "rule_worst_model": str(rule.loc[worst, "model"]),
        "rule_low": float(rule.ratio[worst]),
        "rule_off": 1 / float(rule.ratio[worst]),
        "rule_worst": max(float(others.max()), 1 / float(others.min())),
    }
    if "size_mb" in rule:
        values.update({"rule_min_mb": float(rule.size_mb.min()), "rule_max_mb": float(rule.size_mb.max())})
    if table is not None:
        values.update(_sameness(table))
        values["scale_notes"] = Prose(scale_notes())
    if "source" in speed:
        values.update(rate_notes(speed, train))
    for row in summary.itertuples():
        values.update(
            {
                f"{row.study}_hours_1": row.hours_on_1_gpus,
                f"{row.study}_hours_16": row.hours_on_16_gpus,
                f"{row.study}_n_models": int(row.models),
            }
        )
    return values
