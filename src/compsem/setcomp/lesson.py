"""Part I's session of the course guide: ``report.LESSON`` (:class:`compsem.faces.Lesson`)."""

from __future__ import annotations

from ..faces import LabStep, Lesson

__all__ = ["LESSON"]

_OVERLAP = "../notebooks/11_setcomp_overlap.ipynb"

LESSON = Lesson(
    title="the toolkit and set-like operators",
    chapters=(
        "{doc}`../notebooks/00_toolkit`, then {doc}`part1_setcomp`, {doc}`../notebooks/11_setcomp_overlap` "
        "and {doc}`../notebooks/12_setcomp_difference` ({doc}`../notebooks/13_setcomp_union` as reading)."
    ),
    worked=(
        "{ref}`sec-setcomp-worked` (margins, the plane of two sentences, the signed position $t$ on "
        "three-dimensional vectors)."
    ),
    by_hand=("ex-setcomp-1", "ex-setcomp-2"),
    discussion=("ex-setcomp-3",),
    homework=("ex-setcomp-5",),
    lab=(
        LabStep(
            "change the three sentences of the toolkit chapter in its parameters cell and rerun it", "00_toolkit.ipynb"
        ),
        LabStep(
            "{ref}`ex-setcomp-4`, the overlap chapter with SBERT-mini next to the bag-of-words control",
            "11_setcomp_overlap.ipynb",
            {"models": ["sbert-mini", "bow"]},
        ),
    ),
    expected=(
        f"at ε = 0, {{glue:text}}`{_OVERLAP}::first_model:s`'s (T,T) share comes out as in the book, "
        f"{{glue:text}}`{_OVERLAP}::c1_first_tt0:.1f` %, since that reading does not depend on the other "
        "models of the run; its pooled share (the book's, next to the whole panel: "
        f"{{glue:text}}`{_OVERLAP}::c1_first_tt:.1f` %) may move, which is the point of the exercise."
    ),
    goals=(
        ("compute cosine, NED and a projection by hand and with `compsem` (the toolkit)", ("ex-setcomp-1",)),
        (
            "turn overlap, difference and union into criteria C1–C6 and decide them by hand",
            ("ex-setcomp-1", "ex-setcomp-2"),
        ),
        (
            "explain how the ε grid turns margins into percentages, and why a pooled range couples models",
            ("ex-setcomp-4",),
        ),
        (
            "tell a criterion that measures the encoder from one that holds by construction",
            ("ex-setcomp-3", "ex-setcomp-5"),
        ),
    ),
)
