"""``python -m compsem plan NOTEBOOK -p name value ...``: what a run would embed, before it runs.

For each model of the run it prints the number of texts the chapter embeds, how many are
already in the embedding cache, and an estimate of the time the rest takes from the
throughput ``make bench`` measured (``benchmarks/results.json``). Nothing is loaded or
downloaded: the parameters come from the notebook's ``parameters`` cell (read, not executed),
the texts from the study's ``study.planned_texts(params)``, the cached counts from the cache
file by model spec, and whether each model can be loaded from
:func:`compsem.encoders.check_available`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from compsem import notebooks
from compsem.book.running.params import MISSING, parameter_defaults, parameters_of
from compsem.cache import EmbeddingCache, text_key
from compsem.encoders import check_available, installed_panel
from compsem.encoders import resolve_models as resolve_specs
from compsem.encoders.kinds import FINETUNABLE, ModelKindError, ModelSlot, kind_problems
from compsem.errors import CompsemError
from compsem.paths import repo_root
from compsem.reference import paper_match
from compsem.studies import get, of_notebook

__all__ = [
    "notebook_parameters",
    "study_of",
    "planned_texts",
    "plan",
    "cached_counts",
    "throughputs",
    "REFERENCE_MODEL",
    "CROSS_STUDY_SLOT",
    "model_slot",
    "check_models",
    "train_rate",
    "training_rows",
]

#: Specs recomputed on every run (never cached): their texts always count as to embed.
_UNCACHED = ("glove-50d", "bow", "random", "bow:", "random:", "vec:")


def notebook_parameters(notebook: str | Path) -> dict[str, Any]:
    """The defaults of a notebook's cell tagged ``parameters`` (not executed), as
    :func:`compsem.book.running.params.parameter_defaults` reads them; a default that is not a
    literal is kept as its source text.

    Raises
    ------
    CompsemError
        No such file, or no cell tagged ``parameters``.
    """
    path = Path(notebook)
    if not path.is_file():
        raise CompsemError(f"no notebook {path}")
    if notebooks.parameters_cell(notebooks.read(path)) is None:
        raise CompsemError(f"{path} has no cell tagged 'parameters'")
    text = parameters_of(path)
    return {k: text[k] if v is MISSING else v for k, v in parameter_defaults(path).items()}


def study_of(notebook: str | Path) -> str | None:
    """The study a chapter belongs to, from its number (``11_setcomp_overlap`` -> setcomp)."""
    study = of_notebook(notebook)
    return study.name if study else None


#: What a chapter of no study (the toolkit, the synthesis, the try-it page) takes when it has a
#: ``models`` parameter: sentence encoders, every study's criteria computed on their embeddings.
CROSS_STUDY_SLOT = ModelSlot("encoder")


def model_slot(notebook: str | Path) -> ModelSlot | None:
    """The kind of model a chapter's ``models`` parameter takes, as its study declares it
    (``study.MODEL_SLOTS``, keyed by the chapter's number); for a chapter of no study with a
    ``models`` parameter, :data:`CROSS_STUDY_SLOT`; else None."""
    study = of_notebook(notebook)
    if study is None:
        path = Path(notebook)
        has_models = path.is_file() and "models" in notebook_parameters(path)
        return CROSS_STUDY_SLOT if has_models else None
    return getattr(study.module("study"), "MODEL_SLOTS", {}).get(Path(notebook).name[:2])


#: the registry's kind of the paper's models that "paper" means, for each slot kind
_PAPER_KIND = {"encoder": "encoder", "finetune": "encoder", "generator": "generator"}


def check_models(notebook: str | Path, params: dict[str, Any]) -> None:
    """Refuse a run whose ``models`` are not of the kind the chapter runs, before any work
    (:mod:`compsem.encoders.kinds`): the reason, and the models of that kind that run offline.

    Raises
    ------
    ModelKindError
        A model of the wrong kind, or more models than the chapter runs.
    """
    slot = model_slot(notebook)
    if slot is None or slot.kind == "scorer" or "models" not in params:
        return
    models = params["models"]
    if models in ([], ""):
        return
    specs = resolve_specs(models, study=study_of(notebook), kind=_PAPER_KIND[slot.kind], check=lambda s: str(s).strip())
    offline = {
        "encoder": installed_panel(),
        "generator": [],
        "finetune": [s for s in installed_panel() if s in FINETUNABLE],
    }[slot.kind]
    problems = kind_problems(specs, slot, chapter=f"chapter {Path(notebook).name[:2]}", offline=offline)
    if problems:
        raise ModelKindError("; ".join(problems))


def _scores_pairs(spec: str) -> bool:
    """A Part IV scorer that reads sentence pairs (an NLI model, a generator, the lexical
    baseline) rather than embedding texts: nothing of it goes through the embedding cache."""
    return spec == "lexical" or spec.startswith(("nli:", "gen:"))


def planned_texts(study: str, params: dict[str, Any]) -> dict[str, list[str]] | str:
    """``{spec: texts}`` from the study's ``study.planned_texts(params)`` (the contract: the
    study resolves the chapter's ``models`` itself), or a sentence saying why there is none."""
    fn = getattr(get(study).module("study"), "planned_texts", None)
    if fn is None:
        return f"compsem.{study}.study has no planned_texts(params) yet: the texts cannot be counted"
    return {str(k): list(dict.fromkeys(v)) for k, v in fn(params).items()}


def cached_counts(spec: str, texts: list[str], store: EmbeddingCache | None = None) -> int:
    """How many of ``texts`` the cache holds for a model of this spec (the best of its
    identities), read without loading the model."""
    store = store or EmbeddingCache()
    if not texts:
        return 0
    keys = [text_key(t) for t in texts]

    def count(con) -> int:
        models = [r[0] for r in con.execute("SELECT model FROM models WHERE spec = ?", (spec,))]
        best = 0
        for m in models:
            n = 0
            for s in range(0, len(keys), 500):
                chunk = keys[s : s + 500]
                n += con.execute(
                    f"SELECT COUNT(*) FROM vectors WHERE model = ? AND key IN ({','.join('?' * len(chunk))})",
                    [m, *chunk],
                ).fetchone()[0]
            best = max(best, n)
        return best

    return store._with_retry(count)


def throughputs(path: str | Path | None = None) -> dict[str, float]:
    """Texts per second per spec from ``benchmarks/results.json`` (cold cache: texts the model
    actually encoded per second), or ``{}`` when there is no such file."""
    return _bench(path)[0]


def _bench(path: str | Path | None = None) -> tuple[dict[str, float], str]:
    path = Path(path) if path else repo_root() / "benchmarks" / "results.json"
    if not path.is_file():
        return {}, "no benchmark file (make bench writes benchmarks/results.json)"
    res = json.loads(path.read_text())
    rates = {
        spec: float(v["encoded_per_s_cold"]) for spec, v in res.get("encode", {}).items() if v.get("encoded_per_s_cold")
    }
    m = res.get("machine", {})
    where = (
        f"benchmarks/results.json, measured on {m.get('cpu_count', '?')} CPU cores, torch {m.get('torch', '?')}"
        if m
        else "benchmarks/results.json"
    )
    return rates, where


#: The benchmarked model every other model's rate is scaled from, and its download size in GB
#: (``paper_models/<study>.csv``); :mod:`.prefetch` and :mod:`.paperscale` scale from it too.
REFERENCE_MODEL = ("sbert-mini", 0.09)


def train_rate(bench: str | Path | None = None) -> float | None:
    """Training examples per second of ``sbert-mini`` in full precision, the mean of the
    benchmark's ``fp32`` runs with an ``examples_per_s`` (``make bench``: a study's fine-tuning at
    its ``cpu`` preset, all layers trained; any study's benchmark may report them); None
    without such a run."""
    path = Path(bench) if bench else repo_root() / "benchmarks" / "results.json"
    if not path.is_file():
        return None
    rows = [r for entry in json.loads(path.read_text()).get("studies", {}).values() for r in entry.get("results", [])]
    rates = [r["examples_per_s"] for r in rows if r.get("path") == "fp32" and r.get("examples_per_s")]
    return sum(rates) / len(rates) if rates else None


def _train_rate_of(spec: str, study: str, rate: float | None) -> float | None:
    """``rate`` (sbert-mini's) for ``spec``: itself, or scaled by download size (rough)."""
    ref, ref_gb = REFERENCE_MODEL
    if rate is None or spec == ref:
        return rate
    row = paper_match(study, spec)
    try:
        size = float(row.get("size_gb")) if row is not None else None
    except (TypeError, ValueError):
        size = None
    return rate * ref_gb / size if size else None


def training_rows(
    study: str, params: dict[str, Any], bench: str | Path | None = None
) -> tuple[list[dict], float | None]:
    """One plan row per model of a fine-tuning chapter: the runs its ``study.planned_work``
    trains (less those the run cache holds), their training examples, and the time they take at
    the benchmark's fine-tuning rate; and the total seconds (None when a rate is unknown)."""
    face = get(study).module("study")
    rate = train_rate(bench)
    units = [u for u in face.planned_work(params) if u.kind == "train"]
    rows, total = [], 0.0
    for spec in dict.fromkeys(u.spec for u in units):
        mine = [u for u in units if u.spec == spec]
        todo = [u for u in mine if not face.unit_done(u)]
        examples = sum(len(u.payload["train"]) * u.payload["cfg"].epochs for u in todo)
        r = _train_rate_of(spec, study, rate)
        what = f"train {len(todo)} of {len(mine)} runs, {examples:,} examples: " + (
            "nothing to train"
            if not todo
            else _duration(examples / r) + f" at {r:.0f} examples/s (make bench's fine-tuning rate)"
            if r
            else "no benchmarked fine-tuning rate"
        )
        total = total + examples / r if (r and total is not None) else (total if not todo else None)
        rows.append({"model": spec, "texts": "-", "cached": "-", "to_embed": "-", "texts_per_s": "-", "estimate": what})
    return rows, total


def _rate(spec: str, study: str, rates: dict[str, float]) -> tuple[float | None, str]:
    """Texts per second for ``spec`` and how it was found: measured, or scaled from
    ``sbert-mini`` by download size (a rough stand-in for the parameter count)."""
    if spec in rates:
        return rates[spec], ""
    if spec.startswith("vec:") and "glove-50d" in rates:
        return rates["glove-50d"], " (as glove-50d)"
    ref, ref_gb = REFERENCE_MODEL
    hit = paper_match(study, spec)
    if ref in rates and hit is not None and hit.get("size_gb") and not spec.startswith(("oa:", "gen:")):
        return rates[ref] * ref_gb / float(hit["size_gb"]), f" (rough: {ref}'s rate scaled by model size)"
    return None, ""


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "< 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def plan(
    notebook: str | Path, overrides: dict[str, Any] | None = None, *, bench: str | Path | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """The plan of a run: one row per model, and notes (missing ``planned_texts``, models that
    cannot be loaded here).

    Columns: ``model``, ``texts`` (unique texts to embed), ``cached``, ``to_embed``,
    ``texts_per_s`` (from the benchmark), ``estimate``.
    """
    params = {**notebook_parameters(notebook), **(overrides or {})}
    check_models(notebook, params)  # a model of the wrong kind is refused before anything else
    study = study_of(notebook)
    notes: list[str] = []
    if study is None:
        notes.append(f"{Path(notebook).name} belongs to no study: nothing to plan")
        return pd.DataFrame(columns=["model", "texts", "cached", "to_embed", "texts_per_s", "estimate"]), notes
    slot = model_slot(notebook)
    if slot is not None and slot.kind == "generator":  # prompts generators: nothing is embedded
        models = params.get("models", [])
        specs = [] if models in ([], "") else resolve_specs(models, study=study, kind="generator")
        per_model = {s: None for s in specs}
        if not per_model:
            notes.append("no generator given: the chapter shows its prompts and the paper's tables, and runs no model")
    else:
        per_model = planned_texts(study, params)
    if isinstance(per_model, str):
        notes.append(per_model)
        per_model = {}
    models = list(per_model)  # the study resolved the chapter's models itself (its own "panel"/"paper")
    try:
        check_available(
            [m for m in models if m != "lexical"],  # lexical: a Part IV baseline, no model
            trust_remote_code=params.get("trust_remote_code", False) is True,
            study=study,
        )
    except CompsemError as exc:
        notes.append(str(exc))
    rates, where = _bench(bench)
    store = EmbeddingCache()
    rows = []
    for spec in models:
        if _scores_pairs(spec):
            what = (
                "prompts the generator, embeds nothing"
                if slot is not None and slot.kind == "generator"
                else "scores sentence pairs, embeds nothing (see make bench)"
            )
            rows.append(
                {"model": spec, "texts": "-", "cached": "-", "to_embed": "-", "texts_per_s": "-", "estimate": what}
            )
            continue
        texts = per_model.get(spec)
        if texts is None:
            rows.append(
                {
                    "model": spec,
                    "texts": "-",
                    "cached": "-",
                    "to_embed": "-",
                    "texts_per_s": "-",
                    "estimate": "texts unknown",
                }
            )
            continue
        cached = 0 if spec.startswith(_UNCACHED) else cached_counts(spec, texts, store)
        todo = len(texts) - cached
        rate, how = _rate(spec, study, rates)
        estimate = (
            "nothing to embed"
            if todo == 0
            else (_duration(todo / rate) + how if rate else "no benchmark for this model")
        )
        rows.append(
            {
                "model": spec,
                "texts": len(texts),
                "cached": cached,
                "to_embed": todo,
                "texts_per_s": (round(rate, 1) if rate < 10 else round(rate)) if rate else "-",
                "estimate": estimate,
            }
        )
    if slot is not None and slot.kind == "finetune":  # the chapter trains: its runs at the benchmark's rate
        trained, seconds = training_rows(study, params, bench)
        rows += trained
        notes.append(
            "training: "
            + (_duration(seconds) if seconds is not None else "time unknown (no benchmarked rate)")
            + " in all, on the benchmark's machine, beside the embedding above"
        )
    notes.insert(0, f"{Path(notebook).name} ({study}); models = {params.get('models', 'panel')!r}; throughput: {where}")
    return pd.DataFrame(rows), notes
