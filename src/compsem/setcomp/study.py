"""Embed and run Part I: the only module of :mod:`compsem.setcomp` that calls the embedding cache.

A chapter resolves its models with :func:`resolve_models`, then asks :func:`run` for one run
object:

* ``run("data", ...)`` -> :class:`DataRun` — quintuples, the difference filter under each panel
  model (chapter 10);
* ``run("overlap" | "difference" | "union", ...)`` -> :class:`OperatorRun` — one operator's
  table embedded under every model, plus the two controls (a random encoder and the first model
  on shuffled targets) (chapters 11–13).

Both carry ``provenance()``: the models, their identities, the checksum of the quintuples and
the run's parameters.

Everything downstream (:mod:`.tables`, :mod:`.report`) works on the arrays these return.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..cache import embed
from ..encoders import check_available, get_encoder
from ..encoders.kinds import ModelSlot
from ..encoders import resolve_models as resolve_specs
from ..measures import cosine
from ..errors import DataError
from ..faces import PaperRun
from ..reference import paper_table
from ..work import WorkUnit, embed_units
from . import pipeline
from .data import (
    OPERATORS,
    TARGET_COLUMN,
    FilterReport,
    build_operator_tables,
    filter_masks,
    load_source,
    shuffled_targets,
    unique_texts,
    validate_quintuples,
)

__all__ = [
    "PAPER_RUN",
    "STUDY",
    "resolve_models",
    "embed_tables",
    "difference_filter",
    "planned_texts",
    "run",
    "DataRun",
    "OperatorRun",
    "CONTROL_RANDOM",
    "CHAPTERS",
    "planned_work",
    "run_unit",
    "store_unit",
    "unit_done",
    "build_dataset",
    "build_set",
    "MODEL_SLOTS",
]

#: The kind of model each chapter's ``models`` takes, by chapter number (the planner and the
#: runner refuse another kind before any work, compsem.encoders.kinds):
#: Part I's chapters embed sentences.
MODEL_SLOTS = {
    "10": ModelSlot("encoder"),
    "11": ModelSlot("encoder"),
    "12": ModelSlot("encoder"),
    "13": ModelSlot("encoder"),
}

#: The study's name in ``data/reference/paper_models/setcomp.csv`` and ``results/``.
STUDY = "setcomp"
#: The random control encoder every operator chapter runs beside the models.
CONTROL_RANDOM = "random"

EmbedFn = Callable[[list[str], str], np.ndarray]


def resolve_models(models, *, trust_remote_code: bool = False) -> list[str]:
    """A chapter's ``models`` parameter as specs (``"panel"``, ``"paper"`` or a list).

    ``"paper"`` is the set-operator paper's panel (``data/reference/paper_models/setcomp.csv``).
    Before anything is embedded, every spec is checked to be loadable here: offline, a model
    that would have to be downloaded fails at once, naming what it would download.
    """
    specs = resolve_specs(models, study=STUDY, trust_remote_code=trust_remote_code)
    check_available(specs, trust_remote_code=trust_remote_code, study=STUDY)
    return specs


def _embedder(embed_fn: EmbedFn | None, trust_remote_code: bool) -> EmbedFn:
    """``embed_fn``, or :func:`compsem.embed` (the disk cache) with float64 output."""
    if embed_fn is not None:
        return embed_fn
    return lambda texts, model: np.asarray(
        embed(list(texts), model, trust_remote_code=trust_remote_code), dtype=np.float64
    )


def embed_tables(
    tables: Mapping[str, pd.DataFrame],
    models: Sequence[str],
    *,
    trust_remote_code: bool = False,
    embed_fn: EmbedFn | None = None,
) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Embed every distinct sentence of ``tables`` once per model; index it per table.

    Returns ``{model: {operator: {"a": (n, d), "b": (n, d), "t": (n, d)}}}`` (float64).
    ``embed_fn(texts, model)`` replaces the cache in tests.
    """
    fn = _embedder(embed_fn, trust_remote_code)
    texts = unique_texts(dict(tables))
    pos = {t: i for i, t in enumerate(texts)}
    out: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for model in models:
        E = np.asarray(fn(texts, model), dtype=np.float64)
        out[model] = {
            op: {
                "a": E[[pos[x] for x in t["a"]]],
                "b": E[[pos[x] for x in t["b"]]],
                "t": E[[pos[x] for x in t[TARGET_COLUMN[op]]]],
            }
            for op, t in tables.items()
        }
    return out


