"""book/part3_montague.md: agreement with the paper's printed decimals, checked on results/montague;
the rest is the Part's design."""

import re

import pandas as pd

from compsem import claims
from compsem.montague.reproduce import truncation_check
from compsem.results import load_table

SENTENCES = (
    "under the official reading they agree within one unit of the paper's last printed decimal",
    "the official reading reproduces the paper's Tables 1, 6, 7 and 8 to the last printed decimal",
)


def check(executed=None):
    cells = pd.concat([load_table("montague", f"{n}_reproduced") for n in ("single", "pairs", "nonsub")])
    t = truncation_check(cells[(cells["model"] == "sbert-mini") & (cells["reading"] == "official")]).set_index("table")
    printed = t["match_truncated"] + t["only_rounded"]  # equal when cut, or else when rounded
    numbers = {
        f"Table {k}: cells equal to the paper's printed number (cut; only rounded)": f"{r.match_truncated}; {r.only_rounded} of {r.cells}"
        for k, r in t.iterrows()
    }
    for sentence in SENTENCES:
        named = {int(n) for n in re.findall(r"\d+", sentence)} or set(t.index)
        claims.check(
            sentence,
            page="book/part3_montague.md",
            numbers=numbers,
            holds=named <= set(t.index) and bool((printed == t["cells"])[sorted(named)].all()),
            rule="every official sbert-mini cell of the tables it names (all, if none), cut (or, where the "
            "last digit cannot tell, rounded) to the paper's decimals, equals the paper's",
        )


NOT_CLAIMS = {
    "shows the reproduced table": "what each chapter shows",
    "because it is what produced the paper's tables": "why the default reading is the authors' code",
}
