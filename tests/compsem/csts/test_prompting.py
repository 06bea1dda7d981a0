"""Prompting: both answer parsers on the code's own edge cases, prompt layouts, examples."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from compsem.csts import data as cd
from compsem.csts import prompting as cp


def first_number(text):
    """An independent reading of the code's rule: scan for the first run of digits, then take
    '.digits' after it if there are any."""
    for i, ch in enumerate(text):
        if ch.isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            if j + 1 < len(text) and text[j] == "." and text[j + 1].isdigit():
                j += 1
                while j < len(text) and text[j].isdigit():
                    j += 1
            return float(text[i:j])
    return float("nan")


@pytest.mark.parametrize(
    "text, official, paper",
    [
        ("4.0", 4.0, 4.0),
        ("The answer is 2.0.", 2.0, 2.0),
        (" 3 ", 3.0, 3.0),
        ("4 out of 5", 4.0, 45.0),
        ("3.5/5", 3.5, 3.55),
        ("Score: 5/5", 5.0, 55.0),
        ("0..0", 0.0, None),  # the code reads the first 0; the literal rule fails
        ("-2", 2.0, 2.0),  # neither keeps the sign
        ("1.", 1.0, 1.0),
        (".5", 5.0, 5.0),  # both lose the leading dot
        ("no idea", None, None),
        ("", None, None),
        ("5. The sentences agree 100%", 5.0, 5.1),  # literal: "5.100"
    ],
)
def test_parsers(text, official, paper):
    for rule, want in (("official", official), ("paper-text", paper)):
        got = cp.parse_answer(text, rule=rule)
        assert math.isnan(got) if want is None else got == want, (rule, text, got)
    want = first_number(text)
    assert (math.isnan(want) and math.isnan(cp.parse_answer(text))) or cp.parse_answer(text) == want
    with pytest.raises(ValueError, match="rule"):
        cp.parse_answer("1", rule="nope")


def test_invalid_answers_replaced_by_seeded_uniform_and_out_of_range_counted():
    out = cp.parse_answers(["4.0", "blah", "7", "??"], seed=7)
    assert out["invalid"].tolist() == [False, True, False, True]
    assert out["invalid_rate"] == 50.0 and out["out_of_range_rate"] == 25.0
    draws = np.random.default_rng(7).uniform(1, 5, size=2)
    assert out["pred"][[1, 3]].tolist() == pytest.approx(draws.tolist())
    assert out["pred"][[0, 2]].tolist() == [4.0, 7.0]


def test_oneline_layout_is_the_codes():
    q = {"sentence1": " s one ", "sentence2": "s two", "condition": "the thing"}
    assert (
        cp.format_item(q["sentence1"], q["sentence2"], q["condition"], 4)
        == "Input: Sentence 1: s one Sentence 2: s two Condition: the thing Output: 4.0"
    )
    p = cp.build_prompt(q, instruction="short")
    assert p.split("\n") == [
        cp.INSTRUCTIONS["short"],
        "Input: Sentence 1: s one Sentence 2: s two Condition: the thing Output:",
    ]


def test_examples_are_pairs_and_resampled_per_query(rows):
    pool = cd.assign_pairs(rows(6))
    ex = cp.pick_examples(pool, 4, rng=0)
    assert (
        len(ex) == 4
        and ex["pair_id"].iloc[0] == ex["pair_id"].iloc[1]
        and ex["pair_id"].iloc[2] == ex["pair_id"].iloc[3]
    )
    assert (ex["label"].to_numpy()[::2] > ex["label"].to_numpy()[1::2]).all()
    queries = cd.assign_pairs(rows(3))
    per = cp.build_prompts(queries, pool, k=2, seed=1)
    fixed = cp.build_prompts(queries, pool, k=2, seed=1, resample="fixed")
    ctx = lambda p: p.rsplit("\n", 1)[0]  # noqa: E731 - everything before the query line
    assert len({ctx(p) for p in fixed}) == 1
    assert len({ctx(p) for p in per}) > 1
    assert all(p.count("Input:") == 3 for p in per)


def test_blocks_layout_and_long_instruction(rows):
    pool = cd.assign_pairs(rows(4))
    ex = cp.pick_examples(pool, 2, rng=0)
    q = {"sentence1": "s one", "sentence2": "s two", "condition": "the thing"}
    p = cp.build_prompt(q, instruction="long", examples=ex, layout="blocks")
    assert p.startswith(cp.INSTRUCTIONS["long"]) and p.count("Input:\n") == 3 and p.endswith("Output:")
    with pytest.raises(ValueError):
        cp.build_prompt(q, instruction="medium")


def test_run_prompting_with_fake_generator(rows):
    df = cd.assign_pairs(rows(4))
    seen = []

    def fake(prompts):  # the true label (as "x out of 5") for even rows, junk for the others
        seen.extend(prompts)
        return [f"{lab:.0f} out of 5" if i % 2 == 0 else "hmm" for i, lab in enumerate(df["label"])]

    m, out = cp.run_prompting(df, df, fake, instruction="short", k=2, seed=1)
    assert m["invalid_rate"] == 50.0 and m["n"] == 8 and len(seen) == 8 and m["parser"] == "official"
    assert out["pred"].iloc[0] == df["label"].iloc[0]
    m2, _ = cp.run_prompting(df, df, fake, k=0, rule="paper-text")
    assert m2["out_of_range_rate"] == 50.0  # "5 out of 5" -> 55
    with pytest.raises(ValueError, match="returned"):
        cp.run_prompting(df, df, lambda ps: ["1"], k=0)
    assert re.search(r"Output: \d\.0\n", seen[0])
