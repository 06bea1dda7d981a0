"""Base quintuples and the three operator tables built from them (Part I, set-like operators).

A *base quintuple* holds three consecutive sentences of a news text, ``s_prev``, ``s_curr``,
``s_next``, and two fusions ``s1 = fuse(s_prev, s_curr)`` and ``s2 = fuse(s_curr, s_next)``.
:func:`build_operator_tables` turns quintuples into

============  ===========  ==============================================================
operator      per quint.   samples (A, B) -> target
============  ===========  ==============================================================
overlap       1            ``{s1, s2} -> s_curr``
difference    6            ``(s1, s_prev) -> s_curr``, ``(s1, s_curr) -> s_prev``,
                           ``(s1, s2) -> s_prev``, ``(s2, s_curr) -> s_next``,
                           ``(s2, s_next) -> s_curr``, ``(s2, s1) -> s_next``
union         2            ``{s_prev, s_curr} -> s1``, ``{s_curr, s_next} -> s2``
============  ===========  ==============================================================

Difference samples need sources that share little. A quintuple contributes its six
difference samples only when ``cos(s_prev, s_curr) < threshold`` **and**
``cos(s_curr, s_next) < threshold`` under every filter encoder (all or nothing per
quintuple, as the paper's count 79,824 = 6 x 13,304 implies); see :func:`difference_filter`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import read_table, require_columns, require_text
from ..errors import DataError
from ..paths import data_dir

__all__ = [
    "QUINTUPLE_COLUMNS",
    "OPERATORS",
    "TARGET_COLUMN",
    "DIFFERENCE_SPECS",
    "OVERLAP_SPECS",
    "UNION_SPECS",
    "SAMPLES_PER_QUINTUPLE",
    "default_quintuples_path",
    "load_quintuples",
    "validate_quintuples",
    "difference_filter",
    "FilterReport",
    "build_operator_tables",
    "load_operator_table",
    "unique_texts",
    "shuffled_targets",
]

#: The five text columns of a quintuple.
QUINTUPLE_COLUMNS: tuple[str, ...] = ("s_prev", "s_curr", "s_next", "s1", "s2")
#: The three operators, in the paper's order.
OPERATORS: tuple[str, ...] = ("overlap", "difference", "union")
#: Name of the third sentence's column in each operator table.
TARGET_COLUMN: dict[str, str] = {"overlap": "o", "difference": "d", "union": "u"}

#: (variant, A column, B column, target column) for each operator.
OVERLAP_SPECS: tuple[tuple[str, str, str, str], ...] = (("s1&s2->curr", "s1", "s2", "s_curr"),)
DIFFERENCE_SPECS: tuple[tuple[str, str, str, str], ...] = (
    ("s1-prev->curr", "s1", "s_prev", "s_curr"),
    ("s1-curr->prev", "s1", "s_curr", "s_prev"),
    ("s1-s2->prev", "s1", "s2", "s_prev"),
    ("s2-curr->next", "s2", "s_curr", "s_next"),
    ("s2-next->curr", "s2", "s_next", "s_curr"),
    ("s2-s1->next", "s2", "s1", "s_next"),
)
UNION_SPECS: tuple[tuple[str, str, str, str], ...] = (
    ("prev|curr->s1", "s_prev", "s_curr", "s1"),
    ("curr|next->s2", "s_curr", "s_next", "s2"),
)
_SPECS = {"overlap": OVERLAP_SPECS, "difference": DIFFERENCE_SPECS, "union": UNION_SPECS}
#: Samples each quintuple contributes (difference only when it passes the filter).
SAMPLES_PER_QUINTUPLE: dict[str, int] = {k: len(v) for k, v in _SPECS.items()}


def default_quintuples_path() -> Path:
    """The project's embedded set, ``data/setcomp/quintuples.jsonl``."""
    return data_dir("setcomp", "quintuples.jsonl")


