"""Part IV: sentence-space metrics (SSM).

The five faces of a study (the contract in CONTRIBUTING.md): :mod:`.data` (the pool, the
reference, pair categories), :mod:`.metrics` (distances, sparsity, CH, RSA, accuracy),
:mod:`.study` (``resolve_models``, ``planned_texts``, ``run``: scoring every ordered pair,
cached), :mod:`.tables` (cluster bootstrap, Table 2/3 analogues), :mod:`.report` (paper beside
ours, ``values``, figures, headline, try-it). Part IV's own: :mod:`.scorers` (the spec grammar
of the models), :mod:`.lexical`, :mod:`.nli`, :mod:`.choice` (the scorers), :mod:`.space` (MDS
maps) and :mod:`.plots` (figures).
"""

from __future__ import annotations

from . import choice, data, finding, lesson, lexical, metrics, nli, plots, report, scorers, space, study, tables, tryit

__all__ = [
    "data",
    "metrics",
    "study",
    "tables",
    "report",
    "scorers",
    "lexical",
    "nli",
    "choice",
    "space",
    "plots",
    "lesson",
    "tryit",
    "finding",
]
