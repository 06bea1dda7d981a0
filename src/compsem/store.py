"""One convention for the study's result stores on disk: write atomically, read or say it is broken.

A store file (a finished C-STS run, a Part IV score matrix's metadata, a result table) is
written to a temporary file beside its final place and moved there with :func:`os.replace`,
so a reader sees the old file or the new one, never half of one. A file that cannot be read
back (truncated by a full disk, edited by hand) raises :class:`BrokenStoreError`, which names
it; callers that can recompute catch it and do so.

**Read-only shared caches.** Every store under the cache folder (C-STS run records and frozen
states, Part IV score matrices) has a twin place in the private overlay
(:func:`compsem.paths.overlay_dir`): :func:`layers` lists where an entry may be found (the
cache, then the overlay), :func:`save_to_cache` writes it to the first of them that can be
written, and when none can, warns once and returns ``None`` (the caller keeps the result in
memory). :func:`private_folder` checks the overlay before each use: created ``0700``, owned by
this user and writable by no one else, or refused with an :class:`~compsem.errors.UnsafeFolderError`.
Files written there are ``0600``; elsewhere they follow the umask (a shared cache stays readable).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import CacheWarning, CompsemError, UnsafeFolderError
from .paths import cache_dir, overlay_dir

__all__ = [
    "BrokenStoreError",
    "write_atomic",
    "write_json",
    "read_json",
    "read_record",
    "save_npy",
    "load_npy",
    "private_folder",
    "layers",
    "find_in_cache",
    "save_to_cache",
    "json_writer",
    "npy_writer",
    "writable_place",
    "move_aside",
    "can_write",
    "write_below",
    "LinkError",
]


class LinkError(CompsemError, OSError):
    """A path that :func:`write_below` will not write through: a symbolic link, or not a folder."""


class BrokenStoreError(CompsemError, ValueError):
    """A stored result file exists but cannot be read back."""

    def __init__(self, path: Path, why: str):
        self.path = Path(path)
        super().__init__(f"{path} is broken ({why}); delete it and the next run recomputes it")


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def private_folder(path: str | Path, *, create: bool = True) -> Path:
    """``path`` as a private folder: created ``0700`` when missing (with ``create``), and checked
    at every call: a folder, owned by this user, not writable by group or others.

    Raises
    ------
    UnsafeFolderError
        One line naming the folder and what is wrong with it.
    """
    path = Path(path)
    if create:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return path
    why = ""
    if not stat.S_ISDIR(st.st_mode):
        why = "not a folder"
    elif hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        why = f"owned by another user (uid {st.st_uid}, you are uid {os.geteuid()})"
    elif st.st_mode & 0o022:
        why = f"writable by {'others' if st.st_mode & 0o002 else 'its group'} (mode {stat.S_IMODE(st.st_mode):o})"
    if why:
        raise UnsafeFolderError(
            f"the cache overlay folder {path} is {why}: refused, it could hold entries planted "
            "by someone else; remove it, or set COMPSEM_CACHE_OVERLAY to a private folder of "
            "your own"
        )
    return path


def _overlay_twin(path: Path) -> Path | None:
    try:
        rel = path.resolve().relative_to(cache_dir(create=False).resolve())
    except ValueError:
        return None
    twin = overlay_dir() / rel
    return None if twin.resolve() == path.resolve() else twin


def _in_overlay(path: Path) -> bool:
    try:
        path.resolve().relative_to(overlay_dir().resolve())
    except (ValueError, OSError):
        return False
    return True


def layers(path: str | Path) -> list[Path]:
    """Where an entry whose place is ``path`` may be: ``path``, then (for a path under the cache
    folder) its twin in the overlay, when the overlay exists; the overlay is checked first
    (:func:`private_folder`)."""
    path = Path(path)
    twin = _overlay_twin(path)
    if twin is None or not overlay_dir().exists():
        return [path]
    private_folder(overlay_dir(), create=False)
    return [path, twin]


def find_in_cache(path: str | Path) -> Path:
    """The first of :func:`layers` that exists, else ``path`` itself."""
    return next((p for p in layers(path) if p.exists()), Path(path))


def can_write(path: str | Path) -> bool:
    """Whether ``path`` can be written: an existing file and its folder (for a journal or a
    temporary twin beside it), else the nearest folder above it that exists."""
    path = Path(path)
    if path.is_file():
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    while not path.exists() and path != path.parent:
        path = path.parent
    return os.access(path, os.W_OK)


def writable_place(folder: str | Path) -> Path:
    """``folder`` when it (or the nearest folder above it that exists) can be written, else its
    twin in the checked overlay (:func:`private_folder`): where a store that keeps many files
    together (Part IV's score blocks) puts new ones."""
    folder = Path(folder)
    twin = _overlay_twin(folder)
    if twin is None or can_write(folder):
        return folder
    private_folder(overlay_dir())
    return twin


_WARNED: set[str] = set()


def save_to_cache(path: str | Path, write: Callable[[Path], None], *, what: str) -> Path | None:
    """Write an entry (``write(tmp)``, atomically) at ``path``, or at its overlay twin when the
    cache cannot be written there (a read-only shared cache, a full disk); return where, or
    ``None`` after one warning when neither could be written (the caller keeps it in memory)."""
    path = Path(path)
    twin = _overlay_twin(path)
    errors = []
    for target, private in ((path, False), (twin, True)):
        if target is None:
            continue
        try:
            if private:
                private_folder(overlay_dir())
            return write_atomic(target, write, private=private)
        except UnsafeFolderError:
            raise
        except OSError as exc:
            errors.append(f"{target.parent}: {exc.strerror or exc}")
    key = f"{path.parent}"
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(
            f"could not store {what} ({'; '.join(errors)}); it is kept in memory for this run and recomputed next time",
            CacheWarning,
            stacklevel=3,
        )
    return None


def move_aside(path: str | Path) -> Path | None:
    """Rename a file (and its SQLite ``-wal``/``-shm`` companions) to ``<name>.broken-<time>``,
    never over an earlier one; return the new name, or ``None`` when there was no file. It needs
    no reading of the file, so a file too damaged to open is moved aside as well."""
    path = Path(path)
    if not path.exists():
        return None
    stamp = f"{path.name}.broken-{time.strftime('%Y%m%d-%H%M%S')}"
    target, n = path.with_name(stamp), 1
    while any(path.with_name(target.name + s).exists() for s in ("", "-wal", "-shm")):
        n += 1  # two clears in one second: never overwrite the first
        target = path.with_name(f"{stamp}-{n}")
    path.rename(target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    return target


def write_atomic(path: str | Path, write: Callable[[Path], None], *, private: bool = False) -> Path:
    """Call ``write(tmp)`` on a temporary file in ``path``'s folder, then move it to ``path``.

    The folder is created. The file is ``0600`` with ``private``, else readable as the umask
    allows (a shared cache's entries stay readable by its users). On any error the temporary
    file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        private = private or _in_overlay(path)
        os.chmod(tmp, 0o600 if private else 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_below(root: str | Path, rel: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``root/rel`` without following a symbolic link below ``root``.

    Each folder of ``rel`` is created when missing and opened with ``O_NOFOLLOW`` relative to the
    one above it (``openat``), so a link planted anywhere below ``root`` (a folder or the file
    itself) is never followed; the file is written to a new temporary name (``O_EXCL``) in its
    folder and renamed over ``rel``'s last part, which replaces a link there instead of writing
    through it. ``root`` itself is opened as given (the caller has judged it). A link or a
    non-folder on the way is a :class:`LinkError` naming it; nothing is written then.
    """
    root, parts = Path(root), Path(rel).parts
    if not parts or any(p in ("", ".", "..") for p in parts) or Path(rel).is_absolute():
        raise ValueError(f"write_below: {rel!s} is not a relative path inside {root}")
    blob = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        where = root
        for name in parts[:-1]:
            where = where / name
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:  # ELOOP: a link; ENOTDIR: a file
                raise LinkError(
                    f"{where} is a symbolic link or not a folder: refused to write {root / rel} through "
                    f"it ({exc.strerror}); remove it, or name another folder"
                ) from None
            os.close(fd)
            fd = sub
        tmp = f".{parts[-1]}.{os.urandom(6).hex()}.tmp"
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666, dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as f:
                f.write(blob)
            os.replace(tmp, parts[-1], src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
    finally:
        os.close(fd)
    return root / rel


def json_writer(obj: Any, **dumps) -> Callable[[Path], None]:
    """A ``write(tmp)`` for :func:`write_atomic` / :func:`save_to_cache`: ``obj`` as JSON."""
    text = json.dumps(obj, **dumps)
    return lambda tmp: tmp.write_text(text, encoding="utf-8")


def npy_writer(array) -> Callable[[Path], None]:
    """A ``write(tmp)`` for :func:`write_atomic` / :func:`save_to_cache`: a NumPy array (no pickles)."""
    import numpy as np

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.save(f, array, allow_pickle=False)

    return write


def write_json(path: str | Path, obj: Any, **dumps) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically (``dumps`` goes to :func:`json.dumps`)."""
    return write_atomic(path, json_writer(obj, **dumps))


def read_json(path: str | Path) -> Any:
    """The JSON object in ``path``.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    BrokenStoreError
        It exists but is not valid JSON (or not UTF-8).
    """
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BrokenStoreError(path, f"not valid JSON: {e}") from None


def read_record(path: str | Path, what: str, error: type[CompsemError]) -> dict:
    """The JSON object of a record this project keeps (a stored choice of the device or of the
    ONNX backend): ``FileNotFoundError`` when there is none; a file that is not valid JSON, or
    holds anything but an object, is ``error`` naming ``what`` and the file ("the stored ONNX
    choice /c/decision-m.json holds list, not an object"). JSON only, never unpickled. What the
    object must hold, and whose file it must be, is the caller's check."""
    path = Path(path)
    try:
        rec = read_json(path)
    except BrokenStoreError as exc:
        raise error(f"{what} {exc}") from None
    if not isinstance(rec, dict):
        raise error(f"{what} {path} holds {type(rec).__name__}, not an object")
    return rec


def save_npy(path: str | Path, array) -> Path:
    """Save a NumPy array to ``path`` atomically (no pickles)."""
    return write_atomic(path, npy_writer(array))


def load_npy(path: str | Path):
    """The array in ``path`` (never unpickled); a truncated file is a :class:`BrokenStoreError`."""
    import numpy as np

    path = Path(path)
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError) as e:
        raise BrokenStoreError(path, f"not a readable .npy file: {e}") from None
