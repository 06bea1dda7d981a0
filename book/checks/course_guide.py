"""Checks of book/course_guide.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`): what fits in a lab, from this build's run times."""

from compsem import claims
from compsem.book.appendices.appendix import run_time_values

PAGE = "book/course_guide.md"
LAB_MIN = 25


def check(executed=None):
    minutes = run_time_values(executed).get("runtime_min_22_csts_finetune") if executed else None
    claims.check("On a machine like the book's that fits in a 25-minute lab", page=PAGE,
                 holds=minutes is not None and minutes < LAB_MIN,
                 numbers={"chapter 22's run time (min)": None if minutes is None else round(minutes, 1),
                          "lab (min)": LAB_MIN},
                 rule="the chapter's recorded run time is shorter than the lab")


NOT_CLAIMS = {
    "never into the lecturer's repository": "the hub set-up's design (tests/compsem/book/test_hub.py runs it with three users)",
    "where the two part": "the book's plan",
    "change the three sentences": "the lab's instruction",
    "on a slower laptop": "a hypothetical machine, not a measurement",
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
