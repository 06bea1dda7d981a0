"""`make assignments` and `make grade`: otter-grader assignments from the exercise pages.

Per Part (every study of the registry with an exercises page): the master's solutions score full
marks, a blank student notebook scores 0 and does not crash the grader, a planted wrong answer
loses exactly its question's points, and the student notebook holds no solution text and no
value a solution computes. The first Part runs in the fast suite, the others are slow (each
runs ``otter assign`` and three graded kernels, about a minute on a loaded machine).
"""

from __future__ import annotations

import csv
import json
import re

import pytest

from compsem.book.teaching import assignments as asg
from compsem.book.teaching.exercises import strip_solutions
from compsem.errors import CompsemError
from compsem.results import RUN_MANIFEST
from tests.helpers import ROOT

PARTS = asg.assignment_parts(ROOT)

PAGE = """\
# Exercises

Intro.

```{exercise} First
:label: ex-a-1

Compute x.
```

````{solution} ex-a-1
:class: dropdown

It is 0.75, because reasons.

```python
# autograded
x_val = 0.7500   # the value
flag = True      # does it hold?
```
````

```{exercise} Second
:label: ex-a-2

Discuss.
```

```{solution} ex-a-2
Talk.
```
"""


def test_answer_blocks_read_names_values_and_meanings():
    answers = asg.answer_blocks(PAGE)
    assert list(answers) == ["ex-a-1"]
    (x, flag) = answers["ex-a-1"]
    assert (x.name, x.value, x.text, x.meaning) == ("x_val", 0.75, "0.7500", "the value")
    assert (flag.name, flag.value) == ("flag", True)
    # half a unit of the last decimal written
    assert x.check() == "assert abs(float(x_val) - 0.75) <= 5e-05"
    ns = {"x_val": 0.75004}
    exec(x.check(), ns)  # noqa: S102 - the check line, on a value by hand
    with pytest.raises(AssertionError):
        exec(x.check(), {"x_val": 0.7501})  # noqa: S102
    with pytest.raises(AssertionError):
        exec(flag.check(), {"flag": False})  # noqa: S102
    exec(flag.check(), {"flag": True})  # noqa: S102


def test_questions_pair_each_exercise_with_its_answers():
    intro, qs = asg.questions(PAGE)
    assert [q.label for q in qs] == ["ex-a-1", "ex-a-2"]
    assert [q.points for q in qs] == [2, 0] and qs[0].name == "ex_a_1"
    assert "because reasons" not in qs[0].body and "Compute x." in qs[0].body


@pytest.mark.parametrize(
    "bad, message",
    [
        (PAGE.replace("x_val = 0.7500", "x_val = 3 * 0.25"), "not a literal"),
        (PAGE.replace("x_val = 0.7500", "x_val 0.7500"), "is not `name = literal"),
        (PAGE.replace("{solution} ex-a-1", "{solution} ex-a-9"), "does not have"),
    ],
)
def test_a_broken_answer_block_is_named(bad, message):
    with pytest.raises(CompsemError, match=message):
        asg.questions(bad)


def test_master_notebook_has_one_hidden_test_per_answered_exercise():
    nb = asg.master_notebook(PAGE, name="a", number=3)
    raw = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "raw"]
    assert raw[0].startswith("# ASSIGNMENT CONFIG") and "python_version: '3.11'" in raw[0]
    assert sum(r.startswith("# BEGIN QUESTION") for r in raw) == 1
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert code[0] == "# the value\nx_val = 0.7500  # SOLUTION\n# does it hold?\nflag = True  # SOLUTION"
    assert "hidden: true" in code[1] and "assert abs(float(x_val) - 0.75)" in code[1]
    md = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "Exercise 3.1: First" in md and "Exercise 3.2: Second" in md and "graded by hand" in md


def test_every_registered_part_with_exercises_has_an_assignment():
    from compsem.studies import STUDIES

    expected = {f"part{s.part}_{s.name}" for s in STUDIES if "exercises" not in s.absent}
    assert set(PARTS) == expected
    for part, page in PARTS.items():
        assert any(q.answers for q in asg.questions(page.read_text(encoding="utf-8"))[1]), f"{part}: nothing autograded"


