"""What Part III's chapters show: the numbers their prose cites (:func:`values`), the paper
beside ours, figures, the synthesis headlines and try-it.

A chapter builds its view with one call (:func:`phrases`, :func:`single`, :func:`pairs`,
:func:`nonsub`, re-exported from :mod:`.views`), shows its frames and glues
``values(view)`` through :func:`compsem.results.glue_all`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import claims
from .. import measures as M
from ..fmt import estimate, number, p_value
from ..labels import labelled as _labelled
from ..encoders import validate_texts
from ..results import Headline, PlainText, Prose, bootstrap_headline, glue_all, headline_row
from ..reference import paper_match
from ..encoders.kinds import CONTROL_WHY, is_control
from ..sentences import join_names, leader_sentence, paired_ranking_sentence
from ..stats import bootstrap, mean_replicates, shared_resamples
from .data import CATEGORIES, join_phrase
from .metrics import READINGS, TIE_TOL, Rules, non_subsectivity, pair_intersectivity, rules_for, single_intersectivity
from .reproduce import (
    compare_with_paper,
    decomposition_view,
    paper_model_of,
    paper_table,
    reproduced_beside,
    reproduced_view,
    truncation_check,
)
from .study import embed_texts, run
from .tables import (
    LABELS,
    _ratio,
    _sums,
    an_table,
    class_gap,
    class_tests_view,
    pair_table,
    score_spread,
    versus_leader,
)
from .plots import plot_adjective_scores, plot_classes, plot_set_diagrams, plot_type_matrices, plot_type_matrix
from .views import NonsubView, PairsView, PhrasesView, SingleView, degenerate_models, nonsub, pairs, phrases, single
from .lesson import LESSON  # the study's session of the course guide
from .tryit import TRY_IT  # the study's section of the try-it page
from .finding import FINDING  # the study's part of the synthesis (chapter 90)
from .paperclaims import CLAIMS  # noqa: F401  (the paper's claims and our verdicts: the Part page's table)

__all__ = [
    "LABELS",
    "labelled",
    "TRY_IT",
    "HEADLINES",
    "headlines",
    "try_it",
    "pair_share_words",
    "class_order_sentence",
    "values",
    "glue_all",
    "paper_table",
    "paper_model_of",
    "LESSON",
    "FINDING",
    "compare_with_paper",
    "phrases",
    "single",
    "pairs",
    "nonsub",
    "reproduced_view",
    "reproduced_beside",
    "decomposition_view",
    "class_tests_view",
    "truncation_check",
    "relation",
    "shown",
    "styled",
    "by_class",
    "plot_type_matrix",
    "plot_type_matrices",
    "plot_set_diagrams",
    "plot_classes",
    "plot_adjective_scores",
    "cell",
]

#: Part III's headline criteria in the cross-study profile.
HEADLINES: tuple[Headline, ...] = (
    Headline(
        "AAN",
        "III",
        "AAN single-phrase intersectivity",
        "share",
        float("nan"),
        "adjectives",
        "d(phrase, each word) ≤ d(each word, the rest of the phrase) (authors' code; Eq. 3 compares word pairs)",
        higher=None,
        direction="chapter 31: the theory expects the relation for intersective adjectives only, and an encoder "
        "that averages its word vectors tends to put the phrase between its words whatever the adjective "
        "means (an average does not guarantee the official all-pairs test, so such an encoder need not pass "
        "every phrase), so a share pooled over the classes has no better side; a difference between classes "
        "would matter",
    ),
    Headline(
        "PAIR",
        "III",
        "pair test, intersective vs privative",
        "share",
        0.5,
        "adjectives",
        "Eq. 5 under the authors' code (strict <, n2 > n1, mean of per-noun means): chapter 32's "
        "(S-I, NS-Pr) cell; theory expects > 0.5",
        direction="chapter 32: intersective adjectives should keep the relation that privative ones break, "
        "above the 0.5 a coin would give",
    ),
    Headline(
        "NSGAP",
        "III",
        "non-subsectivity gap (NS − S)",
        "difference",
        0.0,
        "adjectives",
        "Eq. 7 (strict <) holds more often for non-subsective than subsective adjectives (chapter 33's "
        "pooled gap); theory expects > 0",
        direction="chapter 33: Montague semantics predicts a gap above zero",
    ),
)
_H = {h.key: h for h in HEADLINES}


def shown(frame: pd.DataFrame, decimals: int = 3) -> pd.DataFrame:
    """A frame rounded for display, one format per column and no negative zero."""
    num = frame.select_dtypes("floating").columns
    return frame.assign(**{c: np.round(frame[c], decimals) + 0.0 for c in num})


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its headers in words (:func:`compsem.labels.labelled` with Part III's
    :data:`~compsem.montague.tables.LABELS`)."""
    return _labelled(frame, LABELS)