def difference_filter(
    quintuples: pd.DataFrame,
    *,
    encoders: str | Sequence[str] = "sbert-mini",
    threshold: float = 0.25,
    rule: str = "quintuple",
    trust_remote_code: bool = False,
    embed_fn: EmbedFn | None = None,
) -> FilterReport:
    """Embed the source sentences under each filter encoder and apply both filter rules.

    A sentence pair passes when its cosine is below ``threshold`` under **every** encoder in
    ``encoders``; see :func:`compsem.setcomp.data.filter_masks` for the two rules and the
    treatment of undefined cosines.
    """
    encs = [encoders] if isinstance(encoders, str) else list(encoders)
    if not encs:
        raise ValueError("difference_filter needs at least one encoder")
    fn = _embedder(embed_fn, trust_remote_code)
    q = validate_quintuples(quintuples)
    texts = list(dict.fromkeys(q["s_prev"].tolist() + q["s_curr"].tolist() + q["s_next"].tolist()))
    pos = {t: i for i, t in enumerate(texts)}
    cpc, ccn = {}, {}
    for spec in encs:
        E = fn(texts, spec)
        ep, ec, en = (E[[pos[t] for t in q[c]]] for c in ("s_prev", "s_curr", "s_next"))
        cpc[spec], ccn[spec] = cosine(ep, ec, warn=False), cosine(ec, en, warn=False)
    return filter_masks(cpc, ccn, threshold=threshold, rule=rule)


def planned_texts(params: dict) -> dict[str, list[str]]:
    """``{spec: texts}``: the distinct texts a Part I chapter with these parameters embeds, for
    each model its ``models`` parameter resolves to (no model is loaded).

    Uses ``models``, ``dataset_source``, ``sample_cap`` and ``seed`` (chapter defaults
    otherwise). The union over the three operator tables without the filter: what chapters
    10–13 together embed under each model (each chapter embeds a subset; shuffled controls add
    no text). With chapter 10's ``documents``, the set built in ``build_dir`` once it is there
    (before, no text is known).
    """
    q = _planned_quintuples(params)
    if q is None:
        return {}
    texts = unique_texts(build_operator_tables(q))
    specs = resolve_specs(
        params.get("models", "panel"), study=STUDY, trust_remote_code=params.get("trust_remote_code", False) is True
    )
    return {spec: texts for spec in specs}


def _planned_quintuples(params: dict) -> pd.DataFrame | None:
    """The quintuples a chapter with these parameters reads: chapter 10's own build when
    ``documents`` is set (None until it is built), else ``dataset_source``."""
    source = params.get("dataset_source", "embedded")
    if params.get("documents"):
        built = pipeline.resolve_path(params.get("build_dir") or pipeline.BUILD_DIR) / "quintuples.jsonl"
        if not built.is_file():
            return None
        source = str(built)
    return load_source(source, cap=params.get("sample_cap"), seed=int(params.get("seed", 0)))


#: What :func:`run` computes for each chapter: ``"data"`` (chapter 10) or an operator (11–13).
CHAPTERS: tuple[str, ...] = ("data", *OPERATORS)


def quintuples_checksum(q: pd.DataFrame) -> str:
    """SHA-256 (first 16 hex digits) of the quintuples a run used, over their CSV text."""
    return hashlib.sha256(q.to_csv(index=False).encode("utf-8")).hexdigest()[:16]


def _identity(spec: str, trust_remote_code: bool) -> str:
    return get_encoder(spec, trust_remote_code=trust_remote_code).identity


@dataclass
class _Provenance:
    """What every Part I run can say about itself (the parameters it was called with)."""

    def provenance(self) -> dict:
        """The models, their identities (what the cache is keyed by), the checksum of the
        quintuples and the parameters of the run."""
        trc = self.params.get("trust_remote_code", False) is True
        return {
            "study": STUDY,
            "models": list(self.models),
            "identities": {m: _identity(m, trc) for m in self.models},
            "quintuples_checksum": quintuples_checksum(self.quintuples),
            "parameters": dict(self.params),
        }


@dataclass
class DataRun(_Provenance):
    """Chapter 10: the quintuples, the operator tables after the filter, the filter under each model."""

    models: list[str]
    quintuples: pd.DataFrame
    filter: FilterReport
    tables: dict[str, pd.DataFrame]
    by_model: dict[str, FilterReport] = field(repr=False, default_factory=dict)
    params: dict = field(repr=False, default_factory=dict)


