"""Part III's checked sentences (chapters 31-33, book/part3_montague.md), on results/montague: what each
rule of the decomposition moves for sbert-mini (decomposition.csv, written by chapter 31), and the
official sbert-mini cells of Tables 6 and 8 against the paper's printed decimals. How the Part page
says the paper's decimals are reproduced is glued (compsem.montague.reproduce.printing_sentence)."""

import re

import pandas as pd

from compsem import claims
from compsem.montague.reproduce import truncation_check
from compsem.results import load_table

STRICT, PAIRS = "tests II and NI", "test II: all noun pairs"
NAMES = {
    "test I:": "test I's word-word distances",
    PAIRS: "all noun pairs, one mean",
    STRICT: "≤ instead of <",
    "strings as English": "strings as English writes them",
}
NOISE = 1e-12  # a mean movement below this is floating-point noise, not a move
SINGLE = (
    "the weighting of noun pairs moves only Table 7 and the strict inequality nothing at all for this model "
    "(its distances never tie)"
)
EXACT = "Unlike the shares of Tables 6 and 8, which our code reproduces exactly"


def _moved():
    """``{(step prefix, table): mean cell movement}`` for sbert-mini."""
    d = load_table("montague", "decomposition").query("model == 'sbert-mini'")
    return {
        (next((p for p in NAMES if s.startswith(p)), s), int(t)): float(m)
        for s, t, m in zip(d["step"], d["table"], d["moved"])
    }


def _numbers(mv, tables):
    return {
        f"{NAMES[s]}: mean move of Table {t}": round(v, 6) for (s, t), v in mv.items() if t in tables and s in NAMES
    }


def _official(*names):
    """:func:`truncation_check` of the official sbert-mini cells of the ``names`` tables, by table."""
    cells = pd.concat([load_table("montague", f"{n}_reproduced") for n in names], ignore_index=True)
    return truncation_check(cells[(cells["model"] == "sbert-mini") & (cells["reading"] == "official")]).set_index(
        "table"
    )


def single(executed=None):
    mv = _moved()
    tables, only = sorted({t for _, t in mv}), int(re.search(r"only Table (\d+)", SINGLE).group(1))
    claims.check(
        SINGLE,
        page="31_montague_single",
        numbers=_numbers(mv, tables),
        holds=all((mv[(PAIRS, t)] > NOISE) == (t == only) and not mv[(STRICT, t)] > NOISE for t in tables),
        rule=f"for sbert-mini the noun-pair weighting moves Table {only} alone and the strict < no table "
        f"(a mean movement under {NOISE:g} is no move)",
    )


def pairs(executed=None):
    mv = _moved()
    claims.check(
        "the strict < moves nothing, since sbert-mini's distances never tie",
        page="32_montague_pairs",
        holds=not any(v > NOISE for (step, _), v in mv.items() if step == STRICT),
        numbers=_numbers(mv, {1, 6, 7, 8}),
        rule="the strict < moves no cell of any table for sbert-mini",
    )
    t = _official("single", "nonsub").loc[[int(n) for n in re.findall(r"\d+", EXACT)]]
    claims.check(
        EXACT,
        page="32_montague_pairs",
        holds=bool((t["match_truncated"] == t["cells"]).all()),
        numbers={f"Table {k}: cells equal when cut": f"{v.match_truncated} of {v.cells}" for k, v in t.iterrows()},
        rule="every official sbert-mini cell of the tables named, cut to the paper's decimals, equals the paper's",
    )


def nonsub(executed=None):
    mv = _moved()
    claims.check(
        "changes nothing for this model, whose two distances never tie",
        page="33_montague_nonsubsective",
        holds=not mv[(STRICT, 8)] > NOISE,
        numbers=_numbers(mv, {8}),
        rule="the strict < moves no cell of Table 8 for sbert-mini",
    )


CHECKS = {
    "31_montague_single": single,
    "32_montague_pairs": pairs,
    "33_montague_nonsubsective": nonsub,
}
