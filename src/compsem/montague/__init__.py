"""Adjective–noun composition read through Montague semantics (Part III).

Nouns denote sets; adjectives map sets to sets. If an embedding stood in for a denotation,
set inclusion should show up as a short distance. Three metamorphic relations test that with
no gold labels (the modifier-consistency paper, Carvalho et al.). The package exports the five
faces every study has:

* :mod:`.data` — the adjective classes, the word lists, the generated AN/AAN phrases;
* :mod:`.metrics` — Eq. 3/5/7 on distance arrays (pure, vectorised);
* :mod:`.study` — ``resolve_models``, ``planned_texts`` and ``run`` (the only module that calls
  the embedding cache), returning a :class:`~.study.MontagueRun`;
* :mod:`.tables` — consistency tables with cluster-bootstrap intervals, χ² and permutation tests;
* :mod:`.report` — each chapter's view and ``values`` (its glued numbers), the paper beside
  ours, figures, synthesis headlines, try-it.

Two modules of its own sit behind them: :mod:`.reproduce` (the paper's Tables 1/6/7/8 cell by
cell and the per-rule decomposition) and :mod:`.views` (what each chapter computes).
"""

from __future__ import annotations

from . import data, finding, lesson, metrics, report, study, tables, tryit

__all__ = ["data", "metrics", "study", "tables", "report", "lesson", "tryit", "finding"]
