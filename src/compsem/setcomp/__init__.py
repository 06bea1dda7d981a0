"""Part I: set-like operators on sentence embeddings (TextOverlap, TextDifference, TextUnion).

* :mod:`.dataset` — base quintuples, the difference filter, the three operator tables, loaders;
* :mod:`.metrics` — criteria C1–C6, the ε-grid averaging, geometry and norm ratios;
* :mod:`.pipeline` — documents -> fusions (LLM backends) -> quintuples, resumable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..reference import paper_table
from . import dataset, metrics, pipeline, report
from .report import PAPER_NAMES
from .dataset import (DIFFERENCE_SPECS, OPERATORS, QUINTUPLE_COLUMNS, SAMPLES_PER_QUINTUPLE, TARGET_COLUMN,
                      build_operator_tables, difference_filter, load_operator_table, load_quintuples,
                      shuffled_targets, unique_texts)
from .metrics import (CELLS, EPS_MODES, c4_table, cells_table, criterion_deltas, deltas_table, embed_tables,
                      epsilon_grids, geometry, geometry_samples, geometry_table, grid_cells, grid_cells_naive, raw_scores_table,
                      union_table)

__all__ = [
    "dataset", "metrics", "pipeline", "report", "QUINTUPLE_COLUMNS", "OPERATORS", "TARGET_COLUMN", "DIFFERENCE_SPECS",
    "SAMPLES_PER_QUINTUPLE", "build_operator_tables", "difference_filter", "load_operator_table", "load_quintuples",
    "shuffled_targets", "unique_texts", "CELLS", "EPS_MODES", "c4_table", "cells_table", "criterion_deltas",
    "deltas_table", "embed_tables", "epsilon_grids", "geometry", "geometry_samples", "geometry_table", "grid_cells", "grid_cells_naive",
    "raw_scores_table", "union_table", "PAPER_NAMES", "reference", "sample_quintuples", "load_source",
]

def reference(name: str) -> pd.DataFrame:
    """A table of the paper's numbers, ``data/reference/setcomp_<name>.csv`` (``source`` names the table)."""
    return paper_table("setcomp", name)


def sample_quintuples(q: pd.DataFrame, cap: int | None, *, seed: int = 0) -> pd.DataFrame:
    """At most ``cap`` quintuples drawn without replacement (seeded), in their original order."""
    if cap is None or cap >= len(q):
        return q.reset_index(drop=True)
    if cap < 2:
        raise ValueError(f"sample cap must be at least 2, got {cap}")
    idx = np.sort(np.random.default_rng(seed).choice(len(q), size=int(cap), replace=False))
    return q.iloc[idx].reset_index(drop=True)


def load_source(source: str = "embedded", *, cap: int | None = None, seed: int = 0) -> pd.DataFrame:
    """The quintuples a chapter runs on: ``"embedded"`` (the shipped set) or a path to a
    quintuple file (CSV/JSONL/parquet), capped at ``cap`` quintuples."""
    q = load_quintuples(None if source == "embedded" else source)
    return sample_quintuples(q, cap, seed=seed)