def styled(frame: pd.DataFrame, decimals: int = 4):
    """A table as the book shows it: headers in words (:func:`labelled`), every float with
    ``decimals`` places (one format for the whole table, so no "0.0" beside "0.0000"), missing
    cells as "–"."""
    return labelled(shown(frame, decimals)).style.format(precision=decimals, na_rep="–")


def by_class(
    cells: pd.DataFrame, models: Sequence[str] | None = None, *, value: str = "consistency", decimals: int | None = None
) -> pd.DataFrame:
    """A tidy per-class table as models × classes (in :data:`CATEGORIES` order); rounded only
    with ``decimals`` (:func:`styled` rounds for display, so a paper's cell keeps its printed
    digits: 0.5595 stays 0.5595, never 0.560 printed as 0.5600)."""
    m = cells.pivot(index="model", columns="category", values=value)
    m = m.reindex(index=list(models) if models is not None else None, columns=list(CATEGORIES))
    return m if decimals is None else shown(m, decimals)


def relation(test: str, reading: str | Rules = "official") -> str:
    """The inequality a test checks under ``reading``, as axis labels and captions write it."""
    op = "<" if rules_for(reading).strict else "≤"
    texts = {"nonsub": f"d(p, a) {op} d(p, n)", "pairs": f"d(a1 n1, a1 n2) {op} d(a2 n1, a2 n2)"}
    if test not in texts:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(texts)}")
    return texts[test]


def _per_adjective(x: np.ndarray, axis_keep: int = 0) -> np.ndarray:
    """Mean over every axis but ``axis_keep`` (NaN ignored; an all-NaN adjective stays NaN)."""
    axes = tuple(i for i in range(x.ndim) if i != axis_keep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axes) if axes else x


def _pair_cell_replicates(res, cats: np.ndarray, n_boot: int, seed: int) -> np.ndarray | None:
    """PAIR on resamples shared by every model: the (S-I, NS-Pr) cell's two-way adjective
    bootstrap (:func:`compsem.montague.tables.type_pair_table`) with draws that depend only on the
    vocabulary and ``seed``, so that two models' replicates pair."""
    m1, m2 = np.flatnonzero(cats == "S-I"), np.flatnonzero(cats == "NS-Pr")
    if not (n_boot and m1.size and m2.size):
        return None
    S, C = _sums(res.pairs, 2, res.rules.per_noun)
    r = m1[shared_resamples(m1.size, n_boot=n_boot, seed=seed)][:, :, None]
    k = m2[shared_resamples(m2.size, n_boot=n_boot, seed=seed + 1)][:, None, :]
    return _ratio(S[r, k].sum((1, 2)), C[r, k].sum((1, 2)), res.rules.per_noun)


def _gap_replicates(values: np.ndarray, non_sub: np.ndarray, sub: np.ndarray, n_boot: int, seed: int):
    """NSGAP on resamples shared by every model: adjectives drawn within each group (non-subsective,
    subsective) by :func:`compsem.stats.shared_resamples`, NaN kept in place."""
    keep = non_sub | sub
    if not (n_boot and non_sub.any() and sub.any()):
        return None
    v, group = values[keep], np.where(non_sub[keep], 0, 1)
    draws = shared_resamples(v.size, n_boot=n_boot, seed=seed, strata=group)
    k = int((group == 0).sum())  # the columns of the first stratum (non-subsective) come first
    return mean_replicates(v, draws[:, :k]) - mean_replicates(v, draws[:, k:])


def _gap_boot(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int):
    """Bootstrap interval of mean(a) − mean(b) with adjectives resampled within each group."""
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    rng = np.random.default_rng(seed)
    draws = rng.choice(a, (n_boot, a.size)).mean(1) - rng.choice(b, (n_boot, b.size)).mean(1)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return float(lo), float(hi), int(a.size + b.size)


#: the reason a headline row gives when every comparison behind it ties
_TIED = "every comparison is a tie"


