"""csts/differs.py: the "why ours differs from the paper" box of chapters 21-23, from the run."""

from __future__ import annotations

import pytest

from compsem.csts import report as R
from compsem.csts import study as S


def test_the_differs_box_is_computed_from_the_run():
    parts, rep = S.book_data("reannotated", eval_pairs=50)
    rows = parts["test"]
    t3 = R.paper_table("table3_finetune")
    v = R.differs_values("finetune", data="reannotated", source=rep.source, rows=rows, prior=40.8)
    text = v["dif_text"]
    assert "re-annotated C-STS training split" in text and "read on its test split" in text
    assert (
        f"reaches a Spearman of 40.8 on our rows, below the paper's best fine-tuned Spearman (Table 3), "
        f"{t3.spearman_mean.max():.1f}" in text
    )
    assert f"{len(rows):,} rows, {len(rows) // 2:,} complete pairs" in text
    t2 = R.paper_table("table2_zeroshot")
    v = R.differs_values("zero_shot", data="embedded", source="x", rows=rows, prior=10.0)
    assert "hand-written" in v["dif_text"] and f"{t2.csts_spearman.abs().max():.1f}" in v["dif_text"]
    assert "above the paper's largest absolute zero-shot Spearman" in v["dif_text"]
    v = R.differs_values("ablation", data="reannotated", source="x", rows=rows, prior=30.0, train_pairs=600)
    assert "last point, 600 pairs, is 1,200 rows on the paper's axis" in v["dif_text"]
    with pytest.raises(ValueError, match="view must be one of"):
        R.differs_values("nope", data="x", source="x", rows=rows, prior=1.0)
