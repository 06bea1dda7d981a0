"""The compositionality profile: one headline number per study and criterion, per model.

:func:`profile` runs each study's own code (``compsem.setcomp``, ``compsem.csts``,
``compsem.montague``, ``compsem.ssm``) on its shipped data for every model, so a reader's hub
model gets a full profile from the ``models`` parameter alone. Every number comes with a 95 %
bootstrap interval (resampling the unit named in :data:`CRITERIA`).

The headlines are chosen so that no number depends on which other models are in the run
(Part I uses ε = 0 rather than the pooled ε range) and so that each has a stated chance or
theory-predicted reference value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .stats import bootstrap

__all__ = ["CRITERIA", "Criterion", "profile", "profile_matrix", "setcomp_headlines", "csts_headlines",
           "montague_headlines", "ssm_headlines"]


@dataclass(frozen=True)
class Criterion:
    key: str
    part: str
    label: str
    unit: str
    reference: float      # chance level or the value that means "no effect"
    resampled: str        # what the bootstrap resamples
    meaning: str


CRITERIA: tuple[Criterion, ...] = (
    Criterion("C1", "I", "C1 overlap: both margins ≥ 0", "%", float("nan"), "overlap samples",
              "the overlap sentence is closer to each input than the inputs are to each other"),
    Criterion("C2", "I", "C2 overlap projects between A and B", "%", float("nan"), "overlap samples",
              "the overlap's shadow in plane(A, B) lies between the inputs"),
    Criterion("C3", "I", "C3 difference: both margins ≥ 0", "%", float("nan"), "difference samples",
              "the difference sentence is closer to A than to B, and A–B closer than B–D"),
    Criterion("C5", "I", "C5 difference projects near A", "%", float("nan"), "difference samples",
              "the difference's shadow lies within a quarter of angle(A, B) of A"),
    Criterion("C6", "I", "C6 union projects between A and B", "%", float("nan"), "union samples",
              "the union's shadow lies between the inputs"),
    Criterion("CSTS", "II", "C-STS zero-shot pair accuracy", "%", 50.0, "sentence pairs",
              "with the condition attached, the C-High row scores above the C-Low row"),
    Criterion("AAN", "III", "AAN single-phrase intersectivity", "share", float("nan"), "adjectives",
              "d(phrase, each word) ≤ every word–word distance (Eq. 3)"),
    Criterion("PAIR", "III", "pair test, intersective vs privative", "share", 0.5, "adjectives",
              "Eq. 5 with an intersective a1 and a privative a2; theory expects > 0.5"),
    Criterion("NSGAP", "III", "non-subsectivity gap (NS − S)", "difference", 0.0, "adjectives",
              "Eq. 7 holds more often for non-subsective than subsective adjectives; theory expects > 0"),
    Criterion("RSA", "IV", "RSA with the reference (relatedness)", "r", 0.0, "clusters",
              "Pearson r between the model's and the reference's distance matrices"),
)

_BY_KEY = {c.key: c for c in CRITERIA}


def _row(model: str, key: str, est: float, low: float, high: float, n: int, ties: float = float("nan")) -> dict:
    c = _BY_KEY[key]
    return {"model": model, "part": c.part, "criterion": key, "label": c.label, "value": est, "low": low,
            "high": high, "n": n, "unit": c.unit, "reference": c.reference, "ties": ties}


def _boot(values, n_boot: int, seed: int, scale: float = 1.0):
    r = bootstrap(np.asarray(values, dtype=float), n_boot=n_boot, seed=seed, warn=False)
    return r.estimate * scale, r.low * scale, r.high * scale, r.n


# ----------------------------------------------------------------------------- Part I


def setcomp_headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
                      filter_encoder: str = "sbert-mini") -> list[dict]:
    """C1, C2, C3, C5, C6 on the shipped quintuples (cosine, ε = 0; difference filter fixed)."""
    from .setcomp import load_source
    from .setcomp.dataset import build_operator_tables, difference_filter
    from .setcomp.metrics import criterion_deltas, embed_tables, geometry

    q = load_source("embedded")
    flt = difference_filter(q, encoders=filter_encoder)
    tables = build_operator_tables(q, difference_mask=flt.mask)
    emb = embed_tables(tables, list(models))
    rows = []
    for m, e in emb.items():
        for key, op in (("C1", "overlap"), ("C3", "difference")):
            d = criterion_deltas(e[op]["a"], e[op]["b"], e[op]["t"], op, "cos")
            both = np.where(np.isnan(d["d1"]) | np.isnan(d["d2"]), np.nan, (d["d1"] >= 0) & (d["d2"] >= 0))
            rows.append(_row(m, key, *_boot(both, n_boot, seed, 100)))
        geoms = geometry({m: e}, "overlap")[m], geometry({m: e}, "difference")[m], geometry({m: e}, "union")[m]
        for key, g, region in (("C2", geoms[0], "between"), ("C5", geoms[1], "near_a"), ("C6", geoms[2], "between")):
            t = np.where(g.degenerate, np.nan, g.t)
            with np.errstate(invalid="ignore"):
                hit = (t >= 0) & (t <= 1) if region == "between" else np.abs(t) <= 0.25
            rows.append(_row(m, key, *_boot(np.where(np.isnan(t), np.nan, hit), n_boot, seed, 100)))
    return rows


# ----------------------------------------------------------------------------- Part II


def csts_headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """Zero-shot pair accuracy on the whole embedded set with the condition attached."""
    from .csts import load_csts
    from .csts.training import pair_index
    from .csts.zeroshot import zero_shot_scores

    df, _ = load_csts("embedded")
    df = df.reset_index(drop=True)
    hi, lo = pair_index(df)
    rows = []
    for m in models:
        s = zero_shot_scores(df, m)["attached"].to_numpy()
        d = s[hi] - s[lo]
        outcome = np.where(np.isnan(d), np.nan, (d > 0) + 0.5 * (d == 0))
        rows.append(_row(m, "CSTS", *_boot(outcome, n_boot, seed, 100)))
    return rows


# ----------------------------------------------------------------------------- Part III


def _per_adjective(x: np.ndarray, axis_keep: int = 0) -> np.ndarray:
    """Mean over every axis but ``axis_keep`` (NaN ignored; an all-NaN adjective stays NaN)."""
    import warnings

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


def montague_headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """AAN intersectivity, intersective-vs-privative pair consistency, non-subsectivity gap."""
    from .montague import load_vocabulary, run_models

    vocab = load_vocabulary()
    cats = np.asarray(vocab.categories)
    results = run_models(list(models), vocab=vocab, progress=False)
    rows = []
    for m, r in results.items():
        rows.append(_row(m, "AAN", *_boot(_per_adjective(r.single_aan, 0), n_boot, seed)))
        si, pr = cats == "S-I", cats == "NS-Pr"
        block = r.pairs[np.ix_(si, pr)]                     # (a1 in S-I, a2 in NS-Pr, n1, n2)
        valid = ~np.isnan(block)
        tie_share = float(r.pair_ties[np.ix_(si, pr)][valid].mean()) if valid.any() else float("nan")
        rows.append(_row(m, "PAIR", *_boot(_per_adjective(block, 0), n_boot, seed), ties=tie_share))
        ni = _per_adjective(r.nonsub, 0)
        ns = np.isin(cats, ["NS-Pl", "NS-Pr"])
        s = np.isin(cats, ["S-I", "S-NI"])
        rows.append(_row(m, "NSGAP", *_gap_boot(ni[ns], ni[s], n_boot, seed)))
    return rows


# ----------------------------------------------------------------------------- Part IV


def ssm_headlines(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """RSA of the cosine relatedness space with the project's reference (cluster bootstrap)."""
    from .ssm import load_study
    from .ssm.study import score_all, ssm_frame

    pool, R_ref, cats = load_study()
    scored = score_all(pool, list(models), progress=False)
    frame = ssm_frame(scored, R_ref, cats, pool.clusters, n_boot=n_boot, seed=seed)
    rows = []
    for name, spec in zip(scored, models):
        rel = frame[(frame.scorer == name) & (frame.space == "rel")].iloc[0]
        rows.append(_row(spec, "RSA", float(rel.rsa), float(rel.get("rsa_low", np.nan)),
                         float(rel.get("rsa_high", np.nan)), int(rel.n_sentences)))
    return rows


# ----------------------------------------------------------------------------- all


def profile(models: Sequence[str], *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Tidy profile: one row per model and criterion (see :data:`CRITERIA`)."""
    rows = (setcomp_headlines(models, n_boot=n_boot, seed=seed) + csts_headlines(models, n_boot=n_boot, seed=seed)
            + montague_headlines(models, n_boot=n_boot, seed=seed) + ssm_headlines(models, n_boot=n_boot, seed=seed))
    out = pd.DataFrame(rows)
    order = {c.key: i for i, c in enumerate(CRITERIA)}
    return out.sort_values(["model", "criterion"], key=lambda s: s.map(order) if s.name == "criterion" else s,
                           kind="stable").reset_index(drop=True)


def profile_matrix(prof: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    """Models × criteria (in :data:`CRITERIA` order)."""
    m = prof.pivot(index="model", columns="criterion", values=value)
    return m[[c.key for c in CRITERIA if c.key in m.columns]]
