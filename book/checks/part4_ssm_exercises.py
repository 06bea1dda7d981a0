"""Checks of book/part4_ssm_exercises.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.claimcheck`): the solutions' sentences about which metrics react, recomputed
with compsem.ssm on the worked example's matrices (``book/part4_ssm_worked.md``)."""

import numpy as np

from compsem import claims
from compsem.ssm import metrics as ssm

PAGE = "book/part4_ssm_exercises.md"
R = np.array([[1.0, 0.9, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])
R_REF = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
CATS = np.array([["identical", "inferential", "irrelevant"], ["inferential_reversed", "identical", "irrelevant"],
                 ["irrelevant", "irrelevant", "identical"]])


def metrics(R_):
    D, D_ref = ssm.distances(R_), ssm.distances(R_REF)
    return {"relatedness sparsity": ssm.sparsity(D["rel"]), "discrepancy sparsity": ssm.sparsity(D["dis"]),
            "RSA relatedness": ssm.rsa(D["rel"], D_ref["rel"]), "RSA discrepancy": ssm.rsa(D["dis"], D_ref["dis"]),
            "accuracy on the reversed pair": ssm.entailment_accuracy(R_, R_REF, CATS)["inferential_reversed"][0]}


def check(executed=None):
    R2 = R.copy()
    R2[1, 0] = 0.6                                  # exercise 2: the reverse inference believed too
    before, after = metrics(R), metrics(R2)
    numbers = {f"{k}: before, after": f"{before[k]:.3f}, {after[k]:.3f}" for k in before}
    moved = {k for k in before if abs(after[k] - before[k]) > 1e-9}
    claims.check("Every metric but RSA in the discrepancy space reacts.", page=PAGE, numbers=numbers,
                 holds=moved == set(before) - {"RSA discrepancy"}, rule="every metric but the discrepancy RSA changes")
    claims.check("the discrepancy sparsity halves", page=PAGE, numbers=numbers,
                 holds=round(after["discrepancy sparsity"] / before["discrepancy sparsity"], 6) == 0.5,
                 rule="after / before = 1/2")
