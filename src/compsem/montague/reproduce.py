"""Reproducing the paper's numbers: each paper table from one run, cell by cell beside the
paper, and the gap between the two readings taken apart one rule at a time.

The paper's Tables 1, 6, 7 and 8 hold four decimals (Tables 2–4 are their roundings). The
authors' code (``dscarvalho/modifiers_consistency``) differs from the printed equations in four
rules (:class:`~compsem.montague.metrics.Rules` and the ``strings`` switch);
:func:`decomposition` switches them one at a time from the official reading, so each rule's share
of the gap between "equations" and the paper is measured rather than guessed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ..paths import results_dir
from ..reference import paper_row
from ..reference import paper_table as _reference_table
from .data import Vocabulary, build_phrases, load_vocabulary
from .metrics import TIE_TOL, Rules, rules_for
from .study import MontagueResult, embed_phrases, reference_model, run_readings, run_tests
from .tables import aan_table, an_table, pair_table

__all__ = [
    "PAPER_TABLES",
    "paper_table",
    "paper_model_of",
    "compare_with_paper",
    "reference_model",
    "beside_paper",
    "paper_table_of",
    "collect",
    "reproduced",
    "reproduced_view",
    "reproduced_beside",
    "reproduction_summary",
    "truncation_check",
    "printed_cells",
    "printing_sentence",
    "PRINTED_DECIMALS",
    "DECOMPOSITION",
    "decomposition",
    "decomposition_view",
    "spelling_effect",
]

#: Paper table -> (the test it reports, the phrase set it needs).
PAPER_TABLES: dict[int, tuple[str, str]] = {
    1: ("single_an", "AN"),
    6: ("single_aan", "AAN"),
    7: ("pairs", "AN"),
    8: ("nonsub", "AN"),
}

#: Decimals the paper prints in each of those tables (Table 1 has two, the appendix tables four).
PRINTED_DECIMALS: dict[int, int] = {1: 2, 6: 4, 7: 4, 8: 4}

#: The steps of :func:`decomposition`: (label, rules, strings). Each row after the first
#: switches one rule of the official reading to the equations' choice; the last switches all.
DECOMPOSITION: tuple[tuple[str, Rules, str], ...] = (
    ("official (authors' code)", rules_for("official"), "official"),
    ("test I: word–word distances, as Eq. 3", rules_for("official", aan_reference="words"), "official"),
    ("test II: all noun pairs, one mean, as Eq. 6", rules_for("official", pair_nouns="all"), "official"),
    ("tests II and NI: ≤ instead of <, as Eq. 5 and 7", rules_for("official", strict=False), "official"),
    ("strings as English writes them", rules_for("official"), "clean"),
    ("equations (all four switched)", rules_for("equations"), "clean"),
)


def paper_table(name: str | int) -> pd.DataFrame:
    """The paper's numbers transcribed in ``data/reference/montague_<name>.csv`` (``"table1"``,
    or the table's number: 1, 6, 7, 8), through :func:`compsem.reference.paper_table`."""
    return _reference_table("montague", f"table{name}" if isinstance(name, int) else name)


def paper_model_of(spec: str) -> str | None:
    """The row name of the paper's tables that ``spec`` stands beside (``"MiniLM"`` for
    ``sbert-mini``), from ``data/reference/paper_models/montague.csv``; ``None`` if the paper has none."""
    return paper_row("montague", spec)


def compare_with_paper(ours: pd.DataFrame, table: int, model: str, paper_model: str | None = None) -> pd.DataFrame:
    """Our cells beside the paper's for one model; ``diff = ours - paper``.

    ``ours`` is a :func:`category_table` or :func:`type_pair_table` frame. Only cells the paper
    reports are kept.
    """
    paper_model = paper_model or paper_model_of(model) or model
    ref = paper_table(table)
    ref = ref[ref["model"] == paper_model]
    if ref.empty:
        raise KeyError(f"the paper's Table {table} has no model {paper_model!r}")
    keys = ["category"] if "category" in ref.columns else ["type1", "type2"]
    m = (
        ref[keys + ["value"]]
        .rename(columns={"value": "paper"})
        .merge(
            ours[keys + ["consistency", "ci_low", "ci_high"]].rename(columns={"consistency": "ours"}),
            on=keys,
            how="left",
        )
    )
    m.insert(0, "model", model)
    if "reading" in ours.columns and len(ours):
        m.insert(1, "reading", ours["reading"].iloc[0])
    m["paper_model"] = paper_model
    m["diff"] = m["ours"] - m["paper"]
    m["paper_in_ci"] = (m["paper"] >= m["ci_low"] - TIE_TOL) & (m["paper"] <= m["ci_high"] + TIE_TOL)
    return m


