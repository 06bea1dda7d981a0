"""Checks of book/part1_setcomp_worked.md; the rest of its counts are the toy's design."""

import importlib.util
from pathlib import Path

PAGE = "book/part1_setcomp_worked.md"


def check(executed=None):
    spec = importlib.util.spec_from_file_location("_part1_checks", Path(__file__).with_name("part1_setcomp.py"))
    part1 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(part1)
    part1.few_hundred_samples(PAGE, "hundreds of samples")


NOT_CLAIMS = {
    "made of three facts": "the toy's design",
    "keeps all three facts": "the toy's design",
    "pair two source sentences": "the data's design",
    "for all three operators": "the toy's design",
    "for these three targets": "the toy's three targets",
    "Two lessons": "the page's plan",
    "a toy grid of four values": "the toy's design",
    "three of the four thresholds": "worked by hand on the page: G(0.2071) = 3/4 (tests/teaching/test_setcomp.py)",
    "the same four numbers": "the four cells of the C1 and C3 tables",
}
