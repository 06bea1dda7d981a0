"""Part IV's run: score every ordered pair of the pool with each model, through a disk cache.

The one module of :mod:`compsem.ssm` that embeds texts (:func:`compsem.embed`) and runs the
scorers; it returns raw results (:class:`Scored`), which :mod:`compsem.ssm.tables` turns into
tables and :mod:`compsem.ssm.report` into what a chapter shows.

Score matrices are cached as ``<key>.npy`` + ``<key>.json`` (no pickle) in
``.cache/ssm_scores/``, the key hashing the scorer's identity and the checksum of the texts. An
NLI model's entry keeps the probabilities of all its labels, ``(N, N, C)``, so that the
thresholded score and the predicted label come from one pass.
"""

from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..cache import embed
from ..encoders import check_available
from ..encoders.kinds import ModelSlot
from ..faces import PaperRun
from ..reference import paper_table
from ..paths import cache_dir as cache_root
from ..store import (
    BrokenStoreError,
    json_writer,
    layers,
    load_npy,
    npy_writer,
    read_json,
    save_npy,
    save_to_cache,
    writable_place,
    write_atomic,
    write_json,
)
from ..work import WorkUnit, embed_order, encode_chunk, store_vectors, unit_key
from . import nli as nli_scorer
from .data import Pool, load_study, unique_texts
from .scorers import EmbeddingCosine, make_scorer, resolve_models

__all__ = [
    "PAPER_RUN",
    "REFERENCE",
    "Scored",
    "score_matrix",
    "score_texts",
    "score_all",
    "reference_scored",
    "resolve_models",
    "planned_texts",
    "run",
    "Run",
    "planned_work",
    "run_unit",
    "store_unit",
    "unit_done",
    "MODEL_SLOTS",
]

#: The kind of model each chapter's ``models`` takes, by chapter number (the planner and the
#: runner refuse another kind before any work, compsem.encoders.kinds):
#: Part IV's chapters score pairs with lexical, nli:, gen: or any encoder.
MODEL_SLOTS = {"41": ModelSlot("scorer"), "42": ModelSlot("scorer"), "43": ModelSlot("scorer")}

#: the name of the project's reference matrix in tables and figures
REFERENCE = "project reference"


@dataclass
class Scored:
    """One scorer's matrix over a pool.

    ``predicted`` (N, N) bool is the model's own predicted label (True = entailment) for
    scorers that predict labels (NLI models), else ``None``.
    """

    name: str
    R: np.ndarray
    symmetric: bool
    identity: str
    predicted: np.ndarray | None = None

    @property
    def valid(self) -> np.ndarray:
        """Sentences whose row and column are not entirely NaN (a NaN column comes from a
        hypothesis without content words, NaN rows and columns from an all-OOV text)."""
        bad = ~np.isfinite(self.R)
        return ~(bad.all(axis=0) | bad.all(axis=1))


def _checksum(texts: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]


def _cache_paths(identity: str, checksum: str, cache_dir: Path) -> tuple[Path, Path]:
    key = hashlib.sha256(f"{identity}|{checksum}".encode()).hexdigest()[:24]
    return cache_dir / f"{key}.npy", cache_dir / f"{key}.json"


def _compute(scorer, texts: list[str], *, progress: bool) -> np.ndarray:
    """The array a scorer caches: R (N, N), or label probabilities P (N, N, C) for NLI."""
    if isinstance(scorer, EmbeddingCosine):
        uniq, inv = unique_texts(texts)
        X = embed(uniq, scorer.model, trust_remote_code=scorer.trust_remote_code, device=scorer.device)
        return scorer.from_vectors(X)[np.ix_(inv, inv)]
    if hasattr(scorer, "probabilities"):
        return np.asarray(scorer.probabilities(texts, progress=progress), dtype=float)
    return np.asarray(scorer.score(texts, progress=progress), dtype=float)


