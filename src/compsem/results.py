"""Tidy result tables with provenance, written by chapters and read by the synthesis.

``save_table(df, "setcomp", "c1_cells", models=[...], seed=0)`` writes
``results/setcomp/c1_cells.csv`` and ``results/setcomp/c1_cells.json`` (the provenance:
library version, package versions, parameters). A rerun through ``python -m compsem run``
writes into its own output folder instead, so it never changes the default book.
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .paths import results_dir
from .stats import bootstrap

__all__ = ["save_table", "load_table", "provenance", "glue_all", "Headline", "headline_row", "bootstrap_headline"]

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


def glue_all(values, *, code: bool = True) -> None:
    """``myst_nb.glue`` every value of a mapping (not displayed); a string is glued as inline code
    (``code=False``: as the plain string, as Part I's prose shows its model names).

    Chapters glue through this one function, never by hand: ``glue_all(report.values(...))``.
    """
    from IPython.display import Markdown  # the book's tooling, present where chapters run
    from myst_nb import glue

    for key, value in values.items():
        glue(key, Markdown(f"`{value}`") if code and isinstance(value, str) else value, display=False)


# ----------------------------------------------------------------------------- headlines


@dataclass(frozen=True)
class Headline:
    """One headline criterion of a study, as the cross-study synthesis shows it.

    Each study's ``report`` module lists its own in ``HEADLINES`` and computes them in
    ``headlines(models)``; :func:`headline_row` makes the rows.
    """

    key: str
    part: str
    label: str
    unit: str
    reference: float      # chance level or the value that means "no effect"
    resampled: str        # what the bootstrap resamples
    meaning: str


def bootstrap_headline(criterion: Headline, model: str, values, *, n_boot: int = 1000, seed: int = 0,
                       scale: float = 1.0, ties: float = float("nan")) -> dict[str, Any]:
    """A headline row whose value is the mean of ``values`` (NaN dropped), with a percentile
    bootstrap interval over them; ``scale`` turns shares into percentages."""
    r = bootstrap(np.asarray(values, dtype=float), n_boot=n_boot, seed=seed, warn=False)
    return headline_row(criterion, model, r.estimate * scale, r.low * scale, r.high * scale, r.n, ties)


def headline_row(criterion: Headline, model: str, est: float, low: float, high: float, n: int,
                 ties: float = float("nan")) -> dict[str, Any]:
    """One tidy row of the synthesis profile."""
    c = criterion
    return {"model": model, "part": c.part, "criterion": c.key, "label": c.label, "value": est, "low": low,
            "high": high, "n": n, "unit": c.unit, "reference": c.reference, "ties": ties}