def headlines(
    models: Sequence[str],
    *,
    reading: str = "official",
    n_boot: int = 1000,
    seed: int = 0,
    trust_remote_code: bool = False,
) -> list[dict]:
    """AAN intersectivity, the intersective-vs-privative pair cell and the non-subsectivity gap,
    under ``reading`` (the authors' code by default), computed as chapters 31–33 compute them.

    PAIR is chapter 32's (S-I, NS-Pr) cell with its two-way adjective bootstrap; NSGAP chapter
    33's pooled gap. Every row carries ``ties`` (the share of tied comparisons) and
    ``degenerate``: the reason, in words, when every comparison behind the number ties, so that
    the value says nothing about the model (the bag of words: 0 under ``<``, 1 under ``≤``),
    else ``""``; a synthesis leaves such rows out of rankings and prints the reason.
    """
    r = run(list(models), reading=reading, readings=[reading], trust_remote_code=trust_remote_code, progress=False)
    cats = np.asarray(r.vocab.categories)
    flat = degenerate_models(r)
    rows = []
    for m, res in r.main.items():
        row = bootstrap_headline(_H["AAN"], m, _per_adjective(res.single_aan, 0), n_boot=n_boot, seed=seed)
        rows.append({**row, "degenerate": ""})
        t = pair_table(res, n_boot=n_boot, seed=seed).set_index(["type1", "type2"]).loc[("S-I", "NS-Pr")]
        n_adj = int(np.isin(cats, ["S-I", "NS-Pr"]).sum())
        row = headline_row(
            _H["PAIR"],
            m,
            float(t.consistency),
            float(t.ci_low),
            float(t.ci_high),
            n_adj,
            float(t.tie_rate),
            replicates=_pair_cell_replicates(res, cats, n_boot, seed),
        )
        rows.append({**row, "degenerate": _TIED if t.tie_rate >= 1.0 else ""})
        gap = class_gap(an_table(res, "nonsub", n_boot=0), [m])["gap (non-sub − sub)"].iloc[0]
        ni = _per_adjective(res.nonsub, 0)
        non_sub, sub = np.isin(cats, ["NS-Pl", "NS-Pr"]), np.isin(cats, ["S-I", "S-NI"])
        lo, hi, n = _gap_boot(ni[non_sub], ni[sub], n_boot, seed)
        valid = np.isfinite(res.an_distances["phrase_adj"] + res.an_distances["phrase_noun"])
        ties = float(res.nonsub_ties[valid].mean()) if valid.any() else float("nan")
        row = headline_row(
            _H["NSGAP"], m, float(gap), lo, hi, n, ties, replicates=_gap_replicates(ni, non_sub, sub, n_boot, seed)
        )
        rows.append({**row, "degenerate": _TIED if m in flat else ""})
    return rows


def _verdict(x: float) -> str:
    return "undefined" if not np.isfinite(x) else ("holds" if x else "fails")


def try_it(
    adjectives: Sequence[str],
    nouns: Sequence[str],
    models: Sequence[str],
    *,
    reading: str = "official",
    trust_remote_code: bool = False,
) -> pd.DataFrame:
    """Part III tests on the reader's adjectives and nouns (cosine distance), written as given.

    For each adjective a and noun n: single-phrase intersectivity of "a n" (Eq. 3; the same in
    both readings) and non-subsectivity (Eq. 7). With at least two adjectives and two nouns, the
    pair test (Eq. 5, :func:`~compsem.montague.metrics.pair_intersectivity`) for every ordered
    adjective pair (a1, a2), as the share of ordered noun pairs (n1 ≠ n2) for which it holds
    (strict ``<`` under the official reading, ``≤`` under the equations).
    """
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; choose from {', '.join(READINGS)}")
    strict = rules_for(reading).strict
    adjectives, nouns = validate_texts(adjectives), validate_texts(nouns)
    if not adjectives or not nouns:
        raise ValueError("give at least one adjective and one noun")
    words = list(adjectives) + list(nouns)
    phrases_ = [join_phrase(a, n) for a in adjectives for n in nouns]
    A, N = len(adjectives), len(nouns)
    a_idx, n_idx = np.divmod(np.arange(A * N), N)
    rows = []
    for m in models:
        E = embed_texts(words + phrases_, m, trust_remote_code=trust_remote_code).astype(np.float64)
        W, P = E[: len(words)], E[len(words) :]
        d_ww = M.cosine_distance_matrix(W, warn=False)
        d_pw = M.cosine_distance_matrix(P, W, warn=False)
        single_ = single_intersectivity(d_pw, d_ww, np.stack([a_idx, A + n_idx], axis=1))
        d_pa, d_pn = d_pw[np.arange(A * N), a_idx], d_pw[np.arange(A * N), A + n_idx]
        nonsub_ = non_subsectivity(d_pa, d_pn, strict=strict)
        tied_ = np.abs(d_pa - d_pn) <= TIE_TOL  # equal distances: the reading decides, not the model
        for k, phrase in enumerate(phrases_):
            rows.append(
                {
                    "model": m,
                    "phrase": phrase,
                    "test": "single-phrase intersectivity (Eq. 3)",
                    "verdict": _verdict(single_[k]),
                }
            )
            rows.append(
                {
                    "model": m,
                    "phrase": phrase,
                    "test": "closer to adjective than noun (Eq. 7)",
                    "verdict": (
                        f"tied ({'a tie fails under <' if strict else 'a tie holds under ≤'})"
                        if tied_[k] and np.isfinite(nonsub_[k])
                        else _verdict(nonsub_[k])
                    ),
                }
            )
        if A >= 2 and N >= 2:
            D = M.cosine_distance_matrix(P, warn=False).reshape(A, N, A, N)
            holds, ties = pair_intersectivity(D[np.arange(A), :, np.arange(A), :], strict=strict, tol=TIE_TOL)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a1 == a2: every entry excluded
                share = np.nanmean(holds, axis=(2, 3))
            valid, tied = np.isfinite(holds).sum(axis=(2, 3)), (ties & np.isfinite(holds)).sum(axis=(2, 3))
            for i in range(A):
                for j in range(A):
                    if i != j:
                        rows.append(
                            {
                                "model": m,
                                "phrase": f"{adjectives[i]} vs {adjectives[j]}",
                                "test": "pair test (Eq. 5): share of noun pairs that hold",
                                "verdict": pair_share_words(share[i, j], int(tied[i, j]), int(valid[i, j]), strict),
                            }
                        )
    return pd.DataFrame(rows)


