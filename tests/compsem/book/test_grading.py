"""`make grade`: each submission in its own sandbox, scored outside it, one row per student.

The sandboxed runs use a hand-made key of two names (``x`` = 0.50 at 2 decimals, ``flag`` =
True), so each expected score is worked out by hand from the notebook's lines.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile

import pytest

from compsem.book.teaching import grading
from compsem.book.teaching.assignments import KEY_FILE
from compsem.errors import CompsemError

KEY = {
    "part": "partX_demo",
    "written": ["ex_2"],
    "questions": [
        {
            "name": "ex_1",
            "answers": [
                {"name": "x", "value": 0.5, "tolerance": 0.01, "points": 1},
                {"name": "flag", "value": True, "tolerance": 0.0, "points": 1},
            ],
        }
    ],
}

needs_sandbox = pytest.mark.skipif(
    grading.sandbox_available() is not None, reason=f"no sandbox: {grading.sandbox_available()}"
)


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                for c in cells
            ],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def key_zip(folder):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "autograder.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(KEY_FILE, json.dumps(KEY))
    return path


def read_csv(path):
    with path.open(newline="") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


def test_score_row_is_worked_out_from_the_values_alone():
    def row(values):
        return grading.score_row(KEY, {"values": values})["ex_1"]

    assert row({"x": 0.5, "flag": True}) == 2.0
    assert row({"x": 0.509, "flag": True}) == 2.0  # within one unit of the 2nd decimal
    assert row({"x": 0.52, "flag": True}) == 1.0
    assert row({"x": 0.5, "flag": 1.0}) == 1.0  # True or False, exactly
    assert row({"x": "0.5", "flag": {"type": "missing"}}) == 0.0
    assert row({}) == 0.0


def test_collect_reads_student_ids_and_a_roster(tmp_path):
    (tmp_path / "s1.ipynb").write_text("{}")
    (tmp_path / "s.2@uni.ipynb").write_text("{}")
    assert list(grading.collect(tmp_path)) == ["s.2@uni", "s1"]
    roster = tmp_path.parent / f"{tmp_path.name}-roster.csv"
    roster.write_text("student_id,name\ns1,A\ns3,C\ns.2@uni,B\n")
    assert grading.collect(tmp_path, roster) == {
        "s1": tmp_path / "s1.ipynb",
        "s3": None,
        "s.2@uni": tmp_path / "s.2@uni.ipynb",
    }
    roster.write_text("student_id\ns1\n")
    with pytest.raises(CompsemError, match="not on the roster: s.2@uni"):
        grading.collect(tmp_path, roster)
    (tmp_path / "-bad name.ipynb").write_text("{}")
    with pytest.raises(CompsemError, match="its student id"):
        grading.collect(tmp_path)


def test_grades_are_never_written_beside_an_input_nor_over_a_file(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    (subs / "s1.ipynb").write_text(notebook("x = 0.5"))
    zip_ = key_zip(tmp_path / "ag")
    for target in (subs / "g.csv", zip_.parent / "g.csv"):
        with pytest.raises(CompsemError, match="never written beside an input"):
            grading.grade(zip_, subs, target)
    out.mkdir()
    (out / "g.csv").write_text("hand-kept marks\n")
    with pytest.raises(CompsemError, match="not overwritten without --force"):
        grading.grade(zip_, subs, out / "g.csv")
    assert (out / "g.csv").read_text() == "hand-kept marks\n"
    assert grading.default_csv("part1_setcomp") == __import__("pathlib").Path.cwd() / "grades-part1_setcomp.csv"


@needs_sandbox
def test_each_submission_is_sandboxed_scored_outside_and_kept_on_its_own(tmp_path):
    subs, out = tmp_path / "submitted" / "partX_demo", tmp_path / "lecturer"
    subs.mkdir(parents=True)
    out.mkdir()
    grades = out / "grades.csv"
    zip_ = key_zip(tmp_path / "ag")
    other = subs / "a_right.ipynb"
    other.write_text(notebook("import numpy as np\nx = np.float64(0.504)", "flag = np.bool_(True)"))
    # the cheats: a rebound abs and a replaced scorer with wrong answers, a look at another's
    # notebook and a write to the grades (each turns a point into a visible loss)
    (subs / "b_cheat.ipynb").write_text(
        notebook(
            "abs = lambda v: 0.0\nimport compsem.book.teaching.assignments as A\nA._accepts = lambda *a: True\nx = 0.0",
            f"import os\nflag = not os.path.exists({str(other)!r})",
            f"try:\n    open({str(grades)!r}, 'w').write('b_cheat,99')\nexcept OSError:\n    pass",
        )
    )
    (subs / "c_loop.ipynb").write_text(notebook("x = 0.5\nflag = True", "while True:\n    pass"))
    (subs / "d_broken.ipynb").write_text("not json")
    (subs / "e_error.ipynb").write_text(notebook("x = 0.5", "1 / 0", "flag = True"))
    t0 = time.monotonic()
    rows = grading.grade(zip_, subs, grades, limits=grading.Limits(wall_s=40))
    table = read_csv(grades)
    assert list(table) == ["a_right", "b_cheat", "c_loop", "d_broken", "e_error"] == [r["student_id"] for r in rows]
    assert {k: float(r["total"]) for k, r in table.items()} == {
        "a_right": 2.0,
        "b_cheat": 1.0,
        "c_loop": 0.0,
        "d_broken": 0.0,
        "e_error": 2.0,
    }
    assert [table[k]["error"] == "" for k in table] == [True, True, False, False, True]
    assert table["c_loop"]["error"].startswith("timed out after 40 s")
    assert "not a notebook" in table["d_broken"]["error"]
    assert {r["possible"] for r in table.values()} == {"2.0"} and table["a_right"]["percentage"] == "100.0"
    assert list(next(iter(table.values()))) == [
        "student_id",
        "ex_1",
        "total",
        "possible",
        "percentage",
        "ex_2 (written, by hand)",
        "error",
    ]
    assert not list(out.glob("*.csv.*")) and (grades.parent / "grades.rows" / "a_right.json").is_file()
    assert time.monotonic() - t0 < 40 + 5 * 60

    # a kill loses only what was not written: a rerun grades only the missing row
    kept = {p.name: p.stat().st_mtime_ns for p in (out / "grades.rows").glob("*.json")}
    (out / "grades.rows" / "e_error.json").unlink()
    t0 = time.monotonic()
    grading.grade(zip_, subs, grades, force=True, limits=grading.Limits(wall_s=40))
    assert time.monotonic() - t0 < 40  # the loop is not run again
    now = {p.name: p.stat().st_mtime_ns for p in (out / "grades.rows").glob("*.json")}
    assert {k: v for k, v in now.items() if k != "e_error.json"} == {
        k: v for k, v in kept.items() if k != "e_error.json"
    }
    assert read_csv(grades) == table


@pytest.mark.slow
@needs_sandbox
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv for a second uid"
)
def test_another_uid_cannot_reach_a_grading_sandboxs_network(tmp_path, monkeypatch):
    """A port a submission listens on (as otter's does during grading) is reachable inside its
    sandbox, and not from another uid outside; the same probe reaches a listener outside (control)."""
    port = 47000 + os.getpid() % 1000
    nb = tmp_path / "listen.ipynb"
    nb.write_text(
        notebook(
            f"import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', {port}))\ns.listen()\n"
            f"c = socket.create_connection(('127.0.0.1', {port}), timeout=5)\nx = 0.5\n"
            "open('/scratch/ready', 'w').close()\ntime.sleep(20)"
        )
    )
    probe = (
        "import socket, sys\ntry:\n    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3)\n"
        "    print('reached')\nexcept OSError as e:\n    print('refused', e)\n"
    )

    def as_nobody():
        r = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", probe, str(port)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return r.stdout.strip()

    import tempfile
    import threading

    scratch_root = tmp_path / "scratch"
    scratch_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))  # to see when the sandbox listens
    result = {}
    t = threading.Thread(target=lambda: result.update(grading.run_submission(nb, ["x"], grading.Limits(wall_s=90))))
    t.start()
    deadline = time.monotonic() + 80
    while not list(scratch_root.glob("*/ready")) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert list(scratch_root.glob("*/ready")), "the sandbox never listened"
    outside = as_nobody()
    t.join()
    assert result["values"] == {"x": 0.5} and result["error"] == "", result  # it listened and reached itself
    assert outside.startswith("refused"), outside
    with socket.socket() as s:  # control: a listener outside
        s.bind(("127.0.0.1", port))
        s.listen()
        assert as_nobody() == "reached"


def test_the_runner_silences_otters_lines_where_they_stand():
    """otter's set-up and check lines become ``pass`` at their own indentation (an indented
    ``import otter...`` inside a ``try`` once broke its whole cell)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("runner", grading.RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    src = (
        'import otter\ngrader = otter.Notebook("p.ipynb")\nx = 1\ntry:\n    import otter.x as T\nexcept Exception:\n'
        '    pass\ngrader.check("q1")\ngrader.check_all()\ny = grader_x(1)\n'
    )
    assert runner.OTTER_LINE.sub(r"\1pass", src) == (
        "pass\npass\nx = 1\ntry:\n    pass\nexcept Exception:\n    pass\npass\npass\ny = grader_x(1)\n"
    )


@needs_sandbox
def test_the_memory_limit_stops_an_allocation_and_the_later_cells_still_count(tmp_path):
    """prlimit's address-space limit (GRADE_MEMORY_GB) holds inside the sandbox: a cell that asks
    for more than the limit fails (MemoryError), the other cells run and are scored."""
    subs = tmp_path / "submitted"
    subs.mkdir()
    (subs / "big.ipynb").write_text(notebook("x = 0.5", "hog = bytearray(3 << 30)", "flag = True"))
    rows = grading.grade(
        key_zip(tmp_path / "ag"),
        subs,
        tmp_path / "out" / "grades.csv",
        limits=grading.Limits(wall_s=120, memory_bytes=2 << 30),
    )
    assert rows[0]["total"] == 2.0 and rows[0]["error"] == ""
    report = grading.run_submission(subs / "big.ipynb", ["x", "flag"], grading.Limits(wall_s=120, memory_bytes=2 << 30))
    assert {"cell": 2, "error": "MemoryError"} in report["cells"]
