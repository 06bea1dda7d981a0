"""Chapter 31: what each rule moves, checked on results/montague/decomposition.csv; the rest is design."""

import re

from compsem import claims
from compsem.book.checks.claimcheck import sibling

SENTENCE = (
    "the weighting of noun pairs moves only Table 7 and the strict inequality nothing at all for this model "
    "(its distances never tie)"
)


def check(executed=None):
    r = sibling(__file__, "montague_rules")
    mv = r.moved()
    tables, only = sorted({t for _, t in mv}), int(re.search(r"only Table (\d+)", SENTENCE).group(1))
    claims.check(
        SENTENCE,
        page="31_montague_single",
        numbers=r.numbers(mv, tables),
        holds=all(r.moves(mv[(r.PAIRS, t)]) == (t == only) and not r.moves(mv[(r.STRICT, t)]) for t in tables),
        rule=f"for sbert-mini the noun-pair weighting moves Table {only} alone and the strict < no table "
        f"(a mean movement under {r.NOISE:g} is no move)",
    )


NOT_CLAIMS = {}
