"""book/course_guide.md: what fits in a lab, from this build's timed lab runs
(:mod:`compsem.book.teaching.labtime`); the lab's length is the number the sentence states."""

from pathlib import Path

from compsem import claims
from compsem.book.teaching.labtime import glue_name, time_values, timed_steps

SENTENCE = "The lab-sized fine-tuning run fits in a 25-minute lab even from empty caches"


def lab(executed=None):
    times = time_values(Path(executed).parent / "labs") if executed else {}
    minutes = [times.get(glue_name(step)) for _, step in timed_steps()]  # the only timed run: Part II's
    lab = claims.said_number(SENTENCE.replace("-minute", " minute"))
    claims.check(
        SENTENCE,
        page="book/course_guide.md",
        numbers={"the timed lab run (min)": minutes, "lab (min)": lab},
        holds=bool(minutes) and all(m is not None and m < lab for m in minutes),
        rule="every timed lab run of this build took less than the lab the sentence names",
    )


CHECKS = {"course_guide": lab}
