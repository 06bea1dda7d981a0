"""Checks of book/course_guide.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`): what fits in a lab, from this build's timed lab runs
(:mod:`compsem.book.teaching.labtime`)."""

from pathlib import Path

from compsem import claims
from compsem.book.teaching.labtime import glue_name, time_values, timed_steps

PAGE = "book/course_guide.md"
LAB_MIN = 25


def check(executed=None):
    times = time_values(Path(executed).parent / "labs") if executed else {}
    minutes = [times.get(glue_name(step)) for _, step in timed_steps()]  # the only timed run: Part II's
    claims.check(
        "The lab-sized fine-tuning run fits in a 25-minute lab even from empty caches",
        page=PAGE,
        holds=bool(minutes) and all(m is not None and m < LAB_MIN for m in minutes),
        numbers={
            "the timed lab run (min)": [None if m is None else round(m, 1) for m in minutes],
            "lab (min)": LAB_MIN,
        },
        rule="every timed lab run of this build took less than the lab",
    )


NOT_CLAIMS = {
    "train four configurations each": "what the exercise's commands do (their configs lists, on Part II's exercises page)",
    "never into the lecturer's repository": "the hub set-up's design (tests/compsem/book/test_hub.py runs it with three users)",
    "where the two part": "the book's plan",
    "change the three sentences": "the lab's instruction",
    "with two encoders": "the lab's instruction",
    "the three tests decided": "what the worked example does",
    "in two halves of the room": "the lab's instruction",
    "a sentence space of three sentences": "what the worked example does",
    "the metrics chapter with two encoders": "the lab's instruction",
    "the two inferential accuracies": "what a symmetric scorer implies (the glued range states the result)",
    "state the three tests": "a learning goal",
    "compute the three metrics": "a learning goal",
    "larger than the noise": "what the report asks a student to judge",
}
