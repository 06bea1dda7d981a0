"""Tidy result tables with provenance, written by chapters and read by the synthesis.

``save_table(df, "setcomp", "c1_cells", models=[...], seed=0)`` writes
``results/setcomp/c1_cells.csv`` and ``results/setcomp/c1_cells.json`` (the provenance:
library version, package versions, parameters). A rerun through ``python -m compsem run``
writes into its own output folder instead, so it never changes the default book.
"""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from .paths import results_dir

__all__ = ["save_table", "load_table", "provenance"]

_PACKAGES = ("compsem", "numpy", "torch", "transformers", "sentence-transformers", "scikit-learn")


def provenance(**extra: Any) -> dict[str, Any]:
    """Versions of the packages that shape the numbers, plus ``extra``."""
    versions = {}
    for p in _PACKAGES:
        try:
            versions[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            versions[p] = None
    return {"python": platform.python_version(), "packages": versions, **extra}


def save_table(df, study: str, name: str, **prov: Any) -> Path:
    """Write ``df`` as CSV and its provenance as JSON under ``results/<study>/``; return the CSV path."""
    folder = results_dir(study)
    path = folder / f"{name}.csv"
    df.to_csv(path, index=False)
    (folder / f"{name}.json").write_text(json.dumps(provenance(**prov), indent=1, default=str, sort_keys=True))
    return path


def load_table(study: str, name: str):
    """Read a table written by :func:`save_table` (``FileNotFoundError`` says which chapter to run)."""
    import pandas as pd

    path = results_dir(study) / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: run the {study} chapters first (make book)")
    return pd.read_csv(path)
