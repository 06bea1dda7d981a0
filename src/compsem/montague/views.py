"""What each Part III chapter computes from one :class:`~compsem.montague.study.MontagueRun`.

One builder per chapter (:func:`phrases`, :func:`single`, :func:`pairs`, :func:`nonsub`)
returns a view: the tidy frames the chapter shows and saves. The numbers its prose cites come
from :func:`compsem.montague.report.values` of the view, so a chapter holds no arithmetic of its
own. ``view.save()`` writes the chapter's ``results/montague/*.csv`` with the run's provenance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import results
from .data import CATEGORIES
from .reproduce import beside_paper, collect, decomposition, reproduced, spelling_effect
from .study import MontagueRun
from .tables import adjective_scores, category_difference_tests, class_gap

__all__ = [
    "PhrasesView",
    "SingleView",
    "PairsView",
    "NonsubView",
    "phrases",
    "single",
    "pairs",
    "nonsub",
    "tie_rates",
    "degenerate_models",
    "score_frame",
]


def _of(frame: pd.DataFrame, reading: str) -> pd.DataFrame:
    return frame[frame.reading == reading] if len(frame) else frame


def score_frame(run: MontagueRun, holds: np.ndarray) -> pd.DataFrame:
    """One row per adjective: its class and its score (:func:`adjective_scores` of ``holds``)."""
    return pd.DataFrame(
        {"adjective": run.vocab.adjectives, "category": run.vocab.categories, "score": adjective_scores(holds)}
    )


def _class_tests(run: MontagueRun, tests: list[str], n_perm: int, seed: int) -> pd.DataFrame:
    return pd.concat(
        [category_difference_tests(r, tests=tests, n_perm=n_perm, seed=seed) for r in run.main.values()],
        ignore_index=True,
    )


# ----------------------------------------------------------------------------- chapter 30
@dataclass
class PhrasesView:
    """Chapter 30: the generated phrases, one row per model of what embedding gave, and where
    the AN phrases of the first model lie (``geo``: one row per phrase, three distances)."""

    run: MontagueRun
    frame: pd.DataFrame
    summary: pd.DataFrame
    geo: pd.DataFrame
    seed: int = 0

    @property
    def geo_means(self) -> pd.DataFrame:
        return self.geo.groupby("category").mean().reindex(list(CATEGORIES))

    def save(self) -> None:
        r = self.run
        counts = r.vocab.counts()
        vocab_table = counts[["category", "name", "n_adjectives"]].assign(
            n_AN=lambda d: d.n_adjectives * r.vocab.n_noun, reading=r.reading, strings=r.strings
        )
        results.save_table(vocab_table, "montague", "vocabulary", seed=self.seed)
        results.save_table(self.summary, "montague", "embedding_summary", **r.provenance())


def phrases(run: MontagueRun, *, seed: int = 0) -> PhrasesView:
    rows = []
    for m, res in run.main.items():
        rows.append(
            {
                "model": m,
                "reading": run.reading,
                "strings": run.strings,
                "dim": res.dim,
                "embed_seconds": round(res.seconds.get("embed", 0.0), 1),
                "degenerate_words": res.nan_embeddings["words"],
                "degenerate_AN": res.nan_embeddings["AN"],
                "degenerate_AAN": res.nan_embeddings.get("AAN", 0),
                "tests_seconds": round(sum(v for k, v in res.seconds.items() if k != "embed"), 3),
            }
        )
    d = run.main[run.models[0]].an_distances
    v = run.vocab
    geo = pd.DataFrame(
        {
            "category": np.repeat(v.categories, v.n_noun),
            "d(phrase, adjective)": d["phrase_adj"].ravel(),
            "d(phrase, noun)": d["phrase_noun"].ravel(),
            "d(adjective, noun)": d["adj_noun"].ravel(),
        }
    )
    return PhrasesView(run, run.phrases.frame(), pd.DataFrame(rows), geo, seed)


# ----------------------------------------------------------------------------- chapter 31
@dataclass
class SingleView:
    """Chapter 31: test I on AN (Table 1) and AAN phrases (Table 6), both readings; the paper's
    cells reproduced (``cmp1``, ``cmp6``; ``eq6`` under the equations), the rule-by-rule
    decomposition and the class tests."""

    run: MontagueRun
    an_all: pd.DataFrame
    aan_all: pd.DataFrame
    cmp1: pd.DataFrame
    cmp6: pd.DataFrame
    eq6: pd.DataFrame
    dec: pd.DataFrame
    tests: pd.DataFrame
    n_perm: int
    params: dict = field(default_factory=dict)

    @property
    def an(self) -> pd.DataFrame:
        return _of(self.an_all, self.run.reading)

    @property
    def aan(self) -> pd.DataFrame:
        return _of(self.aan_all, self.run.reading)

    def save(self) -> None:
        r, p = self.run, self.params
        results.save_table(
            self.an_all, "montague", "single_an", models=r.models, distance=r.distance, **p, strings=r.strings
        )
        if len(self.aan_all):
            results.save_table(
                self.aan_all, "montague", "single_aan", models=r.models, distance=r.distance, **p, strings=r.strings
            )
        if len(self.cmp1):
            frames = [self.cmp1, self.cmp6, self.eq6] if len(self.cmp6) else [self.cmp1]
            results.save_table(
                pd.concat(frames, ignore_index=True), "montague", "single_reproduced", models=r.models, seed=p["seed"]
            )
        if len(self.dec):
            results.save_table(self.dec, "montague", "decomposition", model=r.ref_model)
        tables = (1, 6) if len(self.aan_all) else (1,)
        vs = pd.concat([beside_paper(r.main, t, n_boot=p["n_boot"], seed=p["seed"]) for t in tables], ignore_index=True)
        if len(vs):  # every model with a row in the paper's tables
            results.save_table(vs, "montague", "single_vs_paper", models=r.models, seed=p["seed"])
        results.save_table(
            self.tests,
            "montague",
            "single_category_tests",
            models=r.models,
            seed=p["seed"],
            n_perm=self.n_perm,
            reading=r.reading,
            strings=r.strings,
        )


def single(run: MontagueRun, *, n_boot: int = 1000, n_perm: int = 10_000, seed: int = 0) -> SingleView:
    ref, aan = run.ref_model, "AAN" in run.phrase_sets
    an_all = collect(run.results, 1, n_boot=n_boot, seed=seed)
    aan_all = collect(run.results, 6, n_boot=n_boot, seed=seed) if aan else pd.DataFrame()
    empty = pd.DataFrame()
    cmp1 = reproduced(run.results["official"][ref], 1, n_boot=n_boot, seed=seed) if ref else empty
    cmp6 = reproduced(run.results["official"][ref], 6, n_boot=n_boot, seed=seed) if ref and aan else empty
    eq6 = reproduced(run.results["equations"][ref], 6, n_boot=n_boot, seed=seed) if ref and aan else empty
    dec = (
        decomposition(ref, tables=(1, 6, 7, 8) if aan else (1, 7, 8), trust_remote_code=run.trust_remote_code)
        if ref
        else pd.DataFrame(columns=["step", "table", "moved"])
    )
    tests = _class_tests(run, ["single_AN", "single_AAN"], n_perm, seed)
    return SingleView(run, an_all, aan_all, cmp1, cmp6, eq6, dec, tests, n_perm, {"seed": seed, "n_boot": n_boot})


# ----------------------------------------------------------------------------- chapter 32
def tie_rates(pair_cells: pd.DataFrame) -> pd.Series:
    """Per model, the share of all valid pair comparisons whose two distances tie (each cell's
    ``tie_rate`` weighted by its count ``n``)."""
    w = pair_cells.tie_rate * pair_cells.n
    return w.groupby(pair_cells.model, sort=False).sum() / pair_cells.n.groupby(pair_cells.model, sort=False).sum()


@dataclass
class PairsView:
    """Chapter 32: test II (Tables 3 and 7), both readings; the tie rates, the paper's Table 7
    reproduced (``cmp7``; ``eq7`` under the equations), the decomposition of Table 7, the class
    tests and the per-adjective scores of the reference model (or the first model)."""

    run: MontagueRun
    pairs_all: pd.DataFrame
    cmp7: pd.DataFrame
    eq7: pd.DataFrame
    dec: pd.DataFrame
    tests: pd.DataFrame
    scores: pd.DataFrame
    n_perm: int
    params: dict = field(default_factory=dict)

    @property
    def pairs(self) -> pd.DataFrame:
        return _of(self.pairs_all, self.run.reading)

    @property
    def ties(self) -> pd.Series:
        return tie_rates(self.pairs)

    @property
    def diagonal(self) -> pd.DataFrame:
        """Same-class cells (0.5 by symmetry, ties aside) and each model's overall tie rate."""
        p = self.pairs
        diag = p[p.type1 == p.type2].pivot(index="model", columns="type1", values="consistency")
        return diag.reindex(index=self.run.models, columns=list(CATEGORIES)).assign(overall_tie_rate=self.ties)

    @property
    def combinations(self) -> pd.DataFrame:
        """Per model: the combinations the reading counts (NaN ones excluded) and the seconds the
        pair test took."""
        main = self.run.main
        return pd.DataFrame(
            {
                "valid combinations": {m: int(np.count_nonzero(~np.isnan(r.pairs))) for m, r in main.items()},
                "pair test seconds": {m: r.seconds["pairs"] for m, r in main.items()},
            }
        )

    @property
    def si_row(self) -> pd.DataFrame:
        """The cells with an intersective a1 against every other class, models × class of a2."""
        p = self.pairs
        p = p[(p.type1 == "S-I") & (p.type2 != "S-I")]
        return p.pivot(index="model", columns="type2", values="consistency").reindex(
            index=self.run.models, columns=[c for c in CATEGORIES if c != "S-I"]
        )

    def save(self) -> None:
        r, p = self.run, self.params
        results.save_table(
            self.pairs_all, "montague", "pairs", models=r.models, distance=r.distance, **p, strings=r.strings
        )
        if len(self.cmp7):
            results.save_table(
                pd.concat([self.cmp7, self.eq7], ignore_index=True),
                "montague",
                "pairs_reproduced",
                models=r.models,
                seed=p["seed"],
            )
        vs = beside_paper(r.main, 7, n_boot=p["n_boot"], seed=p["seed"])
        if len(vs):
            results.save_table(vs, "montague", "pairs_vs_paper", models=r.models, seed=p["seed"])
        results.save_table(
            self.tests,
            "montague",
            "pairs_category_tests",
            models=r.models,
            seed=p["seed"],
            n_perm=self.n_perm,
            reading=r.reading,
            strings=r.strings,
        )


