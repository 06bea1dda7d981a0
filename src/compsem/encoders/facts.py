"""What loading a local model told us, kept on disk so that a later process need not load it.

A chapter whose texts are all in the embedding cache needs an encoder's ``identity`` (the
cache key) and ``dim``, not its weights. For a sentence-transformers model in a local folder
(the shipped panel) the first load writes both to ``<cache>/encoders/<key>.json``; the key
covers everything the two depend on: the spec, the folder, the digest of every file in it
(:func:`~compsem.encoders.base.weights_digest`, so edited weights or configs are a new key),
the origin and revision, and the installed sentence-transformers and transformers versions.
A later construction with the same key reads them back and loads the model only when it first
has to encode (in the book: only chapters with texts the cache lacks).

A record is used only when it is valid JSON for this very key, with a positive integer ``dim``
and an identity that begins with the spec and weights digest it was asked for; anything else
(a damaged file, another model's record) is ignored and the model loads as before. When the
model does load, its real identity is compared with the one read back
(:func:`check`). Records sit in the cache folder, or in this user's private overlay when the
cache is a read-only shared one (:func:`compsem.store.save_to_cache`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import CompsemError
from ..paths import cache_dir
from ..store import BrokenStoreError, find_in_cache, json_writer, read_json, save_to_cache
from .base import package_version

__all__ = ["facts_key", "recall", "remember", "check", "FORMAT"]

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


def recall(key: str, *, prefix: str) -> tuple[str, int] | None:
    """``(identity, dim)`` recorded under ``key`` when the record is sound and its identity
    starts with ``prefix``; else None (the caller loads the model)."""
    try:
        rec = read_json(find_in_cache(_path(key)))
    except (FileNotFoundError, BrokenStoreError, OSError):
        return None
    if not isinstance(rec, dict) or rec.get("key") != key:
        return None
    ident, dim = rec.get("identity"), rec.get("dim")
    if not (isinstance(ident, str) and ident.startswith(prefix)):
        return None
    if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
        return None
    return ident, dim


def remember(key: str, identity: str, dim: int) -> None:
    """Record what a load found (where the cache cannot be written: the overlay, else nothing)."""
    save_to_cache(_path(key), json_writer({"key": key, "identity": identity, "dim": int(dim)}, indent=1),
                  what="an encoder's identity")


def check(spec: str, recorded: tuple[str, int], loaded: tuple[str, int], key: str) -> None:
    """After a deferred load: the loaded model must be the one the record described. A
    mismatch (which the key should rule out) rewrites the record and stops the run, since
    vectors may already have been read from the cache under the recorded identity."""
    if recorded == loaded:
        return
    remember(key, *loaded)
    raise CompsemError(f"{spec}: the model loaded as {loaded[0]!r} (dim {loaded[1]}), not as its record "
                       f"said ({recorded[0]!r}, dim {recorded[1]}); the record is corrected: run again")
