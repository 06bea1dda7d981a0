"""The compositionality profile: one headline number per study and criterion, per model.

:func:`profile` asks each study's own report (``compsem.<study>.report.headlines``) for its
headline criteria on the shipped data, so a reader's hub model gets a full profile from the
``models`` parameter alone. Every number comes with a 95 % bootstrap interval (resampling the
unit named in :data:`CRITERIA`).

The headlines are chosen so that no number depends on which other models are in the run
(Part I uses ε = 0 rather than the pooled ε range) and so that each has a stated chance or
theory-predicted reference value.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..csts import report as csts_report
from ..montague import report as montague_report
from ..results import Headline
from ..setcomp import report as setcomp_report
from ..ssm import report as ssm_report

__all__ = ["CRITERIA", "STUDY_REPORTS", "profile", "profile_matrix"]

#: Each study's report, in the book's order.
STUDY_REPORTS = {"setcomp": setcomp_report, "csts": csts_report, "montague": montague_report, "ssm": ssm_report}

#: Every headline criterion, in the book's order.
CRITERIA: tuple[Headline, ...] = tuple(h for r in STUDY_REPORTS.values() for h in r.HEADLINES)


def profile(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Tidy profile: one row per model and criterion (see :data:`CRITERIA`)."""
    rows = [row for r in STUDY_REPORTS.values() for row in r.headlines(models, n_boot=n_boot, seed=seed)]
    out = pd.DataFrame(rows)
    order = {c.key: i for i, c in enumerate(CRITERIA)}
    return out.sort_values(["model", "criterion"], key=lambda s: s.map(order) if s.name == "criterion" else s,
                           kind="stable").reset_index(drop=True)


def profile_matrix(prof: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    """Models × criteria (in :data:`CRITERIA` order)."""
    m = prof.pivot(index="model", columns="criterion", values=value)
    return m[[c.key for c in CRITERIA if c.key in m.columns]]
