"""Grading a class's submissions, each in its own sandbox (``make grade``).

The collection layout is one notebook per student, ``submitted/<part>/<student-id>.ipynb`` (the
file's name is the student id), or any folder with a roster file (a CSV with a ``student_id``
column: a student on it without a notebook gets a row that says so).

Each submission runs in its own `bubblewrap <https://github.com/containers/bubblewrap>`_ sandbox
(Debian's ``bubblewrap``): a private network namespace (a port the kernel opens is reachable
only inside), its own PID, IPC and UTS namespaces, a cleared environment, and a file system
that holds only its own notebook (read-only), the read-only Python environment (the
interpreter, the packages, the project's ``src``) and an empty scratch folder; a wall-clock
limit and memory and file-size limits (``prlimit``). Inside, :mod:`.sandbox_runner` executes the
notebook and writes the values of the answer names as JSON to the scratch folder. The score is
computed here, outside every submission's process, from that JSON and the key
(:func:`compsem.book.teaching.assignments.read_key`, with the built-ins of this process), so
neither a rebound ``abs`` nor a replaced test function counts.

Each submission's result is written on its own, atomically (``<grades>.rows/<student-id>.json``,
keyed by the notebook's and the key's hashes); the CSV is assembled from them at the end. A rerun
grades only what is missing or changed; a submission that runs past its time, or is killed, is
its own row with its reason. Docker (``otter grade``) remains the alternative.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from compsem.errors import CompsemError
from compsem.store import json_writer, write_atomic

__all__ = [
    "Limits",
    "STUDENT_ID",
    "collect",
    "sandbox_available",
    "sandbox_command",
    "run_submission",
    "score_row",
    "grade",
    "default_csv",
    "written_column",
]

#: A student id: the notebook's name without ``.ipynb``.
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")


def written_column(question: str) -> str:
    """The column the lecturer fills by hand for a question's written answer (left empty)."""
    return f"{question} (written, by hand)"


RUNNER = Path(__file__).with_name("sandbox_runner.py")
_MAX_JSON = 1 << 20


@dataclass(frozen=True)
class Limits:
    """A sandbox's limits: wall-clock seconds, address space and largest file (bytes)."""

    wall_s: float = 300.0
    memory_bytes: int = 8 << 30
    file_bytes: int = 64 << 20


def sandbox_available() -> str | None:
    """``None`` when bubblewrap can start a sandbox here, else why not (in words)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap (make grade installs it as root)"
    r = subprocess.run(["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "true"], capture_output=True, text=True)
    if r.returncode != 0:
        return f"bubblewrap cannot create a sandbox here ({r.stderr.strip() or r.returncode}): it needs user namespaces"
    return None


def collect(folder: Path, roster: Path | None = None) -> dict[str, Path | None]:
    """``{student id: notebook or None}``: every ``<student-id>.ipynb`` of ``folder``, and with a
    ``roster`` (a CSV with a ``student_id`` column) every student on it (``None``: no notebook)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CompsemError(f"{folder} is not a folder of submissions (submitted/<part>/<student-id>.ipynb)")
    found: dict[str, Path | None] = {}
    for path in sorted(folder.glob("*.ipynb")):
        if not STUDENT_ID.match(path.stem):
            raise CompsemError(f"{path.name}: a submission's name is its student id (letters, digits, . _ @ + -)")
        found[path.stem] = path
    if roster is not None:
        with Path(roster).open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if "student_id" not in (reader.fieldnames or []):
                raise CompsemError(f"{roster}: a roster is a CSV with a student_id column")
            ids = [r["student_id"].strip() for r in reader if r["student_id"].strip()]
        extra = sorted(set(found) - set(ids))
        if extra:
            raise CompsemError(f"{roster}: submissions of students not on the roster: {', '.join(extra)}")
        found = {i: found.get(i) for i in ids}
    if not found:
        raise CompsemError(f"no notebook (*.ipynb) in {folder} to grade")
    return found


def _environment_paths(forbidden: list[Path] = ()) -> list[Path]:
    """What a sandbox binds read-only: the interpreter's prefixes and every folder of ``sys.path``
    (site-packages, the project's ``src``), but never the working folder nor a folder above one of
    ``forbidden`` (the submissions, the grades, the autograder: a checkout's root on ``sys.path``
    would show them all)."""
    cwd = Path.cwd().resolve()
    paths = {
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.executable).parent,
        Path(sys.executable).resolve().parent,
        RUNNER.parent,
    }
    paths |= {Path(p) for p in sys.path if p and Path(p).is_dir()}
    out = []
    for p in sorted(paths):
        r = p.resolve()
        if r in (cwd, Path("/")) or any(Path(f).resolve().is_relative_to(r) for f in forbidden):
            if r in (Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()):
                raise CompsemError(
                    f"the Python environment {p} holds the submissions or the grades: keep them out of it"
                )
            continue
        out.append(p)
    return out


