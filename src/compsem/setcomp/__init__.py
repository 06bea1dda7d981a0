"""Part I: set-like operators on sentence embeddings (TextOverlap, TextDifference, TextUnion).

The five faces of a study (the contract in CONTRIBUTING.md):

* :mod:`.data` — base quintuples, the operator tables, both difference-filter rules, loaders;
* :mod:`.metrics` — the paper's maths: margins of C1/C3/C4, the ε-grid average, planes, NED check;
* :mod:`.study` — ``resolve_models``, ``planned_texts``, ``run`` (the only module that embeds);
* :mod:`.tables` — tidy tables with bootstrap intervals;
* :mod:`.report` — the chapter views and their ``values``, ``paper_table``, headlines, try-it.

Its own modules: :mod:`.chapters` (the views of chapters 10–13, exported by the report),
:mod:`.beside` (ours beside the paper), :mod:`.plots` (figures) and :mod:`.pipeline`
(documents -> fusions (``compsem.llm`` generators) -> quintuples, resumable).
"""

from __future__ import annotations

from . import beside, chapters, data, finding, lesson, metrics, pipeline, plots, report, study, tables, tryit

__all__ = [
    "data",
    "metrics",
    "study",
    "tables",
    "report",
    "beside",
    "chapters",
    "plots",
    "pipeline",
    "lesson",
    "tryit",
    "finding",
]
