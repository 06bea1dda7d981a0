"""A simple study's run record and its per-model bootstrap table.

Most studies score every item of their shipped data once per model and report the mean with a
bootstrap interval. :class:`RunRecord` holds such a run (per-item scores by model, the models'
identities, the data's checksums, the parameters) with the :meth:`~RunRecord.provenance` the
study contract asks for; :func:`bootstrap_table` turns per-item scores into the tidy table, one
row per model. A study with more structure keeps its own ``Run`` dataclass (Part IV's score
matrices, Part II's training runs) and may still call :func:`bootstrap_table` on a column of it.

Example (a new study's ``study.run`` and ``tables.main_table``)::

    scores = {m: metrics.score(embed(a, m), embed(b, m)) for m in models}
    run = RunRecord.of(models, scores, files=[data_dir("negation", "triples.csv")], params={"margin": 0})
    bootstrap_table(run.scores, measure="share closer", scale=100, n_boot=1000, seed=0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .data import file_sha256
from .encoders import get_encoder
from .errors import check_trust_remote_code
from .stats import bootstrap

__all__ = ["RunRecord", "bootstrap_table"]


@dataclass
class RunRecord:
    """The raw results of a run: per-item scores by model, on the same items for every model.

    Attributes
    ----------
    models : the specs, in the chapter's order.
    scores : ``{spec: array of shape (n_items,)}``; item ``i`` is the same item for every model
        (what a paired ranking sentence needs: :func:`compsem.sentences.paired_leader`).
    identities : ``{spec: the encoder's identity}`` (weights, backend, precision).
    data_checksums : ``{file name: SHA-256}`` of the data the run read.
    params : the run's parameters (seed, options).
    """

    models: list[str]
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    identities: dict[str, str] = field(default_factory=dict)
    data_checksums: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        models: Sequence[str],
        scores: Mapping[str, Sequence[float] | np.ndarray],
        *,
        files: Iterable[str | Path] = (),
        params: Mapping[str, Any] | None = None,
        trust_remote_code: bool = False,
    ) -> "RunRecord":
        """A record of ``scores`` with the identities of ``models`` (their encoders) and the
        checksums of ``files``; every model must have scores of one length."""
        trc = check_trust_remote_code(trust_remote_code, where="RunRecord.of")
        arrays = {m: np.asarray(scores[m], dtype=float) for m in models}
        sizes = {a.shape for a in arrays.values()}
        if len(sizes) > 1:
            raise ValueError(f"every model's scores must have one shape (the same items), got {sorted(sizes)}")
        return cls(
            list(models),
            arrays,
            {m: get_encoder(m, trust_remote_code=trc).identity for m in models},
            {Path(f).name: file_sha256(f) for f in files},
            dict(params or {}),
        )

    def provenance(self, **extra: Any) -> dict[str, Any]:
        """Models, their identities, the data's checksums, the parameters (and ``extra``)."""
        return {
            "models": list(self.models),
            "identities": dict(self.identities),
            "data_checksums": dict(self.data_checksums),
            "parameters": dict(self.params),
            **extra,
        }


def bootstrap_table(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    measure: str = "value",
    scale: float = 1.0,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """One row per model: ``model``, ``measure`` (the mean of its finite scores times ``scale``),
    ``low``, ``high`` (the percentile bootstrap interval, :func:`compsem.stats.bootstrap` with
    ``seed`` for every model) and ``n`` (the finite scores used), in the order of ``scores``."""
    rows = []
    for model, values in scores.items():
        r = bootstrap(np.asarray(values, dtype=float), n_boot=n_boot, seed=seed, level=level, warn=False)
        rows.append(
            {"model": model, measure: r.estimate * scale, "low": r.low * scale, "high": r.high * scale, "n": r.n}
        )
    return pd.DataFrame(rows, columns=["model", measure, "low", "high", "n"])
