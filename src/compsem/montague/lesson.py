"""Part III's session of the course guide: ``report.LESSON`` (:class:`compsem.faces.Lesson`)."""

from __future__ import annotations

from ..faces import LabStep, Lesson

__all__ = ["LESSON"]

LESSON = Lesson(
    title="adjective–noun composition",
    chapters=(
        "{doc}`part3_montague`, {doc}`../notebooks/30_montague_phrases`, {doc}`../notebooks/31_montague_single`, "
        "{doc}`../notebooks/33_montague_nonsubsective` ({doc}`../notebooks/32_montague_pairs` as reading)."
    ),
    worked="{ref}`montague-worked` (the three tests decided by hand on compass-point vectors).",
    by_hand=("ex-montague-1", "ex-montague-3"),
    discussion=("ex-montague-2",),
    lab=(
        LabStep(
            "{ref}`ex-montague-4`, in two halves of the room. One half reruns the pair test with a control that "
            "has no composition at all, a random vector for every text",
            "32_montague_pairs.ipynb",
            {"models": ["random"]},
        ),
        LabStep(
            "the other reruns the non-subsectivity test with Euclidean instead of cosine distance",
            "33_montague_nonsubsective.ipynb",
            {"models": ["sbert-mini", "glove-50d"], "distance": "l2"},
        ),
    ),
    expected=(
        "the random control has no tied distances and every same-class cell of its pair table is exactly "
        "$0.5$, where the book's bag-of-words control ties in a share of "
        "{glue:text}`../notebooks/32_montague_pairs.ipynb::bow_tie_rate:.3f` of its comparisons. Under "
        "Euclidean distance `sbert-mini`, whose vectors have length 1, keeps the book's non-subsectivity gap, "
        "{glue:text}`../notebooks/33_montague_nonsubsective.ipynb::ns_gap_ref:+.3f`; only `glove-50d` can "
        "change."
    ),
    goals=(
        (
            "state the three tests as inequalities between distances and decide them for small vectors",
            ("ex-montague-1", "ex-montague-3"),
        ),
        (
            "explain why high consistency is not evidence of composition, and what would be",
            ("ex-montague-2", "ex-montague-4"),
        ),
    ),
)