def validate_quintuples(df: pd.DataFrame, *, file: str | None = None) -> pd.DataFrame:
    """Check the five text columns (present, non-empty strings) and give every row an ``id``.

    Raises :class:`~compsem.errors.DataError` naming the file, the 1-based row and the column.
    Duplicate ids are an error too. Returns a copy with ``id`` as a string column.
    """
    require_columns(df, QUINTUPLE_COLUMNS, file=file)
    require_text(df, QUINTUPLE_COLUMNS, file=file)
    out = df.copy()
    if "id" not in out.columns:
        out.insert(0, "id", [f"q{i + 1:05d}" for i in range(len(out))])
    out["id"] = out["id"].astype(str)
    dup = out["id"].duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise DataError(f"duplicate id {out['id'].iloc[i]!r}", file=file, row=i + 1, column="id")
    if len(out) == 0:
        raise DataError("no quintuples in the table", file=file)
    return out.reset_index(drop=True)


def load_quintuples(path: str | Path | None = None, *, limit: int | None = None) -> pd.DataFrame:
    """Read base quintuples from CSV, TSV, JSONL or parquet (default: the embedded set).

    The file needs the columns ``s_prev, s_curr, s_next, s1, s2`` (an ``id`` column is
    optional; ``topic`` and other columns are kept). ``limit`` keeps the first rows.
    """
    path = Path(path) if path is not None else default_quintuples_path()
    df = read_table(path)
    df = validate_quintuples(df, file=str(path))
    return df.head(limit).reset_index(drop=True) if limit is not None else df


@dataclass
class FilterReport:
    """Outcome of the difference filter."""

    threshold: float
    encoders: list[str]
    n_quintuples: int
    n_pass: int
    cos_prev_curr: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    cos_curr_next: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    mask: np.ndarray = field(repr=False, default=None)
    n_undefined: int = 0

    @property
    def pass_rate(self) -> float:
        return self.n_pass / self.n_quintuples if self.n_quintuples else float("nan")


def difference_filter(quintuples: pd.DataFrame, *, encoders: str | Sequence[str] = "sbert-mini",
                      threshold: float = 0.25,
                      embed_fn: Callable[[list[str], str], np.ndarray] | None = None) -> FilterReport:
    """Which quintuples may contribute difference samples.

    A quintuple passes when ``cos(s_prev, s_curr) < threshold`` and ``cos(s_curr, s_next) <
    threshold`` under **every** encoder in ``encoders``. An undefined cosine (zero or NaN
    embedding, e.g. an all-OOV sentence under GloVe) fails the filter and is counted in
    ``n_undefined``. ``embed_fn(texts, spec)`` defaults to :func:`compsem.embed`.
    """
    from ..measures import cosine

    if embed_fn is None:
        from ..cache import embed as embed_fn  # noqa: PLC0415
    encs = [encoders] if isinstance(encoders, str) else list(encoders)
    if not encs:
        raise ValueError("difference_filter needs at least one encoder")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold}")
    q = validate_quintuples(quintuples)
    n = len(q)
    mask = np.ones(n, dtype=bool)
    undefined = np.zeros(n, dtype=bool)
    cpc, ccn = {}, {}
    for spec in encs:
        texts = list(dict.fromkeys(q["s_prev"].tolist() + q["s_curr"].tolist() + q["s_next"].tolist()))
        E = embed_fn(texts, spec)
        pos = {t: i for i, t in enumerate(texts)}
        ep, ec, en = (E[[pos[t] for t in q[c]]] for c in ("s_prev", "s_curr", "s_next"))
        a = cosine(ep, ec, warn=False)
        b = cosine(ec, en, warn=False)
        cpc[spec], ccn[spec] = a, b
        undefined |= np.isnan(a) | np.isnan(b)
        with np.errstate(invalid="ignore"):
            mask &= (a < threshold) & (b < threshold)
    return FilterReport(threshold=float(threshold), encoders=encs, n_quintuples=n, n_pass=int(mask.sum()),
                        cos_prev_curr=cpc, cos_curr_next=ccn, mask=mask, n_undefined=int(undefined.sum()))


