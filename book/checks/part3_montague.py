"""Checks of book/part3_montague.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`), and the sentences of the page that are design, not results."""

import pandas as pd

from compsem import claims
from compsem.montague.reproduce import truncation_check
from compsem.results import load_table

PAGE = "book/part3_montague.md"


def check(executed=None):
    cells = pd.concat(
        [load_table("montague", f"{n}_reproduced") for n in ("single", "pairs", "nonsub")], ignore_index=True
    )
    official = cells[(cells["model"] == "sbert-mini") & (cells["reading"] == "official")]
    t = truncation_check(official).set_index("table")
    printed = t["match_truncated"] + t["only_rounded"]  # equal when cut, or else when rounded
    numbers = {
        f"Table {k}: cells equal to the paper's printed number (cut; only rounded)": f"{r.match_truncated}; {r.only_rounded} of {r.cells}"
        for k, r in t.iterrows()
    }
    holds = sorted(t.index) == [1, 6, 7, 8] and bool((printed == t["cells"]).all())
    rule = (
        "every official sbert-mini cell of Tables 1, 6, 7 and 8, cut (or, where the last digit cannot tell, "
        "rounded) to the paper's decimals, equals the paper's"
    )
    for sentence in (
        "under the official reading they agree to the paper's last printed decimal",
        "the official reading reproduces the paper's Tables 1, 6, 7 and 8 to the last printed decimal",
    ):
        claims.check(sentence, page=PAGE, holds=holds, numbers=numbers, rule=rule)


NOT_CLAIMS = {
    "the four adjective classes": "the Part's design",
    "state the three tests": "a learning goal",
    "the two readings of the paper's tests": "the Part's design",
    "runs all three tests on four words and four phrases": "the worked example's design",
    "Three inequalities": "the paper's design",
    "all three tests on a toy of four words and four phrases": "the worked example's design",
    "are two phrases that share an intersective adjective closer than two that share": "the question a chapter asks",
    "every chapter compares the two cell by cell": "the chapters' design",
    "all four tables": "the decomposition's scope",
    "separates the two for": "what the strings option changes",
    "models eight, by family name": "the paper's panel (data/reference/paper_models/montague.csv)",
    "Where the two readings part": "the Part's design",
    "Two further choices of ours": "the Part's design",
    "the three tests then take": "the Part's three tests",
    "shows the reproduced table": "what each chapter shows",
    "covers all four tables": "the decomposition's scope",
}
