"""Checks of book/course_guide.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.claimcheck`): what fits in a lab, from this build's run times."""

from compsem import claims
from compsem.book.appendix import run_time_values

PAGE = "book/course_guide.md"
LAB_MIN = 25


def check(executed=None):
    minutes = run_time_values(executed).get("runtime_min_22_csts_finetune") if executed else None
    claims.check("On a machine like the book's that fits in a 25-minute lab", page=PAGE,
                 holds=minutes is not None and minutes < LAB_MIN,
                 numbers={"chapter 22's run time (min)": None if minutes is None else round(minutes, 1),
                          "lab (min)": LAB_MIN},
                 rule="the chapter's recorded run time is shorter than the lab")