def test_grading_environment_is_the_lock():
    req = asg.grading_requirements(ROOT)
    lock = [ln for ln in (ROOT / "requirements-lock.txt").read_text().splitlines() if ln.strip()]
    assert [ln for ln in req.splitlines() if not ln.startswith("#")] == lock
    assert "otter-grader==7.0.0" in lock


def _wrong(value):
    """A planted wrong answer of the same kind as ``value``."""
    if isinstance(value, bool):
        return not value
    if value is None:
        return 3.0
    if isinstance(value, tuple):
        return (value[0] + 1, *value[1:])
    if isinstance(value, str):
        return value + "x"
    return value + 1.0


def _plant(nb: dict, answer) -> dict:
    """The solutions notebook with ``answer``'s line set to a wrong value."""
    out = json.loads(json.dumps(nb))
    hits = 0
    for cell in out["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        new = re.sub(rf"^{answer.name} = .*$", f"{answer.name} = {_wrong(answer.value)!r}", src, flags=re.M)
        hits += new != src
        cell["source"] = new.splitlines(keepends=True)
    assert hits == 1, f"{answer.name} is set in {hits} cells of the solutions notebook"
    return out


def _check_part(part, tmp_path):
    page = PARTS[part].read_text(encoding="utf-8")
    zip_ = asg.write_assignment(ROOT, part, tmp_path / "assignments")
    folder = zip_.parent.parent
    # beside otter's two folders, the manifest that makes the folder this user's (issue 49)
    assert sorted(p.name for p in folder.iterdir() if p.name != RUN_MANIFEST) == ["autograder", "student"]
    student_path = folder / "student" / f"{part}.ipynb"
    master = json.loads((folder / "autograder" / f"{part}.ipynb").read_text())
    student_text = student_path.read_text()

    # the student notebook: no solution text, no value a solution computes
    solution_lines = set(page.splitlines()) - set(strip_solutions(page).splitlines())
    for line in solution_lines:
        if len(line.strip()) > 25:
            assert line.strip() not in student_text, f"{part}: solution text in the student notebook: {line!r}"
    statements = strip_solutions(page)
    _, qs = asg.questions(page)
    answered = [q for q in qs if q.answers]
    for q in answered:
        for a in q.answers:
            assert f"{a.name} = {a.text}" not in student_text
            if re.search(r"\d", a.text) and a.text not in statements:
                assert a.text not in student_text, f"{part}: the answer {a.name} = {a.text} is in the student notebook"
            assert f"{a.name} = ..." in student_text
    assert "assert " not in student_text and "tests/teaching" not in student_text

    # three submissions: the master, the blank student notebook, one planted wrong answer
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a_master.ipynb").write_text(json.dumps(master))
    (subs / "b_blank.ipynb").write_text(student_text)
    wrong_q = answered[-1]
    (subs / "c_planted.ipynb").write_text(json.dumps(_plant(master, wrong_q.answers[0])))
    rows = asg.grade(zip_, subs, tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open() as f:
        table = {r["submission"]: r for r in csv.DictReader(f)}
    assert [r["submission"] for r in rows] == ["a_master.ipynb", "b_blank.ipynb", "c_planted.ipynb"]
    full = sum(q.points for q in answered)
    scores = {name: float(r["total"]) for name, r in table.items()}
    assert {name: float(r["possible"]) for name, r in table.items()} == dict.fromkeys(scores, float(full))
    assert all(r["error"] == "" for r in table.values())
    assert scores == {"a_master.ipynb": full, "b_blank.ipynb": 0.0, "c_planted.ipynb": full - wrong_q.points}
    assert float(table["c_planted.ipynb"][wrong_q.name]) == 0.0
    for q in answered:
        if q is not wrong_q:
            assert float(table["c_planted.ipynb"][q.name]) == q.points
    return scores


FIRST = next(iter(PARTS))


def test_first_part_master_full_blank_zero_planted_loses_its_question(tmp_path):
    _check_part(FIRST, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("part", [p for p in PARTS if p != FIRST])
def test_every_part_master_full_blank_zero_planted_loses_its_question(part, tmp_path):
    _check_part(part, tmp_path)


def test_grade_names_a_folder_without_notebooks(tmp_path):
    with pytest.raises(CompsemError, match="no notebook"):
        asg.grade(tmp_path / "x.zip", tmp_path, tmp_path / "g.csv")
