"""The embedding cache's storage: :class:`EmbeddingCache`, one SQLite file (see :mod:`compsem.cache`).

Opening, locking and retrying, read-only opening with an overlay for the misses, checksums,
and the translation of every SQLite failure into a :class:`CacheError` that names the file.

A shared cache cannot steer its users: a cache file, its ``-wal``/``-shm``/``-journal`` and its
folder are never reached through a symbolic link another user made (an
:class:`~compsem.errors.UnsafeFolderError`); a file whose ``models`` or ``vectors`` table is not
ours, or whose ``application_id`` is another program's, is judged read-only and never changed; a
file this cache made carries :data:`APPLICATION_ID`, and ``clear`` acts on no other; what
``info`` shows of a file's rows is escaped (:func:`printable`).
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import stat
import time
import warnings
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from .encoders import Encoder
from .errors import BrokenCacheError, CacheError, CacheWarning, UnsafeFolderError
from .paths import cache_dir, overlay_dir
from .settings import scrub, setting
from .store import can_write, move_aside, private_folder
from .fmt import plural

__all__ = [
    "EmbeddingCache",
    "text_key",
    "model_key",
    "CacheError",
    "CacheWarning",
    "overlay_dir",
    "printable",
    "APPLICATION_ID",
]

#: SQLite's ``application_id`` of a file this cache made (``cmps``): ``cache clear`` acts on no other.
APPLICATION_ID = 0x636D7073
#: The tables and columns of a cache file (a file made before the checksums lacks ``sum``).
_COLUMNS = {"models": ({"model", "spec", "identity", "dim"}, set()), "vectors": ({"model", "key", "vec"}, {"sum"})}

T = TypeVar("T")

# A rowid table keeps a vector of up to ~4 KB inside its page; the former WITHOUT ROWID table
# (still read and written in caches made before) spilled every row over ~1 KB (a 384-d vector)
# into an overflow page: 3.1x the raw bytes on disk and half the write speed.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS models (model TEXT PRIMARY KEY, spec TEXT NOT NULL, identity TEXT NOT NULL,
                                   dim INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, vec BLOB NOT NULL, sum INTEGER,
                                    UNIQUE (model, key));
"""


def text_key(text: str) -> str:
    """SHA-256 hex digest of the UTF-8 text (the text itself is not stored)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_key(identity: str) -> str:
    """Short hash of an encoder identity."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:24]


_WARNED: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, CacheWarning, stacklevel=3)


def overlay_path() -> Path:
    """The overlay's embedding cache file (:func:`compsem.paths.overlay_dir`)."""
    return overlay_dir() / "embeddings.sqlite"


def _default_path() -> Path:
    try:
        return cache_dir("embeddings") / "embeddings.sqlite"
    except OSError:  # a read-only COMPSEM_CACHE without embeddings/
        return cache_dir("embeddings", create=False) / "embeddings.sqlite"


def _checksum(blob: bytes) -> int:
    return zlib.crc32(blob)


def printable(text: object) -> str:
    """``text`` with every control or other unprintable character written as an escape
    (``\\x1b``): what a shared cache says about itself is shown, never obeyed by the terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


class _Foreign(Exception):
    """Raised inside a transaction: the file is an SQLite database of something else."""


def _foreign_reason(con: sqlite3.Connection) -> int:
    """The file's ``application_id`` when it may be a cache file (ours, or 0: new or made before
    the id); :class:`_Foreign` when its ``models`` or ``vectors`` table has other columns or
    its id is another program's."""
    app = con.execute("PRAGMA application_id").fetchone()[0]
    tables = {
        t: {r[0] for r in con.execute("SELECT name FROM pragma_table_info(?)", (t,))}
        for (t,) in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
    }
    odd = sorted(
        t
        for t, cols in tables.items()
        if t in _COLUMNS and not (_COLUMNS[t][0] <= cols <= _COLUMNS[t][0] | _COLUMNS[t][1])
    )
    if app not in (0, APPLICATION_ID) or odd:
        shown = ", ".join(printable(t) for t in sorted(tables)[:6]) or "no tables"
        raise _Foreign(f"application_id {app}, tables {shown}")
    return app


