"""Checks of chapter 32's sentences on the strict rule and the paper's cut decimals (run by
``make check-book`` and the appendix); the rest is the pair test's design."""

import pandas as pd

from compsem import claims
from compsem.book.checks.claimcheck import sibling
from compsem.montague.reproduce import truncation_check
from compsem.results import load_table

PAGE = "32_montague_pairs"


def check(executed=None):
    r = sibling(__file__, "montague_rules")
    mv = r.moved()
    claims.check(
        "the strict < moves nothing, since sbert-mini's distances never tie",
        page=PAGE,
        holds=not any(r.moves(v) for (step, _), v in mv.items() if step == r.STRICT),
        numbers=r.numbers(mv, {1, 6, 7, 8}),
        rule="the strict < moves no cell of any table for sbert-mini",
    )
    cells = pd.concat([load_table("montague", f"{n}_reproduced") for n in ("single", "nonsub")], ignore_index=True)
    t = truncation_check(cells[(cells["model"] == "sbert-mini") & (cells["reading"] == "official")]).set_index("table")
    t = t.loc[[6, 8]]
    claims.check(
        "Unlike the shares of Tables 6 and 8, which our code reproduces exactly",
        page=PAGE,
        holds=bool((t["match_truncated"] == t["cells"]).all()),
        numbers={f"Table {k}: cells equal when cut": f"{v.match_truncated} of {v.cells}" for k, v in t.iterrows()},
        rule="every official sbert-mini cell of Tables 6 and 8, cut to the paper's decimals, equals the paper's",
    )


NOT_CLAIMS = {
    "compares two adjectives across the same two nouns": "the test's definition",
    "nothing pulls the two phrases together": "the theory's prediction",
    "paired with eleven others": "the official weighting's definition (12 nouns)",
    "exactly one of the two inequalities holds": "a consequence of the definition",
    "unless the two distances are equal": "a consequence of the definition",
    "only one of the two mirror cells carries information": "a consequence of the definition",
    "for two different classes": "a consequence of the definition",
    "share one word out of two": "what bow's phrases are made of",
    "so the two distances are identical": "a consequence of binary word vectors",
    "so two phrases sharing former share nothing": "what the stop list does (the glued share is the result)",
    "The first three columns are the paper's Table 7 reproduced": "names the columns; the glued difference states the result",
    "cells match only when cut": "names the glued counts",
    "(last two columns)": "names the columns",
    "The three adjectives whose phrases are least and most often the closer pair": "the table's caption",
    "rarely separates the class means": "the definition of a p-value",
    "the ambiguous three": "the class's size (data/montague)",
}
