"""Shared by the check files of chapters 31-33: what each rule of the decomposition moves
(results/montague/decomposition.csv, written by chapter 31). Not a page."""

from compsem.results import load_table

STRICT = "tests II and NI"
PAIRS = "test II: all noun pairs"
TEST_I = "test I:"
STRINGS = "strings as English"
#: A mean movement below this is floating-point noise (sums of per-noun means in another order), not a move.
NOISE = 1e-12


def moves(v):
    return v > NOISE


def moved():
    """``{(step prefix, table): mean cell movement}`` for sbert-mini."""
    d = load_table("montague", "decomposition")
    d = d[d["model"] == "sbert-mini"]
    return {
        (next(p for p in (STRICT, PAIRS, TEST_I, STRINGS, d_step) if d_step.startswith(p)), int(t)): float(m)
        for d_step, t, m in zip(d["step"], d["table"], d["moved"])
    }


NAMES = {
    TEST_I: "test I's word-word distances",
    PAIRS: "all noun pairs, one mean",
    STRICT: "≤ instead of <",
    STRINGS: "strings as English writes them",
}


def numbers(mv, tables):
    return {
        f"{NAMES[step]}: mean move of Table {t}": round(v, 6)
        for (step, t), v in mv.items()
        if t in tables and step in NAMES
    }
