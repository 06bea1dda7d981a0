"""The registry drives the tests (issue 38): in a copy of the repository ``new-study`` scaffolds a
throwaway study after the registered ones. Its bare skeleton fails the contract with one list of
the faces still to write; filled with a few lines, every registry-dependent test passes with it,
and ``git status`` shows only the study's own places and the scaffold's four shared edits. A count
of studies, Parts or criteria hard-coded in a test fails here, in ``make test``; the slow
``test_new_study_end_to_end.py`` also runs the chapters."""

import sys

from compsem.studies import STUDIES
from tests.helpers.newstudy import SHARED, allowed, changed, copy_repository, environment, fill, run, scaffold

NAME = "sixth"
PART = max(s.part for s in STUDIES) + 1

#: Every test module that reads the registry (a test that counts or names studies, Parts,
#: criteria or exercise chapters must be among them and loop over the registry).
REGISTRY_TESTS = [
    "tests/compsem/test_contract.py",
    "tests/compsem/test_studies.py",
    "tests/compsem/test_reference.py",
    "tests/compsem/crossstudy/test_synthesis.py",
    "tests/compsem/crossstudy/test_tryit.py",
    "tests/compsem/book/test_exercises.py",
    "tests/compsem/book/test_scaffold.py",
    "tests/compsem/book/test_cli.py",
    "tests/compsem/book/test_courseguide.py",
    "tests/compsem/book/test_plan.py::test_every_chapter_with_models_declares_its_kind",
    "tests/compsem/book/test_paperscale.py::test_every_study_of_the_committed_benchmark_gets_finite_hours",
]


def test_a_scaffolded_study_fails_the_contract_bare_and_passes_the_registry_tests_filled(tmp_path):
    repo = copy_repository(tmp_path / "repo")
    env = environment(repo, tmp_path)
    scaffold(repo, NAME, PART, env, "--no-paper")
    pytest_ = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow"]

    bare = run(
        [*pytest_, "tests/compsem/test_contract.py", "-k", f"every_face_is_written and {NAME}"], repo, env, check=False
    )
    assert bare.returncode == 1, bare.stdout[-3000:]
    for stub in ("data.load", "metrics.score", "study.planned_texts", "study.run", "report.try_it"):
        assert f"compsem.{NAME}.{stub} is not written yet" in bare.stdout, (stub, bare.stdout[-3000:])
    assert "Traceback" not in bare.stdout
    assert "main_table is not written yet" not in bare.stdout  # written: it only calls the stub run

    lines = fill(repo, NAME)
    out = run([*pytest_, *REGISTRY_TESTS, f"tests/compsem/{NAME}"], repo, env).stdout
    assert " passed" in out and "failed" not in out
    # the course guide takes the study's session (the scaffold's LESSON) in without an edit
    guide = run(
        [
            sys.executable,
            "-c",
            "from compsem.book.teaching.courseguide import lessons, page_text; "
            "print([s.name for s, _ in lessons()]); print(page_text('book/course_guide.md'))",
        ],
        repo,
        env,
    ).stdout
    assert f"'{NAME}'" in guide.splitlines()[0] and f"notebooks/{PART}1_{NAME}_main.ipynb" in guide
    paths = changed(repo)
    assert not [p for p in paths if p not in SHARED and not p.startswith(allowed(NAME, PART))], paths
    assert {p for p in paths if p in SHARED} == SHARED
    # the newcomer's lines outside the data: the stubs' bodies and three edited lines in the faces, and the tests
    assert lines["faces"] + lines["tests"] < 100, lines
