"""`make assignments` and `make grade`: otter-grader assignments from the exercise pages.

Per Part (every study of the registry with an exercises page): the master's solutions score full
marks, a blank student notebook scores 0 and does not crash the grader, a planted wrong answer
loses exactly its name's point, and the student notebook holds no solution text, no value a
solution computes and no hidden test; its ``grader.check_all()`` fails on a blank notebook. The first Part runs in the fast suite, the others are slow (each
runs ``otter assign`` and three graded kernels, about a minute on a loaded machine).
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from compsem.book.teaching import assignments as asg
from compsem.book.teaching import grading
from compsem.book.teaching.exercises import strip_solutions, unbuilt_values
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
    assert (x.decimals, x.tolerance, flag.decimals, flag.tolerance) == (4, 1e-4, None, 0.0)
    assert x.kind() == "a number, 4 decimals" and flag.kind() == "True or False"


@pytest.mark.parametrize(
    "value, ok",
    [
        (0.75, True),
        (0.7501, True),
        (0.7499, True),  # one unit of the 4th decimal: both roundings of 0.75005
        (0.75009, True),
        (0.7502, False),
        (0.7498, False),
        (0.8, False),
        (1, False),
        (True, False),
        ("0.75", False),
        (None, False),
        ([0.75], False),
        (float("nan"), False),
    ],
)
def test_a_number_counts_within_one_unit_of_its_stated_decimals(value, ok):
    (x, _) = asg.answer_blocks(PAGE)["ex-a-1"]
    assert x.accepts(value) is ok
    ns = {"x_val": value}
    if ok:
        exec(x.check(), ns)  # noqa: S102 - the hidden test, by hand
    else:
        with pytest.raises((AssertionError, TypeError, ValueError)):
            exec(x.check(), ns)  # noqa: S102


def test_hidden_tests_call_the_builtins_themselves():
    """Issue 48: ``abs = lambda x: 0.0`` (or a rebound ``float``/``isinstance``) scored full marks."""
    (x, flag) = asg.answer_blocks(PAGE)["ex-a-1"]
    cheat = {
        "x_val": 0.0,
        "flag": False,
        "abs": lambda v: 0.0,
        "float": lambda v: 0.75,
        "isinstance": lambda *a: True,
        "bool": lambda v: True,
    }
    for a in (x, flag):
        with pytest.raises(AssertionError):
            exec(a.check(), dict(cheat))  # noqa: S102
    exec(flag.check(), {"flag": True, "bool": lambda v: False})  # noqa: S102


@pytest.mark.parametrize(
    "value, passes",
    [
        (..., False),
        ("0.75", False),
        (True, False),
        (float("inf"), False),
        (-0.5, False),
        (1.5, False),
        (0.9, True),
        (0.0, True),
        (1, True),  # a public test never tells the value
    ],
)
def test_public_tests_check_type_and_range_only(value, passes):
    (x, _) = asg.answer_blocks(PAGE)["ex-a-1"]
    if passes:
        exec(x.public_check(), {"x_val": value})  # noqa: S102
    else:
        with pytest.raises(AssertionError, match="x_val must be a number between 0 and 1"):
            exec(x.public_check(), {"x_val": value})  # noqa: S102


def test_public_tests_of_other_kinds():
    page = PAGE.replace(
        "flag = True      # does it hold?",
        "flag = True      # does it hold?\nvec = (2.00, 0.50)  # v\nnone = None  # n",
    )
    (x, flag, vec, none) = asg.answer_blocks(page)["ex-a-1"]
    exec(vec.public_check(), {"vec": (9.0, -3.0)})  # noqa: S102
    for bad in (..., (1.0,), (1.0, "a"), 2.0):
        with pytest.raises(AssertionError):
            exec(vec.public_check(), {"vec": bad})  # noqa: S102
    exec(none.public_check(), {"none": 3.0})  # noqa: S102 - a number or None
    exec(none.public_check(), {"none": None})  # noqa: S102
    exec(x.public_check(optional=True), {"x_val": None})  # noqa: S102
    with pytest.raises(AssertionError):
        exec(x.public_check(), {"x_val": None})  # noqa: S102
    with pytest.raises(AssertionError):
        exec(flag.public_check(), {"flag": 1})  # noqa: S102
    assert vec.accepts([2.0, 0.5]) and vec.accepts((2.009, 0.491)) and not vec.accepts([2.0, 0.52])
    assert none.accepts(None) and not none.accepts(0.0) and not none.accepts("None")


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


def test_master_notebook_has_a_public_and_a_hidden_test_per_name():
    nb = asg.master_notebook(PAGE, name="a", number=3)
    raw = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "raw"]
    assert raw[0].startswith("# ASSIGNMENT CONFIG") and "python_version: '3.11'" in raw[0]
    assert "init_cell: true" in raw[0] and "check_all_cell: true" in raw[0]
    assert [r for r in raw if r.startswith("# BEGIN QUESTION")] == ["# BEGIN QUESTION\nname: ex_a_1\npoints: 2\n"]
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert code[0] == (
        "# the value: a number, 4 decimals\nx_val = 0.7500  # SOLUTION\n"
        "# does it hold: True or False?\nflag = True  # SOLUTION"
    )
    tests = code[1:]
    assert len(tests) == 4
    assert ["hidden: true" in t for t in tests] == [False, True, False, True]
    assert all("points: 0" in t for t in tests[::2]) and all("points: 1" in t for t in tests[1::2])
    assert "_b.abs(_b.float(x_val) - 0.75)" in tests[1] and "0.75" not in tests[0]
    md = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "Exercise 3.1: First" in md and "Exercise 3.2: Second" in md and "graded by hand" in md
    assert "within one unit of the last of those decimals" in md


def _marked(nb: dict) -> list[tuple[str, str]]:
    """The marked written-answer cells of ``nb``: (question, text)."""
    return [
        (c["metadata"]["compsem"]["written"], "".join(c["source"]))
        for c in nb["cells"]
        if "written-answer" in c["metadata"].get("tags", [])
    ]


def test_a_written_answer_has_a_marked_cell_also_where_an_autograded_exercise_asks_why():
    """Issue 48 item 5: "Discuss." (no answer block) and "Why?" after an answer block each get a
    marked cell for the words, and the key lists both for hand grading."""
    assert _marked(asg.master_notebook(PAGE, name="a", number=3)) == [
        (
            "ex_a_2",
            "**Written answer to Exercise 3.2** (graded by hand, with the rubric of the course guide): "
            "replace this line with your answer.",
        )
    ]
    assert asg.answer_key(PAGE, "a")["written"] == ["ex_a_2"]
    why = PAGE.replace("Compute x.", "Compute x. Why is it below 1?")
    nb = asg.master_notebook(why, name="a", number=3)
    assert [q for q, _ in _marked(nb)] == ["ex_a_1", "ex_a_2"]
    sources = ["".join(c["source"]) for c in nb["cells"]]
    first = sources.index(
        "**Written answer to Exercise 3.1** (graded by hand, with the rubric of the course guide): "
        "replace this line with your answer."
    )
    assert sources[first - 1] == "# END QUESTION"  # after its autograded question, outside otter's block
    key = asg.answer_key(why, "a")
    assert key["written"] == ["ex_a_1", "ex_a_2"] and [q["name"] for q in key["questions"]] == ["ex_a_1"]
    # "explained" in passing is no question in words; "Explain" is
    assert asg.answer_key(PAGE.replace("Compute x.", "Compute x as explained."), "a")["written"] == ["ex_a_2"]
    assert asg.answer_key(PAGE.replace("Compute x.", "Explain x."), "a")["written"] == ["ex_a_1", "ex_a_2"]


def test_the_key_is_what_the_page_declares():
    key = asg.answer_key(PAGE, "a")
    assert key == {
        "part": "a",
        "questions": [
            {
                "name": "ex_a_1",
                "answers": [
                    {"name": "x_val", "value": 0.75, "tolerance": 1e-4, "points": 1},
                    {"name": "flag", "value": True, "tolerance": 0.0, "points": 1},
                ],
            }
        ],
        "written": ["ex_a_2"],
    }


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


def executed_build(folder):
    """A stand-in for an executed build: every number a Part's statements glue, as 7777 (so that a
    handout shows 7777 where the book shows its number: a value no answer has)."""
    values: dict[str, dict[str, int]] = {}
    for page in PARTS.values():
        for v in unbuilt_values(strip_solutions(page.read_text(encoding="utf-8")), {}, f"book/{page.stem}"):
            stem, key = v.split("::")
            values.setdefault(stem, {})[key] = 7777
    folder.mkdir(parents=True, exist_ok=True)
    for stem, glued in values.items():
        outs = [
            {
                "output_type": "display_data",
                "metadata": {"scrapbook": {"name": k}},
                "data": {"application/papermill.record/text/plain": repr(v)},
            }
            for k, v in glued.items()
        ]
        cell = {"cell_type": "code", "execution_count": 1, "id": "glued", "metadata": {}, "outputs": outs, "source": ""}
        nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (folder / f"{stem}.ipynb").write_text(json.dumps(nb))
    return folder


def write_part(part, tmp_path):
    """``part``'s assignment written into ``tmp_path/assignments``: (zip, student text, master notebook)."""
    zip_ = asg.write_assignment(ROOT, part, tmp_path / "assignments", executed=executed_build(tmp_path / "executed"))
    folder = zip_.parent.parent
    # beside otter's two folders, the manifest that makes the folder this user's (issue 49)
    assert sorted(p.name for p in folder.iterdir() if p.name != RUN_MANIFEST) == ["autograder", "student"]
    student_text = (folder / "student" / f"{part}.ipynb").read_text()
    master = json.loads((folder / "autograder" / f"{part}.ipynb").read_text())
    return zip_, student_text, master


