"""compsem: the helper library of the compositional-semantics study.

Three layers (CONTRIBUTING.md draws them):

* **foundation** — encoders (:mod:`compsem.encoders`), the embedding cache and :func:`embed`
  (:mod:`compsem.cache`), similarity measures and plane geometry (:mod:`compsem.measures`),
  statistics (:mod:`compsem.stats`) and the sentences that word them (:mod:`compsem.sentences`),
  data loading (:mod:`compsem.data`), result tables (:mod:`compsem.results`), the papers' numbers
  (:mod:`compsem.reference`), text generators (:mod:`compsem.llm`), devices (:mod:`compsem.device`),
  paths and errors;
* **studies** — :mod:`compsem.setcomp`, :mod:`compsem.csts`, :mod:`compsem.montague`,
  :mod:`compsem.ssm`, each with the same faces (``data``, ``metrics``, ``study``, ``tables``,
  ``report``);
* **cross-study pages** — :mod:`compsem.crossstudy` (synthesis, try-it).

The book's tooling (runner, staging, checks, benchmarks, command line) is
:mod:`compsem.book`; nothing a chapter computes depends on it.
"""

import warnings as _warnings

# tqdm.auto falls back to text bars where ipywidgets is absent (papermill runs): say nothing.
_warnings.filterwarnings("ignore", message="IProgress not found")

from . import data, measures, paths, results, stats
from .cache import EmbeddingCache, embed
from .encoders import DEFAULT_PANEL, Encoder, available_encoders, get_encoder, installed_panel, resolve_models
from .errors import DataError, EmptyTextError, HubUnavailableError, ModelNotInstalledError, UnknownModelError

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_PANEL",
    "DataError",
    "EmbeddingCache",
    "EmptyTextError",
    "Encoder",
    "HubUnavailableError",
    "ModelNotInstalledError",
    "UnknownModelError",
    "available_encoders",
    "data",
    "embed",
    "get_encoder",
    "installed_panel",
    "measures",
    "paths",
    "resolve_models",
    "results",
    "stats",
]
