"""What loading a local model told us, kept on disk so that a later process need not load it.

A chapter whose texts are all in the embedding cache needs an encoder's ``identity`` (the
cache key) and ``dim``, not its weights. For a sentence-transformers model in a local folder
(the shipped panel) the first load writes both to ``<cache>/encoders/<key>.json``; the key
covers everything the two depend on: the spec, the folder, the digest of every file in it
(:func:`~compsem.encoders.base.weights_digest`, so edited weights or configs are a new key),
the origin and revision, and the installed sentence-transformers and transformers versions.
A later construction with the same key reads them back and loads the model only when it first
has to encode (in the book: only chapters with texts the cache lacks).

A record is used only when it is valid JSON for this very key, with a ``dim`` from 1 to
:data:`MAX_DIM` and exactly the identity the spec and the model files produce (the spec, the
weights digest, then only the modules and maximum length: an identity with anything added, such
as an int8 backend's label, is not one this model has); anything else (a damaged file, another
model's record, an edited one) is ignored with one warning and the model loads as before. When the
model does load, its real identity is compared with the one read back
(:func:`check`). Records sit in the cache folder, or in this user's private overlay when the
cache is a read-only shared one (:func:`compsem.store.save_to_cache`).
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from pathlib import Path

from ..errors import CacheWarning, CompsemError
from ..paths import cache_dir
from ..store import BrokenStoreError, find_in_cache, json_writer, read_json, save_to_cache
from .base import package_version

__all__ = ["facts_key", "recall", "remember", "check", "validate", "RecordError", "FORMAT", "MAX_DIM"]

#: bump when a record's meaning changes (every earlier record is then ignored)
FORMAT = "encoder-facts-1"
_PACKAGES = ("sentence-transformers", "transformers")


def _versions() -> list[str]:
    return [f"{name}=={package_version(name)}" for name in _PACKAGES]


def facts_key(*parts: str) -> str:
    """The record's name: a digest of ``parts`` (spec, folder, weights digest, ...), the
    installed versions of :data:`_PACKAGES` and :data:`FORMAT`."""
    blob = json.dumps([FORMAT, *map(str, parts), *_versions()])
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _path(key: str) -> Path:
    return cache_dir("encoders", create=False) / f"{key}.json"


#: The largest dimension a record may give (the shipped models have 384 to 1,024).
MAX_DIM = 65_536
#: What follows the ``prefix`` in a sentence-transformers identity (encoders/neural.py builds it).
_TAIL = re.compile(r"modules=[A-Za-z_][A-Za-z0-9_]*(\+[A-Za-z_][A-Za-z0-9_]*)*\|max_len=[1-9][0-9]{0,6}")


class RecordError(CompsemError, ValueError):
    """A record in the cache folder that is not what this project writes for this model (a
    damaged file, another model's record, an edited identity, an absurd ``dim``)."""


def validate(rec: object, key: str, *, prefix: str, where: object = "") -> tuple[str, int]:
    """``(identity, dim)`` of ``rec`` when it is exactly what :func:`remember` writes for ``key``:
    an identity that is ``prefix`` plus the modules and maximum length and nothing else, and a
    whole ``dim`` from 1 to :data:`MAX_DIM`; else a :class:`RecordError` naming ``where`` and the fault."""
    if not isinstance(rec, dict):
        raise RecordError(f"the encoder record {where} holds {type(rec).__name__}, not an object")
    ident, dim = rec.get("identity"), rec.get("dim")
    if rec.get("key") != key:
        raise RecordError(f"the encoder record {where} is for key {str(rec.get('key'))[:40]!r}, not {key!r}")
    if not (isinstance(ident, str) and ident.startswith(prefix) and _TAIL.fullmatch(ident[len(prefix) :])):
        raise RecordError(
            f"the encoder record {where} gives the identity {str(ident)[:120]!r}, which is not the one "
            f"this spec and its model files produce ({prefix}modules=...|max_len=N)"
        )
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise RecordError(
            f"the encoder record {where} gives dim {str(dim)[:40]}, not a whole number from 1 to {MAX_DIM:,}"
        )
    return ident, dim


def recall(key: str, *, prefix: str) -> tuple[str, int] | None:
    """``(identity, dim)`` recorded under ``key`` when the record passes :func:`validate`; else
    None (the caller loads the model and writes the record again). A record that exists but
    fails is named in one :class:`~compsem.errors.CacheWarning`."""
    try:
        path = find_in_cache(_path(key))
        return validate(read_json(path), key, prefix=prefix, where=path)
    except (FileNotFoundError, OSError):
        return None
    except (BrokenStoreError, RecordError) as exc:
        warnings.warn(f"{exc}: ignored; the model loads and its record is written again", CacheWarning, stacklevel=3)
        return None


def remember(key: str, identity: str, dim: int) -> None:
    """Record what a load found (where the cache cannot be written: the overlay, else nothing)."""
    save_to_cache(
        _path(key),
        json_writer({"key": key, "identity": identity, "dim": int(dim)}, indent=1),
        what="an encoder's identity",
    )


def check(spec: str, recorded: tuple[str, int], loaded: tuple[str, int], key: str) -> None:
    """After a deferred load: the loaded model must be the one the record described. A
    mismatch (which the key should rule out) rewrites the record and stops the run, since
    vectors may already have been read from the cache under the recorded identity."""
    if recorded == loaded:
        return
    remember(key, *loaded)
    raise CompsemError(
        f"{spec}: the model loaded as {loaded[0]!r} (dim {loaded[1]}), not as its record "
        f"said ({recorded[0]!r}, dim {recorded[1]}); the record is corrected: run again"
    )
