"""Tidy result tables with provenance, written by chapters and read by the synthesis.

``save_table(df, "setcomp", "c1_cells", models=[...], seed=0)`` writes
``results/setcomp/c1_cells.csv`` and ``results/setcomp/c1_cells.json`` (the provenance:
library version, package versions, parameters). A rerun through ``python -m compsem run``
writes into its own output folder instead, so it never changes the default book.

Such a run folder carries a manifest, ``compsem-run.json`` (notebook, parameters, commit, files
written), beside its ``results/``; the runner tells the kernel its run id in ``$COMPSEM_RUN``.
:func:`save_table` refuses to write into a results folder whose manifest names another run, so
two runs never mix their tables. The book's own ``results/`` has no manifest: every chapter of a
study writes there.
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .encoders.onnx import backends_used
from .errors import CompsemError
from .paths import results_dir
from .stats import bootstrap, group_bootstrap, group_resamples, mean_replicates, shared_resamples
from .store import write_below

__all__ = [
    "PlainText",
    "Found",
    "FOUND_KEYS",
    "RUN_MANIFEST",
    "RunMixError",
    "run_manifest",
    "check_run_folder",
    "save_table",
    "load_table",
    "provenance",
    "glue_all",
    "Prose",
    "Headline",
    "headline_row",
    "bootstrap_headline",
]

_PACKAGES = ("compsem", "numpy", "torch", "transformers", "sentence-transformers", "scikit-learn", "onnxruntime")


def provenance(**extra: Any) -> dict[str, Any]:
    """Versions of the packages that shape the numbers, the encode backend that ran per model
    in this process (``encode_backends``: :mod:`compsem.encoders.onnx`; absent when no encoder
    with a choice encoded anything, e.g. every vector came from the cache), plus ``extra``."""
    versions = {}
    for p in _PACKAGES:
        try:
            versions[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            versions[p] = None
    used = {"encode_backends": backends_used()} if backends_used() else {}
    return {"python": platform.python_version(), "packages": versions, **used, **extra}


#: The manifest of a run folder (``python -m compsem run --out FOLDER``), beside its ``results/``.
RUN_MANIFEST = "compsem-run.json"


class RunMixError(CompsemError, RuntimeError):
    """A run would write into a folder that holds another run's results."""


def run_manifest(folder: str | Path) -> dict | None:
    """The manifest of the run that owns ``folder`` (the folder itself or its parent), or ``None``."""
    folder = Path(folder)
    for cand in (folder / RUN_MANIFEST, folder.parent / RUN_MANIFEST):
        if cand.is_file():
            try:
                return json.loads(cand.read_text(encoding="utf-8")) | {"path": str(cand)}
            except ValueError:
                return {"run": None, "path": str(cand), "notebook": "?", "parameters": "unreadable manifest"}
    return None


def check_run_folder(folder: str | Path) -> None:
    """Raise :class:`RunMixError` when ``folder`` belongs to a run other than ``$COMPSEM_RUN``."""
    man = run_manifest(folder)
    if man is not None and man.get("run") != os.environ.get("COMPSEM_RUN"):
        raise RunMixError(
            f"{folder} holds the results of another run ({man.get('notebook')} with parameters "
            f"{json.dumps(man.get('parameters'), default=str)}; manifest {man['path']}): write this "
            "run's tables elsewhere (python -m compsem run --out NEW_FOLDER) or clear it first "
            "(--force)"
        )


def save_table(df, study: str, name: str, **prov: Any) -> Path:
    """Write ``df`` as CSV and its provenance as JSON under ``results/<study>/``; return the CSV path.

    Raises :class:`RunMixError` when the results folder belongs to another run (see
    :func:`check_run_folder`).
    """
    root = results_dir()
    check_run_folder(root)
    # never through a link below the results folder's parent (a run folder): compsem.store.write_below
    path = write_below(root.parent, Path(root.name, study, f"{name}.csv"), df.to_csv(index=False))
    write_below(
        root.parent,
        Path(root.name, study, f"{name}.json"),
        json.dumps(provenance(**prov), indent=1, default=str, sort_keys=True),
    )
    return path


def load_table(study: str, name: str):
    """Read a table written by :func:`save_table` (``FileNotFoundError`` says which chapter to run)."""
    import pandas as pd

    path = results_dir(study) / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: run the {study} chapters first (make book)")
    return pd.read_csv(path)


class PlainText(str):
    """A string :func:`glue_all` glues as plain text whatever ``code`` says: for
    ``{glue:text}`` on another page (``path::key:s``), where myst-nb renders only plain text."""


#: The prefixes of the glued keys that hold the text of a declared finding or verdict rule (a
#: :class:`Found`): :func:`glue_all` glues a :class:`Found` under such a key and no other string, so
#: the claims check (``make check-book``) counts a sentence quoting one as "from findings".
FOUND_KEYS = ("verdicts_", "finding_")


