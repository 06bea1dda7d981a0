"""Part IV's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import Finding, leader_paragraph

__all__ = ["FINDING", "sentences"]

_leader = leader_paragraph("RSA", "RSA with the reference", items="clusters")


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """The RSA leader where the synthesis ranks RSA (as far as the paired intervals allow), each
    model against its controls on the same clusters, and what agreement with the reference may
    reward (a hypothesis: not measured)."""
    return (
        _leader(rows, models, controls) + " The reference was written by the project, and shared words may weigh "
        "in its judgements, so agreement with it may reward lexical overlap too; we have not measured how much "
        "(Part IV discusses it)."
    )


FINDING = Finding(
    topic="Sentence space",
    question="an encoder builds a sentence space close to a reference",
    method="Part IV uses the relatedness space, the only one a symmetric cosine defines.",
    sentences=sentences,
)
