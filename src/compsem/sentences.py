"""Two sentences that place models, with plural agreement ("`a` lies", "`a` and `b` lie").

Kept small and on their own so that a module of claim phrases can take them over:

* :func:`against_reference`: each model's interval against a reference level (chance, no
  effect): how many contain it, and who lies on which side;
* :func:`paired_leader`: the leader of per-item scores measured on the same items, "clear of"
  another only where the paired bootstrap interval of the difference excludes zero
  (:func:`compsem.stats.paired_leader_sentence`). What a study's ``report.values`` needs for
  it is the per-item scores of every model on the same items (``RunRecord.scores``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .fmt import estimate
from .stats import join_names, paired_bootstrap, paired_leader_sentence, versus_reference

__all__ = ["against_reference", "paired_leader"]


def _verb(n: int, singular: str, plural: str) -> str:
    return singular if n == 1 else plural


def against_reference(
    rows: pd.DataFrame,
    *,
    reference: float,
    what: str,
    level: str,
    level_name: str,
    higher: bool = True,
    digits: int = 2,
    unit: str = "",
    wrong_side: tuple[str, str] = ("", ""),
) -> str:
    """Where each model's interval lies against ``reference``.

    ``rows``: one row per model (index), columns ``value``, ``low``, ``high``. ``what`` is the
    measure ("the zero-shot pair accuracy of Part II"), ``level`` the reference as a number with
    its unit ("50 %"), ``level_name`` its name after "lies above" ("chance"). ``wrong_side``: a
    clause for one model and one for several that explains an interval on the wrong side of the
    reference (for ``higher``), appended after a colon.

    Example: "For 1 of the 2 models the accuracy has an interval that contains 50 %. `b` lies
    above chance (60.0 % [55.0, 65.0])."
    """
    where = {m: versus_reference(r.low, r.high, reference, higher=higher) for m, r in rows.iterrows()}
    n = len(rows)
    contains = sum(w == "indistinguishable" for w in where.values())
    if n and contains == n:
        head = f"For every model {what} has an interval that contains {level}."
    elif n == 1:
        head = f"For the one model, {what} has an interval that excludes {level}."
    else:
        head = f"For {contains} of the {n} {_verb(n, 'model', 'models')} {what} has an interval that contains {level}."
    parts = [head]
    est = {m: estimate(r.value, r.low, r.high, digits, unit=unit) for m, r in rows.iterrows()}
    for side in ("significantly below", "significantly above", "above", "below"):
        ms = [m for m in rows.index if where[m] == side]
        if not ms:
            continue
        clause = wrong_side[0 if len(ms) == 1 else 1] if side.startswith("significantly") else ""
        if len(ms) == 1:
            parts.append(f"`{ms[0]}` lies {side} {level_name} ({est[ms[0]]})" + (f": {clause}." if clause else "."))
        else:
            named = ", ".join(f"`{m}` ({est[m]})" for m in ms[:-1]) + f" and `{ms[-1]}` ({est[ms[-1]]})"
            parts.append(f"{named} lie {side} {level_name}" + (f": {clause}." if clause else "."))
    undefined = [m for m in rows.index if where[m] == "undefined"]
    if undefined:
        parts.append(f"{join_names(undefined)} {_verb(len(undefined), 'has', 'have')} no interval.")
    return " ".join(parts)


def paired_leader(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    what: str,
    higher: bool = True,
    scale: float = 1.0,
    digits: int = 2,
    unit: str = "",
    items: str = "items",
    n_boot: int = 1000,
    seed: int = 0,
) -> str:
    """The leader of the models' mean per-item scores (``{model: scores on the same items}``),
    named only as far as a paired bootstrap of each difference allows; ``scale`` turns shares
    into percentages. Example: "`a` has the highest share (75.0 %); on the same triples its lead
    over every other model has a paired 95 % interval above zero (the smallest: …)." """
    reps = {m: scale * r for m, r in paired_bootstrap(scores, n_boot=n_boot, seed=seed).items()}
    names = list(scores)
    means = [scale * float(np.nanmean(np.asarray(scores[m], dtype=float))) for m in names]
    return paired_leader_sentence(means, reps, names, what=what, higher=higher, digits=digits, unit=unit, items=items)
