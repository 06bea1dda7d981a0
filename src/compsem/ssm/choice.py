"""The LLM multiple-choice scorer of Part IV (spec ``gen:hf:NAME`` or ``gen:openai:NAME``).

A text generator (:func:`compsem.llm.make_generator`) answers, for every ordered pair, the
four-option question of the paper's annotation (Section 2.2): cannot be inferred / low
probability / high probability / can be inferred, scored 0, 0.3, 0.7 and 1. The wording of the
question is the project's own.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..encoders import validate_texts
from ..progress import bar
from .data import unique_texts

__all__ = ["OPTIONS", "choice_prompt", "parse_choice", "LLMChoice"]

#: the four answer options (letter -> (wording, score)), the scale of the paper's Section 2.2
OPTIONS = {
    "A": ("it cannot be inferred", 0.0),
    "B": ("it can be inferred, but only with low probability", 0.3),
    "C": ("it can be inferred with high probability", 0.7),
    "D": ("it can be inferred", 1.0),
}

_LETTER = re.compile(r"\b([ABCD])\b")


def choice_prompt(premise: str, hypothesis: str) -> str:
    """The project's wording of the four-option question for one ordered pair."""
    opts = "\n".join(f"{k}. {v[0]}" for k, v in OPTIONS.items())
    return (
        "Read two sentences and decide whether the second follows from the first.\n"
        f"First sentence: {premise}\nSecond sentence: {hypothesis}\n"
        f"Options:\n{opts}\nAnswer with a single letter (A, B, C or D).\nAnswer:"
    )


def parse_choice(answer: str) -> float:
    """Score of the first stand-alone option letter in a generated answer; NaN if none."""
    m = _LETTER.search(answer or "")
    return OPTIONS[m.group(1)][1] if m else float("nan")


@dataclass
class LLMChoice:
    """Ask ``generator`` (a callable: list of prompts -> list of answers, e.g. from
    :func:`compsem.llm.make_generator`) the four-option question for every ordered pair.
    Unparseable answers become NaN and are counted."""

    generator: Callable[[list[str]], list[str]]
    model_name: str = "generator"
    batch_size: int = 16
    symmetric: bool = False

    @property
    def name(self) -> str:
        return self.model_name

    @property
    def identity(self) -> str:
        h = hashlib.sha256(choice_prompt("{p}", "{h}").encode()).hexdigest()[:8]
        gen = getattr(self.generator, "name", self.model_name)
        return f"choice:{gen}:prompt={h}"

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        """R (N, N) from the parsed answers; NaN where an answer names no option."""
        uniq, inv = unique_texts(validate_texts(texts))
        n = len(uniq)
        I, J = np.divmod(np.arange(n * n), n)
        prompts = [choice_prompt(uniq[i], uniq[j]) for i, j in zip(I, J)]
        answers: list[str] = []
        for s in bar(range(0, len(prompts), self.batch_size), show=progress, desc=f"LLM pairs ({self.model_name})"):
            batch = prompts[s : s + self.batch_size]
            got = list(self.generator(batch))
            if len(got) != len(batch):
                raise ValueError(f"generator returned {len(got)} answers for {len(batch)} prompts")
            answers.extend(got)
        R = np.array([parse_choice(a) for a in answers]).reshape(n, n)
        n_bad = int(np.isnan(R).sum())
        if n_bad:
            warnings.warn(f"{n_bad} of {R.size} answers named no option A-D: NaN", RuntimeWarning, stacklevel=2)
        return R[np.ix_(inv, inv)]