def sandbox_command(
    notebook: Path, scratch: Path, names: list[str], limits: Limits, *, forbidden: list[Path] = ()
) -> list[str]:
    """The command that runs ``notebook`` in its own sandbox, with ``scratch`` (an empty folder
    of the grader's) as its only writable place. ``forbidden``: folders no bound path may lie
    above (the submissions, the grades): binding one of them would show other submissions."""
    env_paths = _environment_paths(forbidden)
    cmd = [
        "prlimit",
        f"--as={limits.memory_bytes}",
        f"--fsize={limits.file_bytes}",
        "--",
        "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--ro-bind",
        "/usr",
        "/usr",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
    ]
    for link in ("bin", "sbin", "lib", "lib64", "lib32"):
        target = Path("/") / link
        if target.is_symlink():
            cmd += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            cmd += ["--ro-bind", str(target), str(target)]
    for etc in ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group"):
        if Path(etc).exists():
            cmd += ["--ro-bind", etc, etc]
    for p in env_paths:
        if not p.resolve().is_relative_to(Path("/usr")):
            cmd += ["--ro-bind", str(p), str(p)]
    bound = {p.resolve() for p in env_paths} | {Path("/usr")}
    pythonpath = ":".join(
        p for p in sys.path if p and Path(p).is_dir() and any(Path(p).resolve().is_relative_to(b) for b in bound)
    )
    cmd += [
        "--bind",
        str(scratch),
        "/scratch",
        "--ro-bind",
        str(notebook),
        "/submission/submission.ipynb",
        "--chdir",
        "/scratch",
        "--setenv",
        "HOME",
        "/scratch",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--setenv",
        "PYTHONPATH",
        pythonpath,
        "--setenv",
        "PATH",
        f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "--setenv",
        "JUPYTER_RUNTIME_DIR",
        "/scratch/.jupyter",
        "--setenv",
        "COMPSEM_CACHE",
        "/scratch/.cache",
        "--setenv",
        "MPLBACKEND",
        "Agg",
        "--setenv",
        "OMP_NUM_THREADS",
        "1",
        "--setenv",
        "HF_HUB_OFFLINE",
        "1",
        "--setenv",
        "TRANSFORMERS_OFFLINE",
        "1",
        "--",
        sys.executable,
        str(RUNNER),
        "/submission/submission.ipynb",
        json.dumps(names),
        "/scratch",
    ]
    return cmd


def _read_json(path: Path):
    """A JSON file the sandbox wrote: a regular file (a link is not followed), at most 1 MiB."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        data = f.read(_MAX_JSON + 1)
    if len(data) > _MAX_JSON:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def run_submission(notebook: Path, names: list[str], limits: Limits = Limits(), *, forbidden: list[Path] = ()) -> dict:
    """Run ``notebook`` in its own sandbox; ``{"values": {name: value}, "cells": [...], "error": ""}``,
    the error saying why no values came back (timed out, killed, nothing written)."""
    scratch = Path(tempfile.mkdtemp(prefix="compsem-grade-"))
    try:
        os.chmod(scratch, 0o700)
        cmd = sandbox_command(notebook, scratch, names, limits, forbidden=forbidden)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"values": {}, "cells": [], "error": f"timed out after {limits.wall_s:g} s (no score)"}
        tail = out.decode("utf-8", "replace").strip().splitlines()[-3:]
        values = _read_json(scratch / "answers.json")
        cells = _read_json(scratch / "cells.json")
        if proc.returncode < 0 or proc.returncode in (137, 139):
            sig = -proc.returncode if proc.returncode < 0 else proc.returncode - 128
            why = f"killed (signal {sig}: the memory limit?)" if sig == 9 else f"killed by signal {sig}"
            return {"values": {}, "cells": [], "error": why + " (no score)"}
        if not isinstance(values, dict):
            return {
                "values": {},
                "cells": [],
                "error": "the notebook could not be run to its end (no score): " + " | ".join(tail)[-300:],
            }
        return {"values": values, "cells": cells if isinstance(cells, list) else [], "error": ""}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def score_row(key: dict, report: dict) -> dict:
    """A submission's points per question from its sandbox's ``report``, scored against
    ``key`` here (outside the submission) with :func:`~compsem.book.teaching.assignments._accepts`."""
    from compsem.book.teaching.assignments import _accepts

    values = report.get("values", {})
    row: dict = {}
    for q in key["questions"]:
        row[q["name"]] = float(
            sum(
                a["points"]
                for a in q["answers"]
                if a["name"] in values and _accepts(a["value"], values[a["name"]], a["tolerance"])
            )
        )
    return row


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def default_csv(part: str) -> Path:
    """Where the grades go without ``GRADES``: the lecturer's working folder."""
    return Path.cwd() / f"grades-{part}.csv"


