"""Numbers transcribed from the papers, and the papers' model panels.

Every paper table the book shows beside its own numbers lives in
``data/reference/<study>_<name>.csv`` and is read with one function::

    paper_table("setcomp", "c1_cells")        # Part I, Table 1
    paper_table("montague", "table6")         # Part III, Table 6

A file may open with ``#`` comment lines (the citation); they are kept in
``df.attrs["comment"]``. A missing table raises one error, :class:`~compsem.errors.DataError`,
that lists what the study has.

``data/reference/paper_models.csv`` maps each model a paper reports to a hub id (or says why
it cannot be loaded), to our spec, and to the row name the paper's tables use.
:func:`paper_models` reads it, :func:`paper_panel` gives the specs of a study's panel
(``models="paper"`` in a chapter), and :func:`paper_row` says which paper row, if any, a spec
stands beside.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .errors import DataError
from .paths import data_dir

__all__ = ["STUDIES", "paper_table", "paper_tables", "paper_models", "paper_panel", "paper_row",
           "PAPER_MODEL_COLUMNS"]

#: The four studies, in the book's order.
STUDIES: tuple[str, ...] = ("setcomp", "csts", "montague", "ssm")

#: Columns of ``data/reference/paper_models.csv``.
PAPER_MODEL_COLUMNS: tuple[str, ...] = (
    "study", "paper_name", "hub_id", "spec", "same_model", "dim", "licence", "trust_remote_code", "note",
)


def _check_study(study: str) -> None:
    if study not in STUDIES:
        raise DataError(f"unknown study {study!r}; the studies are {', '.join(STUDIES)}")


def _read_commented_csv(path: Path, **kw) -> pd.DataFrame:
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    n = 0
    while n < len(lines) and lines[n].startswith("#"):
        n += 1
    df = pd.read_csv(path, skiprows=n, **kw)
    df.attrs["comment"] = " ".join(line.lstrip("# ").strip() for line in lines[:n])
    df.attrs["file"] = str(path)
    return df


def paper_tables(study: str) -> list[str]:
    """The names of a study's transcribed tables (``paper_table(study, name)`` reads each)."""
    _check_study(study)
    return sorted(p.stem.removeprefix(f"{study}_") for p in data_dir("reference").glob(f"{study}_*.csv"))


def paper_table(study: str, name: str, **read_csv_kw) -> pd.DataFrame:
    """A table of a paper's numbers, ``data/reference/<study>_<name>.csv``.

    Parameters
    ----------
    study : {"setcomp", "csts", "montague", "ssm"}
    name : str
        The table's name within the study, e.g. ``"c1_cells"`` or ``"table6"``.
    **read_csv_kw
        Passed to :func:`pandas.read_csv` (e.g. ``dtype``).

    Raises
    ------
    DataError
        No such study, or no such table (the message lists the study's tables).
    """
    _check_study(study)
    path = data_dir("reference", f"{study}_{name}.csv")
    if not path.is_file():
        raise DataError(f"no transcribed table {name!r} for {study}; available: {', '.join(paper_tables(study))}",
                        file=str(path))
    return _read_commented_csv(path, **read_csv_kw)


def paper_models(study: str | None = None) -> pd.DataFrame:
    """The papers' models (``data/reference/paper_models.csv``), optionally one study's.

    Columns: see :data:`PAPER_MODEL_COLUMNS`. ``spec`` is empty when the model cannot be run
    through this project (the ``note`` says why); ``same_model`` is true only when our spec
    loads the very weights the paper used.
    """
    path = data_dir("reference", "paper_models.csv")
    if not path.is_file():
        raise DataError("the paper-model mapping is missing", file=str(path))
    df = _read_commented_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in PAPER_MODEL_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(f"missing column(s) {missing}; found {list(df.columns)}", file=str(path), column=missing[0])
    for col in ("same_model", "trust_remote_code"):
        df[col] = df[col].str.lower().map({"true": True, "false": False, "": False})
    if study is not None:
        _check_study(study)
        df = df[df["study"] == study].reset_index(drop=True)
    return df


def paper_panel(study: str, *, runnable_only: bool = True) -> list[str]:
    """The specs of a study's paper panel, in the paper's order (``models="paper"``).

    Models with no spec (not on the hub, no loader) are left out when ``runnable_only``.
    """
    df = paper_models(study)
    specs = [s for s in df["spec"] if s] if runnable_only else list(df["spec"])
    return list(dict.fromkeys(specs))


def paper_row(study: str, spec: str) -> str | None:
    """The paper's row name that ``spec`` stands beside in ``study``'s tables, or ``None``.

    Only a spec listed in the mapping has a paper row; the ``same_model`` column says whether
    the two are the same weights or only the closest we have.
    """
    df = paper_models(study)
    hit = df[df["spec"] == spec]
    return str(hit["paper_name"].iloc[0]) if len(hit) else None
