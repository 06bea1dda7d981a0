"""The output folder of ``python -m compsem run``: one run per folder, with a manifest.

A run folder holds one chapter run: the executed notebook, ``results/`` and the manifest
``compsem-run.json`` (:data:`compsem.results.RUN_MANIFEST`: notebook, parameters, commit, run id,
state, the files written, and while it runs the process id and host). A rerun of the same chapter
with the same parameters may reuse its folder; any other non-empty folder is refused.

A run claims its folder in one atomic step: under an exclusive lock on the folder (``flock``),
the emptiness or manifest check and the creation of the manifest (``O_EXCL``) happen together,
so two runs with different parameters never share one folder.

``--force`` clears a folder only when its manifest says it is a compsem run folder and every
entry in it is one that run wrote (the notebook, its ``.runtime.json``, ``results/``, the files
the manifest lists). A folder without a manifest, with other files beside the run's, of a run
still running on this host, or that is (or lies in) the checkout, the working folder, a home,
the data, notebooks or cache folders, is never cleared. What it will remove is printed before
anything is removed. The book build (``--book``) writes into a shared folder and keeps no
manifest.

A manifest counts only when the caller owns it and the folder (:func:`why_not_mine`, the one
check before a folder is reused, overwritten or removed: a rerun, ``--force``, the timed labs,
``--book``, ``stage`` and ``assign``, the last three through :func:`claim_output`), and a folder
other users may write counts only when it is sticky and every entry in it is the caller's; a run
never claims a folder of another user's. Run ids are keyed with a secret of the user's
(:func:`run_id`), so nobody else can plant a manifest that a run takes for its own. A folder is
judged before anything below its top level is read (``--out /tmp`` is refused at once), and a
permission error is one :class:`~compsem.results.RunMixError` naming the folder. What a run
writes into its folder never follows a link (:func:`compsem.store.write_below`, or a temporary
file renamed into place).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import shutil
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from compsem.errors import CompsemError
from compsem.fmt import plural
from compsem.paths import cache_dir, data_dir, notebooks_dir, overlay_dir, repo_root
from compsem.results import RUN_MANIFEST, RunMixError
from compsem.store import private_folder, write_json

__all__ = [
    "run_id",
    "prepare_out",
    "write_manifest",
    "read_manifest",
    "why_not_mine",
    "claim_output",
    "remove_run_folder",
    "KINDS",
]

#: What a manifest may say its folder is: a chapter run (``run``, the default), the book build's
#: executed notebooks (``book``), the staged book (``stage``), one Part's assignment (``assignment``).
KINDS = ("run", "book", "stage", "assignment")
#: The file in the private overlay that holds this user's secret for run ids.
RUN_KEY = "run-key"
_PROCESS_KEY = secrets.token_bytes(32)


def _user_key() -> bytes:
    """This user's secret for :func:`run_id`: ``run-key`` in the private overlay
    (:func:`compsem.store.private_folder`), made once (``0600``, linked into place so that two
    processes never read a half-written key); where there is no private overlay, a key of this
    process only (a rerun in another process then needs ``--force``)."""
    try:
        folder = private_folder(overlay_dir())
        path = folder / RUN_KEY
        if not os.path.lexists(path):
            tmp = folder / f".{RUN_KEY}.{secrets.token_hex(6)}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_hex(32).encode())
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        st = os.lstat(path)
        key = path.read_bytes().strip()
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o077 and len(key) >= 32:
            return key
    except (OSError, CompsemError):
        pass
    return _PROCESS_KEY


def run_id(notebook: str, parameters: dict[str, Any]) -> str:
    """A keyed hash (HMAC-SHA-256 with this user's secret, :func:`_user_key`) of the notebook's
    name and the parameters (canonical JSON): the same for the same chapter and parameters run
    by the same user, and not guessable by another user, who cannot read the key."""
    text = json.dumps({"notebook": notebook, "parameters": parameters}, sort_keys=True, default=str)
    return hmac.new(_user_key(), text.encode(), hashlib.sha256).hexdigest()[:16]


def read_manifest(out: Path, *, kind: str = "run") -> dict | None:
    """``out``'s manifest when it is one of a compsem folder of ``kind`` (:data:`KINDS`; a chapter
    run's: run id, notebook, state, list of files), else ``None`` (missing, a link, unreadable,
    another kind, or some other JSON). Who owns it is :func:`why_not_mine`'s question."""
    try:
        fd = os.open(out / RUN_MANIFEST, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            man = json.loads(f.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(man, dict) or man.get("kind", "run") != kind or not isinstance(man.get("run"), str):
        return None
    if kind != "run":
        return man
    ok = (
        isinstance(man.get("notebook"), str)
        and man["notebook"].endswith(".ipynb")
        and "/" not in man["notebook"]
        and isinstance(man.get("state"), str)
        and isinstance(man.get("files"), list)
        and all(isinstance(f, str) for f in man["files"])
    )
    return man if ok else None


def _entries(folder: Path, *, count: bool = True, limit: int | None = None) -> list[str]:
    """The names in ``folder`` (``name/`` for a folder), sorted; with ``count`` (a run folder
    already judged to be the caller's) each folder with the number of files under it. Without,
    nothing below the top level is read, and at most ``limit`` names (then ``…``)."""
    if not count:
        with os.scandir(folder) as it:
            names = sorted(
                e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for _, e in zip(range(limit or 10**9), it)
            )
        return names + (["…"] if limit and len(names) >= limit else [])
    out = []
    for p in sorted(folder.iterdir()):
        if p.is_dir() and not p.is_symlink():
            n = sum(1 for q in p.rglob("*") if not q.is_dir())
            out.append(f"{p.name}/ ({plural(n, 'file')})")
        else:
            out.append(p.name)
    return out


def _folder_not_yours(out: Path) -> str | None:
    """Why the caller may not take ``out`` as a folder of their own: it belongs to another user,
    or others may write it (so may have put entries there), unless it is sticky (others cannot
    remove or replace the caller's entries) and the caller owns every entry in it."""
    me = os.geteuid()
    st = out.stat()
    if st.st_uid != me:
        return f"the folder belongs to uid {st.st_uid}, not to you (uid {me}): only a folder of your own counts"
    if st.st_mode & 0o022:
        if not st.st_mode & stat.S_ISVTX:
            return (
                f"others may write it (mode {stat.S_IMODE(st.st_mode):o}), so they may have put entries there; "
                "only a folder of your own that others cannot write counts"
            )
        with os.scandir(out) as it:
            foreign = [e.name for e in it if e.stat(follow_symlinks=False).st_uid != me]
        if foreign:
            return (
                f"it is a shared folder and holds entries of other users ({_shown(sorted(foreign))}); a shared "
                "folder counts only when every entry is yours"
            )
    return None


def why_not_mine(out: Path, *, kind: str = "run") -> str | None:
    """Why ``out`` is not a compsem folder of ``kind`` of the caller's (``None``: it is one): the
    one check before anything in a folder is reused, overwritten or removed (``run --force``, a
    rerun, the timed labs, ``--book``, ``stage``, ``assign``). Its manifest counts only when it is
    a regular file owned by the caller, of that kind, in a folder the caller owns and others
    cannot write (:func:`_folder_not_yours`)."""
    me = os.geteuid()
    try:
        man = (out / RUN_MANIFEST).lstat()
    except FileNotFoundError:
        return f"it holds no {RUN_MANIFEST}"
    if man.st_uid != me or not stat.S_ISREG(man.st_mode):
        return f"its {RUN_MANIFEST} belongs to uid {man.st_uid}, not to you (uid {me}): only your own run's manifest counts"
    if read_manifest(out, kind=kind) is None:
        return f"its {RUN_MANIFEST} is not the manifest of a compsem {kind} folder"
    return _folder_not_yours(out)


def _shown(held: list[str]) -> str:
    return ", ".join(held[:6]) + (", …" if len(held) > 6 else "")


def _refuse_to_clear(folder: Path) -> str | None:
    """Why ``folder`` must never be emptied by ``--force``: a checkout, the working folder, a home
    or a parent of one; a folder holding a git repository; the study's data, notebooks or caches,
    or a folder inside them."""
    home = Path.home().resolve()
    for keep in (repo_root(), Path.cwd().resolve(), home):
        if folder == keep or folder in keep.parents:
            return f"it is {keep} or one of its parents"
    if (folder / ".git").exists():
        return "it holds a git repository"
    xdg = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache").resolve()
    for what, keep in (
        ("the study's data", data_dir()),
        ("the chapters", notebooks_dir()),
        ("the study's caches", cache_dir(create=False)),
        ("the user's caches", xdg),
    ):
        keep = keep.resolve()
        if folder == keep or keep in folder.parents:
            return f"it is {what} ({keep}) or lies inside it"
    return None


def _alive_here(man: dict) -> bool:
    """Whether the run that wrote ``man`` is still running on this host."""
    pid = man.get("pid")
    if man.get("state") != "running" or not isinstance(pid, int) or man.get("host") != socket.gethostname():
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clearable(out: Path, man: dict | None, held: list[str]) -> list[Path]:
    """The entries ``--force`` may remove from ``out`` (all of them), or a :class:`RunMixError`."""
    why = _refuse_to_clear(out)
    if why:
        raise RunMixError(f"--force will not clear {out}: {why}")
    if man is None:
        raise RunMixError(
            f"--force will not clear {out}: it holds no {RUN_MANIFEST} of a compsem run "
            f"({_shown(held)}), so it is not a run folder. --force clears only a run folder or an "
            "empty one: name an empty or new folder, or move those files away yourself"
        )
    mine = why_not_mine(out)
    if mine:
        raise RunMixError(f"--force will not clear {out}: {mine}")
    if _alive_here(man):
        raise RunMixError(
            f"--force will not clear {out}: the run of {man['notebook']} in it is still running "
            f"(process {man['pid']}): wait for it, or name another folder"
        )
    nb = man["notebook"]
    allowed = {RUN_MANIFEST, nb, nb[: -len(".ipynb")] + ".runtime.json", "results"}
    allowed |= {f.split("/", 1)[0] for f in man["files"] if f and not f.startswith(("/", ".."))}
    entries = sorted(out.iterdir())
    stray = [
        p.name
        for p in entries
        if p.name not in allowed and not (p.name.startswith(f".{RUN_MANIFEST}.") and p.name.endswith(".tmp"))
    ]
    if stray:
        raise RunMixError(
            f"--force will not clear {out}: besides the run of {nb} it holds "
            f"{plural(len(stray), 'entry', 'entries')} that run did not write ({_shown(stray)}): "
            "move them away yourself, or name another folder"
        )
    return entries


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``folder`` (nothing where the platform has none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: O_EXCL on the manifest still guards the claim
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _payload(
    out: Path, *, run: str, notebook: str, parameters: dict[str, Any], state: str, commit: str | None
) -> dict[str, Any]:
    files = sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and p.name != RUN_MANIFEST and not p.name.endswith(".tmp")
    )
    man = {"run": run, "notebook": notebook, "parameters": parameters, "commit": commit, "state": state, "files": files}
    if state == "running":
        man |= {"pid": os.getpid(), "host": socket.gethostname()}
    return man


def _claim(out: Path, man: dict[str, Any]) -> bool:
    """Create ``out``'s manifest only if none exists (``O_EXCL``); whether this call created it."""
    try:
        fd = os.open(out / RUN_MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(man, indent=1, sort_keys=True, default=str))
    return True


def _announce(text: str) -> None:
    print(text, flush=True)


def prepare_out(
    out: Path,
    *,
    run: str,
    notebook: str,
    parameters: dict[str, Any] | None = None,
    commit: str | None = None,
    force: bool = False,
    check: bool = True,
    announce: Callable[[str], None] = _announce,
) -> list[str]:
    """Claim ``out`` for run ``run`` (creating it and its manifest, state ``running``); return
    what ``--force`` removed (empty when nothing). ``announce`` gets the list of what will be
    removed before anything is.

    Raises ``NotADirectoryError`` when ``out`` is a file and :class:`RunMixError` when it is a
    non-empty folder holding anything but an earlier run of the same notebook with the same
    parameters (unless ``force`` may clear it, see the module docstring), or when another run
    claims it at the same moment. ``check=False`` (the book build) skips all this and writes no
    manifest.
    """
    out = Path(out)
    try:
        return _prepare(
            out,
            run=run,
            notebook=notebook,
            parameters=parameters,
            commit=commit,
            force=force,
            check=check,
            announce=announce,
        )
    except PermissionError as exc:
        raise RunMixError(
            f"--out {out}: you may not read or write {exc.filename or out} ({exc.strerror}): name a "
            "folder of your own (it is created)"
        ) from None


def _prepare(
    out: Path,
    *,
    run: str,
    notebook: str,
    parameters: dict[str, Any] | None,
    commit: str | None,
    force: bool,
    check: bool,
    announce: Callable[[str], None],
) -> list[str]:
    _make_folder(out, "--out")
    if not check:
        return []
    parameters = dict(parameters or {})
    removed: list[str] = []
    with _locked(out):
        if any(out.iterdir()):
            man = read_manifest(out)
            again = man is not None and man["run"] == run  # this chapter's run with these parameters again
            if again and why_not_mine(out) is None:
                write_manifest(out, run=run, notebook=notebook, parameters=parameters, state="running", commit=commit)
                return []
            held = _entries(out, count=False, limit=7)  # nothing below the top level is read yet
            if again and not force:
                raise RunMixError(
                    f"--out {out} holds a run of {notebook} with these parameters, but "
                    f"{why_not_mine(out)}: name an empty or new folder of your own"
                )
            if not force:
                what = "another run" if (out / RUN_MANIFEST).is_file() else "files of no run of this chapter"
                raise RunMixError(
                    f"--out {out} is not empty and holds {what} ({_shown(held)}), not an earlier "
                    f"run of {notebook} with these parameters: name an empty or new folder, or add "
                    "--force to clear a run folder first"
                )
            entries = _clearable(out, man, held)
            held = _entries(out)
            announce(f"--force: removing from {out} before the run: {', '.join(held)}")
            for p in sorted(entries, key=lambda p: p.name == RUN_MANIFEST):  # the manifest last
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink(missing_ok=True)
            removed = held
        why = _folder_not_yours(out)
        if why:
            raise RunMixError(f"--out {out}: {why}: name an empty or new folder of your own (it is created)")
        man = _payload(out, run=run, notebook=notebook, parameters=parameters, state="running", commit=commit)
        if not _claim(out, man):
            other = read_manifest(out) or {}
            raise RunMixError(
                f"--out {out} was claimed by another run ({other.get('notebook', '?')} with parameters "
                f"{json.dumps(other.get('parameters'), default=str)}) at the same moment: name "
                "another folder"
            )
    return removed


def _make_folder(out: Path, what: str) -> None:
    """Create ``out`` (and its parents) when missing; a folder this call creates is writable by
    its owner only, whatever the umask (a folder others may write is never a run folder)."""
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{what} {out} is a file, not a folder: name a folder for the run (it is created)")
    if not out.exists():
        out.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            st = out.stat()
            if st.st_uid == os.geteuid():
                out.chmod(stat.S_IMODE(st.st_mode) & ~0o022)


def claim_output(folder: str | Path, *, kind: str, clear: bool = False) -> list[str]:
    """Take ``folder`` as an output folder of ``kind`` (:data:`KINDS`, not ``run``): a new or
    empty folder of the caller's gets a manifest saying so; a folder holding the caller's own
    manifest of that kind (:func:`why_not_mine`) is taken again, and with ``clear`` emptied
    first (the manifest kept); anything else is refused with a :class:`RunMixError`, and so is
    the checkout, the working folder, a home, the data, the chapters and the caches
    (:func:`_refuse_to_clear`). Returns what was removed."""
    if kind not in KINDS or kind == "run":
        raise ValueError(f"claim_output: kind must be one of {', '.join(KINDS[1:])}, not {kind!r}")
    folder = Path(folder)
    why = _refuse_to_clear(folder.resolve())
    if why:
        raise RunMixError(f"{folder}: will not write a {kind} folder there: {why}")
    try:
        _make_folder(folder, f"the {kind} folder")
        with _locked(folder):
            if not any(folder.iterdir()):
                why = _folder_not_yours(folder)
                if why:
                    raise RunMixError(f"{folder}: will not write a {kind} folder there: {why}")
                _claim(folder, {"kind": kind, "run": secrets.token_hex(8), "state": "done", "files": []})
                return []
            why = why_not_mine(folder, kind=kind)
            if why:
                raise RunMixError(
                    f"{folder} is not empty ({_shown(_entries(folder, count=False, limit=7))}) and is not "
                    f"a compsem {kind} folder of yours: {why}. Name an empty or new folder, or move it away "
                    "yourself"
                )
            if not clear:
                return []
            entries = sorted(p for p in folder.iterdir() if p.name != RUN_MANIFEST)
            removed = _entries(folder)
            for p in entries:
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink(missing_ok=True)
            return [r for r in removed if r != RUN_MANIFEST]
    except PermissionError as exc:
        raise RunMixError(
            f"{folder}: you may not read or write {exc.filename or folder} ({exc.strerror}): name a "
            "folder of your own (it is created)"
        ) from None


def remove_run_folder(folder: str | Path) -> list[str]:
    """Remove ``folder`` when it is a chapter run folder that ``--force`` may clear (the
    caller's own manifest, nothing else in it: :func:`_clearable`); nothing when it does not
    exist; else a :class:`RunMixError`. Returns what was removed."""
    folder = Path(folder)
    if not os.path.lexists(folder):
        return []
    if folder.is_symlink() or not folder.is_dir():
        raise RunMixError(f"will not remove {folder}: it is a link or a file, not a run folder")
    held = _entries(folder, count=False, limit=7)
    if held:
        _clearable(folder.resolve(), read_manifest(folder), held)
        held = _entries(folder)
    shutil.rmtree(folder)
    return held


def write_manifest(
    out: Path, *, run: str, notebook: str, parameters: dict[str, Any], state: str, commit: str | None
) -> Path:
    """Write ``out/compsem-run.json`` (atomically) with the files now in ``out``."""
    return write_json(
        out / RUN_MANIFEST,
        _payload(out, run=run, notebook=notebook, parameters=parameters, state=state, commit=commit),
        indent=1,
        sort_keys=True,
        default=str,
    )
