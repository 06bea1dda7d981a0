"""Shared by chapters 31-33's check files, not a page: what each rule of the decomposition moves
for sbert-mini (results/montague/decomposition.csv, written by chapter 31)."""

from compsem.results import load_table

STRICT, PAIRS = "tests II and NI", "test II: all noun pairs"
NAMES = {
    "test I:": "test I's word-word distances",
    PAIRS: "all noun pairs, one mean",
    STRICT: "≤ instead of <",
    "strings as English": "strings as English writes them",
}
NOISE = 1e-12  # a mean movement below this is floating-point noise, not a move


def moves(v):
    return v > NOISE


def moved():
    """``{(step prefix, table): mean cell movement}`` for sbert-mini."""
    d = load_table("montague", "decomposition").query("model == 'sbert-mini'")
    return {
        (next((p for p in NAMES if s.startswith(p)), s), int(t)): float(m)
        for s, t, m in zip(d["step"], d["table"], d["moved"])
    }


def numbers(mv, tables):
    return {
        f"{NAMES[step]}: mean move of Table {t}": round(v, 6)
        for (step, t), v in mv.items()
        if t in tables and step in NAMES
    }
