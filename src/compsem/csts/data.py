"""C-STS data as published: reading, validating and pairing the rows, writing test predictions.

The C-STS format is a table with the columns ``sentence1, sentence2, condition, label``. Each
sentence pair appears twice, once under a condition that makes the two sentences similar
(C-High) and once under one that makes them dissimilar (C-Low). :func:`load_csts` reads

* the shipped sets by name: ``"reannotated"`` (the re-annotated C-STS training split, Zhang,
  Zhou & Bollegala 2025, CC BY 4.0) and ``"embedded"`` (the project's hand-written pairs);
* a local file (CSV, TSV, JSON lines as ``.jsonl`` or ``.json``, parquet), a folder holding
  ``*train*`` / ``*valid*`` (or ``*dev*``) / ``*test*`` files, or one file per split given as
  ``train=``, ``validation=``, ``test=`` (the official layout);
* a Hugging Face dataset id ``"hf:<owner>/<name>"`` (needs network), whose files are read
  exactly like a folder.

Pairs are keyed as the authors' code keys them: the *ordered* text ``sentence1<SEP>sentence2``
(a pair written in both orders is two pairs). Unlabelled rows (label −1, the way the official
test split hides its labels) are left out of training and of every metric and counted; a
labelled row whose partner is unlabelled stays in (it counts for Spearman and Pearson) with
role ``single``: pair metrics and the quadruplet loss use complete pairs only. Every error
names the file and its *line* (for CSV the physical line where the record starts).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from compsem import paths
from compsem.data import read_table
from compsem.errors import DataError, HubUnavailableError

from .pairing import assign_pairs, pair_index, pairing_summary
from ..fmt import noun, plural

__all__ = [
    "REQUIRED_COLUMNS",
    "SPLITS",
    "UNLABELLED",
    "LoadReport",
    "load_csts",
    "read_split_file",
    "validate_frame",
    "assign_pairs",
    "pairing_summary",
    "pair_index",
    "embedded_path",
    "reannotated_path",
    "write_predictions",
    "SHIPPED",
]

REQUIRED_COLUMNS = ("sentence1", "sentence2", "condition", "label")
TEXT_COLUMNS = ("sentence1", "sentence2", "condition")
SPLITS = ("train", "validation", "test")
UNLABELLED = -1.0
LABEL_RANGE = (1.0, 5.0)
SUFFIXES = (".csv", ".tsv", ".jsonl", ".json", ".parquet")
#: the shipped sets, by name
SHIPPED = {"reannotated": "csts_train_reannotated.csv", "embedded": "csts_embedded.csv"}


@dataclass
class LoadReport:
    """What the loader read, left out and found; ``as_dict()`` for a table."""

    source: str
    n_rows_read: int = 0
    n_unlabelled: int = 0
    n_rows: int = 0
    n_pairs: int = 0
    n_complete_pairs: int = 0
    n_single_rows: int = 0
    n_partner_unlabelled: int = 0
    n_unpaired_rows: int = 0
    n_both_orders: int = 0
    n_tied_pairs: int = 0
    n_same_condition: int = 0
    files: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("files", "notes")}


def embedded_path() -> Path:
    """Path of the project's hand-written set (``data/csts/csts_embedded.csv``)."""
    return paths.data_dir("csts") / SHIPPED["embedded"]


def reannotated_path() -> Path:
    """Path of the shipped re-annotated C-STS training split (``data/csts/``)."""
    return paths.data_dir("csts") / SHIPPED["reannotated"]


