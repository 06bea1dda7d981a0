"""Made-up synthesis rows for the studies' ``FINDING`` tests (``tests/compsem/<study>/test_finding.py``)."""

import numpy as np
import pandas as pd

NAN = float("nan")

#: the offsets of made-up bootstrap replicates: ``value + spread * OFFSETS`` (five draws)
OFFSETS = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])


def replicates(value: float, spread: float = 0.0) -> np.ndarray:
    """Five made-up replicates around ``value``. Two models' replicates with spreads s_a and s_b
    differ by (v_a − v_b) + (s_a − s_b) × OFFSETS, whose paired 95 % percentile interval (numpy's
    linear quantiles of five values) is (v_a − v_b) ∓ 1.9 |s_a − s_b|."""
    return value + spread * OFFSETS


def rows(
    values: dict,
    *,
    reference: float = NAN,
    higher: bool | None = True,
    degenerate: dict | None = None,
    spread: dict | None = None,
    control_of: dict | None = None,
    ranked: dict | None = None,
) -> pd.DataFrame:
    """The profile's rows a ``Finding.sentences`` gets, from ``{model: {criterion: (value, low, high[, ties])}}``;
    ``degenerate``: ``{(model, criterion): reason}``; ``spread``: ``{(model, criterion): s}`` for the
    replicates (:func:`replicates`, 0 by default); ``control_of``: ``{row model: model}`` for a
    study's own control rows; ``ranked``: ``{criterion: (ranked, test words)}`` (default: ranked, no words)."""
    out = []
    for m, crit in values.items():
        for k, v in crit.items():
            value, low, high, *ties = v
            ok, test = (ranked or {}).get(k, (True, ""))
            out.append(
                {
                    "model": m,
                    "criterion": k,
                    "value": value,
                    "low": low,
                    "high": high,
                    "reference": reference,
                    "ties": ties[0] if ties else NAN,
                    "higher": higher,
                    "degenerate": (degenerate or {}).get((m, k), ""),
                    "replicates": replicates(value, (spread or {}).get((m, k), 0.0)),
                    "control_of": (control_of or {}).get(m, ""),
                    "ranked": ok,
                    "test": test,
                }
            )
    return pd.DataFrame(out)
