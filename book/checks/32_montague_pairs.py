"""Chapter 32: the strict rule and the paper's cut decimals, checked on results/montague; the rest is
the pair test's design."""

import re

import pandas as pd

from compsem import claims
from compsem.book.checks.claimcheck import sibling
from compsem.montague.reproduce import truncation_check
from compsem.results import load_table

EXACT = "Unlike the shares of Tables 6 and 8, which our code reproduces exactly"


def check(executed=None):
    r = sibling(__file__, "montague_rules")
    mv = r.moved()
    claims.check(
        "the strict < moves nothing, since sbert-mini's distances never tie",
        page="32_montague_pairs",
        holds=not any(r.moves(v) for (step, _), v in mv.items() if step == r.STRICT),
        numbers=r.numbers(mv, {1, 6, 7, 8}),
        rule="the strict < moves no cell of any table for sbert-mini",
    )
    cells = pd.concat([load_table("montague", f"{n}_reproduced") for n in ("single", "nonsub")], ignore_index=True)
    t = truncation_check(cells[(cells["model"] == "sbert-mini") & (cells["reading"] == "official")]).set_index("table")
    t = t.loc[[int(n) for n in re.findall(r"\d+", EXACT)]]
    claims.check(
        EXACT,
        page="32_montague_pairs",
        holds=bool((t["match_truncated"] == t["cells"]).all()),
        numbers={f"Table {k}: cells equal when cut": f"{v.match_truncated} of {v.cells}" for k, v in t.iterrows()},
        rule="every official sbert-mini cell of the tables named, cut to the paper's decimals, equals the paper's",
    )


NOT_CLAIMS = {
    "The three adjectives whose phrases are least and most often the closer pair": "the table's caption",
    "cells match only when cut": "names what the glued counts count",
}