def pairs(run: MontagueRun, *, n_boot: int = 1000, n_perm: int = 10_000, seed: int = 0) -> PairsView:
    ref = run.ref_model
    pairs_all = collect(run.results, 7, n_boot=n_boot, seed=seed)
    empty = pd.DataFrame()
    cmp7 = reproduced(run.results["official"][ref], 7, n_boot=n_boot, seed=seed) if ref else empty
    eq7 = reproduced(run.results["equations"][ref], 7, n_boot=n_boot, seed=seed) if ref else empty
    dec = decomposition(ref, tables=(7,), trust_remote_code=run.trust_remote_code) if ref else empty
    tests = _class_tests(run, ["pairs"], n_perm, seed)
    scores = score_frame(run, run.main[ref or run.models[0]].pairs)
    return PairsView(run, pairs_all, cmp7, eq7, dec, tests, scores, n_perm, {"seed": seed, "n_boot": n_boot})


# ----------------------------------------------------------------------------- chapter 33
def degenerate_models(run: MontagueRun) -> list[str]:
    """Models whose every defined non-subsectivity comparison is a tie, d(p, a) = d(p, n) (the
    bag of words: "red dog" shares one word with "red" and one with "dog"). Their consistency is
    0 under ``<`` and 1 under ``≤`` whatever the adjective: no evidence either way."""
    out = []
    for m, r in run.main.items():
        valid = np.isfinite(r.an_distances["phrase_adj"]) & np.isfinite(r.an_distances["phrase_noun"])
        if valid.any() and bool(r.nonsub_ties[valid].all()):
            out.append(m)
    return out


