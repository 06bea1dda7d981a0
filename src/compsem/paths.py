"""Where the study keeps its data, caches and results.

Every location can be moved with an environment variable, so a reader can point a chapter
at another data folder or keep the embedding cache on a bigger disk:

==================  ===============================  =====================================
variable            default                          what
==================  ===============================  =====================================
``COMPSEM_ROOT``    the clone (found upwards)         base of the defaults below
``COMPSEM_DATA``    ``<root>/data``                  shipped data sets and reference numbers
``COMPSEM_CACHE``   ``<root>/.cache``                embedding cache, score-matrix caches
``COMPSEM_RESULTS`` ``<root>/results``               tidy result tables written by chapters
==================  ===============================  =====================================

``COMPSEM_CACHE`` may be a read-only shared cache (a class on one JupyterHub); what a run adds
then goes to the private overlay :func:`overlay_dir` (``$COMPSEM_CACHE_OVERLAY``, default
``$XDG_CACHE_HOME/compsem/overlay``, else ``~/.cache/compsem/overlay``), see :mod:`compsem.cache`
and :mod:`compsem.store`. Every variable is checked by :func:`compsem.settings.setting` (a file
where a folder is expected is a :class:`~compsem.errors.SettingError`).
"""

from __future__ import annotations

import os
from pathlib import Path

from .settings import setting

__all__ = ["repo_root", "data_dir", "cache_dir", "results_dir", "notebooks_dir", "overlay_dir"]


def _looks_like_root(path: Path) -> bool:
    return (path / "pyproject.toml").is_file() and (path / "src" / "compsem").is_dir()


def repo_root() -> Path:
    """The repository root: ``$COMPSEM_ROOT``, else the first parent of the working directory
    that holds ``pyproject.toml`` and ``src/compsem`` (the user's own clone), else that of this
    package, else the working directory.

    The working directory comes first so that one environment serves a whole JupyterHub: a
    student who runs the lecturer's ``.venv`` (an editable install of the lecturer's clone) from
    their own clone reads that clone's notebooks and writes its runs there, never into the
    lecturer's repository (``tests/compsem/book/test_hub.py`` runs it as three users)."""
    env = setting("COMPSEM_ROOT")
    if env:
        return env.resolve()
    here = Path(__file__).resolve()
    for start in (Path.cwd().resolve(), here):
        for cand in (start, *start.parents):
            if _looks_like_root(cand):
                return cand
    return Path.cwd().resolve()


def _sub(env: str, default: str, *parts: str, create: bool = False) -> Path:
    given = setting(env)
    base = given.resolve() if given else repo_root() / default
    path = base.joinpath(*parts)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir(*parts: str) -> Path:
    """``data/`` (or ``$COMPSEM_DATA``) joined with ``parts``, e.g. ``data_dir("setcomp")``."""
    return _sub("COMPSEM_DATA", "data", *parts)


def cache_dir(*parts: str, create: bool = True) -> Path:
    """The cache folder (created on demand unless ``create=False``), e.g. ``cache_dir("embeddings")``."""
    return _sub("COMPSEM_CACHE", ".cache", *parts, create=create)


def results_dir(*parts: str) -> Path:
    """Where chapters write tidy result tables (created on demand)."""
    return _sub("COMPSEM_RESULTS", "results", *parts, create=True)


def notebooks_dir() -> Path:
    """The chapter notebooks."""
    return repo_root() / "notebooks"


def overlay_dir() -> Path:
    """The private folder where a run keeps what a read-only cache lacks:
    ``$COMPSEM_CACHE_OVERLAY``, else ``$XDG_CACHE_HOME/compsem/overlay``, else
    ``~/.cache/compsem/overlay`` (per user, never a shared temporary folder; checked by
    :func:`compsem.store.private_folder` before each use)."""
    given = setting("COMPSEM_CACHE_OVERLAY")
    if given:
        return given
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "compsem" / "overlay"
