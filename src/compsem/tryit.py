"""Every criterion of every study, for sentences a reader types in.

Each function takes the reader's texts and a list of model specs and returns a tidy table,
computed by the same functions the chapters use. One :func:`compsem.embed` call per model and
study embeds every text once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from . import measures as M
from .cache import embed
from .encoders import validate_texts

__all__ = ["set_operators", "conditional_similarity", "adjective_noun", "sentence_space"]


def _verdict(x: float) -> str:
    return "undefined" if not np.isfinite(x) else ("holds" if x else "fails")


def set_operators(a: str, b: str, overlap: str, difference: str, union: str, models: Sequence[str]) -> pd.DataFrame:
    """Part I criteria at ε = 0 (cosine) for one A, B and a candidate O, D and U.

    Columns: model, criterion, value (the margin or position), verdict.
    """
    from .setcomp.metrics import criterion_deltas

    texts = validate_texts([a, b, overlap, difference, union])
    rows = []
    for m in models:
        A, B, O, D, U = (x[None] for x in embed(texts, m).astype(np.float64))
        dO = criterion_deltas(A, B, O, "overlap", "cos")
        dD = criterion_deltas(A, B, D, "difference", "cos")
        gO, gD, gU = (M.plane_geometry(A, B, X, warn=False) for X in (O, D, U))
        ratio = float(M.norm_ratio(A, B, warn=False)[0])
        checks = [
            ("C1 Δ1 = cos(A,O) − cos(A,B)", dO["d1"][0], dO["d1"][0] >= 0),
            ("C1 Δ2 = cos(B,O) − cos(A,B)", dO["d2"][0], dO["d2"][0] >= 0),
            ("C2 position t of O (0 = A, 1 = B)", gO.t[0], 0 <= gO.t[0] <= 1),
            ("C3 Δ1 = cos(A,D) − cos(B,D)", dD["d1"][0], dD["d1"][0] >= 0),
            ("C3 Δ2 = cos(A,B) − cos(B,D)", dD["d2"][0], dD["d2"][0] >= 0),
            ("C4 Δ3 = cos(A−B, D) − cos(A−B, B)", dD["d3"][0], dD["d3"][0] >= 0),
            ("C5 position t of D (near A: |t| ≤ 0.25)", gD.t[0], abs(gD.t[0]) <= 0.25),
            ("C6 position t of U (between: 0 ≤ t ≤ 1)", gU.t[0], 0 <= gU.t[0] <= 1),
            ("C6 norm ratio |A|/|B|", ratio, np.nan),
        ]
        for name, value, ok in checks:
            ok = float(ok) if np.isfinite(value) and not (isinstance(ok, float) and np.isnan(ok)) else np.nan
            rows.append({"model": m, "criterion": name, "value": float(value),
                         "verdict": "" if name.startswith("C6 norm") else _verdict(ok)})
    return pd.DataFrame(rows)


def conditional_similarity(sentence1: str, sentence2: str, condition_high: str, condition_low: str,
                           models: Sequence[str]) -> pd.DataFrame:
    """Part II zero-shot: cosine of the two sentences with each condition attached."""
    from .csts.zeroshot import zero_shot_scores

    validate_texts([sentence1, sentence2, condition_high, condition_low])
    df = pd.DataFrame({"sentence1": [sentence1] * 2, "sentence2": [sentence2] * 2,
                       "condition": [condition_high, condition_low]})
    rows = []
    for m in models:
        s = zero_shot_scores(df, m)
        hi, lo = float(s["attached"].iloc[0]), float(s["attached"].iloc[1])
        rows.append({"model": m, "cos, condition ignored": float(s["ignored"].iloc[0]),
                     "cos with C-High": hi, "cos with C-Low": lo,
                     "C-High above C-Low": "undefined" if not np.isfinite(hi - lo) else ("yes" if hi > lo else "no")})
    return pd.DataFrame(rows)


def adjective_noun(adjectives: Sequence[str], nouns: Sequence[str], models: Sequence[str]) -> pd.DataFrame:
    """Part III tests on the reader's adjectives and nouns (cosine distance).

    For each adjective a and noun n: single-phrase intersectivity of "a n" (Eq. 3) and
    non-subsectivity (Eq. 7). With at least two adjectives and two nouns, the pair test (Eq. 5)
    for every ordered adjective pair (a1, a2), as the share of noun pairs (n1, n2) for which
    ``d(a1 n1, a1 n2) <= d(a2 n1, a2 n2)``. (Loops run over the reader's few words only.)
    """
    from .montague import join_phrase, non_subsectivity, single_intersectivity

    adjectives, nouns = validate_texts(adjectives), validate_texts(nouns)
    if not adjectives or not nouns:
        raise ValueError("give at least one adjective and one noun")
    words = list(adjectives) + list(nouns)
    phrases = [join_phrase(a, n) for a in adjectives for n in nouns]
    A, N = len(adjectives), len(nouns)
    rows = []
    for m in models:
        E = embed(words + phrases, m).astype(np.float64)
        W, P = E[:len(words)], E[len(words):]
        d_ww = M.cosine_distance_matrix(W, warn=False)
        d_pw = M.cosine_distance_matrix(P, W, warn=False)
        a_idx, n_idx = np.divmod(np.arange(A * N), N)
        single = single_intersectivity(d_pw, d_ww, np.stack([a_idx, A + n_idx], axis=1))
        nonsub = non_subsectivity(d_pw[np.arange(A * N), a_idx], d_pw[np.arange(A * N), A + n_idx])
        for k, phrase in enumerate(phrases):
            rows.append({"model": m, "phrase": phrase, "test": "single-phrase intersectivity (Eq. 3)",
                         "verdict": _verdict(single[k])})
            rows.append({"model": m, "phrase": phrase, "test": "closer to adjective than noun (Eq. 7)",
                         "verdict": _verdict(nonsub[k])})
        if A >= 2 and N >= 2:
            # Eq. 5 per ordered adjective pair, as the share of noun pairs (n1 != n2). Summed over
            # both orders of a pair the shares add to 1 (ties aside), so only the split is informative.
            D = M.cosine_distance_matrix(P, warn=False).reshape(A, N, A, N)
            within = D[np.arange(A), :, np.arange(A), :]                  # (A, N, N): d(a n1, a n2)
            off = ~np.eye(N, dtype=bool)
            for i in range(A):
                for j in range(A):
                    if i != j:
                        holds = within[i][off] <= within[j][off] + 1e-9
                        rows.append({"model": m, "phrase": f"{adjectives[i]} vs {adjectives[j]}",
                                     "test": "pair test (Eq. 5): share of noun pairs that hold",
                                     "verdict": f"{100 * holds.mean():.0f} %"})
    return pd.DataFrame(rows)


def sentence_space(premise: str, hypotheses: Sequence[str], models: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Part IV on a tiny pool (premise + hypotheses): the score matrix R of the offline lexical
    scorer and each model's cosine, with the relatedness and discrepancy distances."""
    from .ssm.metrics import distances
    from .ssm.scorers import get_scorer

    texts = validate_texts([premise, *hypotheses])
    labels = ["P"] + [f"H{i + 1}" for i in range(len(hypotheses))]
    out = {}
    for spec in ["lexical", *models]:
        scorer = get_scorer(spec)
        R = np.asarray(scorer.score(texts, progress=False), dtype=float)
        D = distances(R, symmetric=bool(scorer.symmetric))
        out[spec] = {"R": pd.DataFrame(R, index=labels, columns=labels)}
        out[spec].update({f"D_{k}": pd.DataFrame(v, index=labels, columns=labels) for k, v in D.items()})
    return out
