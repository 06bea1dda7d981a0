"""Checks of chapter 31's sentence on what each rule moves (run by ``make check-book`` and the
appendix, on results/montague/decomposition.csv); the rest is the paper's design."""

from compsem import claims
from compsem.book.checks.claimcheck import sibling

PAGE = "31_montague_single"


def check(executed=None):
    r = sibling(__file__, "montague_rules")
    mv = r.moved()
    tables = sorted({t for _, t in mv})
    holds = (
        r.moves(mv[(r.TEST_I, 6)])
        and r.moves(mv[(r.STRINGS, 6)])
        and all(r.moves(mv[(r.PAIRS, t)]) == (t == 7) for t in tables)
        and not any(r.moves(mv[(r.STRICT, t)]) for t in tables)
    )
    claims.check(
        "the weighting of noun pairs moves only Table 7 and the strict inequality nothing at all for this "
        "model (its distances never tie)",
        page=PAGE,
        holds=holds,
        numbers=r.numbers(mv, tables),
        rule="for sbert-mini: test I and the strings move Table 6; the noun-pair weighting moves Table 7 "
        f"alone; the strict < moves no table (a mean movement under {r.NOISE:g} is no move)",
    )


NOT_CLAIMS = {
    "the two word sets themselves": "a definition",
    "runs all three relations": "the chapter's design",
    "where the two differ": "the chapter's design",
    "the twelve phrases of one adjective are not twelve independent observations": "the bootstrap's design",
    "lying between their two words": "a definition (the glued range is the result)",
    "the paper's Table 1 reproduced": "names the table; the glued difference states the result",
    "over the five classes": "the paper's classes",
    "the two readings coincide": "algebra: on AN phrases the only word-word distance is d(a, n)",
    "With two adjectives": "the test's definition",
    "each of its three words": "the test's definition",
    "all nine inequalities": "the test's definition",
    "The first three columns are the paper's Table 6 reproduced": "names the columns; the glued difference states the result",
    "a share of eight in nine": "an example of cutting against rounding",
    "The last two columns": "names the columns",
    "two unrelated adjectives": "the argument's example",
    "The four rules": "the decomposition's design",
    "switches all four rules": "the decomposition's design",
    "We run two for each model": "the chapter's design",
}