def _check_part(part, tmp_path):
    page = PARTS[part].read_text(encoding="utf-8")
    zip_, student_text, master = write_part(part, tmp_path)

    # the student notebook: no solution text, no value a solution computes, no hidden test;
    # otter's set-up, a check per question and check_all; glued numbers filled
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
        assert f'grader.check(\\"{q.name}\\")' in student_text
    assert (
        "_b.abs(" not in student_text and "tests/teaching" not in student_text and '"hidden": true' not in student_text
    )
    assert "otter.Notebook(" in student_text and "grader.check_all()" in student_text
    assert "[the number in the book]" not in student_text and "{glue" not in student_text
    # a marked cell per written answer: every exercise without an answer block, and each whose
    # statement asks "why" (found here by a plain word search); the key lists the same for the CSV
    in_words = [q.name for q in qs if not q.answers or {"why", "explain"} & set(re.findall(r"[a-z]+", q.body.lower()))]
    key = asg.read_key(zip_)
    assert [q for q, _ in _marked(json.loads(student_text))] == in_words == key["written"]

    if grading.sandbox_available():
        pytest.skip(f"grading needs a sandbox: {grading.sandbox_available()}")
    # three submissions: the master, the blank student notebook, one planted wrong answer
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a_master.ipynb").write_text(json.dumps(master))
    (subs / "b_blank.ipynb").write_text(student_text)
    wrong_q = answered[-1]
    (subs / "c_planted.ipynb").write_text(json.dumps(_plant(master, wrong_q.answers[0])))
    rows = asg.grade(zip_, subs, tmp_path / "out" / "grades.csv")
    with (tmp_path / "out" / "grades.csv").open() as f:
        table = {r["student_id"]: r for r in csv.DictReader(f)}
    assert [r["student_id"] for r in rows] == ["a_master", "b_blank", "c_planted"]
    full = sum(q.points for q in answered)
    scores = {name: float(r["total"]) for name, r in table.items()}
    assert {name: float(r["possible"]) for name, r in table.items()} == dict.fromkeys(scores, float(full))
    assert all(r["error"] == "" for r in table.values())
    written = [grading.written_column(q) for q in key["written"]]
    assert all(r[c] == "" for r in table.values() for c in written) and set(written) <= set(table["a_master"])
    # one wrong value of a question loses that name's one point, not the question's
    assert scores == {"a_master": full, "b_blank": 0.0, "c_planted": full - 1}
    assert float(table["c_planted"][wrong_q.name]) == wrong_q.points - 1
    assert float(table["c_planted"]["percentage"]) == round(100 * (full - 1) / full, 1)
    for q in answered:
        if q is not wrong_q:
            assert float(table["c_planted"][q.name]) == q.points
    return scores


