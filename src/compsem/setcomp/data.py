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

Difference samples need sources that share little. The paper keeps them where its cosine
threshold (0.25) is met, but does not say whether per quintuple or per sentence pair; its
count 79,824 = 6 x 13,304 = 3 x 26,608 fits both. :func:`filter_masks` computes both rules
from the cosines (the embedding itself happens in :func:`compsem.setcomp.study.difference_filter`):

* ``"quintuple"`` (our default): all six samples when ``cos(s_prev, s_curr) < t`` **and**
  ``cos(s_curr, s_next) < t``, else none;
* ``"pair"``: the three samples with ``A = s1`` when ``cos(s_prev, s_curr) < t``, the three with
  ``A = s2`` when ``cos(s_curr, s_next) < t``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    "FILTER_RULES",
    "default_quintuples_path",
    "load_quintuples",
    "validate_quintuples",
    "sample_quintuples",
    "load_source",
    "filter_masks",
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
#: The two readings of the difference filter (see the module docstring).
FILTER_RULES: tuple[str, ...] = ("quintuple", "pair")
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


@dataclass
class FilterReport:
    """Outcome of the difference filter under both rules.

    ``mask`` (n,) says which quintuples pass as a whole (rule ``"quintuple"``); ``pair_mask``
    (n, 2) which sentence pairs pass (column 0: (s_prev, s_curr), column 1: (s_curr, s_next)).
    ``rule`` names the one the tables are built with (:attr:`difference_mask`).
    """

    threshold: float
    encoders: list[str]
    n_quintuples: int
    n_pass: int
    cos_prev_curr: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    cos_curr_next: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    mask: np.ndarray = field(repr=False, default=None)
    n_undefined: int = 0
    pair_mask: np.ndarray = field(repr=False, default=None)
    rule: str = "quintuple"

    @property
    def pass_rate(self) -> float:
        """Share of quintuples passing as a whole."""
        return self.n_pass / self.n_quintuples if self.n_quintuples else float("nan")

    @property
    def n_pairs_pass(self) -> int:
        """Sentence pairs passing (out of ``2 * n_quintuples``)."""
        return int(self.pair_mask.sum())

    @property
    def difference_mask(self) -> np.ndarray:
        """The mask for :func:`build_operator_tables` under :attr:`rule`."""
        return self.mask if self.rule == "quintuple" else self.pair_mask

    def samples(self) -> dict[str, int]:
        """Difference samples under each rule: 6 per passing quintuple, 3 per passing pair."""
        return {"quintuple": 6 * self.n_pass, "pair": 3 * self.n_pairs_pass}


def filter_masks(
    cos_prev_curr: Mapping[str, np.ndarray],
    cos_curr_next: Mapping[str, np.ndarray],
    *,
    threshold: float = 0.25,
    rule: str = "quintuple",
) -> FilterReport:
    """Both readings of the difference filter from the cosines of the neighbouring sentences.

    Parameters
    ----------
    cos_prev_curr, cos_curr_next : {encoder: ndarray of shape (n,)}
        ``cos(s_prev, s_curr)`` and ``cos(s_curr, s_next)`` per quintuple under each filter
        encoder; a pair passes only when it is below ``threshold`` under **every** encoder.
    threshold : float
        Strict upper bound (the paper's 0.25).
    rule : {"quintuple", "pair"}
        Which mask :attr:`FilterReport.difference_mask` returns; both are always computed.

    Returns
    -------
    FilterReport. An undefined cosine (NaN: a zero embedding, e.g. an all-OOV sentence under
    GloVe) fails its pair and is counted in ``n_undefined`` (quintuples with any NaN).
    """
    if rule not in FILTER_RULES:
        raise ValueError(f"unknown filter rule {rule!r}; choose from {', '.join(FILTER_RULES)}")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold}")
    encs = list(cos_prev_curr)
    if not encs or set(encs) != set(cos_curr_next):
        raise ValueError("the filter needs the same, non-empty set of encoders for both sentence pairs")
    n = len(np.asarray(cos_prev_curr[encs[0]]))
    pair = np.ones((n, 2), dtype=bool)
    undefined = np.zeros(n, dtype=bool)
    for spec in encs:
        a, b = (np.asarray(c[spec], dtype=np.float64) for c in (cos_prev_curr, cos_curr_next))
        if a.shape != (n,) or b.shape != (n,):
            raise ValueError(f"{spec}: cosines of shape {a.shape} and {b.shape}, expected ({n},)")
        undefined |= np.isnan(a) | np.isnan(b)
        with np.errstate(invalid="ignore"):
            pair[:, 0] &= a < threshold
            pair[:, 1] &= b < threshold
    mask = pair.all(axis=1)
    return FilterReport(
        threshold=float(threshold),
        encoders=encs,
        n_quintuples=n,
        n_pass=int(mask.sum()),
        cos_prev_curr=dict(cos_prev_curr),
        cos_curr_next=dict(cos_curr_next),
        mask=mask,
        n_undefined=int(undefined.sum()),
        pair_mask=pair,
        rule=rule,
    )


def build_operator_tables(
    quintuples: pd.DataFrame, *, difference_mask: np.ndarray | None = None
) -> dict[str, pd.DataFrame]:
    """The overlap, difference and union tables of ``quintuples``.

    Parameters
    ----------
    quintuples : DataFrame with ``s_prev, s_curr, s_next, s1, s2`` (and optionally ``id``)
    difference_mask : bool array of shape (n_quintuples,) or (n_quintuples, 2), optional
        Which quintuples contribute difference samples (usually
        ``FilterReport.difference_mask``): shape (n,) keeps or drops all six samples of a
        quintuple; shape (n, 2) keeps the three samples with ``A = s1`` where column 0 is true
        and the three with ``A = s2`` where column 1 is true. ``None`` keeps all of them (the
        *unfiltered* difference table).

    Returns
    -------
    dict operator -> DataFrame with columns ``qid, variant, a, b`` and the target column
    (``o``, ``d`` or ``u``); rows ordered by quintuple, then by variant as in the module table.
    """
    q = validate_quintuples(quintuples)
    if difference_mask is None:
        difference_mask = np.ones(len(q), dtype=bool)
    difference_mask = np.asarray(difference_mask, dtype=bool)
    if difference_mask.shape == (len(q),):
        difference_mask = np.repeat(difference_mask[:, None], 2, axis=1)
    if difference_mask.shape != (len(q), 2):
        raise ValueError(f"difference_mask has shape {difference_mask.shape}, expected ({len(q)},) or ({len(q)}, 2)")
    out = {}
    for op, specs in _SPECS.items():
        frames = []
        for k, (variant, ca, cb, ct) in enumerate(specs):
            keep = difference_mask[:, 0 if ca == "s1" else 1] if op == "difference" else np.ones(len(q), dtype=bool)
            sub = q[keep]
            frames.append(
                pd.DataFrame(
                    {
                        "qid": sub["id"].to_numpy(),
                        "variant": variant,
                        "_k": k,
                        "_q": np.flatnonzero(keep),
                        "a": sub[ca].to_numpy(),
                        "b": sub[cb].to_numpy(),
                        TARGET_COLUMN[op]: sub[ct].to_numpy(),
                    }
                )
            )
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
