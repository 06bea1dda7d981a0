"""Issue 27, finding 9: claiming a ``--out`` folder is one atomic step. Many runs with different
parameters started at the same moment on one new folder: exactly one gets it; the same with
``--force`` on the folder of a finished run. Bounded in time (every racer has a deadline)."""

import json
import multiprocessing as mp

import pytest

from compsem.book.running.runfolder import prepare_out, write_manifest
from compsem.results import RUN_MANIFEST

RACERS = 30


def _racer(out, i, force, start, done, results):
    start.wait(timeout=60)
    try:
        # what run_notebook does before the kernel starts (on main: the check, then the manifest)
        prepare_out(out, run=f"r{i}", notebook="31_probe.ipynb", force=force)
        write_manifest(out, run=f"r{i}", notebook="31_probe.ipynb", parameters={"i": i}, state="running", commit=None)
        results.put((i, "ok"))
    except Exception as exc:  # noqa: BLE001 - the refusal is the expected outcome for all but one
        results.put((i, type(exc).__name__))
    done.wait(timeout=60)  # a running run stays alive until every racer has decided


def _race(out, force):
    ctx = mp.get_context("fork")
    start, done, results = ctx.Barrier(RACERS), ctx.Barrier(RACERS), ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(out, i, force, start, done, results)) for i in range(RACERS)]
    for p in procs:
        p.start()
    got = dict(results.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return got


@pytest.mark.parametrize("force", [False, True], ids=["new-folder", "force-on-a-finished-run"])
def test_one_folder_one_run(tmp_path, force):
    out = tmp_path / "run"
    if force:  # a finished run's folder, which --force may clear once
        out.mkdir()
        (out / "31_probe.ipynb").write_text("{}")
        write_manifest(out, run="old", notebook="31_probe.ipynb", parameters={}, state="done", commit=None)
    got = _race(out, force)
    winners = [i for i, r in got.items() if r == "ok"]
    assert len(winners) == 1, f"{len(winners)} of {RACERS} runs accepted one folder"
    assert set(got.values()) == {"ok", "RunMixError"}
    assert json.loads((out / RUN_MANIFEST).read_text())["run"] == f"r{winners[0]}"