@dataclass
class NonsubView:
    """Chapter 33: test NI (Tables 4 and 8), both readings; the paper's Table 8 reproduced
    (``cmp8``; ``eq8`` under the equations), what the spelling moves (``spell``), the class
    tests, the pooled gap per model and the per-adjective scores."""

    run: MontagueRun
    ns_all: pd.DataFrame
    cmp8: pd.DataFrame
    eq8: pd.DataFrame
    spell: pd.DataFrame
    comparison: pd.DataFrame
    tests: pd.DataFrame
    scores: pd.DataFrame
    degenerate: list[str]
    n_perm: int
    params: dict = field(default_factory=dict)

    @property
    def ns(self) -> pd.DataFrame:
        return _of(self.ns_all, self.run.reading)

    @property
    def direction(self) -> pd.DataFrame:
        """Per model: pooled subsective and non-subsective consistency, their gap, and the share of
        tied comparisons; "every comparison ties" reads "yes" for a degenerate model (its
        consistency says nothing about the classes), else "no"."""
        out = class_gap(self.ns, self.run.models)
        out["tie rate"] = pd.Series(
            {
                m: float(
                    np.nanmean(
                        np.where(
                            np.isfinite(r.an_distances["phrase_adj"] + r.an_distances["phrase_noun"]),
                            r.nonsub_ties,
                            np.nan,
                        )
                    )
                )
                for m, r in self.run.main.items()
            }
        )
        out["every comparison ties"] = ["yes" if m in self.degenerate else "no" for m in out.index]
        return out

    def save(self) -> None:
        r, p = self.run, self.params
        results.save_table(
            self.ns_all, "montague", "nonsubsective", models=r.models, distance=r.distance, **p, strings=r.strings
        )
        results.save_table(
            self.tests,
            "montague",
            "nonsub_category_tests",
            models=r.models,
            seed=p["seed"],
            n_perm=self.n_perm,
            reading=r.reading,
            strings=r.strings,
        )
        if len(self.comparison):
            results.save_table(self.comparison, "montague", "nonsub_vs_paper", models=r.models, seed=p["seed"])
        if len(self.cmp8):
            results.save_table(
                pd.concat([self.cmp8, self.eq8], ignore_index=True),
                "montague",
                "nonsub_reproduced",
                models=r.models,
                seed=p["seed"],
            )


def nonsub(run: MontagueRun, *, n_boot: int = 1000, n_perm: int = 10_000, seed: int = 0) -> NonsubView:
    ref = run.ref_model
    ns_all = collect(run.results, 8, n_boot=n_boot, seed=seed)
    empty = pd.DataFrame()
    cmp8 = reproduced(run.results["official"][ref], 8, n_boot=n_boot, seed=seed) if ref else empty
    eq8 = reproduced(run.results["equations"][ref], 8, n_boot=n_boot, seed=seed) if ref else empty
    spell = spelling_effect(ref, table=8, trust_remote_code=run.trust_remote_code) if ref else empty
    comparison = beside_paper(run.main, 8, n_boot=n_boot, seed=seed)
    tests = _class_tests(run, ["nonsub"], n_perm, seed)
    scores = score_frame(run, run.main[ref or run.models[0]].nonsub)
    return NonsubView(
        run,
        ns_all,
        cmp8,
        eq8,
        spell,
        comparison,
        tests,
        scores,
        degenerate_models(run),
        n_perm,
        {"seed": seed, "n_boot": n_boot},
    )
