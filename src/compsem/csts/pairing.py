"""Pairing of C-STS rows: the authors' ordered pair key, C-High / C-Low roles, label ties.

Each sentence pair of C-STS appears under two conditions. A pair is keyed, as in the authors'
batch sampler, by the ordered text ``sentence1<SEP>sentence2`` (within a split): a pair written
in both orders is two pairs. In a complete pair (two labelled rows) the row with the larger
label is ``high`` and the other ``low``; with equal labels (a tie) the first row in file order
is ``high``, as the code's stable sort does.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

__all__ = ["PAIR_SEP", "pair_key", "assign_pairs", "pairing_summary", "pair_index"]

PAIR_SEP = "<SEP>"


def pair_key(s1, s2) -> np.ndarray:
    """The authors' ordered pair key ``sentence1<SEP>sentence2``, hashed to 12 hex digits."""
    return np.array([hashlib.sha1(f"{a}{PAIR_SEP}{b}".encode()).hexdigest()[:12] for a, b in zip(s1, s2)], dtype=object)


def assign_pairs(df: pd.DataFrame, *, unlabelled_keys=()) -> pd.DataFrame:
    """Add ``pair_id`` (ordered key within a split, unless given), ``role`` and ``tied``.

    ``role``: ``high`` / ``low`` in a complete pair (two rows; the larger label is ``high``,
    the first in file order on a tie), ``single`` for a row whose partner was unlabelled
    (its ``pair_id`` in ``unlabelled_keys``), ``unpaired`` for any other group size.
    ``tied``: both rows of a complete pair carry the same label.
    """
    out = df.copy()
    if "pair_id" not in out.columns:
        key = pair_key(out["sentence1"], out["sentence2"])
        out["pair_id"] = (out["split"].astype(str) + ":" + key) if "split" in out.columns else key
    out["pair_id"] = out["pair_id"].astype(str)
    size = out.groupby("pair_id")["label"].transform("size").to_numpy()
    order = out.assign(_pos=np.arange(len(out))).sort_values(
        ["pair_id", "label", "_pos"], ascending=[True, False, True], kind="mergesort"
    )
    first = (order.groupby("pair_id").cumcount() == 0).reindex(out.index).to_numpy()
    role = np.where(size == 2, np.where(first, "high", "low"), "unpaired")
    role = np.where((size == 1) & out["pair_id"].isin(set(unlabelled_keys)).to_numpy(), "single", role)
    out["role"] = role
    nuniq = out.groupby("pair_id")["label"].transform("nunique").to_numpy()
    out["tied"] = (size == 2) & (nuniq == 1)
    return out


def pairing_summary(df: pd.DataFrame) -> dict:
    """Counts of a paired frame: complete pairs, single and unpaired rows, ties, same-condition
    pairs with different labels and pairs written in both sentence orders."""
    comp = df[df["role"].isin(["high", "low"])]
    g = comp.groupby("pair_id")
    same_cond = int(((g["condition"].nunique() == 1) & (g["label"].nunique() > 1)).sum())
    sp = df["split"].astype(str) if "split" in df.columns else pd.Series("", index=df.index)
    keys = set(zip(sp, df["sentence1"], df["sentence2"]))
    both = sum(1 for (s, a, b) in keys if a < b and (s, b, a) in keys)
    return {
        "n_pairs": int(df["pair_id"].nunique()),
        "n_complete_pairs": int(g.ngroups),
        "n_single_rows": int((df["role"] == "single").sum()),
        "n_unpaired_rows": int((df["role"] == "unpaired").sum()),
        "n_tied_pairs": int(df.loc[df["role"] == "high", "tied"].sum()),
        "n_same_condition": same_cond,
        "n_both_orders": both,
    }


def pair_index(df: pd.DataFrame, *, label_ties: str = "include") -> tuple[np.ndarray, np.ndarray]:
    """Row positions ``(high, low)`` of each complete sentence pair of ``df`` (same order).

    Rows with role ``single``, ``unpaired`` or ``unlabelled`` take no part. ``label_ties``:
    ``"include"`` keeps pairs whose two labels are equal (the first row in file order is then
    "high", as in the authors' batch sampler), ``"exclude"`` leaves them out.
    """
    if "role" not in df.columns or "pair_id" not in df.columns:
        raise ValueError("the frame needs 'pair_id' and 'role' columns (load it with load_csts)")
    if label_ties not in ("include", "exclude"):
        raise ValueError(f"label_ties must be 'include' or 'exclude', got {label_ties!r}")
    keep = np.ones(len(df), bool) if label_ties == "include" or "tied" not in df.columns else ~df["tied"].to_numpy(bool)
    pos = pd.Series(np.arange(len(df)), index=df["pair_id"].to_numpy())
    roles = df["role"].to_numpy()
    hi = pos[(roles == "high") & keep]
    lo = pos[(roles == "low") & keep].reindex(hi.index)
    if lo.isna().any():
        raise ValueError("a pair has a C-High row but no C-Low row (was the frame filtered by row?)")
    return hi.to_numpy(dtype=int), lo.to_numpy(dtype=int)
