"""Finding 3: a read-only shared cache works for every study, as another user.

A first user (root here) runs a chapter-level function of each registered study into a cache;
a second uid then runs the same functions against it, read-only to them, with a private overlay
of their own in their home folder: nothing crashes, what the shared cache holds is read from it
(the C-STS run is reused, not retrained), and what it lacks (a C-STS run with another seed)
lands in the student's overlay, not in the shared cache. The models are a tiny random BERT, so
every store (embeddings, score matrices, C-STS runs and frozen states) is exercised in seconds.

Needs root (to run as uid 2000 with ``setpriv``); skipped otherwise. Slow (five fresh
interpreters that import torch): ``make test-slow``.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import compsem
from compsem import studies
from tests.helpers import ROOT

SRC = Path(compsem.__file__).resolve().parents[1]  # the children import the compsem this test sees

STUDENT = 2000

#: One chapter-level call per study (the chapter's own ``run``, on the tiny model).
CHAPTERS = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    from compsem import studies
    model, seed = sys.argv[1], int(sys.argv[2])

    def setcomp():
        from compsem.setcomp import study
        return type(study.run("data", [model], sample_cap=3, filter_encoders=(model,))).__name__

    def csts():
        from compsem.csts import study
        r = study.run([model], configs=["bi/mse"], seeds=[seed], data="embedded", train_pairs=12, eval_pairs=12)
        return bool(r.runs["reused"].all())

    def montague():
        from compsem.montague import study
        return type(study.run([model], progress=False)).__name__

    def ssm():
        from compsem.ssm import study
        return type(study.run(["lexical", model], progress=False)).__name__

    calls = {"setcomp": setcomp, "csts": csts, "montague": montague, "ssm": ssm}
    missing = [s.name for s in studies.STUDIES if s.name not in calls]
    assert not missing, f"add a chapter-level call for {missing}"
    print(json.dumps({s.name: calls[s.name]() for s in studies.STUDIES}))
""")


def _run(env, *args, user=None):
    cmd = [sys.executable, "-c", CHAPTERS, *args]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="running as a second user needs root and setpriv",
)
def test_every_study_runs_as_a_student_on_a_read_only_cache():
    from tests.helpers.tiny import tiny_bert

    base = Path(tempfile.mkdtemp(prefix="compsem-class-"))
    try:
        base.chmod(0o755)  # the class folder: readable by the student
        model = tiny_bert(base / "bert", layers=3)
        shared, home = base / "shared", base / "home"
        home.mkdir()
        os.chown(home, STUDENT, STUDENT)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPSEM_", "XDG_"))}
        env.update(
            PYTHONPATH=f"{SRC}:{ROOT}",
            COMPSEM_CACHE=str(shared),
            TQDM_DISABLE="1",
            COMPSEM_RESULTS=str(base / "results-lecturer"),
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
        )
        first = _run(env, str(model), "0")
        assert set(first) == {s.name for s in studies.STUDIES} and first["csts"] is False
        for sub in ("embeddings", "ssm_scores", "csts_runs", "csts_frozen"):
            assert (shared / sub).is_dir(), f"the lecturer's run stored nothing in {sub}"
        for p in [base, *base.rglob("*")]:  # what a lecturer shares: readable, not writable
            if p.is_relative_to(home):
                continue
            p.chmod(0o755 if p.is_dir() else 0o644)
        before = _tree(shared)

        student = {**env, "HOME": str(home), "COMPSEM_RESULTS": str(home / "results")}
        again = _run(student, str(model), "0", user=STUDENT)
        assert again == first | {"csts": True}  # every chapter runs; the C-STS run is read, not retrained
        more = _run(student, str(model), "1", user=STUDENT)
        assert more["csts"] is False  # a run the cache lacks is trained ...
        overlay = home / ".cache" / "compsem" / "overlay"
        assert list((overlay / "csts_runs").glob("*.json")), "... and kept in the student's overlay"
        assert stat.S_IMODE(overlay.stat().st_mode) == 0o700 and overlay.stat().st_uid == STUDENT
        assert all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in overlay.rglob("*") if p.is_file())
        assert _run(student, str(model), "1", user=STUDENT)["csts"] is True  # found there next time
        assert _tree(shared) == before  # the shared cache is untouched
    finally:
        shutil.rmtree(base, ignore_errors=True)
