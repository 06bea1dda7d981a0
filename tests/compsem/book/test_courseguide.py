"""The course guide's sessions and tables come from the studies' ``report.LESSON`` declarations."""

import re
import shlex

import pytest

from compsem.book.teaching import courseguide as cg
from compsem.book.running.params import parse_parameters
from compsem.book.running.plan import plan
from compsem.faces import LabStep, Lesson
from compsem.studies import STUDIES, Study
from tests.helpers import ROOT

SOURCE = (ROOT / "book" / "course_guide.md").read_text()

NEGATION = Study("negation", 5, "V", "Negation sensitivity", "doe2025negation")
LESSON = Lesson(
    title="negation",
    chapters="{doc}`part5_negation`.",
    worked="{ref}`sec-negation-worked`.",
    by_hand=("ex-negation-1",),
    discussion=(),
    homework=("ex-negation-2",),
    lab=(LabStep("the main chapter with one encoder", "51_negation_main.ipynb", {"models": ["sbert-mini"]}),),
    expected="the share {glue:text}`../notebooks/51_negation_main.ipynb::share:.0f` %.",
    goals=(("tell a paraphrase from a negation", ("ex-negation-1", "ex-negation-2")),),
)


def test_every_study_declares_a_lesson_or_none():
    for s in STUDIES:
        lesson = s.module("report").LESSON
        assert lesson is None or isinstance(lesson, Lesson), s.name
        if lesson is not None:
            assert lesson.lab and lesson.expected, s.name
            # a study with an exercises page says which learning goals they practise
            assert lesson.goals or "exercises" in s.absent or not (ROOT / f"{s.page('exercises')}.md").is_file(), s.name
            assert "{glue:text}`../notebooks/" in lesson.expected, s.name


def test_the_source_has_every_marker_once_and_no_hand_written_session():
    for marker in cg.MARKERS:
        assert SOURCE.count(f"<!-- compsem: {marker} -->") == 1, marker
    assert "### Session" not in SOURCE and "{download}" not in SOURCE


def test_a_fifth_study_appears_without_an_edit_of_the_guide():
    pairs = [*cg.lessons(), (NEGATION, LESSON)]
    text = cg.expand(SOURCE, ROOT, pairs)
    sessions = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(sessions) == len(pairs)
    last = sessions[-1]
    assert last.startswith(f"Session {len(pairs)}: negation (Part V)")
    assert (
        "`.venv/bin/python -m compsem prefetch notebooks/51_negation_main.ipynb -p models '[\"sbert-mini\"]'`" in last
    )
    assert "`.venv/bin/python -m compsem run notebooks/51_negation_main.ipynb -p models '[\"sbert-mini\"]'`" in last
    assert "90_synthesis.ipynb" in last  # the synthesis closes the last session
    assert sum("90_synthesis.ipynb" in s for s in sessions) == 1
    goals = text[text.index("## Learning goals") :]
    assert "| V | tell a paraphrase from a negation | {ref}`ex-negation-1`, {ref}`ex-negation-2` |" in goals
    assert "{ref}`ex-negation-2`) make good homework" in text


def test_every_lab_run_is_prefetched_with_the_same_parameters():
    text = cg.page_text(ROOT / "book" / "course_guide.md", ROOT)
    for s in re.split(r"^### ", text, flags=re.M)[1:]:
        lab = s[s.index("**Lab**") : s.index("**Expected**")]
        ready = s[s.index("**Prefetch**") : s.index("**Lab**")]
        runs = re.findall(r"`\.venv/bin/python -m compsem run (notebooks/[^`]+)`", lab)
        prefetches = set(re.findall(r"`\.venv/bin/python -m compsem prefetch (notebooks/[^`]+)`", ready))
        # issue 48: a chapter no study plans (the synthesis) is readied by the lecturer's one run of its lab
        readied_by_a_run = set(re.findall(r"`\.venv/bin/python -m compsem run (notebooks/[^`]+)`", ready))
        assert runs, s[:40]
        assert set(runs) <= prefetches | readied_by_a_run, s[:40]
        for cmd in readied_by_a_run:
            nb, *rest = shlex.split(cmd)
            params = parse_parameters(list(zip(rest[1::3], rest[2::3])), ROOT / nb)
            table, notes = plan(ROOT / nb, params)
            assert len(table) == 0, (nb, notes)  # a prefetch would plan nothing for it
        for stem in re.findall(r"runtime_min_(\w+):", lab):
            if not any(p.startswith(f"notebooks/{stem}.ipynb") for p in prefetches):
                # a lab step without a command (the students' own texts): nothing to prefetch for it
                table, notes = plan(ROOT / "notebooks" / f"{stem}.ipynb", {})
                assert len(table) == 0, (s[:40], stem, notes)


@pytest.mark.parametrize(
    "params, shown",
    [
        ({"models": ["a", "b"]}, """ -p models '["a", "b"]'"""),
        ({"template": "{condition}: {sentence}"}, """ -p template '"{condition}: {sentence}"'"""),
        ({"n_boot": 200, "distance": "l2"}, " -p n_boot 200 -p distance l2"),
        (None, ""),
    ],
)
def test_commands_quote_values_for_the_shell(params, shown):
    assert (
        cg.command("run", LabStep("x", "11_x.ipynb", params))
        == f".venv/bin/python -m compsem run notebooks/11_x.ipynb{shown}"
    )
