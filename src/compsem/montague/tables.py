"""Tidy tables from the truth arrays: consistency by class or class pair with cluster-bootstrap
intervals, and the tests of "the classes do not differ" (χ², adjective-level permutation)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from .data import CATEGORIES, Vocabulary
from .study import MontagueResult
from ..errors import CompsemError
from ..fmt import noun, p_value
from ..stats import SMALL_EXPECTED, exact_table_p

__all__ = [
    "LABELS",
    "category_table",
    "type_pair_table",
    "an_table",
    "aan_table",
    "pair_table",
    "as_matrix",
    "adjective_scores",
    "permutation_test",
    "versus_leader",
    "chi2_test",
    "CLASS_TESTS",
    "category_difference_tests",
    "class_tests_view",
    "score_spread",
    "class_gap",
]


#: Part III's extension of :data:`compsem.labels.LABELS`: the phrase table's fields, the timings
#: of the tests and the tables' own columns, as a page's headers.
LABELS = {
    "category": "adjective class",
    "type1": "class of the first adjective",
    "type2": "class of the second adjective",
    "adj1": "first adjective",
    "adj2": "second adjective",
    "n_adjectives": "adjectives (count)",
    "overall_tie_rate": "tie rate, all cells",
    "single_an": "test I, AN (s)",
    "single_aan": "test I, AAN (s)",
    "pairs": "test II (s)",
    "nonsub": "test NI (s)",
    "embed": "embedding (s)",
    "mean_abs_diff": "mean |difference|",
    "max_abs_diff": "largest |difference|",
    "table": "paper table",
    "decimals": "decimals printed",
}


def _sums(holds: np.ndarray, lead: int, per_noun: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Sum of truths and count of valid entries over all axes after the first ``lead`` ones
    (after the first ``lead + 1`` with ``per_noun``: the noun axis, which follows the adjective
    axes in every truth array, is kept)."""
    axes = tuple(range(lead + (1 if per_noun else 0), holds.ndim))
    valid = ~np.isnan(holds)
    return np.where(valid, holds, 0.0).sum(axis=axes), valid.sum(axis=axes)


