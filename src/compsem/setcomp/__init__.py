"""Part I: set-like operators on sentence embeddings (TextOverlap, TextDifference, TextUnion).

The five faces of a study, plus two modules of its own:

* :mod:`.data` — base quintuples, the operator tables, both difference-filter rules, loaders;
* :mod:`.metrics` — the paper's maths: margins of C1/C3/C4, the ε-grid average, planes, NED check;
* :mod:`.study` — the only module that embeds: models, the filter, one run object per chapter;
* :mod:`.tables` — tidy tables with bootstrap intervals;
* :mod:`.report` — the paper beside ours, figures, the synthesis' headlines, try-it;
* :mod:`.chapters` — the views chapters 10–13 show (tables, glued values, saved results);
* :mod:`.pipeline` — documents -> fusions (``compsem.llm`` generators) -> quintuples, resumable.
"""

from __future__ import annotations

from . import chapters, data, metrics, pipeline, report, study, tables
from .data import (DIFFERENCE_SPECS, FILTER_RULES, OPERATORS, QUINTUPLE_COLUMNS, SAMPLES_PER_QUINTUPLE,
                   TARGET_COLUMN, FilterReport, build_operator_tables, filter_masks, load_operator_table,
                   load_quintuples, load_source, sample_quintuples, shuffled_targets, unique_texts)
from .metrics import (CELLS, EPS_MODES, criterion_deltas, epsilon_grids, geometry, grid_cells, grid_cells_naive,
                      raw_scores)
from .report import reference
from .study import difference_filter, embed_tables, planned_texts
from .tables import (c4_table, cells_table, deltas_table, geometry_samples, geometry_table, raw_scores_table,
                     union_table)

__all__ = [
    "chapters", "data", "metrics", "pipeline", "report", "study", "tables",
    "QUINTUPLE_COLUMNS", "OPERATORS", "TARGET_COLUMN", "DIFFERENCE_SPECS", "SAMPLES_PER_QUINTUPLE", "FILTER_RULES",
    "FilterReport", "build_operator_tables", "filter_masks", "load_operator_table", "load_quintuples", "load_source",
    "sample_quintuples", "shuffled_targets", "unique_texts",
    "CELLS", "EPS_MODES", "criterion_deltas", "epsilon_grids", "geometry", "grid_cells", "grid_cells_naive",
    "raw_scores", "reference", "difference_filter", "embed_tables", "planned_texts",
    "c4_table", "cells_table", "deltas_table", "geometry_samples", "geometry_table", "raw_scores_table",
    "union_table",
]