def pair_share_words(share: float, tied: int, valid: int, strict: bool) -> str:
    """A try-it cell of the pair test: the share of noun pairs that hold ("75 %"), or, where every
    valid noun pair ties (the two distances equal), "all tied" with what the reading makes of a
    tie (a tie fails under the strict < and holds under ≤): the share then measures the reading,
    not the model; some ties are counted ("50 % (1 of 2 tied)"); "undefined" without a valid pair."""
    if not valid or not np.isfinite(share):
        return "undefined"
    if tied == valid:
        return f"all tied ({'a tie fails under <' if strict else 'a tie holds under ≤'})"
    return f"{100 * share:.0f} %" + (f" ({tied} of {valid} tied)" if tied else "")


# ----------------------------------------------------------------------------- values


def permutation_words(tests: pd.DataFrame, model: str, test: str, phrases: str) -> str:
    """What the adjective-level permutation test of ``model`` says on ``phrases`` phrases, from
    the class-tests table: "gives p = 0.106 on AAN phrases", or, where the table marks the test
    undefined (its note: one outcome never occurs, a single class) or its p-value is NaN, "is
    undefined on AN phrases (one outcome never occurs), so it gives no p-value": a test whose
    outcome cannot vary reports no p-value."""
    rows = tests[(tests.model == model) & (tests.test == test)]
    if rows.empty:
        return f"was not run on {phrases} phrases"
    r = rows.iloc[0]
    note = str(r["note"]) if "note" in rows and pd.notna(r["note"]) else ""
    p = float(r["perm_p"]) if pd.notna(r["perm_p"]) else float("nan")
    if note.startswith("undefined") or not np.isfinite(p):
        why = note.split(":", 1)[1].strip() if ":" in note else "its outcome cannot vary"
        return f"is undefined on {phrases} phrases ({why}), so it gives no p-value"
    shown = p_value(p)
    return (
        f"gives p {shown} on {phrases} phrases" if shown.startswith("<") else f"gives p = {shown} on {phrases} phrases"
    )


def _maxabs(c: pd.DataFrame) -> float:
    return float(c["difference"].abs().max()) if len(c) else np.nan


def _truncation(cells: pd.DataFrame, prefix: str) -> dict:
    """How many cells only truncation explains (and only rounding: expected 0)."""
    if not len(cells):
        return {f"{prefix}_n_cut_only": np.nan, f"{prefix}_n_round_only": np.nan, f"{prefix}_n_cells": np.nan}
    t = truncation_check(cells).sum(numeric_only=True)
    return {
        f"{prefix}_n_cut_only": int(t.only_truncated),
        f"{prefix}_n_round_only": int(t.only_rounded),
        f"{prefix}_n_cells": int(t.cells),
    }


def _class_sizes(vocab) -> dict:
    """How many adjectives each class holds (``n_class_S_NI``), how many AN phrases the ambiguous
    class makes and how many unordered noun pairs the vocabulary has: counts the chapters state."""
    cats = pd.Series(vocab.categories).value_counts()
    out = {f"n_class_{c.replace('-', '_')}": int(cats.get(c, 0)) for c in CATEGORIES}
    return out | {
        "n_an_class_A": int(cats.get("A", 0)) * vocab.n_noun,
        "n_noun_pairs": vocab.n_noun * (vocab.n_noun - 1) // 2,
    }