def _split(scorer, A: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    if hasattr(scorer, "split"):
        return scorer.split(A)
    return A, None


def score_matrix(
    scorer,
    texts: Sequence[str],
    *,
    cache: bool = True,
    cache_dir: str | Path | None = None,
    progress: bool = True,
    with_labels: bool = False,
    **load,
):
    """R (N, N) for ``texts`` under ``scorer`` (a spec or a scorer object), cached on disk.

    ``load`` (``trust_remote_code``, ``device``, ``dtype``, ``batch_size``) goes to
    :func:`compsem.ssm.scorers.make_scorer`. With ``with_labels`` the result is ``(R, predicted)``
    (``predicted`` is ``None`` for scorers that predict no label).
    """
    scorer = make_scorer(scorer, **load)
    texts = list(texts)
    unique_texts(texts)  # refuses an empty list
    checksum = _checksum(texts)
    cache_dir = Path(cache_dir) if cache_dir is not None else cache_root("ssm_scores", create=False)
    home, _ = _cache_paths(scorer.identity, checksum, cache_dir)
    npy = next((p for p in layers(home) if p.exists() and p.with_suffix(".json").exists()), home)
    meta = npy.with_suffix(".json")
    A = None
    if cache and npy.exists() and meta.exists():
        try:  # written atomically (compsem.store); a damaged entry is named and recomputed
            info = read_json(meta)
            got = (
                load_npy(npy) if info.get("identity") == scorer.identity and info.get("checksum") == checksum else None
            )
        except (BrokenStoreError, AttributeError) as exc:
            warnings.warn(
                f"{exc if isinstance(exc, BrokenStoreError) else f'{meta} is not a JSON object'}; "
                "the score matrix is recomputed",
                stacklevel=2,
            )
            got = None
        if got is not None and got.shape[:2] == (len(texts), len(texts)):
            A = got
    if A is None:
        t0 = time.perf_counter()
        A = _compute(scorer, texts, progress=progress)
        elapsed = time.perf_counter() - t0
        if cache:
            info = {
                "identity": scorer.identity,
                "checksum": checksum,
                "n": len(texts),
                "symmetric": bool(scorer.symmetric),
                "seconds": round(elapsed, 3),
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            # a read-only shared cache: the overlay; neither writable: the matrix in hand is still returned
            where = save_to_cache(home, npy_writer(A), what=f"the score matrix in {cache_dir}")
            try:
                if where is not None:
                    write_atomic(
                        where.with_suffix(".json"), json_writer(info, indent=1), private=where.parent != home.parent
                    )
            except OSError as exc:
                warnings.warn(
                    f"could not store the score matrix in {where.parent} ({exc}); it is recomputed next time",
                    stacklevel=2,
                )
    R, predicted = _split(scorer, A)
    return (R, predicted) if with_labels else R


def score_texts(spec, texts: Sequence[str], **load) -> tuple[np.ndarray, bool]:
    """(R, symmetric) for a few texts, without the disk cache (the try-it page)."""
    scorer = make_scorer(spec, **load)
    return score_matrix(scorer, texts, cache=False, progress=False), bool(scorer.symmetric)


def score_all(
    pool: Pool,
    specs,
    *,
    progress: bool = True,
    trust_remote_code: bool = False,
    device: str | None = None,
    dtype: str | None = None,
) -> dict[str, Scored]:
    """A :class:`Scored` per spec over the pool (cached; see :func:`score_matrix`).

    Sentences without scores (all-NaN row and column) and single NaN pairs are counted and
    warned about; the tables leave such sentences out.
    """
    out = {}
    for spec in specs:
        scorer = make_scorer(spec, trust_remote_code=trust_remote_code, device=device, dtype=dtype)
        R, predicted = score_matrix(scorer, pool.texts, progress=progress, with_labels=True)
        s = Scored(getattr(scorer, "name", str(spec)), R, bool(scorer.symmetric), scorer.identity, predicted)
        n_bad = int((~s.valid).sum())
        if n_bad:
            warnings.warn(
                f"{s.name}: {n_bad} sentence(s) have no scores (NaN) and are left out of its metrics",
                RuntimeWarning,
                stacklevel=2,
            )
        n_left = int((~np.isfinite(R[np.ix_(s.valid, s.valid)])).sum())
        if n_left:
            warnings.warn(
                f"{s.name}: {n_left} single pair score(s) are NaN (e.g. unparseable answers); metrics "
                "that need every pair come out NaN",
                RuntimeWarning,
                stacklevel=2,
            )
        out[s.name] = s
    return out


def reference_scored(R_ref) -> Scored:
    """The project's reference matrix as a :class:`Scored` (asymmetric, no predicted labels)."""
    return Scored(REFERENCE, R_ref, False, "data/ssm/judgements.csv")


@dataclass
class Run:
    """What a Part IV chapter computes: the pool, its reference, the pair categories, the specs
    and each model's :class:`Scored` (in the order of ``specs``)."""

    pool: Pool
    R_ref: np.ndarray
    cats: np.ndarray
    specs: list[str]
    scored: dict[str, Scored]
    params: dict = field(repr=False, default_factory=dict)

    @property
    def with_reference(self) -> dict[str, Scored]:
        """The reference first, then the models."""
        return {REFERENCE: reference_scored(self.R_ref), **self.scored}

    @property
    def matrices(self) -> dict[str, np.ndarray]:
        """name -> R, the reference first."""
        return {name: s.R for name, s in self.with_reference.items()}

    def provenance(self, **extra) -> dict:
        """The provenance a chapter writes beside its tables: the models, their identities, the
        pool and its checksum, the run's parameters, and ``extra`` (the chapter's own)."""
        return dict(
            models=self.specs,
            pool=self.pool.source,
            pool_checksum=self.pool.checksum,
            **extra,
            identities={n: s.identity for n, s in self.scored.items()},
            parameters=dict(self.params),
        )


def run(
    models="panel",
    *,
    pool_source=None,
    trust_remote_code: bool = False,
    device: str | None = None,
    dtype: str | None = None,
    progress: bool = True,
) -> Run:
    """Load the pool and its reference, resolve ``models`` and score every ordered pair.

    Before anything is loaded, :func:`compsem.encoders.check_available` checks that every model
    can be loaded here; offline, a hub model raises one error naming what would be downloaded.
    """
    pool, R_ref, cats = load_study(pool_source)
    specs = resolve_models(models, trust_remote_code=trust_remote_code)
    check_available([s for s in specs if s != "lexical"], trust_remote_code=trust_remote_code, study="ssm")
    scored = score_all(pool, specs, progress=progress, trust_remote_code=trust_remote_code, device=device, dtype=dtype)
    params = dict(pool_source=pool_source, trust_remote_code=trust_remote_code, device=device, dtype=dtype)
    return Run(pool, R_ref, cats, specs, scored, params)


def planned_texts(params: dict) -> dict[str, list[str]]:
    """``{spec: texts}`` for each model the chapter's ``models`` parameter resolves to: the
    pool's unique sentences (each model sees all N^2 ordered pairs of them; the embedding
    models embed each sentence once, the NLI, generator and lexical scorers read the pairs)."""
    pool, _, _ = load_study(params.get("pool_source"))
    texts = list(dict.fromkeys(pool.texts))
    specs = resolve_models(
        params.get("models", "panel"), trust_remote_code=params.get("trust_remote_code", False) is True
    )
    return {spec: texts for spec in specs}


# -- planned work (python -m compsem prefetch) ----------------------------------------------
#: Seconds a block of an NLI matrix should last on the target device.
_BLOCK_SECONDS = 60.0


def _pair_scorer(spec: str) -> bool:
    return spec == "lexical" or spec.startswith(("nli:", "gen:"))


def planned_work(params: dict, *, rates=None, chunk=None) -> list[WorkUnit]:
    """The chapter's heavy work as :class:`compsem.work.WorkUnit`.

    An NLI model gives one ``"score"`` unit per block of rows of the N × N matrix over the
    pool's unique sentences (``rates``: pairs per second, sizing a block to about a minute;
    ``chunk``: rows per block), a block being whole groups of
    :data:`compsem.ssm.nli.GROUP_ROWS` rows (``chunk`` and the rate's size rounded up to them):
    the scorer batches each group on its own, so the blocks give the one-pass matrix's very
    bits. An embedding model (its texts are :func:`planned_texts`'), the
    lexical baseline and a generator give one unit for the whole matrix; an embedding model's
    unit also returns its vectors, stored in the embedding cache.
    """
    rates = rates or {}
    per_model = planned_texts(params)
    pool, _, _ = load_study(params.get("pool_source"))
    texts = list(pool.texts)
    n = len(unique_texts(texts)[0])
    checksum = _checksum(texts)
    load = {k: params.get(k) for k in ("device", "dtype")}
    trc = params.get("trust_remote_code", False) is True  # a literal True only
    units = []
    group = int(nli_scorer.GROUP_ROWS)
    for spec in per_model:
        rows, grouping = n, ()
        if spec.startswith("nli:"):
            rate = rates.get(spec)
            rows = int(chunk) if chunk else (int(rate * _BLOCK_SECONDS // n) if rate else n)
            rows, grouping = max(1, -(-rows // group)) * group, (f"groups={group}",)  # whole groups
        blocks = [(r0, min(n, r0 + rows)) for r0 in range(0, n, rows)]
        keys = [unit_key("score", spec, trc, checksum, r0, r1, *grouping) for r0, r1 in blocks]
        for (r0, r1), key in zip(blocks, keys):
            rate = rates.get(spec)
            work = n if not _pair_scorer(spec) else (r1 - r0) * n  # texts to embed, or pairs to score
            units.append(
                WorkUnit(
                    "score",
                    spec,
                    key,
                    "ssm",
                    {
                        "texts": texts,
                        "rows": (r0, r1),
                        "blocks": keys,
                        "checksum": checksum,
                        "trust_remote_code": trc,
                        "group_rows": group,
                        **load,
                    },
                    (r1 - r0) * n,
                    work / rate if rate else None,
                )
            )
    return units


def _block_dir() -> Path:
    """Where score blocks are kept: in the cache, or in the overlay when the cache is read-only."""
    return writable_place(cache_root("ssm_scores", "blocks", create=False))


def run_unit(unit: WorkUnit) -> dict:
    """Compute one ``"score"`` unit (on a worker; writes nothing): the block's array — rows
    ``r0:r1`` of the unique sentences' label probabilities for an NLI model, the whole matrix
    for another scorer — and the scorer's identity."""
    p = unit.payload
    scorer = make_scorer(
        unit.spec, trust_remote_code=p["trust_remote_code"], device=p.get("device"), dtype=p.get("dtype")
    )
    r0, r1 = p["rows"]
    t0 = time.perf_counter()
    embedded = None
    if isinstance(scorer, EmbeddingCosine):  # as _compute, with the vectors returned, not cached here
        uniq, inv = unique_texts(p["texts"])
        order = embed_order(uniq)
        embedded = {
            **encode_chunk(scorer.model, order, trust_remote_code=scorer.trust_remote_code, device=scorer.device),
            "texts": order,
        }
        pos = {t: i for i, t in enumerate(order)}
        block = scorer.from_vectors(embedded["vectors"][[pos[t] for t in uniq]])[np.ix_(inv, inv)]
    elif hasattr(scorer, "rows_probabilities"):  # whole groups of rows, batched as the one pass does
        scorer.group_rows = p["group_rows"]
        block = scorer.rows_probabilities(unique_texts(p["texts"])[0], r0, r1, progress=False)
    else:
        block = _compute(scorer, p["texts"], progress=False)
    return {
        "identity": scorer.identity,
        "symmetric": bool(scorer.symmetric),
        "block": block,
        "seconds": time.perf_counter() - t0,
        "by_unique": hasattr(scorer, "rows_probabilities"),
        "embedded": embedded,
    }


def unit_done(unit: WorkUnit) -> bool:
    """Whether a ``"score"`` unit's block is stored."""
    home = cache_root("ssm_scores", "blocks", create=False) / f"{unit.key}.npy"
    return any(p.is_file() and p.with_suffix(".json").is_file() for p in layers(home))


def store_unit(unit: WorkUnit, result: dict) -> None:
    """Store a ``"score"`` block (where the cache is; atomic files through :mod:`compsem.store`);
    when every block of the scorer is in, write the matrix where :func:`score_matrix` reads it."""
    embedded = result.get("embedded")
    if embedded and embedded["cacheable"]:
        store_vectors(embedded, embedded["texts"])
    save_npy(_block_dir() / f"{unit.key}.npy", result["block"])
    meta = {k: result[k] for k in ("identity", "symmetric", "seconds", "by_unique")}
    write_json(_block_dir() / f"{unit.key}.json", {**meta, "spec": unit.spec, "rows": list(unit.payload["rows"])})
    keys = unit.payload["blocks"]
    if not all((_block_dir() / f"{k}.npy").is_file() for k in keys):
        return
    infos = [read_json(_block_dir() / f"{k}.json") for k in keys]
    if len({i["identity"] for i in infos}) != 1:  # the model changed between blocks: recompute them
        for k, i in zip(keys, infos):
            if i["identity"] != result["identity"]:
                (_block_dir() / f"{k}.npy").unlink(missing_ok=True)
                (_block_dir() / f"{k}.json").unlink(missing_ok=True)
        return
    A = np.concatenate([load_npy(_block_dir() / f"{k}.npy") for k in keys])
    texts = unit.payload["texts"]
    if result["by_unique"]:
        _, inv = unique_texts(texts)
        A = A[np.ix_(inv, inv)]
    npy, meta_path = _cache_paths(
        result["identity"], unit.payload["checksum"], writable_place(cache_root("ssm_scores", create=False))
    )
    save_npy(npy, A)
    write_json(
        meta_path,
        {
            "identity": result["identity"],
            "checksum": unit.payload["checksum"],
            "n": len(texts),
            "symmetric": bool(result["symmetric"]),
            "seconds": round(sum(i["seconds"] for i in infos), 3),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        indent=1,
    )


def _paper_scale() -> tuple[float, float]:
    """How much larger the paper's pool is than the shipped one: texts, and ordered pairs (its
    square)."""
    n_paper = float(paper_table("ssm", "pool").set_index("quantity").loc["sentences", "paper"])
    n = len(dict.fromkeys(load_study(None)[0].texts))
    return n_paper / n, (n_paper / n) ** 2


def _paper_scale_note() -> str:
    n_paper = int(paper_table("ssm", "pool").set_index("quantity").loc["sentences", "paper"])
    n = len(dict.fromkeys(load_study(None)[0].texts))
    return (
        f"texts scaled by the pool's sentences, {n_paper:,} in the paper against {n:,} shipped, and ordered pairs "
        "by the square of that ratio"
    )


#: The paper's panel at the paper's pool size (chapter 98): the score matrices, scaled by
#: :func:`_paper_scale`.
PAPER_RUN = PaperRun("41_ssm_matrices.ipynb", {"models": "paper"}, scale=_paper_scale, note=_paper_scale_note)
