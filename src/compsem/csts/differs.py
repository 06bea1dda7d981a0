"""Why Part II's numbers differ from the paper's: the box of chapters 21-23, computed from the
run (the label source, the condition prior as the reference point, rows against pairs).

:func:`differs_values` returns the box's one glue value (``dif_text``, Markdown prose); a chapter
shows it in a ``{admonition}`` and :mod:`.report` re-exports it.
"""

from __future__ import annotations

import pandas as pd

from compsem import reference as _reference
from compsem.results import Prose

__all__ = ["CHAPTERS", "differs_values"]

#: Per chapter view: the paper's number it stands beside (table, column, how it is read), its split
CHAPTERS = {
    "zero_shot": {
        "table": "table2_zeroshot",
        "col": "csts_spearman",
        "how": "absmax",
        "split": "validation",
        "what": "largest absolute zero-shot Spearman (Table 2)",
    },
    "finetune": {
        "table": "table3_finetune",
        "col": "spearman_mean",
        "how": "max",
        "split": "test",
        "what": "best fine-tuned Spearman (Table 3)",
    },
    "ablation": {
        "table": "table10_ablation",
        "col": "spearman",
        "how": "condition_only",
        "split": "validation",
        "what": "condition-only cross-encoder (Table 10)",
    },
}

_LABELS = {
    "reannotated": "ours are the re-annotated C-STS training split (labels re-annotated with LLMs in the loop; "
    "Zhang, Zhou & Bollegala 2025), which this book splits into train, validation and test",
    "embedded": "ours are the book's hand-written sentence pairs, labelled by the project",
}


def _paper_value(view: str) -> float:
    c = CHAPTERS[view]
    t = _reference.paper_table("csts", c["table"])
    if c["how"] == "absmax":
        return float(t[c["col"]].abs().max())
    if c["how"] == "max":
        return float(t[c["col"]].max())
    return float(t.set_index("input_mode").loc[c["how"], c["col"]])


def differs_values(
    view: str, *, data, source: str, rows: pd.DataFrame, prior: float, train_pairs: int | None = None
) -> dict:
    """The "why ours differs from the paper" box of one chapter view (a key of :data:`CHAPTERS`):
    ``data`` the chapter's ``data`` parameter and ``source`` the loader's source (the label
    source), ``rows`` the evaluation rows (rows against pairs), ``prior`` the condition prior's
    Spearman on them (the reference point), ``train_pairs`` (the scaling curve) the largest
    number of training pairs, which the paper's Figure 3 would count as twice as many rows."""
    if view not in CHAPTERS:
        raise ValueError(f"view must be one of {sorted(CHAPTERS)}, got {view!r}")
    c = CHAPTERS[view]
    labels = _LABELS.get(str(data), f"ours come from {source}")
    paper = _paper_value(view)
    n_rows = len(rows)
    n_pairs = int((rows["role"] == "high").sum()) if "role" in rows else int(rows["pair_id"].nunique())
    side = "above" if prior > paper else "below" if prior < paper else "level with"
    parts = [
        f"**Labels.** {labels[0].upper() + labels[1:]}; the paper's are the original crowd-sourced labels of "
        f"C-STS-2023, read on its {c['split']} split.",
        f"**Reference point.** The condition prior, which reads no sentence, reaches a Spearman of {prior:.1f} "
        f"on our rows, {side} the paper's {c['what']}, {paper:.1f}. The paper reports no such baseline; on our "
        "data the wording of a condition alone predicts much of its label, so a number here is read against "
        "the prior, not against the paper's.",
        f"**Rows and pairs.** The paper counts rows (examples); each sentence pair gives two rows, one per "
        f"condition, so 1,000 of its examples are 500 pairs. Our evaluation rows: {n_rows:,} rows, "
        f"{n_pairs:,} complete pairs.",
    ]
    if train_pairs is not None:
        parts.append(
            f"Figure 3's x-axis counts training examples (rows); our curve counts training pairs, so its "
            f"last point, {train_pairs:,} pairs, is {2 * train_pairs:,} rows on the paper's axis."
        )
    return {"dif_text": Prose(" ".join(parts))}
