"""Part III's report: its headlines in the cross-study synthesis and the try-it table."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import measures as M
from ..cache import embed
from ..encoders import validate_texts
from ..results import Headline, bootstrap_headline, headline_row
from . import join_phrase, load_vocabulary, non_subsectivity, run_models, single_intersectivity

__all__ = ["HEADLINES", "headlines", "try_it"]

#: Part III's headline criteria in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline("AAN", "III", "AAN single-phrase intersectivity", "share", float("nan"), "adjectives",
             "d(phrase, each word) ≤ every word–word distance (Eq. 3)"),
    Headline("PAIR", "III", "pair test, intersective vs privative", "share", 0.5, "adjectives",
             "Eq. 5 with an intersective a1 and a privative a2; theory expects > 0.5"),
    Headline("NSGAP", "III", "non-subsectivity gap (NS − S)", "difference", 0.0, "adjectives",
             "Eq. 7 holds more often for non-subsective than subsective adjectives; theory expects > 0"),
)
_H = {h.key: h for h in HEADLINES}


def _per_adjective(x: np.ndarray, axis_keep: int = 0) -> np.ndarray:
    """Mean over every axis but ``axis_keep`` (NaN ignored; an all-NaN adjective stays NaN)."""
    axes = tuple(i for i in range(x.ndim) if i != axis_keep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axes) if axes else x


def _gap_boot(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int):
    """mean(a) − mean(b) with adjectives resampled within each group."""
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    rng = np.random.default_rng(seed)
    est = float(a.mean() - b.mean())
    draws = rng.choice(a, (n_boot, a.size)).mean(1) - rng.choice(b, (n_boot, b.size)).mean(1)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return est, float(lo), float(hi), int(a.size + b.size)


def headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """AAN intersectivity, intersective-vs-privative pair consistency, non-subsectivity gap."""
    vocab = load_vocabulary()
    cats = np.asarray(vocab.categories)
    results = run_models(list(models), vocab=vocab, progress=False)
    rows = []
    for m, r in results.items():
        rows.append(bootstrap_headline(_H["AAN"], m, _per_adjective(r.single_aan, 0), n_boot=n_boot, seed=seed))
        si, pr = cats == "S-I", cats == "NS-Pr"
        block = r.pairs[np.ix_(si, pr)]                     # (a1 in S-I, a2 in NS-Pr, n1, n2)
        valid = ~np.isnan(block)
        tie_share = float(r.pair_ties[np.ix_(si, pr)][valid].mean()) if valid.any() else float("nan")
        rows.append(bootstrap_headline(_H["PAIR"], m, _per_adjective(block, 0), n_boot=n_boot, seed=seed,
                                       ties=tie_share))
        ni = _per_adjective(r.nonsub, 0)
        ns = np.isin(cats, ["NS-Pl", "NS-Pr"])
        s = np.isin(cats, ["S-I", "S-NI"])
        rows.append(headline_row(_H["NSGAP"], m, *_gap_boot(ni[ns], ni[s], n_boot, seed)))
    return rows


def _verdict(x: float) -> str:
    return "undefined" if not np.isfinite(x) else ("holds" if x else "fails")


def try_it(adjectives: Sequence[str], nouns: Sequence[str], models: Sequence[str]) -> pd.DataFrame:
    """Part III tests on the reader's adjectives and nouns (cosine distance).

    For each adjective a and noun n: single-phrase intersectivity of "a n" (Eq. 3) and
    non-subsectivity (Eq. 7). With at least two adjectives and two nouns, the pair test (Eq. 5)
    for every ordered adjective pair (a1, a2), as the share of noun pairs (n1, n2) for which
    ``d(a1 n1, a1 n2) <= d(a2 n1, a2 n2)``. (Loops run over the reader's few words only.)
    """
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