def _run_data(
    models: Sequence[str],
    *,
    dataset_source: str = "embedded",
    filter_encoders=("sbert-mini",),
    filter_threshold: float = 0.25,
    filter_rule: str = "quintuple",
    sample_cap: int | None = None,
    seed: int = 0,
    trust_remote_code: bool = False,
    embed_fn: EmbedFn | None = None,
) -> DataRun:
    """Load, filter (under ``filter_encoders`` and, one by one, under every model) and build the tables."""
    q = load_source(dataset_source, cap=sample_cap, seed=seed)
    kw = dict(threshold=filter_threshold, rule=filter_rule, trust_remote_code=trust_remote_code, embed_fn=embed_fn)
    rep = difference_filter(q, encoders=list(filter_encoders), **kw)
    tables = build_operator_tables(q, difference_mask=rep.difference_mask)
    by_model = {m: difference_filter(q, encoders=m, **kw) for m in models}
    params = dict(
        dataset_source=dataset_source,
        filter_encoders=list(filter_encoders),
        filter_threshold=filter_threshold,
        filter_rule=filter_rule,
        sample_cap=sample_cap,
        seed=seed,
        trust_remote_code=trust_remote_code,
    )
    return DataRun(list(models), q, rep, tables, by_model, params)


@dataclass
class OperatorRun(_Provenance):
    """One operator's samples embedded under every model (chapters 11–13).

    ``subsets`` maps a subset name to its table (the difference chapter has a filtered and an
    unfiltered one; the first is the main subset), ``emb[subset]`` the embeddings as
    :func:`embed_tables` returns them, ``controls[subset]`` the random encoder and the first
    model on shuffled targets (``"<model> (shuffled O|D|U)"``).
    """

    operator: str
    models: list[str]
    quintuples: pd.DataFrame
    subsets: dict[str, pd.DataFrame]
    emb: dict[str, dict]
    controls: dict[str, dict]
    filter: FilterReport | None = None
    params: dict = field(repr=False, default_factory=dict)

    @property
    def main(self) -> str:
        return next(iter(self.subsets))

    @property
    def shuffled_name(self) -> str:
        return f"{self.models[0]} (shuffled {TARGET_COLUMN[self.operator].upper()})"


def _run_operator(
    operator: str,
    models: Sequence[str],
    *,
    dataset_source: str = "embedded",
    sample_cap: int | None = None,
    seed: int = 0,
    filter_encoders=("sbert-mini",),
    filter_threshold: float = 0.25,
    filter_rule: str = "quintuple",
    trust_remote_code: bool = False,
    embed_fn: EmbedFn | None = None,
) -> OperatorRun:
    models = list(models)
    q = load_source(dataset_source, cap=sample_cap, seed=seed)
    kw = dict(trust_remote_code=trust_remote_code, embed_fn=embed_fn)
    rep = None
    if operator == "difference":
        rep = difference_filter(q, encoders=list(filter_encoders), threshold=filter_threshold, rule=filter_rule, **kw)
        subsets = {"unfiltered (all quintuples)": build_operator_tables(q)["difference"]}
        kept = build_operator_tables(q, difference_mask=rep.difference_mask)["difference"]
        if kept["qid"].nunique() >= 2:
            subsets = {"filtered": kept, **subsets}
    else:
        subsets = {"main": build_operator_tables(q)[operator]}
    emb = {name: embed_tables({operator: t}, models, **kw) for name, t in subsets.items()}
    main = next(iter(subsets))
    params = dict(dataset_source=dataset_source, sample_cap=sample_cap, seed=seed, trust_remote_code=trust_remote_code)
    if operator == "difference":
        params.update(filter_encoders=list(filter_encoders), filter_threshold=filter_threshold, filter_rule=filter_rule)
    run = OperatorRun(operator, models, q, subsets, emb, {}, rep, params)
    shuf = {operator: shuffled_targets(subsets[main], operator, seed=seed)}
    run.controls[main] = {
        CONTROL_RANDOM: embed_tables({operator: subsets[main]}, [CONTROL_RANDOM], **kw)[CONTROL_RANDOM],
        run.shuffled_name: embed_tables(shuf, models[:1], **kw)[models[0]],
    }
    return run