def _check_target(csv_path: Path, inputs: list[Path], force: bool) -> None:
    target = csv_path.resolve()
    for p in inputs:
        folder = p.resolve() if p.is_dir() else p.resolve().parent
        if target.parent == folder or target.is_relative_to(folder):
            raise CompsemError(
                f"{csv_path}: the grades are never written beside an input ({p}); name another file with GRADES="
            )
    if csv_path.exists() and not force:
        raise CompsemError(f"{csv_path} exists: it is not overwritten without --force (make grade FORCE=1)")


def grade(
    zip_: Path,
    submissions: Path,
    csv_path: Path,
    *,
    roster: Path | None = None,
    force: bool = False,
    limits: Limits = Limits(),
    quiet: bool = True,
) -> list[dict]:
    """Grade every submission of ``submissions`` (:func:`collect`) against the key in ``zip_``,
    each in its own sandbox, and write the CSV ``csv_path``: ``student_id``, each question's
    points, ``total``, ``possible``, ``percentage`` (of the autograded points), one
    :func:`written_column` per written answer of the key (empty, for the lecturer) and ``error``. Rows already graded (same notebook, same key) are reused."""
    from compsem.book.teaching.assignments import read_key

    zip_, submissions, csv_path = Path(zip_), Path(submissions), Path(csv_path)
    key = read_key(zip_)
    inputs = [submissions, zip_] + ([Path(roster)] if roster else [])
    _check_target(csv_path, inputs, force)
    subs = collect(submissions, roster)
    why = sandbox_available()
    if why:
        raise CompsemError(
            f"no sandbox to grade in: {why}. Docker is the alternative: otter grade -a {zip_} {submissions}"
        )
    names = [a["name"] for q in key["questions"] for a in q["answers"]]
    key_sha = _sha(json.dumps(key, sort_keys=True).encode())
    runner_sha = _sha(RUNNER.read_bytes())
    rows_dir = csv_path.with_name(csv_path.stem + ".rows")
    rows_dir.mkdir(parents=True, exist_ok=True)
    questions_ = [q["name"] for q in key["questions"]]
    written = [written_column(q) for q in key.get("written", [])]
    possible = float(sum(a["points"] for q in key["questions"] for a in q["answers"]))
    rows = []
    for sid, path in subs.items():
        result = rows_dir / f"{sid}.json"
        if path is None:
            row = {**dict.fromkeys(questions_, 0.0), "error": "no submission"}
        else:
            data = path.read_bytes()
            stamp = {"notebook": _sha(data), "key": key_sha, "runner": runner_sha, "limits": repr(limits)}
            old = _read_json(result)
            if isinstance(old, dict) and old.get("stamp") == stamp:
                row = old["row"]
            else:
                t0 = time.monotonic()
                try:
                    json.loads(data.decode("utf-8"))
                    report = run_submission(path, names, limits, forbidden=[submissions, csv_path.parent, zip_.parent])
                except (UnicodeDecodeError, ValueError):
                    report = {"values": {}, "error": "not a notebook (unreadable JSON; no score)"}
                row = {**score_row(key, report), "error": report["error"]}
                kept = {"stamp": stamp, "row": row, "seconds": round(time.monotonic() - t0, 1)}
                write_atomic(result, json_writer(kept), private=True)
                if not quiet:
                    print(
                        f"{sid}: {sum(row[q] for q in questions_):g} of {possible:g}"
                        + (f" ({row['error']})" if row["error"] else ""),
                        flush=True,
                    )
        total = float(sum(row.get(q, 0.0) for q in questions_))
        rows.append(
            {
                "student_id": sid,
                **{q: row.get(q, 0.0) for q in questions_},
                "total": total,
                "possible": possible,
                "percentage": round(100 * total / possible, 1) if possible else math.nan,
                **dict.fromkeys(written, ""),
                "error": row.get("error", ""),
            }
        )
    fields = ["student_id", *questions_, "total", "possible", "percentage", *written, "error"]

    def write_csv(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fields)
            w.writeheader()
            w.writerows(rows)

    write_atomic(csv_path, write_csv, private=True)  # 0600: grades are the students' own
    return rows
