"""Lab runs timed by the book build: what the course guide says a lab costs comes from a run.

A lesson's lab step (:class:`compsem.faces.LabStep`) with ``timed=True`` is a run sized for a
lab, such as a chapter that is too long for one (fine-tuning) rerun on a few hundred items. The
book build runs each such step exactly as the guide prints its command, from **cold caches** (an
empty, private cache folder: no embedding, score matrix or training run is reused, so the time
is what a student pays when the lecturer did not prefetch), and records its wall-clock time in
``<out>/labs.json``. Chapter 99 glues each time as ``labtime_min_<key>`` (:func:`time_values`),
the course guide's lab line states it, and the guide's check compares it with the lab's length.

``python -m compsem.book.teaching.labtime --out _build/executed/labs`` (a step of ``make book``)
runs them; the steps come from the registry's lessons, so a new study's timed lab is run
without an edit here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

from compsem.book.running.runfolder import remove_run_folder
from compsem.faces import LabStep
from compsem.paths import notebooks_dir
from compsem.settings import environment
from compsem.store import write_below
from compsem.studies import Study

__all__ = ["RECORD", "timed_steps", "lab_key", "glue_name", "run_timed", "records", "time_values", "table", "main"]

#: The file of records in the output folder.
RECORD = "labs.json"


def timed_steps() -> list[tuple[Study, LabStep]]:
    """``(study, step)`` for every timed lab step of the registry's lessons, in the guide's order."""
    from compsem.book.teaching.courseguide import lessons

    return [(s, step) for s, lesson in lessons() for step in lesson.lab if step.timed]


def lab_key(step: LabStep) -> str:
    """``<notebook stem>_<8 hex digits of its parameters>``: one key per distinct run."""
    params = json.dumps(dict(step.params or {}), sort_keys=True, ensure_ascii=False)
    return f"{Path(step.notebook).stem}_{hashlib.sha256(params.encode()).hexdigest()[:8]}"


def glue_name(step: LabStep) -> str:
    """The name chapter 99 glues the step's time (minutes) under."""
    return f"labtime_min_{lab_key(step)}"


def run_timed(out: Path, steps: list[tuple[Study, LabStep]] | None = None, *, log=print) -> list[dict]:
    """Run every timed step from cold caches into ``out/<key>/``; write and return the records.

    Each run is an ordinary rerun (``compsem run``: its tables go to its own folder, never to the
    book's ``results/``) whose ``COMPSEM_CACHE`` and overlay are a fresh private folder, removed
    afterwards. An earlier ``out/<key>/`` is removed first only when it is a run folder of the
    caller's that ``--force`` may clear (:func:`compsem.book.running.runfolder.remove_run_folder`);
    anything else there is a :class:`~compsem.results.RunMixError`. A run that fails stops the
    build with its error.
    """
    from compsem.book.running.runner import run_notebook

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    steps = timed_steps() if steps is None else steps
    rows = []
    for study, step in steps:
        if step.params is None:
            raise ValueError(f"{study.name}: a timed lab step needs parameters (it is run as the guide prints it)")
        key = lab_key(step)
        folder = out / key
        remove_run_folder(folder)  # only a run folder of this user's, as --force
        cache = Path(tempfile.mkdtemp(prefix="compsem-lab-"))  # mode 0700: this user's only
        log(f"timed lab {key}: {step.notebook} {json.dumps(dict(step.params), ensure_ascii=False)} (cold caches)")
        try:
            with environment({"COMPSEM_CACHE": str(cache / "cache"), "COMPSEM_CACHE_OVERLAY": str(cache / "overlay")}):
                run_notebook(notebooks_dir() / step.notebook, dict(step.params), out=folder, progress=False)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        seconds = json.loads((folder / f"{Path(step.notebook).stem}.runtime.json").read_text())["seconds"]
        log(f"timed lab {key}: {seconds / 60:.1f} min")
        rows.append(
            {
                "key": key,
                "study": study.name,
                "notebook": step.notebook,
                "parameters": dict(step.params),
                "seconds": seconds,
            }
        )
    write_below(out, RECORD, json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    return rows


def records(labs_dir: Path) -> list[dict]:
    """The records of ``labs_dir/labs.json``; empty when the build timed no lab."""
    path = Path(labs_dir) / RECORD
    return json.loads(path.read_text()) if path.is_file() else []


def time_values(labs_dir: Path) -> dict[str, float]:
    """``{"labtime_min_<key>": minutes}`` for every recorded lab: what chapter 99 glues."""
    return {f"labtime_min_{r['key']}": float(r["seconds"]) / 60 for r in records(labs_dir)}


def table(labs_dir: Path):
    """The recorded lab runs as a table: the chapter, its parameters in words (the guide prints
    the command) and the minutes."""
    import pandas as pd

    from compsem.fmt import number
    from compsem.labels import cell

    rows = [
        {
            "lab run": r["key"],
            "chapter": r["notebook"],
            "parameters": cell(r["parameters"]),
            "minutes": number(float(r["seconds"]) / 60, 1),
        }
        for r in records(labs_dir)
    ]
    return pd.DataFrame(rows, columns=["lab run", "chapter", "parameters", "minutes"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m compsem.book.teaching.labtime", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="_build/executed/labs", help="folder of the runs and labs.json")
    args = p.parse_args(argv)
    rows = run_timed(Path(args.out))
    print(f"timed {len(rows)} lab run(s) into {args.out}/{RECORD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