FIRST = next(iter(PARTS))


def test_first_part_master_full_blank_zero_planted_loses_its_name(tmp_path):
    _check_part(FIRST, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("part", [p for p in PARTS if p != FIRST])
def test_every_part_master_full_blank_zero_planted_loses_its_name(part, tmp_path):
    _check_part(part, tmp_path)


def _check_all_output(nb_text, tmp_path, part=FIRST):
    """The text the student notebook's last cell (``grader.check_all()``) shows when run as a
    student runs it (otter reads the public tests from the notebook's file, beside it)."""
    import nbformat
    from nbclient import NotebookClient

    folder = tmp_path / "run"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / f"{part}.ipynb").write_text(nb_text)
    nb = nbformat.reads(nb_text, as_version=4)
    NotebookClient(
        nb, timeout=120, allow_errors=True, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    last = nb.cells[-1]
    assert "grader.check_all()" in last.source
    return "".join(o.get("text", "") + json.dumps(o.get("data", {})) for o in last.outputs)


def test_check_all_fails_on_a_blank_and_a_wrong_type_notebook_and_passes_the_master(tmp_path):
    """Issue 48: a student's ``grader.check_all()`` said "All test cases passed!" on a blank notebook."""
    pytest.importorskip("otter")
    zip_, student_text, master = write_part(FIRST, tmp_path)
    answered = [q for q in asg.questions(PARTS[FIRST].read_text())[1] if q.answers]
    q1, name = answered[0].name, answered[0].answers[0].name
    blank = _check_all_output(student_text, tmp_path)
    assert "All test cases passed" not in blank and f"{name} must be" in blank
    master_nb = json.loads(json.dumps(master))
    for cell in master_nb["cells"]:
        if cell["cell_type"] == "code":
            cell["source"] = re.sub(rf"^{name} = .*$", f"{name} = 'a string'", "".join(cell["source"]), flags=re.M)
    wrong_type = _check_all_output(json.dumps(master_nb), tmp_path)
    assert f"{name} must be" in wrong_type and f"{q1} results: All test cases passed" not in wrong_type
    ok = _check_all_output(json.dumps(master), tmp_path)
    assert all(f"{q.name} results: All test cases passed" in ok for q in answered) and "must be" not in ok


def test_assign_refuses_a_glued_number_no_build_holds(tmp_path):
    glued = {p: unbuilt_values(strip_solutions(page.read_text()), {}, f"book/{page.stem}") for p, page in PARTS.items()}
    part = next((p for p, v in glued.items() if v), None)
    if part is None:
        pytest.skip("no Part's statements glue a number")
    chapter = glued[part][0].split("::")[0]
    with pytest.raises(CompsemError, match=rf"{part}: .*{chapter}.*compsem run notebooks/{chapter}.ipynb"):
        asg.write_assignment(ROOT, part, tmp_path / "a", executed=tmp_path / "none")
    assert not (tmp_path / "a").exists()


def test_grade_names_a_folder_without_notebooks(tmp_path):
    with pytest.raises(CompsemError, match="no notebook"):
        grading.collect(tmp_path)


def _solution_values(page: str, literals: bool = True) -> list[str]:
    """What a student must never be shown of ``page``: its answer lines (``name = literal``), its
    solutions' longer lines and (``literals``) each answer literal with a digit that the
    statements do not print."""
    statements = strip_solutions(page)
    out = [f"{a.name} = {a.text}" for q in asg.questions(page)[1] for a in q.answers]
    out += [ln.strip() for ln in set(page.splitlines()) - set(statements.splitlines()) if len(ln.strip()) > 25]
    if literals:
        out += [
            a.text
            for q in asg.questions(page)[1]
            for a in q.answers
            if re.search(r"\d", a.text) and a.text not in statements
        ]
    return out


def test_the_student_build_stages_no_solution_and_no_page_source(tmp_path):
    import yaml

    from compsem.book.running.stage import stage

    from tests.compsem.book.test_stage import fake_release

    out, release = tmp_path / "site", fake_release(tmp_path / "release")
    stage(ROOT, executed_build(tmp_path / "executed"), out, student=True, release=release)
    config = yaml.safe_load((out / "_config.yml").read_text())
    assert config["sphinx"]["config"]["hide_solutions"] is True
    assert config["sphinx"]["config"]["html_copy_source"] is False
    assert config["sphinx"]["config"]["html_show_sourcelink"] is False
    assert config["sphinx"]["config"]["html_theme_options"] == {"use_download_button": False}
    assert config["sphinx"]["recursive_update"] is True
    assert (
        config["sphinx"]["extra_extensions"]
        == yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["extra_extensions"]
    )
    staged = {p: p.read_text() for p in out.rglob("*") if p.is_file() and p.suffix in (".md", ".ipynb")}
    for text in staged.values():
        assert "{solution" not in text and "# autograded" not in text
    for part, page in PARTS.items():
        for value in _solution_values(page.read_text()):  # the exercise page: not even a bare value
            assert value not in staged[out / "book" / page.name], f"{part}: {value!r} is in its student page"
        for value in _solution_values(page.read_text(), literals=False):  # the worked examples show numbers
            hits = [p.name for p, t in staged.items() if value in t]
            assert not hits, f"{part}: {value!r} is in the student build's {hits}"
    # the ordinary build keeps them (so the checks above can fail)
    stage(ROOT, executed_build(tmp_path / "executed"), tmp_path / "full", release=release)
    page = next(iter(PARTS.values()))
    assert "# autograded" in (tmp_path / "full" / "book" / page.name).read_text()


@pytest.mark.slow
def test_release_holds_the_student_notebooks_and_handouts_and_no_solution(tmp_path):
    out = tmp_path / "release"
    written = asg.write_release(ROOT, out, executed=executed_build(tmp_path / "executed"))
    assert sorted(p.relative_to(out).as_posix() for p in written) == sorted(
        f"{part}/{name}" for part, page in PARTS.items() for name in (f"{part}.ipynb", page.name)
    )
    texts = {p: p.read_text() for p in written}
    for part, page in PARTS.items():
        for value in _solution_values(page.read_text()):
            hits = [p.name for p, t in texts.items() if value in t]
            assert not hits, f"{part}: {value!r} is in the release's {hits}"
    for t in texts.values():
        assert "_b.abs(" not in t and '"hidden": true' not in t and "[the number in the book]" not in t
    # a second release replaces the first; a folder that is not a release is never replaced
    asg.write_release(ROOT, out, executed=executed_build(tmp_path / "executed"))
    other = tmp_path / "notes"
    other.mkdir()
    (other / "marks.csv").write_text("kept")
    with pytest.raises(CompsemError, match="not a release folder"):
        asg.write_release(ROOT, other, executed=tmp_path / "executed")
    assert (other / "marks.csv").read_text() == "kept"


@pytest.mark.slow
def test_the_built_student_book_holds_no_answer_and_no_page_source(tmp_path):
    """``make student-book``'s two steps on the executed build (skipped without one): no built
    page holds an answer block's line or a solution, and no page source is published."""
    import subprocess
    import sys

    from compsem.book.running.stage import stage

    executed = ROOT / "_build" / "executed" / "notebooks"
    if not any(executed.glob("*.ipynb")):
        pytest.skip("no executed build (make book) to build the student book from")
    # the course guide's downloads: the gradeable notebooks of a real release (they are searched too)
    asg.write_release(ROOT, tmp_path / "release", executed=executed)
    stage(ROOT, executed, tmp_path / "src", student=True, release=tmp_path / "release")
    jb = [
        str(Path(sys.executable).with_name("jupyter-book")),
        "build",
        str(tmp_path / "src"),
        "--path-output",
        str(tmp_path / "out"),
        "--keep-going",
        "--all",
    ]
    subprocess.run(jb, check=True, capture_output=True, timeout=3000)
    html = tmp_path / "out" / "_build" / "html"
    assert (html / "index.html").is_file() and not (html / "_sources").exists()
    assert not any("_sources" in t for t in (p.read_text() for p in html.rglob("*.html")))  # no download button
    pages = {p: p.read_text(errors="replace") for p in html.rglob("*.html")}
    for part, page in PARTS.items():
        for value in _solution_values(page.read_text(), literals=False):
            hits = [p.name for p, t in pages.items() if value in t]
            assert not hits, f"{part}: {value!r} is in the built student book's {hits}"
        ex = pages[html / "book" / f"{page.stem}.html"]
        assert "Answers, as the assignment notebook" not in ex
    # the course guide's downloads are the release's gradeable notebooks, one per Part
    downloads = {p.name: p for p in html.rglob("_downloads/**/*.ipynb")}
    assert sorted(downloads) == sorted(f"{part}.ipynb" for part in PARTS)
    for part in PARTS:
        assert downloads[f"{part}.ipynb"].read_bytes() == (tmp_path / "release" / part / f"{part}.ipynb").read_bytes()


def _set(nb: dict, values: dict[str, str], first_cell: str = "", last_cell: str = "") -> dict:
    """The notebook ``nb`` with each ``name = ...`` line of ``values`` set to its source, ``first_cell``
    put before the first answer line and ``last_cell`` appended as a code cell."""
    out = json.loads(json.dumps(nb))
    first = True
    for cell in out["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        for name, value in values.items():
            src = re.sub(rf"^{name} = .*$", lambda m, n=name, v=value: f"{n} = {v}", src, flags=re.M)
        if first and any(re.search(rf"^{n} = ", src, flags=re.M) for n in values):
            src, first = first_cell + "\n" + src, False
        cell["source"] = src.splitlines(keepends=True)
    if last_cell:
        out["cells"].append(
            {"cell_type": "code", "metadata": {}, "source": last_cell, "outputs": [], "execution_count": None}
        )
    return out


def _one_unit_off(a) -> str:
    """``a``'s key written at its stated decimals, one unit of the last one off (the other way of
    rounding), as numpy values; True/False, None and strings as they are."""
    d = a.decimals
    if isinstance(a.value, tuple):
        return "np.array([" + ", ".join(f"{x + 10.0**-d:.{d}f}" for x in a.value) + "])"
    if isinstance(a.value, float) and d is not None:
        return f"np.float64({a.value + 10.0**-d:.{d}f})"
    return f"np.bool_({a.value!r})" if isinstance(a.value, bool) else repr(a.value)


@pytest.mark.slow
@pytest.mark.parametrize("part", list(PARTS))
def test_a_class_folder_of_eight_submissions_per_part(part, tmp_path):
    """Issue 48's class: master, blank, one wrong value, correct at the stated precision, the
    ``abs`` cheat, a submission that rewrites the grades, one that replaces the scoring function
    and one that loops for ever. The expected scores: full, 0, full - 1, full, and for the two
    cheats (every answer 0) the number of keys that are exactly 0 (counted from the key); the one
    that writes the grades file and a row (the real paths) and looks for another's notebook loses
    a point if it sees it, and the grades stay the grader's; the loop is timed out and its row says so."""
    if grading.sandbox_available():
        pytest.skip(f"grading needs a sandbox: {grading.sandbox_available()}")
    page = PARTS[part].read_text(encoding="utf-8")
    zip_, student_text, master = write_part(part, tmp_path)
    answers = [a for q in asg.questions(page)[1] for a in q.answers]
    full = len(answers)
    zeros = sum(1 for a in answers if type(a.value) is float and a.value == 0.0)
    subs, out = tmp_path / "submitted" / part, tmp_path / "lecturer"
    subs.mkdir(parents=True)
    out.mkdir()
    grades = out / f"grades-{part}.csv"
    first, wrong = answers[0], answers[-1]
    all_zero = {a.name: "0.0" for a in answers}
    nbs = {
        "s1_master": master,
        "s2_blank": json.loads(student_text),
        "s3_wrong": _plant(master, wrong),
        "s4_precision": _set(master, {a.name: _one_unit_off(a) for a in answers}, "import numpy as np"),
        "s5_abs": _set(master, all_zero, "abs = lambda x: 0.0"),
        "s6_grades": _set(
            master,
            {},
            last_cell=(
                f"import os\nseen = os.path.exists({str(subs / 's1_master.ipynb')!r})\n"
                f"for path in ({str(grades)!r}, {str(out / (grades.stem + '.rows') / 's1_master.json')!r}):\n"
                f"    try:\n        open(path, 'w').write('s6_grades,99\\n')\n    except OSError:\n        pass\n"
                f"if seen:\n    {first.name} = 'seen'"
            ),
        ),
        "s7_scorer": _set(
            master,
            all_zero,
            "\n".join(
                f"try:\n    {line}\nexcept Exception:\n    pass"
                for line in (
                    "import builtins; builtins.abs = lambda x: 0.0",
                    "import compsem.book.teaching.assignments as A; A._accepts = lambda *a: True",
                    "A.Answer.accepts = lambda *a: True",
                    "import otter.test_files.abstract_test as T; T.TestFile.score = property(lambda self: self.possible)",
                )
            ),
        ),
        "s8_loop": _set(master, {}, last_cell="while True:\n    pass"),
    }
    for sid, nb in nbs.items():
        (subs / f"{sid}.ipynb").write_text(json.dumps(nb))
    rows = asg.grade(zip_, subs, grades, limits=grading.Limits(wall_s=60))
    table = {r["student_id"]: r for r in csv.DictReader(grades.open())}
    assert [r["student_id"] for r in rows] == list(nbs) == list(table)
    scores = {sid: float(r["total"]) for sid, r in table.items()}
    assert scores == {
        "s1_master": full,
        "s2_blank": 0.0,
        "s3_wrong": full - 1,
        "s4_precision": full,
        "s5_abs": zeros,
        "s6_grades": full,
        "s7_scorer": zeros,
        "s8_loop": 0.0,
    }
    assert {sid: r["error"] for sid, r in table.items() if r["error"]} == {"s8_loop": table["s8_loop"]["error"]}
    assert table["s8_loop"]["error"].startswith("timed out")
    assert "99" not in grades.read_text()  # the grades and the rows are the grader's, not s6's
    assert json.loads((out / f"{grades.stem}.rows" / "s1_master.json").read_text())["row"]["error"] == ""
    assert {r["possible"] for r in table.values()} == {str(float(full))}
