"""The course guide is linked, its references resolve, and every exercise has a learning goal."""

import json
import re

from compsem.book.exercises import write_student_copies
from compsem.paths import repo_root

ROOT = repo_root()
GUIDE = (ROOT / "book" / "course_guide.md").read_text()


def _labels(pattern, paths):
    return {m for p in paths for m in re.findall(pattern, p.read_text(), flags=re.M)}


def test_guide_is_in_the_toc_and_linked_from_the_introduction():
    assert "- file: book/course_guide" in (ROOT / "_toc.yml").read_text()
    assert GUIDE.startswith("(course-guide)=")
    assert "{ref}`course-guide`" in (ROOT / "book" / "intro.md").read_text()


def test_four_sessions_each_with_chapters_worked_example_exercises_and_a_lab():
    sessions = re.split(r"^### ", GUIDE, flags=re.M)[1:]
    assert len(sessions) == 4
    for s in sessions:
        for part in ("**Chapters**", "**Worked example**", "**Exercises**", "**Lab**"):
            assert part in s, (s[:40], part)
        assert "python -m compsem run notebooks/" in s and "-p models" in s


def test_references_resolve():
    exercises = _labels(r"^:label: (ex-[\w-]+)", (ROOT / "book").glob("part*_exercises.md"))
    targets = _labels(r"^\(([\w-]+)\)=", [*(ROOT / "book").glob("*.md")])
    for ref in re.findall(r"\{ref\}`([\w-]+)`", GUIDE):
        assert ref in exercises | targets, ref
    for doc in re.findall(r"\{doc\}`([^`]+)`", GUIDE):
        assert (ROOT / "book" / f"{doc}.md").is_file() or (ROOT / "book" / f"{doc}.ipynb").is_file(), doc
    for nb in re.findall(r"python -m compsem run (notebooks/\w+\.ipynb)", GUIDE):
        assert (ROOT / nb).is_file(), nb


def test_every_exercise_is_mapped_to_a_learning_goal():
    exercises = _labels(r"^:label: (ex-[\w-]+)", (ROOT / "book").glob("part*_exercises.md"))
    table = GUIDE[GUIDE.index("## Learning goals"):GUIDE.index("## Assessment")]
    mapped = set(re.findall(r"\{ref\}`(ex-[\w-]+)`", table))
    assert len(exercises) >= 19 and mapped == exercises


def test_student_copies_offered_for_download_are_the_ones_staged(tmp_path):
    names = {p.name for p in write_student_copies(ROOT, tmp_path)}
    downloads = re.findall(r"\{download\}`[^<`]*<\.\./exercises/([^>]+)>`", GUIDE)
    assert len(downloads) == 4 and set(downloads) <= names


def test_lab_commands_name_real_parameters():
    commands = re.findall(r"`(python -m compsem run notebooks/[^`]+)`", GUIDE)
    assert len(commands) >= 5
    for cmd in commands:
        nb = re.search(r"notebooks/(\w+\.ipynb)", cmd).group(1)
        cells = json.loads((ROOT / "notebooks" / nb).read_text())["cells"]
        params = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
        for name in re.findall(r" -p (\w+) ", cmd):
            assert re.search(rf"^{name}\s*=", params, re.M), f"{nb} has no parameter {name}"