def run(
    chapter: str,
    models: Sequence[str],
    *,
    dataset_source: str = "embedded",
    sample_cap: int | None = None,
    seed: int = 0,
    filter_encoders=("sbert-mini",),
    filter_threshold: float = 0.25,
    filter_rule: str = "quintuple",
    trust_remote_code: bool = False,
    embed_fn: EmbedFn | None = None,
) -> DataRun | OperatorRun:
    """The run of one Part I chapter: ``"data"`` (chapter 10) or an operator (11–13).

    ``"data"`` loads the quintuples and runs the difference filter under ``filter_encoders``
    and, one by one, under every model (:class:`DataRun`). An operator embeds its table(s)
    under ``models`` and the two controls (:class:`OperatorRun`); for ``"difference"`` the
    filter runs first: the main subset is ``"filtered"`` when at least two quintuples' samples
    pass, and ``"unfiltered (all quintuples)"`` is always computed. ``embed_fn(texts, model)``
    replaces the cache in tests.
    """
    if chapter not in CHAPTERS:
        raise ValueError(f"unknown Part I run {chapter!r}; choose from {', '.join(CHAPTERS)}")
    kw = dict(
        dataset_source=dataset_source,
        sample_cap=sample_cap,
        seed=seed,
        filter_encoders=filter_encoders,
        filter_threshold=filter_threshold,
        filter_rule=filter_rule,
        trust_remote_code=trust_remote_code,
        embed_fn=embed_fn,
    )
    if chapter == "data":
        return _run_data(models, **kw)
    return _run_operator(chapter, models, **kw)


def planned_work(params: dict, *, rates=None, chunk=None) -> list:
    """The chapter's heavy work as :class:`compsem.work.WorkUnit`: one ``"embed"`` unit per
    (model, chunk of :func:`planned_texts`); ``rates`` (texts per second per spec) sizes the
    chunks, ``chunk`` fixes them (``python -m compsem prefetch``).

    Chapter 10 with ``documents`` and ``generator`` set builds a set of its own: then one
    ``"generate"`` unit per batch of the fusions its checkpoint (``build_dir``) lacks
    (:func:`compsem.setcomp.pipeline.generate_units`; ``chunk``: fusions per unit); the set's
    ``"embed"`` units once it is built (its texts are not known before)."""
    if params.get("documents"):
        docs, generator, workdir, options = pipeline.build_arguments(params)
        units = pipeline.generate_units(
            docs,
            generator,
            workdir / "fusions.jsonl",
            study=STUDY,
            per_unit=chunk,
            rate=(rates or {}).get(generator),
            **options,
        )
        if units:
            return units
    per_model = planned_texts(params)
    if not per_model:
        return []
    tables = build_operator_tables(_planned_quintuples(params))
    # one group per operator table, in the order of OPERATORS: the overlap chapter's own embed
    # call first (each chapter embeds one table; the groups make the batches the same as its)
    ends = [len(unique_texts([tables[op] for op in OPERATORS[: k + 1]])) for k in range(len(OPERATORS))]
    sizes = [b - a for a, b in zip([0, *ends], ends)]
    groups = {m: sizes for m, t in per_model.items() if len(dict.fromkeys(t)) == ends[-1]}
    return embed_units(
        STUDY,
        per_model,
        chunk=chunk,
        rates=rates,
        groups=groups,
        trust_remote_code=params.get("trust_remote_code", False) is True,
    )


def run_unit(unit: WorkUnit):
    """Fuse a ``"generate"`` unit's pairs (on a worker; writes nothing)."""
    return pipeline.run_generate_unit(unit)


def store_unit(unit: WorkUnit, result) -> None:
    """Append a ``"generate"`` unit's fusions to its checkpoint (the driver only)."""
    pipeline.store_generate_unit(unit, result)


def unit_done(unit: WorkUnit) -> bool:
    """Whether the checkpoint holds every fusion of a ``"generate"`` unit."""
    return pipeline.generate_unit_done(unit)


