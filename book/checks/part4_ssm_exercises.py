"""Checks of book/part4_ssm_exercises.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`): the solutions' sentences about which metrics react, recomputed
with compsem.ssm on the worked example's matrices (``book/part4_ssm_worked.md``)."""

import numpy as np

from compsem import claims
from compsem.results import load_table
from compsem.ssm import metrics as ssm

PAGE = "book/part4_ssm_exercises.md"
R = np.array([[1.0, 0.9, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])
R_REF = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
CATS = np.array(
    [
        ["identical", "inferential", "irrelevant"],
        ["inferential_reversed", "identical", "irrelevant"],
        ["irrelevant", "irrelevant", "identical"],
    ]
)


def metrics(R_):
    D, D_ref = ssm.distances(R_), ssm.distances(R_REF)
    return {
        "relatedness sparsity": ssm.sparsity(D["rel"]),
        "discrepancy sparsity": ssm.sparsity(D["dis"]),
        "RSA relatedness": ssm.rsa(D["rel"], D_ref["rel"]),
        "RSA discrepancy": ssm.rsa(D["dis"], D_ref["dis"]),
        "accuracy on the reversed pair": ssm.entailment_accuracy(R_, R_REF, CATS)["inferential_reversed"][0],
    }


def denser_glove():
    """Exercise 4's answer: glove-50d's relatedness space is denser (a larger sparsity) than
    sbert-mini's, in chapter 42's table."""
    t = load_table("ssm", "ssm_metrics")
    rel = t[t["space"] == "rel"].set_index("scorer")["sparsity"]
    claims.check(
        "expect its sparsity_rel to be larger than sbert-mini's: glove-50d has the denser relatedness space",
        page=PAGE,
        holds=rel["glove-50d"] > rel["sbert-mini"],
        numbers={
            "glove-50d relatedness sparsity": round(float(rel["glove-50d"]), 3),
            "sbert-mini relatedness sparsity": round(float(rel["sbert-mini"]), 3),
        },
        rule="a larger sparsity value is a denser space",
    )


def check(executed=None):
    R2 = R.copy()
    R2[1, 0] = 0.6  # exercise 2: the reverse inference believed too
    before, after = metrics(R), metrics(R2)
    numbers = {f"{k}: before, after": f"{before[k]:.3f}, {after[k]:.3f}" for k in before}
    moved = {k for k in before if abs(after[k] - before[k]) > 1e-9}
    claims.check(
        "Every metric but RSA in the discrepancy space reacts.",
        page=PAGE,
        numbers=numbers,
        holds=moved == set(before) - {"RSA discrepancy"},
        rule="every metric but the discrepancy RSA changes",
    )
    claims.check(
        "the discrepancy sparsity halves",
        page=PAGE,
        numbers=numbers,
        holds=round(after["discrepancy sparsity"] / before["discrepancy sparsity"], 6) == 0.5,
        rule="after / before = 1/2",
    )
    denser_glove()


NOT_CLAIMS = {
    "The first two exercises": "the page's plan",
    "The last two rerun": "the page's plan",
    "higher than before (0.982)": "worked by hand on the page (tests/teaching/test_ssm.py)",
    "with three sentences there is only one related pair, and it is still the closest one": "worked by hand on the page",
    "Consider two degenerate scorers": "the exercise's setup",
    "the cosine of two sentence embeddings": "a definition",
    "with only two embedding encoders": "an instruction",
    "which has the denser relatedness space": "a question",
    "compare its two spaces": "an instruction",
    "a larger value means a denser, less sparse space": "how to read the metric",
    "for almost any two sentences": "what averaged word vectors do",
    "If the intervals of two scorers overlap": "how to read intervals",
    "the two inferential accuracies add up to exactly 1": "a consequence of the definitions",
    "sparser or denser than the lexical baseline's": "an instruction",
    "picks the three basis sentences": "the parameter's definition",
    "None of the metrics depends on either seed": "the metrics' definitions take no seed",
}