def beside_paper(results: dict[str, MontagueResult], table: int, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """:func:`reproduced` for every model of ``results`` ({model: result}) that has a row in the
    paper's Table ``table`` (``models="paper"`` gives one per paper model that can be loaded)."""
    frames = [reproduced(r, table, n_boot=n_boot, seed=seed) for m, r in results.items() if paper_model_of(m)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def paper_table_of(result: MontagueResult, table: int, **kw) -> pd.DataFrame:
    """The tidy table of ``result`` that stands beside the paper's Table ``table`` (1, 6, 7, 8)."""
    if table not in PAPER_TABLES:
        raise ValueError(f"the paper's tables with four decimals are {sorted(PAPER_TABLES)}, got {table}")
    test = PAPER_TABLES[table][0]
    if test == "single_aan":
        return aan_table(result, **kw)
    if test == "pairs":
        return pair_table(result, **kw)
    return an_table(result, test, **kw)


def collect(runs: dict[str, dict[str, MontagueResult]], table: int, **kw) -> pd.DataFrame:
    """The tidy table of paper Table ``table`` for every reading and model of ``runs``
    (:func:`~compsem.montague.study.run_readings`), stacked (columns ``model``, ``reading``, …)."""
    return pd.concat(
        [paper_table_of(r, table, **kw) for by_model in runs.values() for r in by_model.values()], ignore_index=True
    )


def reproduced(result: MontagueResult, table: int, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paper cell, ours and ``difference = ours - paper`` for every cell the paper's Table
    ``table`` reports for ``result``'s model (:func:`~compsem.montague.report.compare_with_paper`),
    with the reading and strings the numbers were computed under."""
    ours = paper_table_of(result, table, n_boot=n_boot, seed=seed)
    c = compare_with_paper(ours, table, result.model)  # carries the reading
    c.insert(2, "test", PAPER_TABLES[table][0])
    c.insert(3, "strings", result.strings)
    c.insert(4, "table", table)
    return c.rename(columns={"diff": "difference"})


def reproduction_summary(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, reading, strings, table) of :func:`reproduced` frames: cells compared,
    mean and maximum absolute difference, and the number of cells within 5e-4 of the paper."""
    g = cells.assign(abs_diff=cells["difference"].abs()).groupby(["model", "reading", "strings", "table"], sort=False)[
        "abs_diff"
    ]
    return pd.DataFrame(
        {
            "cells": g.size(),
            "mean_abs_diff": g.mean(),
            "max_abs_diff": g.max(),
            "within_5e-4": g.apply(lambda s: int((s <= 5e-4).sum())),
        }
    ).reset_index()


def _shown(x, decimals: int = 4):
    """Rounded for display, with no negative zero ("-0.0000" reads as a sign that is not there)."""
    return np.round(x, decimals) + 0.0


def _truncate(x: np.ndarray, decimals: int) -> np.ndarray:
    """``x`` cut (not rounded) to ``decimals`` places; the 1e-6 guard keeps binary noise
    (0.7 * 1e4 = 6999.999…) from cutting one place too low."""
    scale = 10.0**decimals
    return np.floor(np.round(np.asarray(x, dtype=float) * scale, 6)) / scale


def truncation_check(cells: pd.DataFrame) -> pd.DataFrame:
    """How the paper turned its numbers into printed decimals, per table of a :func:`reproduced`
    frame: cells compared, cells where our value *rounded* to the printed decimals
    (:data:`PRINTED_DECIMALS`) matches the paper, cells where our value *cut* to them matches,
    and the cells where only one of the two matches."""
    rows = []
    for t, c in cells.groupby("table", sort=False):
        d = PRINTED_DECIMALS[int(t)]
        ours, paper = c["ours"].to_numpy(float), c["paper"].to_numpy(float)
        rounded = np.abs(np.round(ours, d) - paper) < 0.5 * 10.0 ** -(d + 2)
        cut = np.abs(_truncate(ours, d) - paper) < 0.5 * 10.0 ** -(d + 2)
        rows.append(
            {
                "table": int(t),
                "decimals": d,
                "cells": len(c),
                "match_rounded": int(rounded.sum()),
                "match_truncated": int(cut.sum()),
                "only_rounded": int((rounded & ~cut).sum()),
                "only_truncated": int((cut & ~rounded).sum()),
            }
        )
    return pd.DataFrame(rows)


def _tables(ts: list[int]) -> str:
    names = [str(t) for t in ts]
    return ("Table " if len(names) == 1 else "Tables ") + (
        names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    )


def printing_sentence(cells: pd.DataFrame) -> str:
    """What the cell-by-cell check found about the paper's printed decimals, table by table, in
    words: how many cells lie within one unit of the last printed decimal, and whether our value
    cut (not rounded) or rounded to that decimal explains every cell. A table where every cell
    matches both ways, or where neither rule matches every cell, cannot tell the two apart.
    ``cells`` is a :func:`reproduced` frame (columns ``table``, ``ours``, ``paper``) of one model
    and reading."""
    if cells is None or not len(cells):
        return "No model of the paper is in this run, so no cell is compared with the paper's tables."
    check = truncation_check(cells).sort_values("table")
    within = {}
    for t, c in cells.groupby("table"):
        d = PRINTED_DECIMALS[int(t)]
        within[int(t)] = int((np.abs(c["ours"].to_numpy(float) - c["paper"].to_numpy(float)) < 10.0**-d - 1e-12).sum())
    full = [int(r.table) for r in check.itertuples() if within[int(r.table)] == r.cells]
    part = [
        f"{within[int(r.table)]} of {r.cells} in Table {r.table}"
        for r in check.itertuples()
        if int(r.table) not in full
    ]
    head = []
    if full:
        head.append(f"every cell of {_tables(full)} lies within one unit of the paper's last printed decimal")
    if part:
        head.append("the cells within one unit of it are " + ", ".join(part))
    words = []
    for r in check.itertuples():
        cut, rnd = r.match_truncated == r.cells, r.match_rounded == r.cells
        if cut and rnd:
            words.append(f"Table {r.table}: every cell matches both ways, so its last digit cannot tell")
        elif cut:
            words.append(
                f"Table {r.table}: cut ({r.only_truncated} of {r.cells} cells match only when cut, none only when rounded)"
            )
        elif rnd:
            words.append(
                f"Table {r.table}: rounded ({r.only_rounded} of {r.cells} cells match only when rounded, none only "
                "when cut)"
            )
        else:
            words.append(
                f"Table {r.table}: neither rule matches every cell ({r.only_rounded} of {r.cells} match only when "
                f"rounded, {r.only_truncated} only when cut), so its last digit cannot tell"
            )
    who = f"For {cells['model'].iloc[0]} under the official reading, " if "model" in cells.columns else ""
    first = "; ".join(head)
    return (
        (who + first if who else first[0].upper() + first[1:])
        + ". Whether the paper cut its numbers after that decimal or rounded them, by table: "
        + "; ".join(words)
        + "."
    )


def printed_cells(results=None) -> pd.DataFrame:
    """The cells of the paper's Tables 1, 6, 7 and 8 that the chapters compared (their result
    files ``single_reproduced``, ``pairs_reproduced``, ``nonsub_reproduced`` under ``results``,
    default the book's ``results/``), under the official reading and strings, for the model
    compared with the paper (:func:`reference_model`); an empty frame where none was written."""
    folder = (Path(results) if results is not None else results_dir()) / "montague"
    frames = [
        pd.read_csv(folder / f"{name}.csv")
        for name in ("single_reproduced", "pairs_reproduced", "nonsub_reproduced")
        if (folder / f"{name}.csv").is_file()
    ]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["model", "table", "ours", "paper"])
    cells = pd.concat(frames, ignore_index=True)
    cells = cells[(cells["reading"] == "official") & (cells["strings"] == "official")]
    model = reference_model(list(dict.fromkeys(cells["model"])))
    return cells[cells["model"] == model].reset_index(drop=True)


def reproduced_view(cells: pd.DataFrame) -> pd.DataFrame:
    """A :func:`reproduced` frame for display: one row per cell with paper, ours and difference
    (four decimals, no negative zero)."""
    keys = ["category"] if "category" in cells.columns else ["type1", "type2"]
    return _shown(cells.set_index(keys)[["paper", "ours", "difference"]])


def reproduced_beside(official: pd.DataFrame, equations: pd.DataFrame) -> pd.DataFrame:
    """The official reading's :func:`reproduced_view` with the equations' ``ours`` and
    ``difference`` beside it (columns suffixed " (equations)")."""
    eq = reproduced_view(equations)[["ours", "difference"]]
    return reproduced_view(official).join(eq.rename(columns=lambda c: f"{c} (equations)"))


def decomposition_view(dec: pd.DataFrame, value: str = "moved") -> pd.DataFrame:
    """A :func:`decomposition` frame as one row per step and one column per table (``value``:
    ``"moved"``, ``"mean_abs_diff"`` or ``"max_abs_diff"``)."""
    steps = list(dict.fromkeys(dec["step"]))
    out = dec.pivot(index="step", columns="table", values=value).reindex(steps)
    out.columns = [f"Table {t}" for t in out.columns]
    return _shown(out)


def decomposition(
    model: str = "sbert-mini", *, tables: Iterable[int] = (1, 6, 7, 8), embed_fn=None, trust_remote_code: bool = False
) -> pd.DataFrame:
    """Switch the rules of the official reading one at a time (:data:`DECOMPOSITION`) for one
    model and measure each table's distance to the paper.

    Returns one row per step and table: ``mean_abs_diff`` and ``max_abs_diff`` to the paper,
    and ``moved`` — the mean absolute change of the table's cells from the official reading,
    the part of the gap that this rule alone explains. Intervals are not computed here.
    """
    tables = list(tables)
    sets = ("AN", "AAN") if any(PAPER_TABLES[t][1] == "AAN" for t in tables) else ("AN",)
    runs: dict[tuple[str, str], MontagueResult] = {}
    for strings in dict.fromkeys(s for _, _, s in DECOMPOSITION):
        steps = [r for _, r, s in DECOMPOSITION if s == strings]
        out = run_readings(
            [model],
            readings=steps,
            strings=strings,
            sets=sets,
            embed_fn=embed_fn,
            trust_remote_code=trust_remote_code,
            progress=False,
        )
        for label, res in out.items():
            runs[(label, strings)] = res[model]
    base = {t: reproduced(runs[("official", "official")], t, n_boot=0) for t in tables}
    rows = []
    for step, rules, strings in DECOMPOSITION:
        res = next(r for (_, s), r in runs.items() if s == strings and r.rules == rules)
        for t in tables:
            c = reproduced(res, t, n_boot=0)
            moved = np.abs(c["ours"].to_numpy() - base[t]["ours"].to_numpy())
            rows.append(
                {
                    "model": model,
                    "reading": res.reading,
                    "test": PAPER_TABLES[t][0],
                    "step": step,
                    "table": t,
                    "strings": strings,
                    "mean_abs_diff": float(c["difference"].abs().mean()),
                    "max_abs_diff": float(c["difference"].abs().max()),
                    "moved": float(np.nanmean(moved)),
                }
            )
    return pd.DataFrame(rows)


def spelling_effect(
    model: str = "sbert-mini", *, table: int = 8, embed_fn=None, trust_remote_code: bool = False
) -> pd.DataFrame:
    """Which part of the ``strings`` switch moves an AN table (1, 7 or 8): the official strings,
    the clean ones, and the clean ones with the noun spelled as in the authors' data
    (*occurence*), all under the official rules. One row per variant: mean and largest absolute
    difference to the paper's Table ``table``."""
    if PAPER_TABLES.get(table, ("", ""))[1] != "AN":
        raise ValueError(f"spelling_effect reads an AN table (1, 7 or 8), got {table}")
    vocab = load_vocabulary()
    authors = Vocabulary(
        vocab.adjectives, vocab.categories, ["occurence" if n == "occurrence" else n for n in vocab.nouns]
    )
    variants = [
        ("official strings", vocab, "official"),
        ("clean strings", vocab, "clean"),
        ("clean strings, noun spelled 'occurence'", authors, "clean"),
    ]
    rows = []
    for label, v, strings in variants:
        ps = build_phrases(v, strings=strings)
        emb = embed_phrases(ps, model, sets=("AN",), embed_fn=embed_fn, trust_remote_code=trust_remote_code)
        c = reproduced(run_tests(emb, v, ps), table, n_boot=0)
        rows.append(
            {
                "strings": label,
                "table": table,
                "mean_abs_diff": float(c["difference"].abs().mean()),
                "max_abs_diff": float(c["difference"].abs().max()),
            }
        )
    return pd.DataFrame(rows)