# ---------------------------------------------------------------------------------------------
# reading one file, with the physical line of every record
# ---------------------------------------------------------------------------------------------
def _record_lines(path: Path, n: int) -> np.ndarray:
    """File line (1-based) on which each of the ``n`` data records starts."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        starts = []
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, delimiter="\t" if suffix == ".tsv" else ",")
            prev = 0
            for _ in reader:
                starts.append(prev + 1)
                prev = reader.line_num
        lines = np.array(starts[1:], dtype=int)  # record 0 is the header
    elif suffix in (".jsonl", ".json"):
        text = path.read_text(encoding="utf-8").splitlines()
        lines = np.array([i + 1 for i, t in enumerate(text) if t.strip()], dtype=int)
    else:
        lines = np.arange(1, n + 1)
    if len(lines) != n:  # e.g. a JSON array: fall back to the record number
        lines = np.arange(1, n + 1)
    return lines


def _read_any(path: Path) -> pd.DataFrame:
    # JSON lines (as the authors' code reads it) or an array; UTF-8 (a byte-order mark dropped),
    # duplicate headers, oversize cells and header-only files are compsem.data.read_table's checks
    return read_table(path)


def validate_frame(df: pd.DataFrame, *, file: str = "<frame>", lines=None) -> pd.DataFrame:
    """Check a raw C-STS table; return a copy with stripped texts and float labels.

    ``lines`` gives the file line of each row for the messages (default: row + 2, a CSV with a
    header). Raises :class:`DataError` naming file, line and column for a missing column, an
    empty text, a non-numeric label or a label outside [1, 5] other than −1.
    """
    lines = np.arange(2, len(df) + 2) if lines is None else np.asarray(lines)
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(
            f"missing {noun(len(missing), 'column')} {missing}; a C-STS table needs {list(REQUIRED_COLUMNS)} "
            f"(found {list(df.columns)})",
            file=file,
            column=missing[0],
        )
    out = df.copy().reset_index(drop=True)
    for col in TEXT_COLUMNS:
        as_str = out[col].astype(str).str.strip()
        bad = out[col].isna().to_numpy() | (as_str == "").to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"empty text ({plural(int(bad.sum()), 'empty cell')} in this column)",
                file=f"{file}, line {lines[i]}",
                column=col,
            )
        out[col] = as_str
    lab = pd.to_numeric(out["label"], errors="coerce")
    if lab.isna().any():
        i = int(np.flatnonzero(lab.isna().to_numpy())[0])
        raise DataError(
            f"label {df['label'].iloc[i]!r} is not a number", file=f"{file}, line {lines[i]}", column="label"
        )
    lab = lab.astype(float).to_numpy()
    ok = (lab == UNLABELLED) | ((lab >= LABEL_RANGE[0]) & (lab <= LABEL_RANGE[1]))
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise DataError(
            f"label {lab[i]} outside [1, 5] (use -1 for an unlabelled row)",
            file=f"{file}, line {lines[i]}",
            column="label",
        )
    out["label"] = lab
    return out


def read_split_file(path: str | Path, split: str | None = None) -> pd.DataFrame:
    """One file, validated, all rows kept (unlabelled ones too), with ``file``, ``line`` and
    ``row`` (0-based record index, the id of the official submission) columns."""
    path = Path(path)
    raw = _read_any(path)
    if len(raw) == 0:
        raise DataError(
            "no data rows (a header only, or an empty file): a C-STS file needs at least one row", file=str(path)
        )
    lines = _record_lines(path, len(raw))
    df = validate_frame(raw, file=str(path), lines=lines)
    df["file"], df["line"], df["row"] = str(path), lines, np.arange(len(df))
    if split is not None:
        df["split"] = split
    return df


# ---------------------------------------------------------------------------------------------
# sources
# ---------------------------------------------------------------------------------------------
def _split_of(name: str) -> str | None:
    low = name.lower()
    for key, split in (("train", "train"), ("valid", "validation"), ("dev", "validation"), ("test", "test")):
        if key in low:
            return split
    return None


def _folder_files(folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for p in sorted(folder.iterdir()):
        sp = _split_of(p.name) if p.suffix.lower() in SUFFIXES else None
        if sp is not None:
            if sp in found:
                raise DataError(f"two files for split {sp!r}: {found[sp].name} and {p.name}", file=str(folder))
            found[sp] = p
    if not found:
        raise DataError(
            "no *train* / *valid* / *test* file (.csv, .tsv, .jsonl, .json, .parquet) in this folder", file=str(folder)
        )
    return found


def _hub_files(repo_id: str) -> dict[str, Path]:
    """Download the data files of a hub dataset, one per split (needs network)."""
    try:
        import huggingface_hub as hh
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "a hub dataset id needs `huggingface_hub`; or download the files and pass their local paths"
        ) from exc
    try:
        files = hh.list_repo_files(repo_id, repo_type="dataset")
    except Exception as exc:  # noqa: BLE001 - offline, unknown id, ...
        raise HubUnavailableError(
            f"hf:{repo_id}", exc, offline_specs=["reannotated", "embedded", "<local path>"]
        ) from exc
    by_split: dict[str, str] = {}
    for f in files:
        sp = _split_of(Path(f).name) if f.lower().endswith(SUFFIXES) else None
        if sp is not None and sp not in by_split:
            by_split[sp] = f
    if not by_split:
        raise DataError(f"dataset {repo_id!r} has no *train*/*valid*/*test* data file (files: {files[:20]})")
    return {sp: Path(hh.hf_hub_download(repo_id, f, repo_type="dataset")) for sp, f in by_split.items()}


def _resolve(source, train, validation, test) -> dict[str | None, Path]:
    given = {k: v for k, v in (("train", train), ("validation", validation), ("test", test)) if v is not None}
    if given:
        if source is not None:
            raise ValueError("give either a source or train=/validation=/test= files, not both")
        return {k: Path(v) for k, v in given.items()}
    src = "reannotated" if source is None else str(source)
    if src in SHIPPED:
        return {None: paths.data_dir("csts") / SHIPPED[src]}
    if src.startswith("hf:"):
        return _hub_files(src[3:])
    p = Path(src)
    if p.is_dir():
        return _folder_files(p)
    if not p.exists():
        raise FileNotFoundError(
            f"C-STS source {src!r} is not a shipped set ({', '.join(SHIPPED)}), an "
            "'hf:<dataset id>', a folder or an existing file"
        )
    return {None: p}


def _first_problem(df: pd.DataFrame, unlabelled: pd.DataFrame) -> str:
    """A readable account of the first incomplete pair, with file lines."""
    bad = df[df["role"].isin(["single", "unpaired"])].iloc[0]
    rows = df[df["pair_id"] == bad["pair_id"]]
    where = ", ".join(f"line {int(x)}" for x in rows["line"])
    msg = f"sentence pair on {where} of {bad['file']} has {plural(len(rows), 'labelled row')}"
    if bad["role"] == "single":
        partner = unlabelled[unlabelled["pair_id"] == bad["pair_id"]]
        msg += f"; its partner on line {int(partner['line'].iloc[0])} is unlabelled (-1)"
    return msg


def load_csts(
    source=None,
    *,
    train=None,
    validation=None,
    test=None,
    split: str | None = None,
    keep_unlabelled: bool = False,
    strict_pairs: bool = False,
) -> tuple[pd.DataFrame, LoadReport]:
    """Load C-STS rows and return ``(frame, report)``.

    Parameters
    ----------
    source : ``"reannotated"`` (default), ``"embedded"``, a file, a folder with per-split files
        or ``"hf:<dataset id>"``. A file without a ``split`` column gets none: split it with
        :func:`compsem.csts.splitting.splits` (grouped, seeded).
    train, validation, test : one file per split (instead of ``source``).
    split : keep only this split.
    keep_unlabelled : keep the label −1 rows (label NaN, role ``unlabelled``), e.g. to predict
        the official test file; they never enter a metric or the training.
    strict_pairs : raise when a labelled row lacks its partner (naming the lines and whether the
        partner was unlabelled) instead of counting it.

    Returns
    -------
    frame : ``sentence1, sentence2, condition, label, pair_id, role, tied, file, line, row``
        (+ ``split`` when known).
    report : :class:`LoadReport`.
    """
    files = _resolve(source, train, validation, test)
    label = (
        ", ".join(f"{k}={v}" for k, v in files.items())
        if None not in files
        else str(source)
        if source is not None
        else "reannotated"
    )
    frames = [read_split_file(p, sp) for sp, p in files.items()]
    df = pd.concat(frames, ignore_index=True)
    if split is not None:
        if "split" not in df.columns:
            raise DataError(
                f"cannot select split {split!r}: one file without a 'split' column; split it with "
                "compsem.csts.splitting.splits(df, seed=...) or give train=/validation=/test= files",
                file=label,
                column="split",
            )
        df = df[df["split"] == split].reset_index(drop=True)
    report = LoadReport(source=label, n_rows_read=len(df), files={str(k): str(v) for k, v in files.items()})
    unl = (df["label"] == UNLABELLED).to_numpy()
    keyed = assign_pairs(df)
    unlab_rows = keyed[unl]
    df = assign_pairs(df[~unl].reset_index(drop=True), unlabelled_keys=set(unlab_rows["pair_id"]))
    report.n_unlabelled = int(unl.sum())
    report.n_partner_unlabelled = int((df["role"] == "single").sum())
    info = pairing_summary(df)
    for k, v in info.items():
        setattr(report, k, v)
    report.n_rows = len(df)
    if report.n_unlabelled:
        report.notes.append(
            f"left out {plural(report.n_unlabelled, 'unlabelled row')} (label -1); "
            f"{plural(report.n_partner_unlabelled, 'labelled row')} lost their partner that way and "
            "count for Spearman/Pearson but not for pair metrics"
        )
    if info["n_unpaired_rows"]:
        report.notes.append(
            f"{plural(info['n_unpaired_rows'], 'row')} {'is' if info['n_unpaired_rows'] == 1 else 'are'} not in a two-row pair: they count for "
            "Spearman/Pearson but not for pair metrics or the quadruplet loss"
        )
    if strict_pairs and (info["n_single_rows"] or info["n_unpaired_rows"]):
        raise DataError(
            _first_problem(df, unlab_rows) + "; pass strict_pairs=False to keep such rows for "
            "Spearman/Pearson (pair metrics use complete pairs only)",
            file=label,
        )
    if keep_unlabelled and len(unlab_rows):
        extra = unlab_rows.assign(label=np.nan, role="unlabelled", tied=False)
        df = pd.concat([df, extra], ignore_index=True).sort_values(["file", "row"], kind="mergesort")
    return df.reset_index(drop=True), report


# ---------------------------------------------------------------------------------------------
# predictions in the official submission format
# ---------------------------------------------------------------------------------------------
def write_predictions(
    df: pd.DataFrame, predictions, path: str | Path, *, fmt: str | None = None, expected_rows: int | None = None
) -> Path:
    """Write test predictions as the official C-STS evaluation expects them.

    ``fmt="json"`` (default for ``.json``): one object ``{"<row>": prediction, …}`` keyed by the
    0-based row of the test file, as the organisers' submission script reads it; ``fmt="tsv"``:
    ``index<TAB>prediction`` lines, the layout of Hugging Face's ``run_glue`` example that the
    authors' first ``run_sts.py`` (``638c69b``) wrote to ``predict_results.txt`` (not a submission
    format; at HEAD ``3bacafa`` it writes ``test_predictions.json``, the JSON layout). ``df`` is the
    frame the predictions belong to (its ``row`` column, from :func:`load_csts` with
    ``keep_unlabelled=True``); every row must appear once and the predictions must be finite.
    ``expected_rows`` (4732 for the official test split) checks the count.
    """
    pred = np.asarray(predictions, dtype=float)
    if pred.shape != (len(df),):
        raise ValueError(f"{plural(pred.shape[0] if pred.ndim else 0, 'prediction')} for {plural(len(df), 'row')}")
    if not np.isfinite(pred).all():
        raise ValueError(
            f"{plural(int((~np.isfinite(pred)).sum()), 'non-finite prediction')}; replace them before writing"
        )
    rows = df["row"].to_numpy(dtype=int)
    if len(set(rows)) != len(rows) or (len(rows) and (rows.min() != 0 or rows.max() != len(rows) - 1)):
        raise ValueError(
            "the rows must be exactly 0..n-1 of one file, each once (load the test file alone, "
            "with keep_unlabelled=True)"
        )
    if expected_rows is not None and len(rows) != expected_rows:
        raise ValueError(f"{plural(len(rows), 'prediction')}, the evaluation expects {expected_rows}")
    path = Path(path)
    fmt = fmt or ("tsv" if path.suffix.lower() in (".txt", ".tsv") else "json")
    order = np.argsort(rows)
    if fmt == "json":
        path.write_text(json.dumps({str(int(rows[i])): float(pred[i]) for i in order}, indent=0) + "\n")
    elif fmt == "tsv":
        path.write_text("index\tprediction\n" + "".join(f"{int(rows[i])}\t{pred[i]:3.4f}\n" for i in order))
    else:
        raise ValueError(f"fmt must be 'json' or 'tsv', got {fmt!r}")
    return path