# -- building a set from the reader's documents (chapter 10) --------------------------------
def build_dataset(
    documents: Iterable[str] | Mapping[str, str],
    generator,
    workdir,
    *,
    filter_encoders: str | list[str] = "sbert-mini",
    filter_threshold: float = 0.25,
    filter_rule: str = "quintuple",
    embed_fn: EmbedFn | None = None,
    **kwargs,
) -> dict:
    """The whole construction: documents -> quintuples -> difference filter -> operator tables.

    Writes into ``workdir``: ``fusions.jsonl`` (the checkpoint; rerun the same call to resume),
    ``quintuples.jsonl`` (loadable with :func:`compsem.setcomp.data.load_quintuples`) and
    ``overlap.jsonl``, ``difference.jsonl``, ``union.jsonl`` (loadable with
    :func:`compsem.setcomp.data.load_operator_table`). ``kwargs`` go to
    :func:`compsem.setcomp.pipeline.build_quintuples`.

    Returns ``{"quintuples", "tables", "filter", "report"}``.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    q, rep = pipeline.build_quintuples(documents, generator, workdir / "fusions.jsonl", **kwargs)
    if len(q) == 0:
        raise DataError(
            "no quintuple could be built (no document with three consecutive usable sentences, or "
            "every fusion failed); see the failures file beside the checkpoint",
            file=str(workdir),
        )
    filt = difference_filter(
        q, encoders=filter_encoders, threshold=filter_threshold, rule=filter_rule, embed_fn=embed_fn
    )
    tables = build_operator_tables(q, difference_mask=filt.difference_mask)
    q.to_json(workdir / "quintuples.jsonl", orient="records", lines=True, force_ascii=False)
    for op, t in tables.items():
        t.to_json(workdir / f"{op}.jsonl", orient="records", lines=True, force_ascii=False)
    pipeline.log.info(
        "built %d quintuples; difference filter pass rate %.1f%% under %s",
        len(q),
        100 * filt.pass_rate,
        ", ".join(filt.encoders),
    )
    return {"quintuples": q, "tables": tables, "filter": filt, "report": rep}


def build_set(
    documents: str,
    generator: str,
    build_dir: str = pipeline.BUILD_DIR,
    *,
    filter_encoders=("sbert-mini",),
    filter_threshold: float = 0.25,
    filter_rule: str = "quintuple",
    trust_remote_code: bool = False,
    build_options: Mapping | None = None,
    embed_fn: EmbedFn | None = None,
) -> dict:
    """Chapter 10's set from the reader's ``documents`` (a CSV/JSONL/parquet file, one document
    per row) fused by ``generator``, built (or resumed from its checkpoint) in ``build_dir``
    with :func:`build_dataset`. Relative paths are taken from the repository root.

    Returns :func:`build_dataset`'s dict plus ``"path"`` (the quintuples file, absolute) and
    ``"summary"`` (what was sent, what came from the checkpoint, and how chapters 11-13 read the
    set).
    """
    docs, generator, workdir, options = pipeline.build_arguments(
        {
            "documents": documents,
            "generator": generator,
            "build_dir": build_dir,
            "build_options": build_options,
            "trust_remote_code": trust_remote_code,
        }
    )
    out = build_dataset(
        docs,
        generator,
        workdir,
        filter_encoders=filter_encoders,
        filter_threshold=filter_threshold,
        filter_rule=filter_rule,
        embed_fn=embed_fn,
        **options,
    )
    rep, path = out["report"], workdir / "quintuples.jsonl"
    out["path"] = str(path)
    out["summary"] = (
        f"{rep.n_quintuples} quintuples from {rep.n_documents} documents in {path}: {rep.n_requests} prompts sent, "
        f"{rep.n_from_checkpoint} of {rep.n_fusions} fusions read from the checkpoint, {rep.n_failed_fusions} "
        f"failed{' (stopped at max_requests: rerun to go on)' if rep.stopped_early else ''}. Chapters 11-13 run on "
        f"this set with -p dataset_source '\"{path}\"'."
    )
    return out


def _quintuples() -> tuple[int, int]:
    """(the paper's quintuples, the shipped ones): one overlap sample per quintuple in both."""
    ref = paper_table(STUDY, "dataset").set_index("quantity")["value"]
    return int(ref["overlap_samples"]), len(build_operator_tables(load_source("embedded"))["overlap"])


def _paper_scale() -> tuple[float, float]:
    """How much larger the paper's data is than the shipped one: the texts a chapter embeds are
    the quintuples' sentences, so they scale with the quintuples (assumed: no sentence shared
    between two quintuples, which the paper does not state), not with the samples (the shipped set
    counts every difference sample before the filter; the paper counts fewer per quintuple)."""
    paper, shipped = _quintuples()
    return paper / shipped, paper / shipped


def _paper_scale_note() -> str:
    paper, shipped = _quintuples()
    return (
        f"texts scaled by the quintuples, {paper:,} in the paper against {shipped:,} shipped (five sentences each; "
        "assumed: no sentence is shared between two quintuples, which the paper does not say; if its triples share "
        "sentences, the texts and hours are fewer)"
    )


#: The paper's panel at the paper's data size (chapter 98): the overlap chapter, scaled by
#: :func:`_paper_scale`.
PAPER_RUN = PaperRun("11_setcomp_overlap.ipynb", {"models": "paper"}, scale=_paper_scale, note=_paper_scale_note)
