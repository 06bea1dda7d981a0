"""Prompting baselines for C-STS: prompt builder, in-context examples, answer parsers.

A prompt has up to three parts (the structure of the paper's Figures 5–6; the instruction
*wording* below is the project's own paraphrase, not the paper's or the code's text):

1. an instruction: none, a short one, or a long one that spells out what each score 1–5 means;
2. ``k`` in-context examples (k ∈ {0, 2, 4}), both conditions of one sentence pair next to each
   other (C-High first), drawn afresh for every query (``resample="per-query"``, as the
   authors' code) or once for all queries (``"fixed"``);
3. the query, ending in ``Output:``.

Two layouts: ``"oneline"`` (each item on one line, ``Input: Sentence 1: … Sentence 2: …
Condition: … Output: 4.0``, the authors' layout with one space after each key where their
code puts two) and ``"blocks"`` (one field per line).

Two parsers of the answer (generation capped at 20 new tokens):

* ``"official"`` — the authors' code: the *first* number in the answer (``4 out of 5`` → 4);
* ``"paper-text"`` — the paper's appendix read literally: drop every character that is not a
  digit or a dot, strip dots at the ends, cast (``4 out of 5`` → 45).

A failed parse is *invalid* and replaced by a draw from U[1, 5] (seeded); the invalid rate and
the out-of-range rate (valid but outside [1, 5]) are reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from . import metrics

__all__ = [
    "INSTRUCTIONS",
    "SHOTS",
    "MAX_NEW_TOKENS",
    "PARSERS",
    "LAYOUTS",
    "format_item",
    "pick_examples",
    "build_prompt",
    "build_prompts",
    "parse_answer",
    "parse_answers",
    "run_prompting",
]

MAX_NEW_TOKENS = 20
SHOTS = (0, 2, 4)
PARSERS = ("official", "paper-text")
LAYOUTS = ("oneline", "blocks")

# Paraphrased (project wording). Structure as in the paper's Figures 5 (short) and 6 (long).
INSTRUCTIONS = {
    "none": "",
    "short": (
        "Using a scale from 1 to 5, rate how alike the two sentences below are with regard to the given "
        "condition. Answer with the score only, a number from 1 to 5."
    ),
    "long": (
        "Task: judge how similar the two sentences are, looking only at the aspect named by the condition, and give "
        "the pair a score from 1 to 5:\n"
        "1 : regarding the condition, the sentences have nothing in common.\n"
        "2 : regarding the condition, the sentences differ, although they touch on a related topic.\n"
        "3 : regarding the condition, the sentences broadly agree, but some important information is different or "
        "absent.\n"
        "4 : regarding the condition, the sentences nearly agree; only minor details differ.\n"
        "5 : regarding the condition, the sentences say the same thing."
    ),
}


def format_item(
    sentence1: str, sentence2: str, condition: str, label: float | None = None, *, layout: str = "oneline"
) -> str:
    """One ``Input … Output:`` item; with a label it is an in-context example."""
    if layout == "oneline":
        out = f"Input: Sentence 1: {sentence1.strip()} Sentence 2: {sentence2.strip()} Condition: {condition} Output:"
    elif layout == "blocks":
        out = f"Input:\nSentence 1: {sentence1}\nSentence 2: {sentence2}\nCondition: {condition}\nOutput:"
    else:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return out + (f" {float(label)}" if label is not None else "")


def pick_examples(
    pool: pd.DataFrame, k: int, *, rng: np.random.Generator | int = 0, exclude_pairs: Sequence[str] = ()
) -> pd.DataFrame:
    """``k`` in-context examples = ``ceil(k / 2)`` complete sentence pairs of ``pool``, each as
    its C-High row then its C-Low row (cut to ``k`` rows). ``pool`` comes from ``load_csts``."""
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if k == 0:
        return pool.iloc[:0]
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    paired = pool[pool["role"].isin(["high", "low"]) & ~pool["pair_id"].isin(list(exclude_pairs))]
    hi = paired[paired["role"] == "high"].set_index("pair_id")
    lo = paired[paired["role"] == "low"].set_index("pair_id")
    ids = np.sort(hi.index.to_numpy().astype(str))
    n = (k + 1) // 2
    if len(ids) < n:
        raise ValueError(f"need {n} complete sentence pairs for k={k}, the pool has {len(ids)}")
    chosen = rng.choice(ids, size=n, replace=False)
    rows = [r for pid in chosen for r in (hi.loc[[pid]], lo.loc[[pid]])]
    return pd.concat(rows).reset_index().iloc[:k]


def build_prompt(
    query, *, instruction: str = "short", examples: pd.DataFrame | None = None, layout: str = "oneline"
) -> str:
    """Instruction + examples + query, one per line (``oneline``) or blank-line separated
    (``blocks``). ``query`` is a mapping/row with sentence1, sentence2, condition."""
    if instruction not in INSTRUCTIONS:
        raise ValueError(f"instruction must be one of {list(INSTRUCTIONS)}, got {instruction!r}")
    parts = [INSTRUCTIONS[instruction]] if INSTRUCTIONS[instruction] else []
    if examples is not None:
        parts += [
            format_item(e["sentence1"], e["sentence2"], e["condition"], e["label"], layout=layout)
            for _, e in examples.iterrows()
        ]
    parts.append(format_item(query["sentence1"], query["sentence2"], query["condition"], layout=layout))
    return ("\n" if layout == "oneline" else "\n\n").join(parts)


def build_prompts(
    queries: pd.DataFrame,
    pool: pd.DataFrame,
    *,
    k: int = 0,
    instruction: str = "short",
    layout: str = "oneline",
    resample: str = "per-query",
    seed: int = 0,
) -> list[str]:
    """One prompt per query row; examples come from ``pool`` (never from the queries), drawn
    afresh per query (``per-query``) or once (``fixed``) with ``default_rng(seed)``."""
    if resample not in ("per-query", "fixed"):
        raise ValueError(f"resample must be 'per-query' or 'fixed', got {resample!r}")
    rng = np.random.default_rng(seed)
    fixed = pick_examples(pool, k, rng=rng) if resample == "fixed" else None
    return [
        build_prompt(
            q,
            instruction=instruction,
            layout=layout,
            examples=fixed if fixed is not None else pick_examples(pool, k, rng=rng),
        )
        for _, q in queries.iterrows()
    ]


_NON_NUMERIC = re.compile(r"[^0-9.]")
_FIRST_NUMBER = re.compile(r"\d+\.\d+|\d+")


def parse_answer(text: str, *, rule: str = "official") -> float:
    """The number in a generated answer, NaN when there is none (the answer is *invalid*).

    ``rule="official"``: the first number (digits with an optional decimal part), as the
    authors' code; a sign is not read (``-2`` → 2). ``rule="paper-text"``: keep digits and dots
    only, strip dots at both ends, cast (``"4 out of 5"`` → 45.0, ``"0..0"`` invalid).

    >>> parse_answer("4 out of 5"), parse_answer("4 out of 5", rule="paper-text")
    (4.0, 45.0)
    """
    text = str(text)
    if rule == "official":
        m = _FIRST_NUMBER.search(text)
        return float(m.group(0)) if m else float("nan")
    if rule == "paper-text":
        kept = _NON_NUMERIC.sub("", text).strip(".")
        try:
            return float(kept)
        except ValueError:
            return float("nan")
    raise ValueError(f"rule must be one of {PARSERS}, got {rule!r}")


def parse_answers(
    texts: Sequence[str], *, rule: str = "official", seed: int = 0, low: float = 1.0, high: float = 5.0
) -> dict:
    """Parse every answer; replace invalid ones by draws from U[low, high] (seeded).

    Returns ``pred`` (no NaN), ``parsed`` (NaN where invalid), ``invalid`` (mask),
    ``invalid_rate`` and ``out_of_range_rate`` (percent of all answers).
    """
    parsed = np.array([parse_answer(t, rule=rule) for t in texts], dtype=float)
    invalid = np.isnan(parsed)
    pred = parsed.copy()
    pred[invalid] = np.random.default_rng(seed).uniform(low, high, size=int(invalid.sum()))
    n = max(len(parsed), 1)
    out = (~invalid) & ((parsed < low) | (parsed > high))
    return {
        "pred": pred,
        "parsed": parsed,
        "invalid": invalid,
        "invalid_rate": 100.0 * float(invalid.sum()) / n if len(parsed) else float("nan"),
        "out_of_range_rate": 100.0 * float(out.sum()) / n if len(parsed) else float("nan"),
    }


def run_prompting(
    queries: pd.DataFrame,
    pool: pd.DataFrame,
    generate: Callable[[list[str]], list[str]],
    *,
    instruction: str = "short",
    k: int = 0,
    seed: int = 0,
    rule: str = "official",
    layout: str = "oneline",
    resample: str = "per-query",
) -> tuple[dict, pd.DataFrame]:
    """Prompt ``generate`` (e.g. ``compsem.llm.make_generator("gen:hf:…", max_new_tokens=20)``)
    once per query row and score the parsed answers.

    Returns ``(metrics, outputs)``: metrics has ``invalid_rate``, ``out_of_range_rate``,
    ``spearman``, ``pearson`` (×100) and ``n``; outputs one row per query with prompt, answer,
    parsed value, invalid flag, the prediction used and the label.
    """
    prompts = build_prompts(queries, pool, k=k, instruction=instruction, layout=layout, resample=resample, seed=seed)
    answers = list(generate(prompts))
    if len(answers) != len(prompts):
        raise ValueError(f"the generator returned {len(answers)} answers for {len(prompts)} prompts")
    parsed = parse_answers(answers, rule=rule, seed=seed)
    corr = metrics.correlations(parsed["pred"], queries["label"].to_numpy())
    result = {
        "instruction": instruction,
        "k": k,
        "seed": seed,
        "parser": rule,
        "invalid_rate": parsed["invalid_rate"],
        "out_of_range_rate": parsed["out_of_range_rate"],
        "spearman": corr["spearman"],
        "pearson": corr["pearson"],
        "n": len(prompts),
    }
    outputs = pd.DataFrame(
        {
            "prompt": prompts,
            "answer": answers,
            "parsed": parsed["parsed"],
            "invalid": parsed["invalid"],
            "pred": parsed["pred"],
            "label": queries["label"].to_numpy(),
        }
    )
    return result, outputs
