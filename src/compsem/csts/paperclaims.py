"""What the C-STS paper claims, and our verdict (the table that opens the Part II page).

The claims, in our words, with the result file and rule that test each, are data:
``data/reference/csts_claims.csv``; :mod:`compsem.verdicts` holds the rules. Chapter 24
(the Part's last) glues ``CLAIMS.values()``. :func:`describe_row` names the zero-shot variant
behind each number (chapter 21 scores several), from the selected row itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..verdicts import Claims

__all__ = ["CLAIMS", "TEXT_PAIR", "describe_row"]

#: How chapter 21 names the row of its text-pair variant: ``"<encoder> text pair"``
#: (:func:`compsem.csts.study.zero_shot_textpair`). The paper's Table 2 reads each sentence with the
#: condition this way, as a text pair (its bi-encoder, Section 4.1): ``cos(f(s1; c), f(s2; c))``.
TEXT_PAIR = " text pair"


def _meta(folder: Path, name: str) -> dict:
    """A result's provenance (``<name>.json`` beside its table), or {}."""
    try:
        return json.loads((Path(folder) / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _fine_tuned(folder: Path) -> set[str]:
    """The encoders chapter 22 fine-tuned in this build (``finetune_runs.csv``), or none."""
    try:
        return set(pd.read_csv(Path(folder) / "finetune_runs.csv", usecols=["encoder"])["encoder"].astype(str))
    except (OSError, ValueError, KeyError):
        return set()


def describe_row(result: str, row: dict, folder: Path) -> str:
    """The zero-shot variant a claim's number comes from, from its row of ``zeroshot.csv``:
    the encoder, how the condition reaches it and whether that is the paper's Table 2 setting
    (a text pair); for the text-pair row also why that encoder: the only one chapter 21 runs in
    that setting, and the one chapter 22 fine-tunes where ``finetune_runs.csv`` says so. A row of
    ``scaling_paired``: the two training sizes compared. Other results: "" (their claims name
    their configurations)."""
    if result == "scaling_paired" and {"a", "b"} <= set(row):
        return f"{int(row['a']):,} minus {int(row['b']):,} training pairs"
    if result != "zeroshot" or "model" not in row or "condition" not in row:
        return ""
    model, cond = str(row["model"]), str(row["condition"])
    if model.endswith(TEXT_PAIR):
        enc = model.removesuffix(TEXT_PAIR)
        why = f"the one encoder chapter 21 runs in that setting{', and the one chapter 22 fine-tunes' if enc in _fine_tuned(folder) else ''}"
        return f"{enc}, each sentence read with the condition as a text pair: the paper's Table 2 setting; {why}"
    if cond == "attached":
        template = _meta(folder, result).get("template")
        how = f" as {template!r}" if template else ""
        return f"{model}, the condition appended to each sentence{how}: not the paper's Table 2 setting (a text pair)"
    if cond == "ignored":
        return f"{model}, the condition ignored: not the paper's Table 2 setting (a text pair)"
    return ""


#: The paper's claims and how each is computed from ``results/csts/``.
CLAIMS = Claims("csts", describe=describe_row)