def _check_not_foreign(path: Path) -> None:
    """Judge an existing file read-only before anything (the switch to WAL included) writes to it."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return
    try:
        _foreign_reason(con)
    except sqlite3.Error:  # damaged or locked: judged again when it is opened
        pass
    finally:
        con.close()


def _refuse_foreign_links(path: Path) -> None:
    """A cache file, its SQLite companions and its folder are never reached through a symbolic
    link another user made: one planted in a shared folder could point at any file of the
    caller's (their own links are followed)."""
    me = os.geteuid() if hasattr(os, "geteuid") else None
    for p in (path.parent, path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if me is not None and stat.S_ISLNK(st.st_mode) and st.st_uid != me:
            raise UnsafeFolderError(
                f"the embedding cache {path}: {p} is a symbolic link made by uid {st.st_uid}, not "
                f"by you (uid {me}): refused, never followed (it could point at any file of "
                "yours); remove it, or set COMPSEM_CACHE to a folder of your own"
            )


def _lock_timeout() -> float:
    return float(setting("COMPSEM_CACHE_TIMEOUT"))


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


class EmbeddingCache:
    """Vectors on disk, keyed by (model identity, text).

    Parameters
    ----------
    path : path-like, optional
        The SQLite file; default ``<cache_dir>/embeddings/embeddings.sqlite``.
    overlay : bool
        ``False``: a read-only file gets no overlay (``cache verify``/``clear`` judge each file alone).

    Raises
    ------
    CacheError
        The file exists but is not a usable SQLite database (the message names it and says
        to run ``python -m compsem cache clear``).
    """

    _CHUNK = 500  # keys per SELECT (SQLite's host-parameter limit is far above)

    def __init__(self, path: str | Path | None = None, *, readonly: bool | None = None, overlay: bool = True):
        self.path = Path(path) if path else _default_path()
        _refuse_foreign_links(self.path)
        self._use_overlay = overlay  # False: this file alone (``cache verify``/``clear``)
        self.private = self.path.parent.resolve() == overlay_dir().resolve()
        if self.private:  # checked at every open, created 0700
            private_folder(self.path.parent, create=not readonly)
        self.readonly = False
        self._models: dict[str, tuple[str, str, int]] = {}  # registered, written with their first vectors
        self.overlay: EmbeddingCache | None = None  # where a read-only cache's misses go
        self._memory: dict[tuple[str, str], np.ndarray] = {}
        self._uri: str | None = None  # the read-only connection string
        self._has_sum = True
        if readonly is None:
            readonly = not can_write(self.path)
        if not readonly:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                _check_not_foreign(self.path)
                if self.private and not self.path.exists():  # SQLite's -wal and -shm files copy this mode
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
                self._with_retry(self._migrate)
            except _Foreign as exc:
                raise CacheError(
                    f"{self.path} is an SQLite database of something else ({exc}), not an embedding "
                    "cache this program made: left as it is, never changed; set COMPSEM_CACHE to "
                    "another folder"
                ) from None
            except PermissionError:
                readonly = True
            except CacheError as exc:  # the file system said no although the modes allowed it
                cause = str(exc.__cause__).lower()
                if not any(t in cause for t in ("readonly", "read-only", "unable to open")):
                    raise
                readonly = True
        if readonly:
            self._open_readonly()

    @staticmethod
    def _migrate(con: sqlite3.Connection) -> None:
        """Create the tables in a new file, add ``sum`` to an old one; a file whose ``models`` or
        ``vectors`` table has other columns, or with another ``application_id``, is
        :class:`_Foreign`, and never changed."""
        app = _foreign_reason(con)
        if app == 0:
            con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        con.executescript(_SCHEMA)
        cols = [r[1] for r in con.execute("PRAGMA table_info(vectors)")]
        if "sum" not in cols:  # caches made before the checksums: rows without one are not checked
            con.execute("ALTER TABLE vectors ADD COLUMN sum INTEGER")

    def _open_readonly(self) -> None:
        self.readonly = True
        if self.path.is_file():
            last: BaseException | None = None
            for query in ("mode=ro", "mode=ro&immutable=1"):
                uri = f"{self.path.resolve().as_uri()}?{query}"
                try:
                    con = sqlite3.connect(uri, uri=True)
                    try:
                        cols = [r[1] for r in con.execute("PRAGMA table_info(vectors)")]
                        con.execute("SELECT COUNT(*) FROM models").fetchone()
                    finally:
                        con.close()
                except sqlite3.DatabaseError as exc:
                    last = exc
                    continue
                self._uri, self._has_sum = uri, "sum" in cols
                break
            else:
                if "not a database" in str(last) or "malformed" in str(last):
                    raise self._broken(last) from last
                raise CacheError(
                    f"the read-only embedding cache {self.path} cannot be read ({last}); ask its owner "
                    "to make it readable, or set COMPSEM_CACHE to a folder of your own"
                )
        where = overlay_path()
        if not self._use_overlay:
            return
        try:
            if where.resolve() != self.path.resolve():
                self.overlay = EmbeddingCache(where, readonly=False)
        except (UnsafeFolderError, BrokenCacheError):
            raise  # never used, never silently replaced by memory
        except (OSError, CacheError):  # the overlay cannot be written here: memory
            self.overlay = None
        kept = f"new vectors go to {self.overlay.path}" if self.overlay else "new vectors are kept in memory only"
        _warn_once(
            f"ro:{self.path}",
            f"the embedding cache {self.path} is read-only: its vectors are used, {kept} "
            "(set COMPSEM_CACHE_OVERLAY to choose where)",
        )

    def _broken(self, exc: BaseException) -> BrokenCacheError:
        return BrokenCacheError(
            f"the embedding cache {self.path} is not a usable database ({exc}); run "
            "`python -m compsem cache clear` to move it aside and start a new one "
            "(or delete the file)",
            cause=str(exc),
        )

    def _failed(self, exc: BaseException) -> CacheError:
        text = str(exc).lower()
        if "full" in text:
            todo = (
                "the disk is full: free space there, or set COMPSEM_CACHE to a folder on a bigger disk "
                "(the vectors computed are returned, not stored)"
            )
        elif "readonly" in text or "read-only" in text or "unable to open" in text:
            todo = (
                "it cannot be written here: make it writable, or set COMPSEM_CACHE to a folder of your own "
                "(a read-only cache is used with COMPSEM_CACHE_OVERLAY for the new vectors)"
            )
        elif "disk i/o" in text or "ioerr" in text:
            todo = (
                "the disk or file system reported an error: check the disk and its free space (`df`, the "
                "system log); the file itself may be fine, `python -m compsem cache verify` says so"
            )
        elif _is_lock_error(exc):
            todo = (
                f"another process held its lock for more than {_lock_timeout():g} seconds: wait for it, or "
                "raise COMPSEM_CACHE_TIMEOUT"
            )
        else:
            todo = (
                "check the file and its folder (permissions, free space); "
                "`python -m compsem cache verify` says whether the file is damaged"
            )
        return CacheError(f"the embedding cache {self.path} failed ({exc}); {todo}")

    def _connect(self) -> sqlite3.Connection:
        timeout = _lock_timeout()
        if self._uri:
            return sqlite3.connect(self._uri, uri=True, timeout=timeout)
        con = sqlite3.connect(self.path, timeout=timeout)
        try:
            con.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            # Switching a new file to WAL needs a lock that SQLite does not wait for: check first,
            # and let _with_retry try again when another process holds it.
            if con.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            con.close()
            raise
        return con

    def _with_retry(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(con)`` in one transaction; on a lock held elsewhere, wait and try again
        (jittered backoff, up to ``$COMPSEM_CACHE_TIMEOUT`` seconds)."""
        deadline = time.monotonic() + _lock_timeout()
        delay = 0.02
        while True:
            try:
                con = self._connect()
                try:
                    with con:
                        return work(con)
                finally:
                    con.close()
            except sqlite3.OperationalError as exc:
                if not _is_lock_error(exc) or time.monotonic() > deadline:
                    raise self._failed(exc) from exc
            except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
                raise self._broken(exc) from exc
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)

    move_aside = staticmethod(move_aside)  # compsem.store.move_aside: the file and its -wal/-shm, never over another

    def register(self, encoder: Encoder) -> str:
        """Return an encoder's model key; its identity (with anything like a credential removed,
        :func:`scrub`) is written with its first stored vectors, in the same transaction, so a
        run that stores nothing (all hits, a full disk) writes nothing."""
        key = model_key(encoder.identity)
        if self.readonly:
            if self.overlay is not None:
                self.overlay.register(encoder)
            return key
        self._models[key] = (encoder.spec, scrub(encoder.identity), int(encoder.dim))
        return key

    def get_many(self, model: str, keys: Sequence[str], dim: int) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys`` (a missing key is simply absent from the result)."""
        sum_col = "sum" if self._has_sum else "NULL"
        bad: list[str] = []

        def read(con: sqlite3.Connection) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            for s in range(0, len(keys), self._CHUNK):
                chunk = list(keys[s : s + self._CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(
                    f"SELECT key, vec, {sum_col} FROM vectors WHERE model = ? AND key IN ({marks})", [model, *chunk]
                )
                for k, blob, crc in rows:
                    if crc is not None and crc != _checksum(blob):
                        bad.append(k)  # silently damaged bytes: a miss, re-encoded
                        continue
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (dim,):  # a row of another shape is ignored (re-embedded)
                        found[k] = vec
            return found

        found = self._with_retry(read) if (self._uri or not self.readonly) else {}
        if bad:
            _warn_once(
                f"sum:{self.path}",
                f"the embedding cache {self.path} holds {plural(len(bad), 'vector')} whose "
                "checksum does not match (damaged on disk): they are re-encoded",
            )
        if self.readonly:
            rest = [k for k in keys if k not in found]
            if self.overlay is not None:
                found.update(self.overlay.get_many(model, rest, dim))
            else:
                found.update({k: self._memory[(model, k)] for k in rest if (model, k) in self._memory})
        return found

    def count_cached(self, spec: str, keys: Sequence[str]) -> int:
        """How many of the distinct ``keys`` (:func:`text_key`) the cache holds for a model of this
        spec: the best of the spec's identities, read without loading the model (a read-only
        cache: the better of its file and its overlay)."""
        keys = list(dict.fromkeys(keys))

        def count(con: sqlite3.Connection) -> int:
            best = 0
            for (m,) in con.execute("SELECT model FROM models WHERE spec = ?", (spec,)).fetchall():
                n = 0
                for s in range(0, len(keys), self._CHUNK):
                    chunk = keys[s : s + self._CHUNK]
                    n += con.execute(
                        f"SELECT COUNT(*) FROM vectors WHERE model = ? AND key IN ({','.join('?' * len(chunk))})",
                        [m, *chunk],
                    ).fetchone()[0]
                best = max(best, n)
            return best

        n = self._with_retry(count) if keys and (self._uri or not self.readonly) else 0
        if self.readonly and self.overlay is not None and n < len(keys):
            n = max(n, self.overlay.count_cached(spec, keys))
        return n

    def put_many(self, model: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Store ``vectors[i]`` under ``keys[i]``, all in one transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if self.readonly:
            if self.overlay is not None:
                self.overlay.put_many(model, keys, vectors)
            else:
                self._memory.update({(model, k): vectors[i].copy() for i, k in enumerate(keys)})
            return
        rows = [(model, k, b, _checksum(b)) for k, b in ((k, vectors[i].tobytes()) for i, k in enumerate(keys))]
        meta = self._models.get(model)

        def write(con: sqlite3.Connection) -> None:
            if meta is not None:
                con.execute("INSERT OR REPLACE INTO models VALUES (?, ?, ?, ?)", (model, *meta))
            con.executemany("INSERT OR REPLACE INTO vectors (model, key, vec, sum) VALUES (?, ?, ?, ?)", rows)

        self._with_retry(write)
        self._models.pop(model, None)

    def integrity(self) -> list[str]:
        """What SQLite's ``PRAGMA integrity_check`` finds wrong with the file (empty: nothing);
        a file too damaged to be checked is a :class:`~compsem.errors.BrokenCacheError`."""
        if self.readonly and not self._uri:
            return []
        rows = self._with_retry(lambda con: con.execute("PRAGMA integrity_check(20)").fetchall())
        problems = [str(r[0]) for r in rows]
        return [] if problems == ["ok"] else problems

    def verify(self) -> tuple[int, int, int]:
        """``(rows, rows checked, rows whose checksum does not match)`` over the whole file."""
        if not self._has_sum:
            n = self._with_retry(lambda con: con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
            return int(n), 0, 0

        def scan(con: sqlite3.Connection) -> tuple[int, int, int]:
            n = checked = bad = 0
            for blob, crc in con.execute("SELECT vec, sum FROM vectors"):
                n += 1
                if crc is not None:
                    checked += 1
                    bad += crc != _checksum(blob)
            return n, checked, bad

        return self._with_retry(scan)

    def info(self):
        """One row per cached model: spec, identity, dimension, number of texts, MB."""
        import pandas as pd

        rows = (
            []
            if (self.readonly and not self._uri)
            else self._with_retry(
                lambda con: con.execute(
                    "SELECT m.spec, m.identity, m.dim, COUNT(v.key), COALESCE(SUM(LENGTH(v.vec)), 0) "
                    "FROM models m LEFT JOIN vectors v ON v.model = m.model GROUP BY m.model ORDER BY m.spec"
                ).fetchall()
            )
        )
        # rows stored before scrubbing are scrubbed; what a shared file says is escaped (printable)
        rows = [(printable(spec), printable(scrub(identity)), *rest) for spec, identity, *rest in rows]
        return (
            pd.DataFrame(rows, columns=["spec", "identity", "dim", "texts", "bytes"])
            .assign(MB=lambda d: (d.bytes / 1e6).round(2))
            .drop(columns="bytes")
        )

    def clear(self, spec: str | None = None) -> int:
        """Delete every cached vector (or only those of models whose spec is ``spec``).

        Returns the number of vectors removed.
        """
        if self.readonly:
            raise CacheError(f"the embedding cache {self.path} is read-only: it cannot be cleared from here")

        def delete(con: sqlite3.Connection) -> int:
            if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:  # only a file it made
                raise CacheError(f"{self.path} is not an embedding cache this program made: left as it is")
            if spec is None:
                n = con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
                con.execute("DELETE FROM vectors")
                con.execute("DELETE FROM models")
                return n
            n = 0
            for (m,) in con.execute("SELECT model FROM models WHERE spec = ?", (spec,)).fetchall():
                n += con.execute("DELETE FROM vectors WHERE model = ?", (m,)).rowcount
                con.execute("DELETE FROM models WHERE model = ?", (m,))
            return n

        n = self._with_retry(delete)
        try:
            con = sqlite3.connect(self.path, timeout=_lock_timeout())
            try:
                con.execute("VACUUM")
            finally:
                con.close()
        except sqlite3.OperationalError as exc:  # another process is reading: the space is reused later
            if not _is_lock_error(exc):
                raise self._failed(exc) from exc
        return int(n)
