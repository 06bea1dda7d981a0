"""Made-up synthesis rows for the studies' ``FINDING`` tests (``tests/compsem/<study>/test_finding.py``)."""

import pandas as pd

NAN = float("nan")


def rows(values: dict, *, reference: float = NAN, higher: bool = True, degenerate: dict | None = None) -> pd.DataFrame:
    """The profile's rows a ``Finding.sentences`` gets, from ``{model: {criterion: (value, low, high[, ties])}}``;
    ``degenerate``: ``{(model, criterion): reason}``."""
    out = []
    for m, crit in values.items():
        for k, v in crit.items():
            value, low, high, *ties = v
            out.append({"model": m, "criterion": k, "value": value, "low": low, "high": high, "reference": reference,
                        "ties": ties[0] if ties else NAN, "higher": higher,
                        "degenerate": (degenerate or {}).get((m, k), "")})
    return pd.DataFrame(out)
