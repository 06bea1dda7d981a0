"""Benchmark of Part I (set-like operators), collected by ``make bench``.

1. The ε-grid averaging of the C1/C3 cell percentages at the paper's scale (N = 80,000
   samples, a 132 x 132 grid): the O(N log G) product form against the literal double loop.
   The loop is timed on a slice of ε1 rows and extrapolated linearly to the whole grid (each row
   costs the same); both methods are first checked to agree on the full grid at a smaller N.
2. Encoder calls for the embedded set with and without deduplication of repeated sentences.
"""

from __future__ import annotations

import time

import numpy as np


def _grid_bench(n: int, size: int, loop_rows: int, seed: int = 0) -> dict:
    from compsem.setcomp.metrics import CELLS, grid_cells, grid_cells_naive

    rng = np.random.default_rng(seed)
    d1, d2 = rng.normal(0.05, 0.12, n), rng.normal(0.1, 0.15, n)
    g1 = np.linspace(d1.min(), d1.max(), size)
    g2 = np.linspace(d2.min(), d2.max(), size)
    # correctness on the full grid at a smaller N
    m = min(n, 2000)
    fast_s, naive_s = grid_cells(d1[:m], d2[:m], g1, g2), grid_cells_naive(d1[:m], d2[:m], g1, g2)
    max_diff = max(abs(fast_s[c] - naive_s[c]) for c in CELLS)
    # timings at full N
    reps = 5
    t0 = time.perf_counter()
    for _ in range(reps):
        grid_cells(d1, d2, g1, g2)
    fast = (time.perf_counter() - t0) / reps
    rows = min(loop_rows, size)
    t0 = time.perf_counter()
    grid_cells_naive(d1, d2, g1[:rows], g2)
    naive_part = time.perf_counter() - t0
    naive = naive_part * size / rows
    return {
        "n_samples": n,
        "grid": f"{size}x{size}",
        "fast_s": fast,
        "naive_s_extrapolated": naive,
        "naive_rows_timed": rows,
        "naive_s_timed": naive_part,
        "speedup": naive / fast,
        "max_abs_diff_pct_points_full_grid_n2000": max_diff,
    }


def _dedup_counts(timed: bool) -> dict:
    from compsem.setcomp import data as sd

    q = sd.load_quintuples()
    tables = sd.build_operator_tables(q)
    # every sentence slot of the three tables (difference unfiltered: the upper bound)
    slots = [t for op, tab in tables.items() for col in ("a", "b", sd.TARGET_COLUMN[op]) for t in tab[col]]
    unique = sd.unique_texts(tables)
    out = {
        "quintuples": len(q),
        "sentence_slots": len(slots),
        "distinct_sentences": len(unique),
        "encodes_without_dedup": len(slots),
        "encodes_with_dedup": len(unique),
        "saving_factor": len(slots) / len(unique),
    }
    if timed:
        from compsem import embed, get_encoder

        enc = get_encoder("sbert-mini")
        enc.encode(["warm up"])
        t0 = time.perf_counter()
        embed(slots, "sbert-mini", cache=False, show_progress=False)
        out["sbert_mini_s_with_dedup"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        enc.encode(slots, show_progress=False)
        out["sbert_mini_s_without_dedup"] = time.perf_counter() - t0
    return out


def run(quick: bool = False) -> dict:
    """``quick``: fewer naive-loop rows and no encoder timing (counts only)."""
    return {
        "epsilon_grid": _grid_bench(80_000, 132, loop_rows=3 if quick else 12),
        "dedup": _dedup_counts(timed=not quick),
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(quick=True), indent=1))
