"""One environment serves a whole JupyterHub: a lecturer and two students as three users.

The lecturer's clone holds the environment (here: this test's interpreter with the lecturer's
``src`` first on the path, as an editable install of that clone puts it); the lecturer fills the
class cache with the course guide's prefetch line and shares it read-only; each student clones
the lecturer's repository and runs the same lab from their own clone with the one environment,
setting nothing. Each student's run must land in the student's own clone; the lecturer's clone
must stay as it was, and the shared cache byte for byte. Needs root (``setpriv`` switches users).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from compsem.book.teaching import courseguide
from compsem.faces import LabStep
from tests.helpers import ROOT

LECTURER, STUDENTS = 41001, (41002, 41003)


def _lab() -> LabStep:
    """The course guide's first lab run with a command (Session 1's), prefetched as the guide says."""
    return next(step for _, lesson in courseguide.lessons() for step in lesson.lab if step.params is not None)


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("setpriv") is None or shutil.which("git") is None,
        reason="needs root, setpriv and git to act as three users",
    ),
]


def _setpriv(uid: int) -> list[str]:
    """``setpriv`` as ``uid``. Where the environment's base interpreter lies in a folder other users
    cannot search (this machine's Python is under ``/root``, mode 0700), the users also get
    ``CAP_DAC_READ_SEARCH`` so that they (and the kernels they start) can reach it: it lets them
    read and search folders, never write, so every check of who writes where still holds."""
    base = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    probe = [sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', ''], check=True)"]
    if subprocess.run([*base, "--", *probe], capture_output=True, cwd="/").returncode != 0:
        base += ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
    return base


def _as(uid: int, argv: list[str], cwd: Path, home: Path, env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TQDM_DISABLE": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "OMP_NUM_THREADS": "2",
        **env_extra,
    }
    return subprocess.run([*_setpriv(uid), "--", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def _snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """``{relative path: (sha256, mode)}`` of every file under ``folder``."""
    return {
        str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _clone(source: Path, target: Path, uid: int) -> None:
    """``git clone`` as root, then handed to ``uid``. Git reads the exception for a repository of
    another owner (``safe.directory``) only from a global config: a throwaway HOME holds it."""
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / ".gitconfig").write_text("[safe]\n\tdirectory = *\n")
        subprocess.run(
            ["git", "clone", "-q", "--no-hardlinks", str(source), str(target)],
            check=True,
            capture_output=True,
            env={**os.environ, "HOME": home},
        )
    subprocess.run(["chown", "-R", f"{uid}:{uid}", str(target)], check=True)


def test_one_environment_two_students_and_a_read_only_class_cache():
    hub = Path(tempfile.mkdtemp(prefix="compsem-hub-"))
    try:
        hub.chmod(0o755)
        lecturer = hub / "lecturer" / "compsem"
        lecturer.parent.mkdir()
        _clone(ROOT, lecturer, LECTURER)
        homes = {uid: hub / f"home-{uid}" for uid in (LECTURER, *STUDENTS)}
        for uid, home in homes.items():
            home.mkdir(mode=0o700)
            os.chown(home, uid, uid)
        cache = hub / "class-cache"
        cache.mkdir()
        os.chown(cache, LECTURER, LECTURER)
        shared = {"COMPSEM_CACHE": str(cache), "PYTHONPATH": str(lecturer / "src")}  # the hub's one setting
        py = sys.executable
        lab = _lab()
        prefetch = [py, *shlex.split(courseguide.command("prefetch", lab))[1:]]
        run = [py, *shlex.split(courseguide.command("run", lab))[1:], "--quiet"]
        stem = Path(lab.notebook).stem

        # the lecturer fills the class cache (the guide's prefetch line) and shares it read-only
        r = _as(LECTURER, prefetch, lecturer, homes[LECTURER], shared)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        subprocess.run(["chmod", "-R", "a+rX,a-w", str(cache)], check=True)
        assert any(cache.rglob("*.npy")) or any(cache.rglob("*.json")), "the prefetch wrote nothing"
        before_cache = _snapshot(cache)
        before_lecturer = _snapshot(lecturer)

        # two students, each in their own clone, run the lab with the one environment
        for uid in STUDENTS:
            clone = hub / f"student-{uid}" / "compsem"
            clone.parent.mkdir()
            os.chown(clone.parent, uid, uid)
            _clone(lecturer, clone, uid)
            r = _as(uid, run, clone, homes[uid], shared)
            assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
            executed = list((clone / "runs").glob(f"{stem}-*/{stem}.ipynb"))
            assert len(executed) == 1, r.stdout
            assert all(p.stat().st_uid == uid for p in (clone / "runs").rglob("*"))
            overlay = homes[uid] / ".cache" / "compsem" / "overlay"
            if overlay.exists():  # what the class cache lacked: private to the student
                assert stat.S_IMODE(overlay.stat().st_mode) == 0o700
                # what the prefetch wrote is shared: the student computed none of it again
                again = {str(q.relative_to(overlay)) for q in overlay.rglob("*") if q.is_file()} & set(before_cache)
                assert not again, again

        assert _snapshot(cache) == before_cache  # the shared cache, byte for byte
        assert _snapshot(lecturer) == before_lecturer  # nothing of a student's in the lecturer's clone
        assert not (lecturer / "runs").exists()
    finally:
        shutil.rmtree(hub, ignore_errors=True)
