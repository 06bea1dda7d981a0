"""What the sentence-space paper claims, and our verdict (the table that opens the Part IV page).

The claims, in our words, with the result file and rule that test each, are data:
``data/reference/ssm_claims.csv``; :mod:`compsem.verdicts` holds the rules. Chapter 43
(the Part's last) glues ``CLAIMS.values()``.
"""

from __future__ import annotations

from ..verdicts import Claims

__all__ = ["CLAIMS"]

#: The paper's claims and how each is computed from ``results/ssm/``.
CLAIMS = Claims("ssm")
