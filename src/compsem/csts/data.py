"""C-STS data: the embedded set, a loader for the real format, pairing and splits.

The C-STS format is a table with the columns ``sentence1, sentence2, condition, label``.
Every sentence pair appears twice, once under a condition that makes the two sentences
similar (C-High) and once under one that makes them dissimilar (C-Low). The loader below

* reads a local CSV / TSV / parquet file, the embedded set (``"embedded"``) or a Hugging Face
  dataset id (``"hf:LivNLP/C-STS-Reannotated"``, needs network and ``huggingface_hub``),
* checks columns, empty texts and labels, naming file, row and column on error,
* drops unlabelled rows (label −1) and reports how many,
* groups the rows into sentence pairs (``pair_id``) and tags each row ``high`` / ``low``,
  which the quadruplet loss needs.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from compsem.errors import DataError

__all__ = [
    "REQUIRED_COLUMNS",
    "SPLITS",
    "LoadReport",
    "load_csts",
    "validate_frame",
    "assign_pairs",
    "check_pairing",
    "split_by_pair",
    "embedded_path",
    "read_authored",
    "build_embedded",
]

REQUIRED_COLUMNS = ("sentence1", "sentence2", "condition", "label")
TEXT_COLUMNS = ("sentence1", "sentence2", "condition")
SPLITS = ("train", "validation", "test")
UNLABELLED = -1.0
LABEL_RANGE = (1.0, 5.0)
EMBEDDED_SEED = 2023
EMBEDDED_FRACTIONS = (0.60, 0.15, 0.25)


@dataclass
class LoadReport:
    """What the loader did: where the data came from and what it dropped."""

    source: str
    n_rows_read: int
    n_unlabelled: int
    n_unpaired_rows: int = 0
    n_tied_pairs: int = 0
    n_rows: int = 0
    n_pairs: int = 0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def embedded_path() -> Path:
    """Path of the shipped CSV (``data/csts/csts_embedded.csv``)."""
    from compsem import paths

    return paths.data_dir("csts") / "csts_embedded.csv"


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
def validate_frame(df: pd.DataFrame, *, file: str = "<frame>", row_offset: int = 2) -> pd.DataFrame:
    """Check a raw C-STS table and return a cleaned copy (labels as float, texts stripped).

    Parameters
    ----------
    df : DataFrame with at least the columns ``sentence1, sentence2, condition, label``.
    file : name used in error messages.
    row_offset : added to the 0-based row index in messages; 2 means "line number in a CSV
        file with a header" (row 0 is on line 2).

    Raises
    ------
    DataError
        a missing column, an empty or missing text, a non-numeric label, or a label outside
        [1, 5] that is not the unlabelled marker −1. The message names file, row and column.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(
            f"missing column(s) {missing}; a C-STS table needs {list(REQUIRED_COLUMNS)} "
            f"(found {list(df.columns)})",
            file=file,
            column=missing[0],
        )
    out = df.copy().reset_index(drop=True)
    for col in TEXT_COLUMNS:
        vals = out[col]
        isna = vals.isna().to_numpy()
        as_str = vals.astype(str).str.strip()
        bad = isna | (as_str == "").to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"empty text ({int(bad.sum())} empty cell(s) in this column)",
                file=file,
                row=i + row_offset,
                column=col,
            )
        out[col] = as_str
    lab = pd.to_numeric(out["label"], errors="coerce")
    nonnum = lab.isna().to_numpy()
    if nonnum.any():
        i = int(np.flatnonzero(nonnum)[0])
        raise DataError(
            f"label {df['label'].iloc[i]!r} is not a number", file=file, row=i + row_offset, column="label"
        )
    lab = lab.astype(float).to_numpy()
    ok = (lab == UNLABELLED) | ((lab >= LABEL_RANGE[0]) & (lab <= LABEL_RANGE[1]))
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise DataError(
            f"label {lab[i]} outside [1, 5] (use -1 for an unlabelled row)",
            file=file,
            row=i + row_offset,
            column="label",
        )
    out["label"] = lab
    return out


def _pair_key(s1: pd.Series, s2: pd.Series) -> pd.Series:
    """A stable id for an (unordered) sentence pair, from its two texts."""
    a = s1.astype(str).to_numpy()
    b = s2.astype(str).to_numpy()
    lo = np.where(a <= b, a, b)
    hi = np.where(a <= b, b, a)
    return pd.Series(
        [hashlib.sha1(f"{x}\x1f{y}".encode()).hexdigest()[:12] for x, y in zip(lo, hi)], index=s1.index
    )


