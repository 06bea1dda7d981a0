"""What the Montague paper claims, and our verdict (the table that opens the Part III page).

The claims, in our words, with the result file and rule that test each, are data:
``data/reference/montague_claims.csv``; :mod:`compsem.verdicts` holds the rules. Chapter 33
(the Part's last) glues ``CLAIMS.values()``.
"""

from __future__ import annotations

from ..verdicts import Claims

__all__ = ["CLAIMS"]

#: The paper's claims and how each is computed from ``results/montague/``.
CLAIMS = Claims("montague")