def build_operator_tables(quintuples: pd.DataFrame, *, difference_mask: np.ndarray | None = None
                          ) -> dict[str, pd.DataFrame]:
    """The overlap, difference and union tables of ``quintuples``.

    Parameters
    ----------
    quintuples : DataFrame with ``s_prev, s_curr, s_next, s1, s2`` (and optionally ``id``)
    difference_mask : bool array of shape (n_quintuples,), optional
        Which quintuples contribute difference samples (usually ``difference_filter(...).mask``).
        ``None`` keeps all of them (the *unfiltered* difference table).

    Returns
    -------
    dict operator -> DataFrame with columns ``qid, variant, a, b`` and the target column
    (``o``, ``d`` or ``u``); rows ordered by quintuple, then by variant as in the module table.
    """
    q = validate_quintuples(quintuples)
    if difference_mask is None:
        difference_mask = np.ones(len(q), dtype=bool)
    difference_mask = np.asarray(difference_mask, dtype=bool)
    if difference_mask.shape != (len(q),):
        raise ValueError(f"difference_mask has shape {difference_mask.shape}, expected ({len(q)},)")
    out = {}
    for op, specs in _SPECS.items():
        sub = q[difference_mask] if op == "difference" else q
        frames = []
        for k, (variant, ca, cb, ct) in enumerate(specs):
            frames.append(pd.DataFrame({"qid": sub["id"].to_numpy(), "variant": variant, "_k": k,
                                        "_q": np.arange(len(sub)), "a": sub[ca].to_numpy(),
                                        "b": sub[cb].to_numpy(), TARGET_COLUMN[op]: sub[ct].to_numpy()}))
        table = pd.concat(frames, ignore_index=True).sort_values(["_q", "_k"], kind="stable")
        out[op] = table.drop(columns=["_q", "_k"]).reset_index(drop=True)
    return out


def load_operator_table(path: str | Path, operator: str, *, columns: dict[str, str] | None = None) -> pd.DataFrame:
    """Read an already-built operator table (CSV/TSV/JSONL/parquet).

    The file needs the columns ``a``, ``b`` and the target (``o`` for overlap, ``d`` for
    difference, ``u`` for union); ``columns`` maps other names onto these, e.g.
    ``{"sentence1": "a", "sentence2": "b", "overlap": "o"}``. Missing columns and empty
    sentences raise :class:`~compsem.errors.DataError` with file, row and column.
    """
    if operator not in TARGET_COLUMN:
        raise ValueError(f"unknown operator {operator!r}; choose from {', '.join(OPERATORS)}")
    path = Path(path)
    df = read_table(path)
    if columns:
        df = df.rename(columns=columns)
    need = ["a", "b", TARGET_COLUMN[operator]]
    require_columns(df, need, file=str(path))
    require_text(df, need, file=str(path))
    df = df.copy()
    if "qid" not in df.columns:
        df.insert(0, "qid", [f"r{i + 1:06d}" for i in range(len(df))])
    if "variant" not in df.columns:
        df.insert(1, "variant", "loaded")
    return df.reset_index(drop=True)


def unique_texts(tables: dict[str, pd.DataFrame] | Sequence[pd.DataFrame]) -> list[str]:
    """Every distinct sentence of the given operator tables, in first-seen order."""
    frames = tables.values() if isinstance(tables, dict) else tables
    seen: dict[str, None] = {}
    for t in frames:
        for c in ("a", "b", "o", "d", "u"):
            if c in t.columns:
                seen.update(dict.fromkeys(t[c].tolist()))
    return list(seen)


def shuffled_targets(table: pd.DataFrame, operator: str, *, seed: int = 0) -> pd.DataFrame:
    """A baseline: the same (A, B) pairs with targets taken from *other* quintuples.

    Targets are permuted so that no sample keeps a target from its own quintuple (``qid``),
    which breaks the set relation while keeping the sentence distribution. Needs at least two
    quintuples.
    """
    col = TARGET_COLUMN[operator]
    qids = table["qid"].to_numpy()
    if len(np.unique(qids)) < 2:
        raise ValueError("a shuffled baseline needs samples from at least two quintuples")
    rng = np.random.default_rng(seed)
    n = len(table)
    perm = rng.permutation(n)
    # repair positions that drew a target of their own quintuple by swapping with a random partner
    for _ in range(100):
        bad = np.flatnonzero(qids[perm] == qids)
        if bad.size == 0:
            break
        for i in bad:
            j = int(rng.integers(n))
            if qids[perm[j]] != qids[i] and qids[perm[i]] != qids[j]:
                perm[i], perm[j] = perm[j], perm[i]
    if np.any(qids[perm] == qids):
        raise RuntimeError("could not build a shuffle without own-quintuple targets")
    out = table.copy()
    out[col] = table[col].to_numpy()[perm]
    out["variant"] = out["variant"].astype(str) + " (shuffled)"
    return out.reset_index(drop=True)