def direction_sentence(gaps: dict[str, tuple[float, float, float]]) -> str:
    """How many models' gap intervals (non-subsective − subsective, ``model -> (gap, low,
    high)``) lie above zero, the direction the theory predicts, how many below, and how many
    include zero, with each model's gap and interval (so the reader sees what is counted)."""
    n = len(gaps)
    if not n:
        return "No model of this run has a gap that is not made of ties."
    up = sum(lo > 0 for _, lo, _ in gaps.values())
    down = sum(hi < 0 for _, _, hi in gaps.values())
    zero = n - up - down

    def has(k: int) -> str:
        return f"{k} {'has' if k == 1 else 'have'}"

    shown = "; ".join(f"{m} {estimate(g, lo, hi, 3)}" for m, (g, lo, hi) in gaps.items())
    rest = f"the intervals of all {n} include zero" if zero == n and n > 1 else f"{has(zero)} one that includes zero"
    return (
        f"Of the {n} models whose comparisons do not all tie, {has(up)} a gap "
        "(non-subsective minus subsective, pooled) whose 95 % interval lies above zero, the direction the theory "
        f"predicts; {has(down)} one below zero, and {rest} (gap [95 % interval]: {shown})."
    )


def _phrases_values(v: PhrasesView) -> dict:
    r, f = v.run, v.frame
    return {
        "n_adj": r.vocab.n_adj,
        "n_noun": r.vocab.n_noun,
        "n_an": int((f.kind == "AN").sum()),
        "n_aan": int((f.kind == "AAN").sum()),
        "n_phrases": len(f),
        "n_aa": len(r.phrases.aa),
        **_class_sizes(r.vocab),
        "geo_first_model": r.models[0],
        "geo_pa_mean": float(v.geo["d(phrase, adjective)"].mean()),
        "geo_pn_mean": float(v.geo["d(phrase, noun)"].mean()),
        "geo_an_mean": float(v.geo["d(adjective, noun)"].mean()),
    }


def _single_values(v: SingleView) -> dict:
    r, ref, dec, tests = v.run, v.run.ref_model, v.dec, v.tests
    # "lowest" only as far as a paired bootstrap over the phrases allows (every model reads the same
    # phrases); a model that passes every phrase (the same value on every phrase) is the test's usual
    # outcome, not a degenerate row: it stays in the ranking
    n_boot = v.params.get("n_boot", 1000)
    per_phrase = {m: np.asarray(res.single_an, dtype=float) for m, res in r.main.items()}
    overall = {m: float(np.nanmean(x)) for m, x in per_phrase.items()}
    low_text = (
        paired_ranking_sentence(
            per_phrase,
            what="share of AN phrases between their words",
            higher=False,
            digits=3,
            items="AN phrases",
            constant=False,
            n_boot=n_boot,
            seed=v.params.get("seed", 0),
            controls=[m for m in per_phrase if is_control(m)],
        )
        if n_boot
        else leader_sentence(
            list(overall.values()),
            [np.nan] * len(overall),
            [np.nan] * len(overall),
            list(overall),
            higher=False,
            what="share of AN phrases between their words",
            digits=3,
            excluded={m: CONTROL_WHY for m in overall if is_control(m)},
        )
    )
    out = {
        "an_low_sentence": Prose(low_text),
        "an_min_value": min(overall.values()),
        "an_max_value": max(overall.values()),
        "an_ref_maxabs": _maxabs(v.cmp1),
        "aan_ref_maxabs": _maxabs(v.cmp6),
        "aan_eq_maxabs": _maxabs(v.eq6),
        "aan_eq_mae": float(v.eq6["difference"].abs().mean()) if len(v.eq6) else np.nan,
        "aan_eq_n_lower": int((v.eq6["difference"] < 0).sum()) if len(v.eq6) else np.nan,
        "aan_eq_n_cells": len(v.eq6) if len(v.eq6) else np.nan,
    }
    out.update(_truncation(pd.concat([v.cmp1, v.cmp6]) if len(v.cmp1) else v.cmp1, "single_ref"))
    keys = {
        "official (authors' code)": "off",
        "test I: word–word distances, as Eq. 3": "ti",
        "test II: all noun pairs, one mean, as Eq. 6": "tii",
        "tests II and NI: ≤ instead of <, as Eq. 5 and 7": "strict",
        "strings as English writes them": "str",
        "equations (all four switched)": "eq",
    }
    for row in dec.itertuples():
        if keys.get(row.step):
            out[f"dec_{keys[row.step]}_t{row.table}_max"] = row.max_abs_diff
            out[f"dec_{keys[row.step]}_t{row.table}_mean"] = row.mean_abs_diff
            out[f"dec_{keys[row.step]}_t{row.table}_moved"] = row.moved
    t6 = dec[(dec.table == 6) & dec.step.str.startswith("test I")] if len(dec) else dec
    out["dec_t6_rule"] = float(t6.moved.iloc[0]) if len(t6) else np.nan
    for key, step in (("ti", "test I"), ("tii", "test II"), ("strict", "tests II and NI")):  # the glossary's reading
        part = dec[dec.step.str.startswith(step + ":")] if len(dec) else dec
        out[f"dec_{key}_max_moved"] = float(part.moved.max()) if len(part) else np.nan
    cell_ = lambda col, test: cell(tests, col, model=ref, test=test)  # noqa: E731
    out.update(
        {
            "n_perm_used": v.n_perm,
            "perm_p_an_ref": cell_("perm_p", "single_AN"),
            "perm_p_aan_ref": cell_("perm_p", "single_AAN"),
            "perm_an_ref_text": PlainText(permutation_words(tests, ref, "single_AN", "AN")),
            "perm_aan_ref_text": PlainText(permutation_words(tests, ref, "single_AAN", "AAN")),
            "chi2_p_aan_ref": cell_("chi2_p", "single_AAN"),
            "n_models": len(r.models),
            **_class_sizes(r.vocab),
        }
    )
    aan = tests[tests.test == "single_AAN"].set_index("model")
    # a row the class-tests table marks undefined (its note; e.g. one outcome never occurs) is left out
    defined = aan.perm_p[aan.perm_p.notna() & ~aan.note.fillna("").str.startswith("undefined")]
    undefined = [m for m in r.models if m not in defined.index]
    out["aan_sig_count"] = PlainText(significant_count(defined.to_dict(), undefined))
    return out


