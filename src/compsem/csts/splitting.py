"""Splits of C-STS rows into train / validation / test, subsamples, and the embedded set.

A split never separates the two conditions of a sentence pair, and :func:`group_split` goes
further: pairs that share a sentence (the re-annotated training file has 1,404 sentences in
more than one pair) land in the same split, so no test sentence was seen in training.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from compsem.errors import DataError

from .data import SPLITS, validate_frame

__all__ = [
    "BOOK_FRACTIONS",
    "BOOK_SEED",
    "EMBEDDED_FRACTIONS",
    "EMBEDDED_SEED",
    "sentence_groups",
    "group_split",
    "split_by_pair",
    "splits",
    "subsample_pairs",
    "read_authored",
    "build_embedded",
]

EMBEDDED_SEED = 2023
EMBEDDED_FRACTIONS = (0.60, 0.15, 0.25)
BOOK_SEED = 0
BOOK_FRACTIONS = (0.60, 0.15, 0.25)


def _check_fractions(fractions) -> np.ndarray:
    fr = np.asarray(fractions, dtype=float)
    if fr.shape != (3,) or (fr < 0).any() or not np.isclose(fr.sum(), 1.0):
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {fractions}")
    return fr


def split_by_pair(pair_ids, *, fractions=EMBEDDED_FRACTIONS, seed: int = EMBEDDED_SEED) -> np.ndarray:
    """``train`` / ``validation`` / ``test`` per sentence pair (the embedded set's rule).

    The sorted unique pair ids are permuted with ``numpy.random.default_rng(seed)``; the first
    ``round(f_train * n)`` go to train, the next ``round(f_val * n)`` to validation, the rest to
    test. Returns one split name per element of ``pair_ids``.
    """
    fr = _check_fractions(fractions)
    ids = np.asarray(pair_ids).astype(str)
    uniq = np.unique(ids)
    n = len(uniq)
    perm = np.random.default_rng(seed).permutation(n)
    n_tr, n_va = int(round(fr[0] * n)), int(round(fr[1] * n))
    lab = np.empty(n, dtype=object)
    lab[perm[:n_tr]], lab[perm[n_tr : n_tr + n_va]], lab[perm[n_tr + n_va :]] = "train", "validation", "test"
    lookup = dict(zip(uniq, lab))
    return np.array([lookup[x] for x in ids], dtype=object)


def sentence_groups(s1, s2) -> np.ndarray:
    """Connected components of the graph whose nodes are sentences and whose edges are rows:
    two rows share a group when they are linked by a chain of shared sentences. Returns one
    integer group per row (numbered by first appearance)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    a, b = list(map(str, s1)), list(map(str, s2))
    for x, y in zip(a, b):
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[ry] = rx
    roots = [find(x) for x in a]
    ids: dict[str, int] = {}
    return np.array([ids.setdefault(r, len(ids)) for r in roots], dtype=int)


def group_split(df: pd.DataFrame, *, fractions=BOOK_FRACTIONS, seed: int = BOOK_SEED) -> np.ndarray:
    """Assign a split to every row so that rows sharing a sentence (hence both rows of every
    pair) are in the same split.

    The sentence groups (:func:`sentence_groups`) are shuffled with
    ``numpy.random.default_rng(seed)`` and filled into train until it holds ``f_train`` of the
    rows, then validation until ``f_train + f_val``, the rest to test. Deterministic in
    ``seed``; the realised shares differ from ``fractions`` by at most one group.
    """
    fr = _check_fractions(fractions)
    g = sentence_groups(df["sentence1"], df["sentence2"])
    n_groups = int(g.max()) + 1 if len(g) else 0
    sizes = np.bincount(g, minlength=n_groups)
    order = np.random.default_rng(seed).permutation(n_groups)
    cum = np.cumsum(sizes[order]) / max(len(g), 1)
    where = np.where(cum <= fr[0] + 1e-12, 0, np.where(cum <= fr[0] + fr[1] + 1e-12, 1, 2))
    lab = np.empty(n_groups, dtype=object)
    lab[order] = np.array(SPLITS, dtype=object)[where]
    return lab[g]


def splits(
    df: pd.DataFrame, *, seed: int = BOOK_SEED, fractions=BOOK_FRACTIONS, split: str = "pair"
) -> dict[str, pd.DataFrame]:
    """``{"train": …, "validation": …, "test": …}`` sub-frames (index reset).

    A frame with a ``split`` column (per-split files, the embedded set) keeps its splits; one
    without (a single file such as the re-annotated training split) is split with ``seed``:
    ``split="pair"`` by :func:`split_by_pair` (both rows of a pair together; a sentence may recur
    in another split), ``split="sentence"`` by :func:`group_split` (stricter: no sentence is in
    two splits). A split that is absent is an empty frame.
    """
    if split not in ("pair", "sentence"):
        raise ValueError(f'split must be "pair" or "sentence", got {split!r}')
    if "split" not in df.columns:
        lab = (
            split_by_pair(df["pair_id"], fractions=fractions, seed=seed)
            if split == "pair"
            else group_split(df, fractions=fractions, seed=seed)
        )
        df = df.assign(split=lab)
    return {name: df[df["split"] == name].reset_index(drop=True) for name in SPLITS}


def subsample_pairs(df: pd.DataFrame, n_or_fraction: float, *, seed: int) -> pd.DataFrame:
    """Keep a random subset of the sentence pairs (all rows of each).

    ``n_or_fraction`` in (0, 1] is a share of the pairs, a number > 1 a count of pairs (capped
    at all of them). At least one pair is kept.
    """
    ids = np.unique(df["pair_id"].astype(str))
    if n_or_fraction <= 0:
        raise ValueError(f"need a positive share or count of pairs, got {n_or_fraction}")
    n = int(round(n_or_fraction * len(ids))) if n_or_fraction <= 1 else int(n_or_fraction)
    n = min(max(1, n), len(ids))
    if n == len(ids):
        return df.reset_index(drop=True)
    keep = np.random.default_rng(seed).choice(ids, size=n, replace=False)
    return df[df["pair_id"].isin(keep)].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# the embedded (hand-written) set
# ---------------------------------------------------------------------------------------------
def read_authored(path: str | Path) -> pd.DataFrame:
    """Read ``authored_pairs.psv`` (one pair per line: s1 | s2 | c_high | y | c_low | y)."""
    rows = []
    path = Path(path)
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 6:
            raise DataError(f"expected 6 '|'-separated fields, got {len(parts)}", file=f"{path}, line {lineno}")
        s1, s2, ch, yh, cl, yl = parts
        pid = f"p{len(rows) // 2:03d}"
        rows.append((pid, s1, s2, ch, float(yh), "high"))
        rows.append((pid, s1, s2, cl, float(yl), "low"))
    return pd.DataFrame(rows, columns=["pair_id", "sentence1", "sentence2", "condition", "label", "condition_type"])


def build_embedded(authored: str | Path, *, seed: int = EMBEDDED_SEED, fractions=EMBEDDED_FRACTIONS) -> pd.DataFrame:
    """The embedded C-STS table: authored rows + a by-pair split (fixed seed)."""
    df = read_authored(authored)
    validate_frame(df, file=str(authored))
    df["split"] = split_by_pair(df["pair_id"], fractions=fractions, seed=seed)
    return df[["pair_id", "sentence1", "sentence2", "condition", "condition_type", "label", "split"]]
