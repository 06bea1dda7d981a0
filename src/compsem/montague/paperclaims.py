"""What the Montague paper claims, and our verdict (the table that opens the Part III page).

The claims, in our words, with the result file and rule that test each, are data:
``data/reference/montague_claims.csv``; :mod:`compsem.verdicts` holds the rules. Chapter 33
(the Part's last) glues ``CLAIMS.values()``: the verdict table, and beside it
``printing_sentence``, what the cell-by-cell check found about how the paper printed its
Tables 1, 6, 7 and 8 (:func:`~compsem.montague.reproduce.printing_sentence`), which the Part page
states where it says how closely the official reading reproduces them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..results import PlainText
from ..verdicts import Claims
from .reproduce import printed_cells, printing_sentence

__all__ = ["CLAIMS", "MontagueClaims"]


@dataclass(frozen=True)
class MontagueClaims(Claims):
    """The paper's claims, with the printed-decimals finding of the reproduced tables."""

    def values(self, *, results: Path | None = None, strict: bool | None = None) -> dict[str, object]:
        out = super().values(results=results, strict=strict)
        out["printing_sentence"] = PlainText(printing_sentence(printed_cells(results)))
        return out


#: The paper's claims and how each is computed from ``results/montague/``.
CLAIMS = MontagueClaims("montague")