def significant_count(p_values: dict[str, float], undefined=(), alpha: float = 0.05) -> str:
    """How many models' tests reject at family-wise level ``alpha``: each of the k defined tests
    at ``alpha / k`` (Bonferroni), e.g. "0 of 3 models (each test at 0.0167, a Bonferroni
    correction for 3 tests)"; the models whose test is undefined are named as left out."""
    k = len(p_values)
    each = alpha / k if k else alpha
    words = claims.of_total(sum(p < each for p in p_values.values()), k, "model")
    if undefined:
        words += f" with a defined test ({join_names(list(undefined), quote='')} left out)"
    return words + (f" (each test at {each:.3g}, a Bonferroni correction for {k} tests)" if k > 1 else "")


def _pairs_values(v: PairsView) -> dict:
    r, ref, ties = v.run, v.run.ref_model, v.ties
    no_ties = [m for m in r.models if ties[m] == 0]
    diag = v.diagonal.drop(columns="overall_tie_rate")
    tied = [m for m in r.models if ties[m] > 0]
    out = {
        "n_comb_first": int(np.count_nonzero(~np.isnan(r.main[r.models[0]].pairs))),
        "n_models_no_ties": len(no_ties),
        "diag_max_dev": float((diag.loc[no_ties] - 0.5).abs().max().max()) if no_ties else np.nan,
        "bow_tie_rate": float(ties.get("bow", np.nan)),
        "bow_untied_share": 1 - float(ties.get("bow", np.nan)),
        "tied_models": ", ".join(tied) or "none",
        **_class_sizes(r.vocab),
    }
    for name, t2 in [("ref_si_sni", "S-NI"), ("ref_si_nspr", "NS-Pr")]:
        for suffix, col in [("", "consistency"), ("_lo", "ci_low"), ("_hi", "ci_high")]:
            out[name + suffix] = cell(v.pairs, col, model=ref, type1="S-I", type2=t2)
    off = v.eq7[v.eq7.type1 != v.eq7.type2] if len(v.eq7) else v.eq7
    out.update(
        {
            "pairs_ref_maxabs": _maxabs(v.cmp7),
            "pairs_eq_mae": float(off["difference"].abs().mean()) if len(off) else np.nan,
            "pairs_eq_maxabs": _maxabs(off),
            "pairs_eq_sign": int(((off.ours - 0.5) * (off.paper - 0.5) > 0).sum()) if len(off) else np.nan,
            "pairs_ref_n_off": len(off) if len(off) else np.nan,
        }
    )
    out.update(_truncation(v.cmp7, "pairs_ref"))
    dec = v.dec
    for key, start in [("pairs_rule_moved", "test II"), ("pairs_strings_moved", "strings")]:
        out[key] = float(dec[dec.step.str.startswith(start)].moved.iloc[0]) if len(dec) else np.nan
    out["pairs_perm_p_ref"] = cell(v.tests, "perm_p", model=ref) if ref else np.nan
    out["pairs_perm_p_text"] = PlainText(_p_text(out["pairs_perm_p_ref"]))
    spread = score_spread(v.scores.score.to_numpy(), r.vocab)
    for c, x in spread["class_means"].items():
        out[f"pair_mean_{c.replace('-', '')}"] = x
    out.update(
        {
            "pair_within_sd": spread["within_sd"],
            "pair_between_sd": spread["between_sd"],
            "pair_class_order": Prose(
                class_order_sentence(
                    v.scores, what="mean pair score", n_boot=v.params["n_boot"], seed=v.params["seed"], n_perm=v.n_perm
                )
            ),
        }
    )
    return out


