"""Embed and run: the only module of Part III that calls the embedding cache.

:func:`run_tests` (:mod:`.consistency`, re-exported here) takes one model's embeddings and
computes the three tests under one reading (:data:`~compsem.montague.metrics.READINGS`):
``"official"``, the authors' code, which produced the published numbers, or ``"equations"``,
Eq. 3/5/7 as printed. Both come from the same
embeddings; the AA sub-phrases ("a1 a2") are embedded with the AAN phrases because the official
reading of test I needs them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import paths
from ..cache import embed
from ..data import file_sha256
from ..faces import PaperRun
from ..encoders import check_available, get_encoder
from ..encoders.kinds import ModelSlot
from ..encoders import resolve_models as _resolve_specs
from ..reference import paper_row
from ..work import embed_units
from ..fmt import noun
from ..progress import bar

# the three tests on one model's embeddings (re-exported: the study's face)
from .consistency import Embedded, MontagueResult, reading_label, run_tests
from .data import PHRASE_SETS, PhraseSet, Vocabulary, build_phrases, check_strings, load_vocabulary
from .metrics import READINGS, Rules

__all__ = [
    "PAPER_RUN",
    "Embedded",
    "MontagueResult",
    "MontagueRun",
    "resolve_models",
    "reference_model",
    "run",
    "embed_texts",
    "embed_phrases",
    "run_tests",
    "run_models",
    "run_readings",
    "reading_label",
    "planned_texts",
    "planned_work",
    "MODEL_SLOTS",
]

#: The kind of model each chapter's ``models`` takes, by chapter number (the planner and the
#: runner refuse another kind before any work, compsem.encoders.kinds):
#: Part III's chapters embed phrases.
MODEL_SLOTS = {
    "30": ModelSlot("encoder"),
    "31": ModelSlot("encoder"),
    "32": ModelSlot("encoder"),
    "33": ModelSlot("encoder"),
}


def resolve_models(models="panel", *, trust_remote_code: bool = False) -> list[str]:
    """A chapter's ``models`` parameter as a list of specs: ``"panel"`` (the installed offline
    panel), ``"paper"`` (the paper's models that map to public checkpoints,
    ``data/reference/paper_models/montague.csv``), one spec or a list. Nothing is loaded here;
    ``trust_remote_code`` lets ``"paper"`` pick a checkpoint that needs remote code."""
    return _resolve_specs(models, study="montague", trust_remote_code=trust_remote_code)


def reference_model(models: Iterable[str]) -> str | None:
    """The model compared cell by cell with the paper: the paper's MiniLM (our ``sbert-mini``,
    same weights) when it is in ``models``, else the first model with a row in the paper's
    tables, else ``None``."""
    models = list(models)
    return next((m for m in models if paper_row("montague", m) == "MiniLM"), None) or next(
        (m for m in models if paper_row("montague", m)), None
    )


def embed_texts(texts: Sequence[str], model: str, *, trust_remote_code: bool = False) -> np.ndarray:
    """(n, d) embeddings of any texts through the cache (for the try-it page's own words)."""
    return embed(list(texts), model, trust_remote_code=trust_remote_code)


def _texts(phrases: PhraseSet, sets: tuple[str, ...]) -> list[str]:
    texts = [*phrases.words, *phrases.an.ravel()]
    if "AAN" in sets:
        texts += [*phrases.aan, *phrases.aa]
    return texts


#: The last cached-model embeddings of this process, so that a chapter that reads the same
#: phrases twice (its main run, then the decomposition) reads the disk cache once. Bounded:
#: at most :data:`_RECENT_BYTES` bytes, oldest first out; a matrix larger than that is not kept.
_RECENT: dict[tuple, np.ndarray] = {}
_RECENT_BYTES = 200 * 2**20


def _remember(key: tuple, X: np.ndarray) -> None:
    if X.nbytes > _RECENT_BYTES:
        return
    _RECENT[key] = X
    while sum(x.nbytes for x in _RECENT.values()) > _RECENT_BYTES:
        del _RECENT[next(iter(_RECENT))]


def embed_phrases(
    phrases: PhraseSet,
    model: str,
    *,
    sets: Iterable[str] = PHRASE_SETS,
    embed_fn: Callable[[list[str], str], np.ndarray] | None = None,
    trust_remote_code: bool = False,
) -> Embedded:
    """Embed all words and the requested phrase sets with **one** call to ``embed_fn``.

    ``embed_fn(texts, model)`` defaults to :func:`compsem.embed` (cached on disk, deduplicating;
    ``trust_remote_code`` is passed to it). With ``"AAN"`` the AA sub-phrases are embedded too.
    The texts are unique by construction, so the blocks are views into the one returned matrix.
    """
    sets = _check_sets(sets)
    v = phrases.vocab
    texts = _texts(phrases, sets)
    key = (model, trust_remote_code, hash(tuple(texts)))
    t0 = time.perf_counter()
    if embed_fn is None and key in _RECENT:
        X = _RECENT[key]
    elif embed_fn is None:
        X = embed(texts, model, trust_remote_code=trust_remote_code)
        _remember(key, X)
    else:
        X = np.asarray(embed_fn(texts, model))
    secs = time.perf_counter() - t0
    if X.ndim != 2 or X.shape[0] != len(texts):
        raise ValueError(f"embedding function returned shape {X.shape} for {len(texts)} texts")
    W = v.n_adj + v.n_noun
    K = phrases.an.size
    L = W + K + phrases.aan.size
    aan = aa = None
    if "AAN" in sets:
        aan, aa = X[W + K : L], X[L:]
    return Embedded(
        model=model,
        words=X[:W],
        an=X[W : W + K].reshape(v.n_adj, v.n_noun, -1),
        aan=aan,
        seconds=secs,
        aa=aa,
        strings=phrases.strings,
    )


def _check_sets(sets: Iterable[str]) -> tuple[str, ...]:
    sets = (sets,) if isinstance(sets, str) else tuple(sets)
    bad = [s for s in sets if s not in PHRASE_SETS]
    if bad or not sets:
        raise ValueError(f"unknown phrase {noun(len(bad or sets), 'set')} {bad or sets}; choose from {PHRASE_SETS}")
    return sets


def run_readings(
    models: Sequence[str],
    *,
    readings: Iterable[str | Rules] = READINGS,
    vocab: Vocabulary | None = None,
    strings: str = "official",
    distance: str = "cos",
    sets: Iterable[str] = PHRASE_SETS,
    embed_fn=None,
    trust_remote_code: bool = False,
    progress: bool = True,
) -> dict[str, dict[str, MontagueResult]]:
    """Embed each model once (cached) and run the tests under every reading of ``readings``.

    Returns ``{reading label: {model: MontagueResult}}`` (labels from :func:`reading_label`).
    Raises :class:`~compsem.errors.ModelsUnavailableError` up front, naming every model that
    cannot be loaded here (offline, a missing word-vector file, ``trust_remote_code`` needed).
    ``strings`` (``"official"`` or ``"clean"``, see :data:`compsem.montague.data.STRINGS`) says
    how the texts are written; it is a separate switch from the reading.
    """
    if embed_fn is None:  # fail fast, naming what would be downloaded, before any embedding
        check_available(list(models), trust_remote_code=trust_remote_code, study="montague")
    vocab = vocab or load_vocabulary()
    phrases = build_phrases(vocab, strings=check_strings(strings))
    readings = [readings] if isinstance(readings, (str, Rules)) else list(readings)
    out: dict[str, dict[str, MontagueResult]] = {reading_label(r): {} for r in readings}
    for m in bar(models, show=progress, desc="models"):
        emb = embed_phrases(phrases, m, sets=sets, embed_fn=embed_fn, trust_remote_code=trust_remote_code)
        for r in readings:
            res = run_tests(emb, vocab, phrases, reading=r, distance=distance)
            res.seconds["embed"] = emb.seconds
            out[reading_label(r)][m] = res
    return out


def run_models(
    models: Sequence[str],
    *,
    vocab: Vocabulary | None = None,
    reading: str | Rules = "official",
    strings: str = "official",
    distance: str = "cos",
    sets: Iterable[str] = PHRASE_SETS,
    embed_fn=None,
    trust_remote_code: bool = False,
    progress: bool = True,
) -> dict[str, MontagueResult]:
    """Embed (one cached call per model) and run all tests under one ``reading`` for each model."""
    res = run_readings(
        models,
        readings=[reading],
        vocab=vocab,
        strings=strings,
        distance=distance,
        sets=sets,
        embed_fn=embed_fn,
        trust_remote_code=trust_remote_code,
        progress=progress,
    )
    return next(iter(res.values()))


def planned_texts(params: dict) -> dict[str, list[str]]:
    """``{model: the unique texts a Part III chapter with these parameters embeds for it}``.

    Every model embeds the words, phrases (``phrase_sets``, default AN and AAN) and, with AAN,
    the AA sub-phrases, written as ``strings`` says (default ``"official"``). The model compared
    with the paper cell by cell (:func:`~compsem.montague.reproduce.reference_model`) also embeds
    the ``"clean"`` spelling for the decomposition and, on AN chapters, the clean spelling with
    the authors' *occurence* (chapter 33's spelling check).
    """
    vocab = load_vocabulary()
    sets = _check_sets(params.get("phrase_sets", PHRASE_SETS))
    base = _texts(build_phrases(vocab, strings=check_strings(params.get("strings", "official"))), sets)
    extra = base + _texts(build_phrases(vocab, strings="clean"), sets)
    if sets == ("AN",):
        authors = Vocabulary(
            vocab.adjectives, vocab.categories, ["occurence" if n == "occurrence" else n for n in vocab.nouns]
        )
        extra += _texts(build_phrases(authors, strings="clean"), sets)
    models = resolve_models(params.get("models", "panel"), trust_remote_code=params.get("trust_remote_code") is True)
    ref = reference_model(models)
    return {m: list(dict.fromkeys(extra if m == ref else base)) for m in models}


@dataclass
class MontagueRun:
    """What a Part III chapter computes: the models, both readings' results from the same
    embeddings (``results[reading][model]``), and the switches they were computed under.

    ``reading`` is the chapter's chosen reading (:attr:`main`); :attr:`other` the one shown
    beside it; :attr:`ref_model` the model compared cell by cell with the paper (or None).
    """

    models: list[str]
    results: dict[str, dict[str, MontagueResult]]
    vocab: Vocabulary
    phrases: PhraseSet
    reading: str = "official"
    strings: str = "official"
    distance: str = "cos"
    phrase_sets: tuple[str, ...] = PHRASE_SETS
    identities: dict[str, str] = field(default_factory=dict)
    trust_remote_code: bool = False

    @property
    def main(self) -> dict[str, MontagueResult]:
        """``{model: result}`` under the chapter's reading."""
        return self.results[self.reading]

    @property
    def other(self) -> str:
        """The reading shown beside the chosen one."""
        return next(r for r in READINGS if r != self.reading)

    @property
    def ref_model(self) -> str | None:
        return reference_model(self.models)

    def provenance(self, **extra) -> dict:
        """The provenance a chapter writes beside its tables: models, their identities, the
        checksums of the word lists, the switches of the run (and ``extra``)."""
        data = {f: file_sha256(paths.data_dir("montague", f)) for f in ("adjectives.csv", "nouns.csv")}
        return dict(
            models=list(self.models),
            identities=dict(self.identities),
            data_checksums=data,
            reading=self.reading,
            strings=self.strings,
            distance=self.distance,
            phrase_sets=list(self.phrase_sets),
            **extra,
        )


def _identity(model: str, trust_remote_code: bool, embed_fn) -> str:
    if embed_fn is not None:
        return f"{model} (embedding function {getattr(embed_fn, '__name__', 'given')})"
    return get_encoder(model, trust_remote_code=trust_remote_code).identity


def run(
    models="panel",
    *,
    reading: str = "official",
    readings: Iterable[str | Rules] = READINGS,
    strings: str = "official",
    distance: str = "cos",
    phrase_sets: Iterable[str] = PHRASE_SETS,
    vocab: Vocabulary | None = None,
    trust_remote_code: bool = False,
    embed_fn=None,
    progress: bool = True,
) -> MontagueRun:
    """Resolve ``models``, embed each once (cached) and run the three tests under every reading
    of ``readings`` (both by default) from the same embeddings.

    Raises :class:`~compsem.errors.ModelsUnavailableError` before any embedding, naming every
    model that cannot be loaded here.
    """
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; choose from {', '.join(READINGS)}")
    specs = (
        list(models)
        if embed_fn is not None and not isinstance(models, str)
        else resolve_models(models, trust_remote_code=trust_remote_code)
    )
    vocab = vocab or load_vocabulary()
    sets = _check_sets(phrase_sets)
    readings = [readings] if isinstance(readings, (str, Rules)) else list(readings)
    if reading not in [reading_label(r) for r in readings]:
        readings.append(reading)
    res = run_readings(
        specs,
        readings=readings,
        vocab=vocab,
        strings=strings,
        distance=distance,
        sets=sets,
        embed_fn=embed_fn,
        trust_remote_code=trust_remote_code,
        progress=progress,
    )
    ids = {m: _identity(m, trust_remote_code, embed_fn) for m in specs}
    return MontagueRun(
        specs,
        res,
        vocab,
        build_phrases(vocab, strings=strings),
        reading,
        strings,
        distance,
        sets,
        ids,
        trust_remote_code,
    )


def planned_work(params: dict, *, rates=None, chunk=None) -> list:
    """The chapter's heavy work as :class:`compsem.work.WorkUnit`: one ``"embed"`` unit per
    (model, chunk of :func:`planned_texts`); ``rates`` (texts per second per spec) sizes the
    chunks, ``chunk`` fixes them (``python -m compsem prefetch``)."""
    per_model = planned_texts(params)
    vocab = load_vocabulary()
    sets = _check_sets(params.get("phrase_sets", PHRASE_SETS))
    base = _texts(build_phrases(vocab, strings=check_strings(params.get("strings", "official"))), sets)
    n_base = len(dict.fromkeys(base))
    n_clean = len(dict.fromkeys(base + _texts(build_phrases(vocab, strings="clean"), sets)))
    # the model compared with the paper embeds in three calls: the chapter's strings, then the
    # clean spelling (the decomposition), then the authors' spelling (the spelling check)
    groups = {m: [n_base, n_clean - n_base, len(t) - n_clean] for m, t in per_model.items() if len(t) > n_base}
    return embed_units(
        "montague",
        per_model,
        chunk=chunk,
        rates=rates,
        groups=groups,
        trust_remote_code=params.get("trust_remote_code", False) is True,
    )


#: The paper's panel (chapter 98): the single-phrase tests; the study ships the paper's data.
PAPER_RUN = PaperRun("31_montague_single.ipynb", {"models": "paper"})
