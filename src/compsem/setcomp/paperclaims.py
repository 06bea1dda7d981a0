"""What the set-operator paper claims, and our verdict (the table that opens the Part I page).

The claims, in our words, with the result file and rule that test each, are data:
``data/reference/setcomp_claims.csv``; :mod:`compsem.verdicts` holds the rules. Chapter 13
(the Part's last) glues ``CLAIMS.values()``.
"""

from __future__ import annotations

from ..verdicts import Claims
from .study import STUDY

__all__ = ["CLAIMS"]

#: The paper's claims and how each is computed from ``results/setcomp/``.
CLAIMS = Claims(STUDY)