def _p_text(p: float) -> str:
    """ "p = 0.004" or "p < 0.001" (:func:`compsem.fmt.p_value`: a permutation p is never 0); "no
    p-value (the test is undefined: its outcome cannot vary)" for NaN, never a number."""
    if not np.isfinite(p):
        return "no p-value (the test is undefined: its outcome cannot vary)"
    v = p_value(p)
    return f"p {v}" if v.startswith("<") else f"p = {v}"


def class_order_sentence(
    scores: pd.DataFrame, *, what: str, n_boot: int = 1000, seed: int = 0, n_perm: int = 10_000
) -> str:
    """Which adjective class has the highest mean score, and against each other class what a
    two-sample permutation test over adjectives says (:func:`.tables.versus_leader`: unpaired by
    design, since the classes hold different adjectives; Bonferroni over the comparisons it makes);
    then whether each class's bootstrap interval (adjectives resampled within the class) contains
    0.5. The leader's mean is shown with its interval; an undefined test gives no p-value."""
    g = {
        c: bootstrap(d["score"].to_numpy(), n_boot=n_boot, seed=seed, warn=False)
        for c, d in scores.groupby("category", sort=False)
    }
    names = [c for c in g if np.isfinite(g[c].estimate)]
    vs = versus_leader(scores, n_perm=n_perm, seed=seed)
    if not names:
        lead = "No class has a defined score here."
    elif vs.empty:
        lead = f"`{names[0]}` ({estimate(g[names[0]].estimate, g[names[0]].low, g[names[0]].high)}) is the only class with a score here."
    else:
        lead = _versus_leader_words(vs, g, what, n_perm)
    half = [c for c in names if g[c].low <= 0.5 <= g[c].high]
    tail = f" The intervals of {join_names(half)} contain 0.5." if half else " No class's interval contains 0.5."
    left = [c for c in g if c not in names]
    gone = f" `{'`, `'.join(left)}`: no adjective with a defined score." if left else ""
    return lead + gone + tail + " (95 % intervals over the adjectives of each class.)"


def _versus_leader_words(vs: pd.DataFrame, g: dict, what: str, n_perm: int) -> str:
    """The words of :func:`class_order_sentence` for the rows of :func:`.tables.versus_leader`."""
    lead, m = str(vs.leader.iloc[0]), int(vs.m.iloc[0])
    b = g[lead]
    n = "the other class" if m == 1 else f"each of the {m} other classes"
    head = (
        f"`{lead}` has the highest {what} ({estimate(b.estimate, b.low, b.high)}). Against {n}, a "
        f"two-sample permutation test over adjectives (unpaired by design: the classes hold different adjectives; "
        f"{n_perm:,} relabellings"
        + (
            f"; Bonferroni over the {m} comparisons, each p multiplied by {m} and read against "
            f"{number(float(vs.alpha.iloc[0]), 2)}"
            if m > 1
            else ""
        )
        + ")"
    )

    def each(rows: pd.DataFrame) -> str:
        q = "corrected p" if m > 1 else "p"
        items = [
            f"`{r.category}` (difference {number(r.difference, 2)}, {q} {_p_words(r.p_corrected)})"
            for r in rows.itertuples()
        ]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    above, none, undefined = (vs[vs.outcome == o] for o in ("above", "no evidence of a difference", "undefined"))
    parts = []
    if len(above):
        parts.append(
            f"its mean lies above that of {each(above)}"
            if len(above) == 1
            else f"its mean lies above those of {each(above)}"
        )
    if len(none):
        parts.append(f"no evidence of a difference from {each(none)}")
    if len(undefined):
        parts.append(
            f"the test against {join_names(list(undefined.category))} is undefined (every adjective of the two "
            "classes has the same score), so it gives no p-value"
        )
    return head + ": " + "; ".join(parts) + "."


def _p_words(p: float) -> str:
    """ "= 0.012" or "< 0.001" (:func:`compsem.fmt.p_value`)."""
    v = p_value(p)
    return v if v.startswith("<") else f"= {v}"