def assign_pairs(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``pair_id`` (if absent: from the two sentence texts) and ``role`` (``high`` / ``low``).

    Within a pair the row with the larger label is ``high``; when both labels are equal the
    first row (file order) is ``high`` and the pair is counted as tied. Rows of a pair with a
    number of rows other than two get role ``unpaired``.
    """
    out = df.copy()
    if "pair_id" not in out.columns:
        out["pair_id"] = _pair_key(out["sentence1"], out["sentence2"])
    out["pair_id"] = out["pair_id"].astype(str)
    size = out.groupby("pair_id")["label"].transform("size").to_numpy()
    # rank within pair by label (desc), ties broken by file order
    order = out.assign(_pos=np.arange(len(out))).sort_values(
        ["pair_id", "label", "_pos"], ascending=[True, False, True], kind="mergesort"
    )
    rank = order.groupby("pair_id").cumcount().reindex(order.index)
    role = np.where(rank.reindex(out.index).to_numpy() == 0, "high", "low")
    role = np.where(size == 2, role, "unpaired")
    out["role"] = role
    return out


def check_pairing(df: pd.DataFrame, *, strict: bool = True, file: str = "<frame>") -> dict:
    """Check that every sentence pair has exactly two rows (its two conditions).

    Returns a dict with ``n_pairs``, ``n_unpaired_rows`` (rows of groups not of size two),
    ``n_tied_pairs`` (two rows with the same label) and ``n_same_condition`` (both rows with
    the same condition text). With ``strict=True`` an unpaired row raises a ``DataError``
    naming the first offending pair.
    """
    if "role" not in df.columns:
        df = assign_pairs(df)
    sizes = df.groupby("pair_id").size()
    bad = sizes[sizes != 2]
    n_unpaired = int(df["pair_id"].isin(bad.index).sum())
    if strict and len(bad):
        pid = bad.index[0]
        i = int(np.flatnonzero(df["pair_id"].to_numpy() == pid)[0])
        raise DataError(
            f"sentence pair {pid!r} has {int(bad.iloc[0])} row(s); the quadruplet loss needs each "
            f"pair under exactly two conditions ({len(bad)} such pair(s) in all; pass "
            "drop_unpaired=True to drop them)",
            file=file,
            row=i + 2,
            column="sentence1",
        )
    paired = df[~df["pair_id"].isin(bad.index)]
    g = paired.groupby("pair_id")
    ties = int((g["label"].nunique() == 1).sum())
    same_cond = int((g["condition"].nunique() == 1).sum())
    return {
        "n_pairs": int(paired["pair_id"].nunique()),
        "n_unpaired_rows": n_unpaired,
        "n_tied_pairs": ties,
        "n_same_condition": same_cond,
    }


def split_by_pair(pair_ids, *, fractions=EMBEDDED_FRACTIONS, seed: int = EMBEDDED_SEED) -> np.ndarray:
    """Assign ``train`` / ``validation`` / ``test`` per sentence pair, so that the two
    conditions of a pair never straddle splits.

    The unique pair ids (sorted) are permuted with ``numpy.random.default_rng(seed)``; the
    first ``round(f_train * n)`` go to train, the next ``round(f_val * n)`` to validation,
    the rest to test. Returns one split name per element of ``pair_ids``.
    """
    fr = np.asarray(fractions, dtype=float)
    if fr.shape != (3,) or (fr < 0).any() or not np.isclose(fr.sum(), 1.0):
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {fractions}")
    ids = np.asarray(pair_ids).astype(str)
    uniq = np.unique(ids)
    n = len(uniq)
    perm = np.random.default_rng(seed).permutation(n)
    n_tr = int(round(fr[0] * n))
    n_va = int(round(fr[1] * n))
    lab = np.empty(n, dtype=object)
    lab[perm[:n_tr]] = "train"
    lab[perm[n_tr : n_tr + n_va]] = "validation"
    lab[perm[n_tr + n_va :]] = "test"
    lookup = dict(zip(uniq, lab))
    return np.array([lookup[x] for x in ids], dtype=object)


# ---------------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------------
def _read_table(path: Path) -> pd.DataFrame:
    """CSV / TSV / JSONL / parquet through the shared reader (its errors name the file)."""
    from compsem.data import read_table

    return read_table(path)


def _hub_files(repo_id: str, split: str | None) -> list[Path]:
    """Download the data files of a hub dataset (CSV / parquet / jsonl) with huggingface_hub."""
    try:
        import huggingface_hub as hh
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "loading a Hugging Face dataset id needs `huggingface_hub` (pip install huggingface_hub); "
            "or download the CSV yourself and pass its local path"
        ) from exc
    try:
        files = hh.list_repo_files(repo_id, repo_type="dataset")
    except Exception as exc:
        try:
            from compsem.errors import HubUnavailableError

            raise HubUnavailableError(f"hf:{repo_id}", exc, offline_specs=["embedded", "<local CSV path>"]) from exc
        except ImportError:  # pragma: no cover
            raise OSError(f"could not reach the hub for dataset {repo_id!r}: {exc}") from exc
    data = [f for f in files if f.lower().endswith((".csv", ".parquet", ".jsonl", ".tsv"))]
    if split is not None:
        key = {"validation": ("valid", "dev"), "train": ("train",), "test": ("test",)}.get(split, (split,))
        data = [f for f in data if any(k in f.lower() for k in key)]
    if not data:
        raise DataError(
            f"dataset {repo_id!r} has no CSV/parquet/jsonl file"
            + (f" for split {split!r}" if split else "")
            + f" (files: {files[:20]}); install `datasets` (pip install datasets) and export the "
            "split to CSV, then pass the CSV path"
        )
    return [Path(hh.hf_hub_download(repo_id, f, repo_type="dataset")) for f in data]


def _split_from_name(name: str) -> str | None:
    low = name.lower()
    for key, split in (("train", "train"), ("valid", "validation"), ("dev", "validation"), ("test", "test")):
        if key in low:
            return split
    return None


def load_csts(
    source: str | Path = "embedded",
    *,
    split: str | None = None,
    drop_unpaired: bool = False,
) -> tuple[pd.DataFrame, LoadReport]:
    """Load a C-STS table and return ``(frame, report)``.

    Parameters
    ----------
    source : ``"embedded"`` (the project's own set), a local file path (CSV, TSV, parquet,
        jsonl) or a Hugging Face dataset id written ``"hf:<owner>/<name>"``.
    split : keep only this split (``train`` / ``validation`` / ``test``); needs a ``split``
        column or, for hub ids, file names that say the split.
    drop_unpaired : drop (and count) rows whose sentence pair does not have exactly two rows,
        instead of raising.

    Returns
    -------
    frame : columns ``sentence1, sentence2, condition, label, pair_id, role`` (+ ``split``
        when known), unlabelled rows removed.
    report : :class:`LoadReport` with the counts of what was read and dropped.
    """
    src = str(source)
    if src == "embedded":
        files = [embedded_path()]
    elif src.startswith("hf:"):
        files = _hub_files(src[3:], split)
    else:
        p = Path(src)
        if not p.exists():
            raise FileNotFoundError(
                f"C-STS source {src!r} is neither 'embedded', an 'hf:<dataset id>' nor an existing file"
            )
        files = [p]
    frames = []
    n_read = 0
    n_unlab = 0
    for f in files:
        raw = _read_table(f)
        clean = validate_frame(raw, file=str(f))
        n_read += len(clean)
        if "split" not in clean.columns:
            guess = _split_from_name(f.name) if src.startswith("hf:") else None
            if guess is not None:
                clean["split"] = guess
        unl = clean["label"] == UNLABELLED
        n_unlab += int(unl.sum())
        frames.append(clean[~unl.to_numpy()])
    df = pd.concat(frames, ignore_index=True)
    report = LoadReport(source=src, n_rows_read=n_read, n_unlabelled=n_unlab)
    if n_unlab:
        report.notes.append(f"excluded {n_unlab} unlabelled row(s) (label -1)")
    if split is not None:
        if "split" not in df.columns:
            raise DataError(f"cannot select split {split!r}: the table has no 'split' column", file=src, column="split")
        df = df[df["split"] == split].reset_index(drop=True)
    df = assign_pairs(df)
    info = check_pairing(df, strict=not drop_unpaired, file=src)
    if drop_unpaired and info["n_unpaired_rows"]:
        df = df[df["role"] != "unpaired"].reset_index(drop=True)
        report.notes.append(f"dropped {info['n_unpaired_rows']} row(s) whose pair lacks its second condition")
    report.n_unpaired_rows = info["n_unpaired_rows"]
    report.n_tied_pairs = info["n_tied_pairs"]
    report.n_rows = len(df)
    report.n_pairs = int(df["pair_id"].nunique())
    return df.reset_index(drop=True), report


# ---------------------------------------------------------------------------------------------
# the embedded set
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
            raise DataError(f"expected 6 '|'-separated fields, got {len(parts)}", file=str(path), row=lineno)
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
