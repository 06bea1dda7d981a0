"""The LLM multiple-choice scorer of Part IV with a fake generator, and through
``compsem.llm.make_generator`` on a tiny local causal LM."""

from __future__ import annotations

import numpy as np
import pytest

from compsem.ssm.choice import OPTIONS, LLMChoice, choice_prompt, parse_choice


def test_llm_harness_with_a_fake_generator():
    texts = ["s0 text", "s1 text", "s2 text"]
    answers = {(0, 1): "D", (1, 0): " C. high", (0, 2): "B", (2, 0): "nonsense", (1, 2): "A", (2, 1): "Answer: C"}
    prompts_seen = []

    def fake(prompts):
        prompts_seen.extend(prompts)
        out = []
        for p in prompts:
            i = next(k for k in range(3) if f"First sentence: {texts[k]}\n" in p)
            j = next(k for k in range(3) if f"Second sentence: {texts[k]}\n" in p)
            out.append("D" if i == j else answers[(i, j)])
        return out

    with pytest.warns(RuntimeWarning, match="1 of 9"):
        R = LLMChoice(fake, batch_size=4).score(texts, progress=False)
    expected = np.array([[1, 1, 0.3], [0.7, 1, 0], [np.nan, 0.7, 1]])
    np.testing.assert_allclose(R, expected)
    assert len(prompts_seen) == 9 and all("A." in p and "D." in p for p in prompts_seen)
    assert "First sentence: x" in choice_prompt("x", "y")


def test_parse_choice_reads_the_first_standalone_capital_letter():
    assert [parse_choice(a) for a in ("D", "Answer: B", "(C)", "A or D")] == [1.0, 0.3, 0.7, 0.0]
    for unparsed in ("maybe", "", "BAD", "b) lower case"):
        assert np.isnan(parse_choice(unparsed))
    assert [OPTIONS[k][1] for k in "ABCD"] == [0.0, 0.3, 0.7, 1.0]


def test_llm_generator_returning_wrong_count_is_an_error():
    with pytest.raises(ValueError, match="answers for"):
        LLMChoice(lambda ps: ["A"], batch_size=4).score(["a b", "c d"], progress=False)


def test_identity_names_the_generator_and_the_prompt():
    class Gen:
        name = "gen:hf:x|greedy|max_new=4"

        def __call__(self, prompts):
            return ["A"] * len(prompts)

    ident = LLMChoice(Gen(), model_name="gen:hf:x").identity
    assert ident.startswith("choice:gen:hf:x|greedy|max_new=4:prompt=")
