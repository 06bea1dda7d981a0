"""Part IV's part of the synthesis (``90_synthesis``): ``report.FINDING``."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..faces import Finding, leader_paragraph

__all__ = ["FINDING", "sentences"]

_leader = leader_paragraph("RSA", "RSA with the reference")


def sentences(rows: pd.DataFrame, models: Sequence[str], controls: Sequence[str]) -> str:
    """The RSA leader as far as the intervals allow, and what agreement with the reference rewards."""
    return (_leader(rows, models, controls) + " The reference was written by the project, and shared words weigh in "
            "its judgements, so agreement with it rewards lexical overlap too; Part IV discusses how far that carries.")


FINDING = Finding(
    topic="Sentence space",
    question="an encoder builds a sentence space close to a reference",
    method="Part IV uses the relatedness space, the only one a symmetric cosine defines.",
    sentences=sentences,
)
