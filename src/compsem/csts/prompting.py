"""Prompting baselines for C-STS: prompt builder, answer parser, generator backends.

A prompt has up to three parts (the layout follows the paper's Figures 5–6; the instruction
*wording* below is the project's own paraphrase, not the paper's text):

1. an instruction: none, a short one, or a long one that spells out what each score 1–5 means;
2. ``k`` in-context examples (k ∈ {0, 2, 4}), always both conditions of one sentence pair
   next to each other, so the model sees a contrasting pair;
3. the query, ending in ``Output:``.

The answer (at most 20 generated tokens) is parsed as in the paper's appendix: characters that
are not digits or a decimal point are dropped, stray dots at the ends are stripped, and the
rest is cast to float. A failed cast marks the answer *invalid*; it is replaced by a draw from
U[1, 5] with a seeded generator, and the invalid rate is reported.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "INSTRUCTIONS",
    "SHOTS",
    "MAX_NEW_TOKENS",
    "format_item",
    "pick_examples",
    "build_prompt",
    "parse_answer",
    "parse_answers",
    "run_prompting",
    "HFGenerator",
    "OpenAIGenerator",
    "make_generator",
]

MAX_NEW_TOKENS = 20
SHOTS = (0, 2, 4)

# Paraphrased (project wording). Structure as in the paper's Figures 5 (short) and 6 (long).
INSTRUCTIONS = {
    "none": "",
    "short": (
        "Using a scale from 1 to 5, rate how alike the two sentences below are with regard to "
        "the given condition. Answer with the score only, a number from 1 to 5."
    ),
    "long": (
        "Task: judge how similar the two sentences are, looking only at the aspect named by the "
        "condition, and give the pair a score from 1 to 5:\n"
        "1 : regarding the condition, the sentences have nothing in common.\n"
        "2 : regarding the condition, the sentences differ, although they touch on a related topic.\n"
        "3 : regarding the condition, the sentences broadly agree, but some important information "
        "is different or absent.\n"
        "4 : regarding the condition, the sentences nearly agree; only minor details differ.\n"
        "5 : regarding the condition, the sentences say the same thing."
    ),
}


def format_item(sentence1: str, sentence2: str, condition: str, label: float | None = None) -> str:
    """One ``Input: … Output:`` block; with a label it is an in-context example."""
    out = f"Input:\nSentence 1: {sentence1}\nSentence 2: {sentence2}\nCondition: {condition}\nOutput:"
    if label is not None:
        out += f" {float(label):.1f}"
    return out


def pick_examples(pool: pd.DataFrame, k: int, *, seed: int, exclude_pairs: Sequence[str] = ()) -> pd.DataFrame:
    """``k`` in-context examples = ``k / 2`` sentence pairs from ``pool``, each as its C-High row
    followed by its C-Low row. ``pool`` needs ``pair_id`` and ``role`` (see ``load_csts``)."""
    if k not in SHOTS and (k < 0 or k % 2):
        raise ValueError(f"k must be an even number of examples (the paper uses {SHOTS}), got {k}")
    if k == 0:
        return pool.iloc[:0]
    paired = pool[pool["role"].isin(["high", "low"]) & ~pool["pair_id"].isin(list(exclude_pairs))]
    ids = np.unique(paired["pair_id"].astype(str))
    if len(ids) < k // 2:
        raise ValueError(f"need {k // 2} complete sentence pairs for k={k}, the pool has {len(ids)}")
    chosen = np.random.default_rng(seed).choice(ids, size=k // 2, replace=False)
    rows = []
    for pid in chosen:
        grp = paired[paired["pair_id"] == pid]
        rows.append(grp[grp["role"] == "high"])
        rows.append(grp[grp["role"] == "low"])
    return pd.concat(rows, ignore_index=True)


def build_prompt(query, *, instruction: str = "short", examples: pd.DataFrame | None = None) -> str:
    """Instruction + examples + query. ``query`` is a mapping/row with sentence1, sentence2,
    condition; ``instruction`` one of ``none``, ``short``, ``long``."""
    if instruction not in INSTRUCTIONS:
        raise ValueError(f"instruction must be one of {list(INSTRUCTIONS)}, got {instruction!r}")
    parts = []
    if INSTRUCTIONS[instruction]:
        parts.append(INSTRUCTIONS[instruction])
    if examples is not None:
        for _, ex in examples.iterrows():
            parts.append(format_item(ex["sentence1"], ex["sentence2"], ex["condition"], ex["label"]))
    parts.append(format_item(query["sentence1"], query["sentence2"], query["condition"]))
    return "\n\n".join(parts)


_NON_NUMERIC = re.compile(r"[^0-9.]")


def parse_answer(text: str) -> float:
    """The paper's parser: drop everything but digits and '.', strip dots at both ends, cast.

    Returns NaN when the cast fails (the answer is *invalid*). Note that the rule is literal:
    ``"4 out of 5"`` becomes ``45.0`` (valid, out of range), ``"0..0"`` is invalid.

    >>> parse_answer("The answer is 2.0.")
    2.0
    """
    kept = _NON_NUMERIC.sub("", str(text)).strip(".")
    try:
        return float(kept)
    except ValueError:
        return float("nan")


def parse_answers(texts: Sequence[str], *, seed: int = 0) -> dict:
    """Parse every answer; replace invalid ones by draws from U[1, 5] (seeded).

    Returns ``pred`` (float array, no NaN), ``parsed`` (NaN where invalid), ``invalid``
    (bool mask) and ``invalid_rate`` (percent).
    """
    parsed = np.array([parse_answer(t) for t in texts], dtype=float)
    invalid = np.isnan(parsed)
    pred = parsed.copy()
    pred[invalid] = np.random.default_rng(seed).uniform(1.0, 5.0, size=int(invalid.sum()))
    rate = 100.0 * float(invalid.mean()) if len(parsed) else float("nan")
    return {"pred": pred, "parsed": parsed, "invalid": invalid, "invalid_rate": rate}


def run_prompting(
    queries: pd.DataFrame,
    pool: pd.DataFrame,
    generate: Callable[[list[str]], list[str]],
    *,
    instruction: str = "short",
    k: int = 0,
    seed: int = 0,
) -> tuple[dict, pd.DataFrame]:
    """Prompt ``generate`` once per query row and score the parsed answers.

    The ``k`` examples are drawn once (seeded) from ``pool``, never from the query set.
    Returns ``(metrics, outputs)`` where metrics has ``invalid_rate``, ``spearman``,
    ``pearson`` (×100) and ``n``; outputs has one row per query with prompt, answer,
    parsed value, invalid flag and the prediction used.
    """
    from .training import correlations

    ex = pick_examples(pool, k, seed=seed)
    prompts = [build_prompt(r, instruction=instruction, examples=ex) for _, r in queries.iterrows()]
    answers = list(generate(prompts))
    if len(answers) != len(prompts):
        raise ValueError(f"the generator returned {len(answers)} answers for {len(prompts)} prompts")
    parsed = parse_answers(answers, seed=seed)
    corr = correlations(parsed["pred"], queries["label"].to_numpy())
    metrics = {
        "instruction": instruction,
        "k": k,
        "seed": seed,
        "invalid_rate": parsed["invalid_rate"],
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
    return metrics, outputs


# ---------------------------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------------------------
class HFGenerator:
    """Greedy generation with a local Hugging Face seq2seq (T5-like) or causal (GPT-like) model.

    Returns only the newly generated text, at most ``max_new_tokens`` tokens per prompt.
    """

    def __init__(self, name: str, *, max_new_tokens: int = MAX_NEW_TOKENS, batch_size: int = 8, device: str | None = None):
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        path = name[3:] if name.startswith("hf:") else name
        cfg = AutoConfig.from_pretrained(path)
        self.seq2seq = bool(getattr(cfg, "is_encoder_decoder", False))
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        cls = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = cls.from_pretrained(path).to(self.device).eval()
        if not self.seq2seq:
            self.tokenizer.padding_side = "left"
            if self.tokenizer.pad_token is None:
                self.tokenizer.pad_token = self.tokenizer.eos_token
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.name = name

    def __call__(self, prompts: list[str]) -> list[str]:
        import torch

        out: list[str] = []
        for i in range(0, len(prompts), self.batch_size):
            batch = self.tokenizer(list(prompts[i : i + self.batch_size]), return_tensors="pt", padding=True).to(self.device)
            with torch.no_grad():
                gen = self.model.generate(
                    **batch,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            if not self.seq2seq:
                gen = gen[:, batch["input_ids"].shape[1] :]
            out.extend(self.tokenizer.batch_decode(gen, skip_special_tokens=True))
        return out


@dataclass
class OpenAIGenerator:
    """An OpenAI-compatible chat-completions endpoint, called with ``urllib``.

    ``base_url`` defaults to ``$OPENAI_BASE_URL`` or ``https://api.openai.com/v1``; the key to
    ``$OPENAI_API_KEY`` (may be empty for local servers). Temperature 0, ``max_tokens`` 20.
    """

    model: str
    base_url: str | None = None
    api_key: str | None = None
    max_tokens: int = MAX_NEW_TOKENS
    timeout: float = 60.0

    def _post(self, payload: dict) -> dict:
        base = (self.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")
        key = self.api_key if self.api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        req = urllib.request.Request(
            f"{base}/chat/completions",
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})},
        )
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return json.loads(resp.read().decode())

    def __call__(self, prompts: list[str]) -> list[str]:
        out = []
        for p in prompts:
            body = self._post(
                {
                    "model": self.model,
                    "messages": [{"role": "user", "content": p}],
                    "max_tokens": self.max_tokens,
                    "temperature": 0,
                }
            )
            out.append(body["choices"][0]["message"]["content"] or "")
        return out


def make_generator(spec: str | None):
    """``None`` → ``None`` (no experiment); ``hf:<name or path>`` → :class:`HFGenerator`;
    ``openai:<model>`` (base URL from ``$OPENAI_BASE_URL``) → :class:`OpenAIGenerator`."""
    if spec is None or spec == "":
        return None
    if spec.startswith("hf:"):
        return HFGenerator(spec)
    if spec.startswith("openai:"):
        return OpenAIGenerator(spec[len("openai:") :])
    raise ValueError(f"generator spec must be 'hf:<model>' or 'openai:<model>', got {spec!r}")