class Found(PlainText):
    """Plain text that a declared finding or verdict rule produced (:mod:`compsem.verdicts`, a
    study's finding), glued under a key of :data:`FOUND_KEYS`."""


class Prose(str):
    """A string that is a piece of Markdown prose (a sentence with model names in backticks):
    :func:`glue_all` glues it as it is, for ``{glue:md}``, not as inline code."""


def glue_all(values, *, code: bool = True) -> None:
    """``myst_nb.glue`` every value of a mapping (not displayed); a string is glued as inline code
    (``code=False``: as the plain string, as Part I's prose shows its model names), a
    :class:`Prose` string as Markdown.

    Chapters glue through this one function, never by hand: ``glue_all(report.values(...))``.
    """
    for key, value in values.items():
        if isinstance(value, str) and isinstance(value, Found) != key.startswith(FOUND_KEYS):
            raise CompsemError(
                f"glued key {key!r}: a key starting with {' or '.join(FOUND_KEYS)} holds the text of a declared "
                "finding (compsem.results.Found), and a Found is glued under such a key only"
            )
    from IPython.display import Markdown  # the book's tooling, present where chapters run
    from myst_nb import glue

    for key, value in values.items():
        if isinstance(value, PlainText):
            value = str(value)
        elif isinstance(value, Prose):
            value = Markdown(str(value))
        elif code and isinstance(value, str):
            value = Markdown(f"`{value}`")
        glue(key, value, display=False)


# ----------------------------------------------------------------------------- headlines


@dataclass(frozen=True)
class Headline:
    """One headline criterion of a study, as the cross-study synthesis shows it.

    Each study's ``report`` module lists its own in ``HEADLINES`` and computes them in
    ``headlines(models)``; :func:`headline_row` makes the rows. ``higher`` is a direction only
    where the chapter argues one (``direction`` says where); ``None`` declares that it argues
    none, and the synthesis then ranks nothing on the criterion (``direction`` says why).
    """

    key: str
    part: str
    label: str
    unit: str
    reference: float  # chance level or the value that means "no effect"
    resampled: str  # what the bootstrap resamples
    meaning: str
    higher: bool | None = True  # the direction: True when a higher value is better, None: no direction argued
    direction: str = ""  # why: where the chapter argues the direction, or why it argues none (no ranking then)


def bootstrap_headline(
    criterion: Headline,
    model: str,
    values,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    scale: float = 1.0,
    ties: float = float("nan"),
    control_of: str = "",
    groups=None,
) -> dict[str, Any]:
    """A headline row whose value is the mean of ``values`` (NaN dropped), with a percentile
    bootstrap interval over them; ``scale`` turns shares into percentages. Its ``replicates``
    are the mean on resamples of *all* the items that depend only on their number, ``n_boot``
    and ``seed`` (:func:`compsem.stats.shared_resamples`), so that two models' rows on the same
    items pair (the synthesis' separation test). With ``groups`` (one label per item) the groups
    are resampled whole (:func:`compsem.stats.group_bootstrap`, :func:`~compsem.stats.group_resamples`:
    the value stays the mean over items, ``n`` counts the groups)."""
    values = np.asarray(values, dtype=float).ravel()
    if groups is None:
        r = bootstrap(values, n_boot=n_boot, seed=seed, warn=False)
        n = r.n
        reps = (
            mean_replicates(values, shared_resamples(values.size, n_boot=n_boot, seed=seed), scale=scale)
            if values.size
            else None
        )
    else:
        r = group_bootstrap(values, groups, n_boot=n_boot, seed=seed)
        n = len(np.unique(np.asarray(groups)))
        ok = np.isfinite(values)
        w = group_resamples(groups, n_boot=n_boot, seed=seed) * ok
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = scale * (w * np.where(ok, values, 0.0)).sum(axis=1) / w.sum(axis=1)
    return headline_row(
        criterion,
        model,
        r.estimate * scale,
        r.low * scale,
        r.high * scale,
        n,
        ties,
        replicates=reps,
        control_of=control_of,
    )


def headline_row(
    criterion: Headline,
    model: str,
    est: float,
    low: float,
    high: float,
    n: int,
    ties: float = float("nan"),
    *,
    replicates=None,
    control_of: str = "",
) -> dict[str, Any]:
    """One tidy row of the synthesis profile. ``replicates``: the estimate on bootstrap resamples
    shared by every model scored on the same items (the paired separation test of the
    synthesis; ``None`` when the study has none); ``control_of``: the model this row is a control
    of (a study's own control, e.g. the model on shuffled targets), ``""`` for a model's row."""
    c = criterion
    return {
        "model": model,
        "part": c.part,
        "criterion": c.key,
        "label": c.label,
        "value": est,
        "low": low,
        "high": high,
        "n": n,
        "unit": c.unit,
        "reference": c.reference,
        "ties": ties,
        "replicates": replicates,
        "control_of": control_of,
    }