def _gaps(r, gaps: pd.Series, params: dict) -> dict[str, tuple[float, float, float]]:
    """Each model's pooled gap (``gaps``, model -> gap) with its bootstrap interval (adjectives
    resampled within each group)."""
    cats = np.asarray(r.vocab.categories)
    non_sub, sub = np.isin(cats, ["NS-Pl", "NS-Pr"]), np.isin(cats, ["S-I", "S-NI"])
    out = {}
    for m, gap in gaps.items():
        ni = _per_adjective(r.main[m].nonsub, 0)
        lo, hi, _ = _gap_boot(ni[non_sub], ni[sub], params.get("n_boot", 1000), params.get("seed", 0))
        out[m] = (float(gap), lo, hi)
    return out


def _nonsub_values(v: NonsubView) -> dict:
    r, ref = v.run, v.run.ref_model
    out = {"ns_ref_maxabs": _maxabs(v.cmp8), "ns_eq_maxabs": _maxabs(v.eq8)}
    out.update(_truncation(v.cmp8, "ns_ref"))
    keys = ["official", "clean", "occurence"]
    for key, row in zip(keys, v.spell.itertuples()) if len(v.spell) else ():
        out[f"ns_spell_{key}_max"] = row.max_abs_diff
    for key in keys:
        out.setdefault(f"ns_spell_{key}_max", np.nan)
    d = v.direction
    real = d[~d.index.isin(v.degenerate)]
    out.update(
        {
            "ns_direction_sentence": Prose(direction_sentence(_gaps(r, real["gap (non-sub − sub)"], v.params))),
            **_class_sizes(r.vocab),
            "ns_n_right_direction": int((real["gap (non-sub − sub)"] > 0).sum()),
            "ns_n_models": len(real),
            "ns_n_degenerate": len(v.degenerate),
            "ns_degenerate": ", ".join(v.degenerate) or "none",
            "ns_perm_p_ref": cell(v.tests, "perm_p", model=ref) if ref else np.nan,
            "ns_perm_p_text": PlainText(_p_text(cell(v.tests, "perm_p", model=ref) if ref else np.nan)),
            "ns_gap_ref": float(d.loc[ref, "gap (non-sub − sub)"]) if ref else np.nan,
            "ns_relation": relation("nonsub", r.reading),
            "ns_stand_ins": Prose(
                stand_in_sentence(v.comparison, ref) or "No other model of this run has a row in the paper's Table 8."
            ),
        }
    )
    spread = score_spread(v.scores.score.to_numpy(), r.vocab)
    out.update(
        {
            "ns_within_sd": spread["within_sd"],
            "ns_between_sd": spread["between_sd"],
            "ns_class_order": Prose(
                class_order_sentence(
                    v.scores, what="mean consistency", n_boot=v.params["n_boot"], seed=v.params["seed"], n_perm=v.n_perm
                )
            ),
        }
    )
    return out


def stand_in_sentence(comparison: pd.DataFrame, ref: str | None, *, n: int = 2) -> str:
    """Each model of ``comparison`` (a :func:`~compsem.montague.reproduce.beside_paper` frame)
    other than ``ref`` beside the paper's row it stands for: its ``n`` largest gaps, ours against
    the paper's printed cell, and whether it runs the paper's very weights (``paper_models``'s
    ``same_model``). Empty when there is no such model."""
    parts = []
    for model, rows in comparison.groupby("model", sort=False) if len(comparison) else ():
        if model == ref:
            continue
        hit = paper_match("montague", model) or {}
        same = str(hit.get("same_model", "")).lower() == "true"
        top = rows.assign(gap=rows["difference"].abs()).dropna(subset=["gap"]).nlargest(n, "gap")
        gaps = "; ".join(f"{r.category}: {r.ours:.3f} against {r.paper:.4f}" for r in top.itertuples())
        kind = "the same weights as" if same else "a stand-in for"
        parts.append(
            f"`{model}`, {kind} the paper's {rows['paper_model'].iloc[0]}, is furthest from the paper's row in {gaps}."
        )
    return " ".join(parts)


_VALUES = {
    PhrasesView: _phrases_values,
    SingleView: _single_values,
    PairsView: _pairs_values,
    NonsubView: _nonsub_values,
}


def values(view) -> dict[str, object]:
    """The numbers (and a few names) a chapter's prose cites, keyed by their glue names, from
    its view (:func:`phrases`, :func:`single`, :func:`pairs` or :func:`nonsub`). A value that the
    run cannot give (no model of the paper in it) is NaN, never left out."""
    fn = _VALUES.get(type(view))
    if fn is None:
        raise TypeError(f"values() takes a Part III chapter view, not {type(view).__name__}")
    return fn(view)


def cell(table: pd.DataFrame, column: str = "consistency", **where) -> float:
    """The one value of ``column`` in the row of ``table`` matching every ``where`` column, NaN
    when no row matches (e.g. a model the run did not include)."""
    mask = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    row = table.loc[mask, column]
    return float(row.iloc[0]) if len(row) else float("nan")