def _ratio(num: np.ndarray, den: np.ndarray, per_noun: bool) -> np.ndarray:
    """num / den; with ``per_noun`` (noun on the last axis) the mean over nouns of the per-noun
    ratios, nouns without a valid entry left out (the authors' aggregation)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / den
    if not per_noun:
        return r
    ok = np.isfinite(r)
    k = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k > 0, np.where(ok, r, 0.0).sum(axis=-1) / k, np.nan)


def _ratio_ci(num: np.ndarray, den: np.ndarray, level: float, per_noun: bool = False) -> tuple[float, float, int]:
    r = _ratio(num, den, per_noun)
    ok = np.isfinite(r)
    if not ok.any():
        return np.nan, np.nan, int((~ok).sum())
    lo, hi = np.quantile(r[ok], [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi), int((~ok).sum())


def category_table(
    holds: np.ndarray,
    vocab: Vocabulary,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    per_noun: bool = False,
) -> pd.DataFrame:
    """Consistency by adjective class for a truth array whose first axis is the adjective.

    Parameters
    ----------
    holds : (A, N, ...) float truth array (1, 0, NaN for undefined), noun on axis 1.
    per_noun : the cell is the mean over nouns of the per-noun means (the authors' code) rather
        than the mean over all valid entries (the paper's Eq. 4/8 expectation). Equal when every
        noun has the same number of valid entries.

    The interval is a seeded cluster bootstrap: adjectives are resampled with replacement within
    the class (phrases of one adjective are not independent draws).
    """
    S, C = _sums(holds, 1, per_noun)
    cat = vocab.category_index
    rng = np.random.default_rng(seed)
    rows = []
    for ci, c in enumerate(CATEGORIES):
        members = np.flatnonzero(cat == ci)
        n_total = int(np.prod(holds.shape[1:])) * len(members)
        if len(members) == 0:
            rows.append(
                {
                    "category": c,
                    "consistency": np.nan,
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                    "n": 0,
                    "n_nan": 0,
                    "n_adjectives": 0,
                }
            )
            continue
        idx = members[rng.integers(0, len(members), size=(n_boot, len(members)))]
        lo, hi, _ = _ratio_ci(S[idx].sum(1), C[idx].sum(1), level, per_noun)
        n = int(C[members].sum())
        rows.append(
            {
                "category": c,
                "consistency": float(_ratio(S[members].sum(0), C[members].sum(0), per_noun)) if n else np.nan,
                "ci_low": lo,
                "ci_high": hi,
                "n": n,
                "n_nan": n_total - n,
                "n_adjectives": len(members),
            }
        )
    return pd.DataFrame(rows)


def type_pair_table(
    holds: np.ndarray,
    vocab: Vocabulary,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    ties: np.ndarray | None = None,
    per_pair: int | None = None,
    per_noun: bool = False,
) -> pd.DataFrame:
    """Consistency by ordered pair of classes ``(type(a1), type(a2))`` for a truth array whose
    first two axes are adjectives and third the (first) noun (AAN single-phrase test, pair test).

    The interval resamples the adjectives of class t1 (first axis) and of class t2 (second axis)
    independently, with replacement (a two-way cluster bootstrap); pairs that resample to the
    same adjective carry no entries. ``tie_rate`` (when ``ties`` is given) is the share of valid
    entries where both distances are equal. ``per_pair`` is the number of entries an ordered pair
    ``a1 != a2`` has by construction (default: all trailing entries); ``n_nan`` counts the
    missing ones among them (degenerate embeddings), not the excluded entries. ``per_noun`` as
    in :func:`category_table`.
    """
    if per_pair is None:
        per_pair = int(np.prod(holds.shape[2:]))
    S, C = _sums(holds, 2, per_noun)
    T = ties.sum(axis=tuple(range(2, ties.ndim))) if ties is not None else None
    cat = vocab.category_index
    rng = np.random.default_rng(seed)
    rows = []
    for i, c1 in enumerate(CATEGORIES):
        m1 = np.flatnonzero(cat == i)
        for j, c2 in enumerate(CATEGORIES):
            m2 = np.flatnonzero(cat == j)
            if len(m1) == 0 or len(m2) == 0:
                continue
            block_S, block_C = S[np.ix_(m1, m2)], C[np.ix_(m1, m2)]
            n = int(block_C.sum())
            r = m1[rng.integers(0, len(m1), size=(n_boot, len(m1)))][:, :, None]
            k = m2[rng.integers(0, len(m2), size=(n_boot, len(m2)))][:, None, :]
            lo, hi, n_undef = _ratio_ci(S[r, k].sum((1, 2)), C[r, k].sum((1, 2)), level, per_noun)
            n_pairs = len(m1) * len(m2) - (len(m1) if i == j else 0)  # a1 == a2 excluded
            n_total = per_pair * n_pairs
            row = {
                "type1": c1,
                "type2": c2,
                "consistency": float(_ratio(block_S.sum((0, 1)), block_C.sum((0, 1)), per_noun)) if n else np.nan,
                "ci_low": lo,
                "ci_high": hi,
                "n": n,
                "n_nan": n_total - n,
                "n_boot_undefined": n_undef,
            }
            if T is not None:
                row["tie_rate"] = float(T[np.ix_(m1, m2)].sum() / n) if n else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def _tidy(t: pd.DataFrame, result: MontagueResult, test: str) -> pd.DataFrame:
    t.insert(0, "model", result.model)
    t.insert(1, "reading", result.reading)
    t.insert(2, "test", test)
    t["strings"] = result.strings
    t["distance"] = result.distance
    return t


def an_table(result: MontagueResult, test: str = "single_an", **kw) -> pd.DataFrame:
    """Tidy class table (Tables 1, 4/8 analogues) of ``test`` in ``{"single_an", "nonsub"}``,
    aggregated as ``result``'s reading says."""
    if test not in ("single_an", "nonsub"):
        raise ValueError(f"test must be 'single_an' or 'nonsub', got {test!r}")
    kw.setdefault("per_noun", result.rules.per_noun)
    return _tidy(category_table(getattr(result, test), result.vocab, **kw), result, test)


def aan_table(result: MontagueResult, **kw) -> pd.DataFrame:
    """Tidy type-pair table of the AAN single-phrase test (Tables 2, 6 analogues)."""
    if result.single_aan is None:
        raise ValueError("this result has no AAN phrases; run with sets=('AN', 'AAN')")
    kw.setdefault("per_noun", result.rules.per_noun)
    N = result.vocab.n_noun
    return _tidy(type_pair_table(result.single_aan, result.vocab, per_pair=N, **kw), result, "single_aan")


def pair_table(result: MontagueResult, **kw) -> pd.DataFrame:
    """Tidy type-pair table of the phrase-pair test (Tables 3, 7 analogues), with tie rates.
    Under the official reading a cell is the mean over nouns ``n1`` of the per-noun means over
    ``n2 > n1`` (the last noun has no partner and drops out)."""
    kw.setdefault("per_noun", result.rules.per_noun)
    N = result.vocab.n_noun
    per_pair = N * (N - 1) // (2 if result.rules.pair_nouns == "higher" else 1)
    return _tidy(
        type_pair_table(result.pairs, result.vocab, ties=result.pair_ties, per_pair=per_pair, **kw), result, "pairs"
    )


def as_matrix(table: pd.DataFrame, value: str = "consistency") -> pd.DataFrame:
    """A type-pair table as a 5 × 5 matrix (rows: type of a1, columns: type of a2)."""
    return table.pivot(index="type1", columns="type2", values=value).reindex(
        index=list(CATEGORIES), columns=list(CATEGORIES)
    )


def adjective_scores(holds: np.ndarray, *, both_positions: bool = False) -> np.ndarray:
    """Per-adjective consistency: mean of the valid truths where the adjective is on axis 0.

    With ``both_positions`` (arrays indexed ``[a1, a2, ...]``) the adjective's entries as first
    and as second adjective are pooled.
    """
    S, C = _sums(holds, 1)
    if both_positions:
        S2, C2 = _sums(np.swapaxes(holds, 0, 1), 1)
        S, C = S + S2, C + C2
    with np.errstate(invalid="ignore", divide="ignore"):
        return S / C


def permutation_test(scores: np.ndarray, groups: np.ndarray, *, n_perm: int = 10_000, seed: int = 0) -> dict:
    """Do the groups' mean scores differ more than under random relabelling?

    Statistic: the between-group sum of squares ``sum_g k_g (mean_g - mean)^2`` of per-unit
    scores (here: adjectives). Labels are permuted ``n_perm`` times (seeded, all at once);
    ``p = (1 + #{perm >= observed}) / (1 + n_perm)``. Units with a NaN score are dropped and
    counted. Undefined (statistic and p NaN, with a ``note``) when fewer than two groups or two
    units are left, or when every unit has the same score (no relabelling can change anything).
    """
    scores = np.asarray(scores, dtype=np.float64)
    groups = np.asarray(groups)
    ok = np.isfinite(scores)
    s, g = scores[ok], groups[ok]
    _, g = np.unique(g, return_inverse=True)
    G = g.max() + 1 if g.size else 0
    if s.size < 2 or G < 2 or np.all(s == s[0]):
        return {
            "statistic": np.nan,
            "p_value": np.nan,
            "n_units": int(s.size),
            "n_dropped": int((~ok).sum()),
            "n_perm": n_perm,
            "note": "undefined: every unit has the same score"
            if s.size >= 2 and G >= 2
            else "undefined: fewer than two groups or units",
        }

    def ss_between(labels: np.ndarray) -> np.ndarray:  # labels (R, n)
        onehot = labels[..., None] == np.arange(G)  # (R, n, G)
        k = onehot.sum(axis=-2)
        tot = np.einsum("rng,n->rg", onehot, s)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(k > 0, tot / np.maximum(k, 1), 0.0)
        return (k * (means - s.mean()) ** 2).sum(axis=-1)

    observed = float(ss_between(g[None])[0])
    rng = np.random.default_rng(seed)
    perms = rng.permuted(np.broadcast_to(g, (n_perm, g.size)), axis=1)
    null = ss_between(perms)
    p = (1 + np.sum(null >= observed - 1e-12)) / (1 + n_perm)
    return {
        "statistic": observed,
        "p_value": float(p),
        "n_units": int(s.size),
        "n_dropped": int((~ok).sum()),
        "n_perm": n_perm,
        "note": "",
    }


def versus_leader(scores: pd.DataFrame, *, n_perm: int = 10_000, seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Each adjective class against the class with the highest mean score (the leader).

    ``scores`` holds one row per adjective (``category``, ``score``; :func:`adjective_scores`).
    The classes hold different adjectives, so the comparison is unpaired by design: for each other
    class, a two-sample :func:`permutation_test` of the leader's and that class's adjectives (with
    two groups its statistic grows with the squared difference of the two means, so the test is
    two-sided). With ``m`` other classes the p-values are Bonferroni-corrected
    (``p_corrected = min(1, m·p)``, read against ``alpha``) so that all ``m`` decisions hold together.
    ``outcome``: ``"above"`` (the leader's mean lies above the class's: corrected p below
    ``alpha``), ``"no evidence of a difference"``, or ``"undefined"`` (the test cannot vary: every
    adjective of the two classes has the same score; no p-value). Adjectives with a NaN score are
    left out; a class with none left is not compared. One row per other class, in the order of
    ``scores``; empty when fewer than two classes have a score.
    """
    if not {"category", "score"} <= set(scores.columns):
        raise CompsemError(f"versus_leader needs the columns 'category' and 'score', got {list(scores.columns)}")
    if not 0 < alpha < 1:
        raise CompsemError(f"alpha must lie in (0, 1), got {alpha}")
    ok = scores[np.isfinite(scores["score"].astype(float))]
    groups = {c: g["score"].to_numpy(float) for c, g in ok.groupby("category", sort=False)}
    cols = [
        "leader",
        "category",
        "n_leader",
        "n",
        "leader_mean",
        "mean",
        "difference",
        "p",
        "p_corrected",
        "m",
        "alpha",
    ]
    if len(groups) < 2:
        return pd.DataFrame(columns=[*cols, "outcome"])
    lead = max(groups, key=lambda c: groups[c].mean())
    m = len(groups) - 1
    rows = []
    for c, x in groups.items():
        if c == lead:
            continue
        both = np.concatenate([groups[lead], x])
        labels = np.r_[np.zeros(len(groups[lead]), int), np.ones(len(x), int)]
        p = permutation_test(both, labels, n_perm=n_perm, seed=seed)["p_value"]
        pc = min(1.0, m * p) if np.isfinite(p) else np.nan
        outcome = "undefined" if not np.isfinite(pc) else "above" if pc < alpha else "no evidence of a difference"
        mean_lead, mean_c = float(groups[lead].mean()), float(x.mean())
        rows.append(
            [lead, c, len(groups[lead]), len(x), mean_lead, mean_c, mean_lead - mean_c, p, pc, m, alpha, outcome]
        )
    return pd.DataFrame(rows, columns=[*cols, "outcome"])


def chi2_test(holds: np.ndarray, vocab: Vocabulary) -> dict:
    """χ² test of independence between adjective class and outcome (holds / fails), pooling all
    valid entries of each class. Treats entries as independent, which they are not (they share
    adjectives and nouns), so its p-value is optimistic; read it beside the permutation test.
    Undefined (NaN, with a ``note``) when an outcome never occurs or fewer than two classes have
    a valid entry. Where an expected count is below :data:`compsem.stats.SMALL_EXPECTED` the
    p-value is the exact conditional test's (:func:`compsem.stats.exact_table_p`; ``exact``
    True, and the ``note`` says so)."""
    S, C = _sums(holds, 1)
    cat = vocab.category_index
    present = np.unique(cat)
    hold = np.array([S[cat == c].sum() for c in present])
    fail = np.array([C[cat == c].sum() for c in present]) - hold
    table = np.stack([hold, fail], axis=1)
    table = table[table.sum(axis=1) > 0]  # a class with no valid entry takes no part
    if (table.sum(axis=0) == 0).any() or len(table) < 2:
        why = [
            w
            for w, bad in (
                ("one outcome never occurs", (table.sum(axis=0) == 0).any()),
                ("a single class", len(table) < 2),
            )
            if bad
        ]
        return {
            "statistic": np.nan,
            "p_value": np.nan,
            "dof": np.nan,
            "note": "undefined: " + " and ".join(why),
            "exact": False,
        }
    res = chi2_contingency(table)
    if res[3].min() < SMALL_EXPECTED:  # χ² is not to be trusted: the exact conditional test
        small = f"an expected count below {SMALL_EXPECTED:g}"
        try:
            p, note, exact = exact_table_p(table), f"exact test ({small})", True
        except CompsemError:
            p, note, exact = float(res[1]), f"χ² although {small} (too many tables for the exact test)", False
        return {"statistic": float(res[0]), "p_value": p, "dof": int(res[2]), "note": note, "exact": exact}
    return {"statistic": float(res[0]), "p_value": float(res[1]), "dof": int(res[2]), "note": "", "exact": False}


CLASS_TESTS: tuple[str, ...] = ("single_AN", "single_AAN", "pairs", "nonsub")


def category_difference_tests(
    result: MontagueResult, *, tests: Iterable[str] = CLASS_TESTS, n_perm: int = 10_000, seed: int = 0
) -> pd.DataFrame:
    """χ² and adjective-level permutation tests of "the classes do not differ", for each of
    ``tests`` (a subset of :data:`CLASS_TESTS`; ``single_AAN`` is skipped when AAN was not run).

    For the pair and AAN tests the adjective's score pools its entries as first adjective
    (pairs) or in either position (AAN).
    """
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    bad = [t for t in tests if t not in CLASS_TESTS]
    if bad:
        raise ValueError(f"unknown {noun(len(bad), 'test')} {bad}; choose from {CLASS_TESTS}")
    v = result.vocab
    cat = v.category_index
    arrays = {
        "single_AN": (result.single_an, False),
        "single_AAN": (result.single_aan, True),
        "pairs": (result.pairs, False),
        "nonsub": (result.nonsub, False),
    }
    rows = []
    for name in tests:
        holds, both = arrays[name]
        if holds is None:
            continue
        scores = adjective_scores(holds, both_positions=both)
        chi = chi2_test(holds, v)
        perm = permutation_test(scores, cat, n_perm=n_perm, seed=seed)
        rows.append(
            {
                "model": result.model,
                "reading": result.reading,
                "test": name,
                "chi2": chi["statistic"],
                "chi2_dof": chi["dof"],
                "chi2_p": chi["p_value"],
                "chi2_exact": chi["exact"],
                "perm_stat": perm["statistic"],
                "perm_p": perm["p_value"],
                "n_adjectives": perm["n_units"],
                "n_adjectives_dropped": perm["n_dropped"],
                "note": _notes(perm["note"].replace("unit", "adjective"), chi["note"]),
            }
        )
    return pd.DataFrame(rows)


def _notes(*notes: str) -> str:
    """The notes of a row's tests, "; "-joined, "undefined: " said once: "undefined: every adjective
    has the same score; one outcome never occurs"."""
    said, out = False, []
    for n in filter(None, notes):
        if n.startswith("undefined: "):
            n, said = (n.removeprefix("undefined: ") if said else n), True
        out.append(n)
    return "; ".join(out)


def class_tests_view(tests: pd.DataFrame) -> pd.DataFrame:
    """A compact, readable view of :func:`category_difference_tests` for display: one row per
    model and test, the χ² statistic with its p-value, the permutation p-value, and a note where
    a test is undefined. p-values are formatted as text by :func:`compsem.fmt.p_value` ("< 0.001"
    rather than "0.0000" or "0.0e+00": a permutation p-value is at least 1/(n + 1))."""

    def fmt_p(p):
        return p_value(p, na="—")

    out = pd.DataFrame(
        {
            "model": tests["model"],
            "reading": tests["reading"],
            "test": tests["test"],
            "χ²": tests["chi2"].map(lambda v: "—" if not np.isfinite(v) else f"{v:,.1f}"),
            "χ² p (phrases)": [
                fmt_p(p) + (" (exact)" if exact else "")
                for p, exact in zip(tests["chi2_p"], tests.get("chi2_exact", pd.Series(False, index=tests.index)))
            ],
            "permutation p (adjectives)": tests["perm_p"].map(fmt_p),
            "adjectives": tests["n_adjectives"],
            "note": tests["note"].fillna("").map(lambda s: s.split(" (")[0]),
        }
    )
    return out.set_index(["model", "reading", "test"])


def score_spread(scores: np.ndarray, vocab: Vocabulary) -> dict:
    """How per-adjective scores spread within and between classes.

    Returns the class means, ``within_sd`` (pooled standard deviation of the scores around their
    class mean) and ``between_sd`` (standard deviation of the class means, unweighted). NaN
    scores are dropped.
    """
    s = np.asarray(scores, dtype=float)
    cat = np.asarray(vocab.categories)
    ok = np.isfinite(s)
    means = {c: float(s[ok & (cat == c)].mean()) if (ok & (cat == c)).any() else np.nan for c in CATEGORIES}
    resid = np.array([s[i] - means[cat[i]] for i in np.flatnonzero(ok)])
    groups = sum(1 for c in CATEGORIES if (ok & (cat == c)).any())
    within = float(np.sqrt((resid**2).sum() / max(len(resid) - groups, 1)))
    between = float(np.nanstd([m for m in means.values()], ddof=1))
    return {"class_means": means, "within_sd": within, "between_sd": between}


def class_gap(ns: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Per model, the consistency of the non-subsectivity test pooled over the subsective classes
    (S-I, S-NI) and over the non-subsective ones (NS-Pl, NS-Pr), each cell weighted by its
    phrase count ``n``, and the gap non-subsective − subsective (positive: the expected direction)."""

    def pooled(classes):
        d = ns[ns.category.isin(classes)]
        w = d.consistency * d.n
        return w.groupby(d.model).sum() / d.n.groupby(d.model).sum()

    out = pd.DataFrame(
        {"subsective (S-I, S-NI)": pooled(["S-I", "S-NI"]), "non-subsective (NS-Pl, NS-Pr)": pooled(["NS-Pl", "NS-Pr"])}
    )
    out["gap (non-sub − sub)"] = out.iloc[:, 1] - out.iloc[:, 0]
    return out.reindex(list(models))
