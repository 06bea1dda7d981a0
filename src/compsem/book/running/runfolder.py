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

``--force`` obeys only the caller's own manifest (owned by the caller), and refuses a folder that
other users may write unless it is sticky and every entry in it is the caller's. A folder is
judged before anything below its top level is read (``--out /tmp`` is refused at once), and a
permission error is one :class:`~compsem.results.RunMixError` naming the folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from compsem.fmt import plural
from compsem.paths import cache_dir, data_dir, notebooks_dir, repo_root
from compsem.results import RUN_MANIFEST, RunMixError
from compsem.store import write_json

__all__ = ["run_id", "prepare_out", "write_manifest", "read_manifest"]


def run_id(notebook: str, parameters: dict[str, Any]) -> str:
    """A short hash of the notebook's name and the parameters (canonical JSON)."""
    text = json.dumps({"notebook": notebook, "parameters": parameters}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_manifest(out: Path) -> dict | None:
    """``out``'s manifest when it is one of a compsem run (run id, notebook, state, list of files),
    else ``None`` (missing, unreadable, or some other JSON)."""
    try:
        man = json.loads((out / RUN_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = (isinstance(man, dict) and isinstance(man.get("run"), str) and isinstance(man.get("notebook"), str)
          and man["notebook"].endswith(".ipynb") and "/" not in man["notebook"] and isinstance(man.get("state"), str)
          and isinstance(man.get("files"), list) and all(isinstance(f, str) for f in man["files"]))
    return man if ok else None


def _entries(folder: Path, *, count: bool = True, limit: int | None = None) -> list[str]:
    """The names in ``folder`` (``name/`` for a folder), sorted; with ``count`` (a run folder
    already judged to be the caller's) each folder with the number of files under it. Without,
    nothing below the top level is read, and at most ``limit`` names (then ``…``)."""
    if not count:
        with os.scandir(folder) as it:
            names = sorted(e.name + ("/" if e.is_dir(follow_symlinks=False) else "")
                           for _, e in zip(range(limit or 10**9), it))
        return names + (["…"] if limit and len(names) >= limit else [])
    out = []
    for p in sorted(folder.iterdir()):
        if p.is_dir() and not p.is_symlink():
            n = sum(1 for q in p.rglob("*") if not q.is_dir())
            out.append(f"{p.name}/ ({plural(n, 'file')})")
        else:
            out.append(p.name)
    return out


def _not_yours(out: Path) -> str | None:
    """Why the caller may not clear ``out`` whatever its manifest says: the manifest belongs to
    another user, or others may write the folder (so may have planted entries), unless it is
    sticky (others cannot remove or replace the caller's entries) and the caller owns them all."""
    me = os.geteuid()
    man = (out / RUN_MANIFEST).lstat()
    if man.st_uid != me or not stat.S_ISREG(man.st_mode):
        return f"its {RUN_MANIFEST} belongs to uid {man.st_uid}, not to you (uid {me}): only your own run's manifest counts"
    st = out.stat()
    if st.st_mode & 0o022:
        if not st.st_mode & stat.S_ISVTX:
            return (f"others may write it (mode {stat.S_IMODE(st.st_mode):o}), so they may have put entries there; "
                    "--force clears only a folder of your own")
        with os.scandir(out) as it:
            foreign = [e.name for e in it if e.stat(follow_symlinks=False).st_uid != me]
        if foreign:
            return (f"it is a shared folder and holds entries of other users ({_shown(sorted(foreign))}); --force "
                    "clears a shared folder only when every entry is yours")
    return None


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
    for what, keep in (("the study's data", data_dir()), ("the chapters", notebooks_dir()),
                       ("the study's caches", cache_dir(create=False)), ("the user's caches", xdg)):
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
        raise RunMixError(f"--force will not clear {out}: it holds no {RUN_MANIFEST} of a compsem run "
                          f"({_shown(held)}), so it is not a run folder. --force clears only a run folder or an "
                          "empty one: name an empty or new folder, or move those files away yourself")
    mine = _not_yours(out)
    if mine:
        raise RunMixError(f"--force will not clear {out}: {mine}")
    if _alive_here(man):
        raise RunMixError(f"--force will not clear {out}: the run of {man['notebook']} in it is still running "
                          f"(process {man['pid']}): wait for it, or name another folder")
    nb = man["notebook"]
    allowed = {RUN_MANIFEST, nb, nb[:-len(".ipynb")] + ".runtime.json", "results"}
    allowed |= {f.split("/", 1)[0] for f in man["files"] if f and not f.startswith(("/", ".."))}
    entries = sorted(out.iterdir())
    stray = [p.name for p in entries if p.name not in allowed
             and not (p.name.startswith(f".{RUN_MANIFEST}.") and p.name.endswith(".tmp"))]
    if stray:
        raise RunMixError(f"--force will not clear {out}: besides the run of {nb} it holds "
                          f"{plural(len(stray), 'entry', 'entries')} that run did not write ({_shown(stray)}): "
                          "move them away yourself, or name another folder")
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


def _payload(out: Path, *, run: str, notebook: str, parameters: dict[str, Any], state: str,
             commit: str | None) -> dict[str, Any]:
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != RUN_MANIFEST
                   and not p.name.endswith(".tmp"))
    man = {"run": run, "notebook": notebook, "parameters": parameters, "commit": commit, "state": state,
           "files": files}
    if state == "running":
        man |= {"pid": os.getpid(), "host": socket.gethostname()}
    return man


def _claim(out: Path, man: dict[str, Any]) -> bool:
    """Create ``out``'s manifest only if none exists (``O_EXCL``); whether this call created it."""
    try:
        fd = os.open(out / RUN_MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(man, indent=1, sort_keys=True, default=str))
    return True


def _announce(text: str) -> None:
    print(text, flush=True)


def prepare_out(out: Path, *, run: str, notebook: str, parameters: dict[str, Any] | None = None,
                commit: str | None = None, force: bool = False, check: bool = True,
                announce: Callable[[str], None] = _announce) -> list[str]:
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
        return _prepare(out, run=run, notebook=notebook, parameters=parameters, commit=commit, force=force,
                        check=check, announce=announce)
    except PermissionError as exc:
        raise RunMixError(f"--out {out}: you may not read or write {exc.filename or out} ({exc.strerror}): name a "
                          "folder of your own (it is created)") from None


def _prepare(out: Path, *, run: str, notebook: str, parameters: dict[str, Any] | None, commit: str | None,
             force: bool, check: bool, announce: Callable[[str], None]) -> list[str]:
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {out} is a file, not a folder: name a folder for the run (it is created)")
    out.mkdir(parents=True, exist_ok=True)
    if not check:
        return []
    parameters = dict(parameters or {})
    removed: list[str] = []
    with _locked(out):
        if any(out.iterdir()):
            man = read_manifest(out)
            if man is not None and man["run"] == run:       # this chapter's run with these parameters again
                write_manifest(out, run=run, notebook=notebook, parameters=parameters, state="running", commit=commit)
                return []
            held = _entries(out, count=False, limit=7)     # nothing below the top level is read yet
            if not force:
                what = "another run" if (out / RUN_MANIFEST).is_file() else "files of no run of this chapter"
                raise RunMixError(f"--out {out} is not empty and holds {what} ({_shown(held)}), not an earlier "
                                  f"run of {notebook} with these parameters: name an empty or new folder, or add "
                                  "--force to clear a run folder first")
            entries = _clearable(out, man, held)
            held = _entries(out)
            announce(f"--force: removing from {out} before the run: {', '.join(held)}")
            for p in sorted(entries, key=lambda p: p.name == RUN_MANIFEST):     # the manifest last
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink(missing_ok=True)
            removed = held
        man = _payload(out, run=run, notebook=notebook, parameters=parameters, state="running", commit=commit)
        if not _claim(out, man):
            other = read_manifest(out) or {}
            raise RunMixError(f"--out {out} was claimed by another run ({other.get('notebook', '?')} with parameters "
                              f"{json.dumps(other.get('parameters'), default=str)}) at the same moment: name "
                              "another folder")
    return removed


def write_manifest(out: Path, *, run: str, notebook: str, parameters: dict[str, Any], state: str,
                   commit: str | None) -> Path:
    """Write ``out/compsem-run.json`` (atomically) with the files now in ``out``."""
    return write_json(out / RUN_MANIFEST, _payload(out, run=run, notebook=notebook, parameters=parameters,
                                                    state=state, commit=commit),
                      indent=1, sort_keys=True, default=str)
