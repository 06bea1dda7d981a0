"""Chapter 33: the strict rule, checked on results/montague/decomposition.csv; the rest is design."""

from compsem import claims
from compsem.book.checks.claimcheck import sibling


def check(executed=None):
    r = sibling(__file__, "montague_rules")
    mv = r.moved()
    claims.check(
        "changes nothing for this model, whose two distances never tie",
        page="33_montague_nonsubsective",
        holds=not r.moves(mv[(r.STRICT, 8)]),
        numbers=r.numbers(mv, {8}),
        rule="the strict < moves no cell of Table 8 for sbert-mini",
    )


NOT_CLAIMS = {
    "cells match only when cut": "names what the glued counts count",
}
