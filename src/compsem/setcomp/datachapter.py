"""Chapter 10's view: the embedded set, the fusions' lengths, the operator tables and the
difference filter under both readings (:mod:`.chapters` and :mod:`.report` export it; the
operator chapters 11–13 are in :mod:`.chapters`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import claims
from ..labels import label
from ..reference import paper_model_count, paper_table
from ..results import save_table
from .data import QUINTUPLE_COLUMNS, SAMPLES_PER_QUINTUPLE, unique_texts
from .plots import plot_filter
from .study import STUDY, DataRun
from .tables import LABELS

__all__ = ["DataChapter", "CLAIMS", "check_claims"]

#: The chapter's sentences that state a result in words, checked by :func:`check_claims`.
CLAIMS = {
    "curr_max": "S_{curr} appears in up to seven samples of its quintuple",
    "few_hundred": "A few hundred samples of invented news",
}


def check_claims(values: dict, *, sentences: dict = CLAIMS) -> None:
    """Check chapter 10's claims on the values it glues (:mod:`compsem.claims`)."""
    page = "10_setcomp_data"
    claims.check_count(
        sentences["curr_max"], values["curr_max"], page=page, what="samples of a quintuple holding its S_curr"
    )
    lo, hi = values["samples_min"], values["samples_max"]
    claims.check(
        sentences["few_hundred"],
        page=page,
        holds=100 <= lo and hi < 1000,
        numbers={"fewest samples of an operator": lo, "most samples of an operator": hi},
        rule="'a few hundred' means 100 to 999 samples in every operator table",
    )


class DataChapter:
    """Chapter 10: the embedded set, fusion lengths, the operator tables, the filter."""

    def __init__(self, run: DataRun, *, filter_threshold: float):
        self.run, self.threshold = run, filter_threshold
        q = run.quintuples
        self.values: dict = {"n_quint": len(q), "n_topics": int(q["topic"].nunique()) if "topic" in q else 0}

    def example(self) -> pd.DataFrame:
        q = self.run.quintuples
        ex = q.iloc[[0]][["id"] + list(QUINTUPLE_COLUMNS)].T.rename(columns={0: "example quintuple"})
        return ex.rename(index=lambda k: label(k, LABELS))

    def lengths(self) -> pd.DataFrame:
        """Word counts per role and each fusion's length over its two sources' (the budget is 0.5)."""
        q = self.run.quintuples
        words = pd.DataFrame({c: q[c].str.split().str.len() for c in QUINTUPLE_COLUMNS})
        ratio = pd.concat(
            [words["s1"] / (words["s_prev"] + words["s_curr"]), words["s2"] / (words["s_curr"] + words["s_next"])],
            ignore_index=True,
        )
        self.values.update(
            ratio_mean=float(ratio.mean()), ratio_lo=float(ratio.quantile(0.05)), ratio_hi=float(ratio.quantile(0.95))
        )
        # one table, so one precision: every value to 2 decimals (a value rounded to 1 and shown
        # with 2 would print a false second decimal)
        stats = words.describe().T[["mean", "std", "min", "max"]].round(2)
        stats.loc["fusion length / sources' length"] = ratio.describe()[["mean", "std", "min", "max"]].round(2)
        stats.index = [f"{label(k, LABELS)}, words" if k in words else k for k in stats.index]
        return stats.rename(columns={"std": "s.d."})

    def sizes(self) -> pd.DataFrame:
        """Samples per operator, ours and the paper's (Section 5)."""
        rep, tables = self.run.filter, self.run.tables
        ref = paper_table(STUDY, "dataset").set_index("quantity")["value"]
        self.values.update(
            pass_rate=100 * rep.pass_rate,
            n_pass=rep.n_pass,
            filter_name=", ".join(rep.encoders),
            paper_pass_rate=float(100 * ref["difference_samples"] / 6 / ref["overlap_samples"]),
            paper_overlap=int(ref["overlap_samples"]),
            paper_difference=int(ref["difference_samples"]),
            paper_n_encoders=paper_model_count(STUDY),
            paper_union=int(ref["union_samples"]),
            paper_union_expected=SAMPLES_PER_QUINTUPLE["union"] * int(ref["overlap_samples"]),
            paper_union_short=SAMPLES_PER_QUINTUPLE["union"] * int(ref["overlap_samples"]) - int(ref["union_samples"]),
        )
        self.values.update(
            samples_min=min(len(t) for t in tables.values()), samples_max=max(len(t) for t in tables.values())
        )
        self._sizes = pd.DataFrame(
            {
                "samples per quintuple": [SAMPLES_PER_QUINTUPLE[op] for op in tables],
                "samples (ours)": [len(t) for t in tables.values()],
                "samples (paper, Section 5)": [int(ref[f"{op}_samples"]) for op in tables],
            },
            index=list(tables),
        )
        return self._sizes

    def filter_rules(self) -> pd.DataFrame:
        """Both readings of the filter: difference samples they keep here, and the paper's count
        divided by the samples each rule keeps per passing unit."""
        rep = self.run.filter
        paper = int(paper_table(STUDY, "dataset").set_index("quantity")["value"]["difference_samples"])
        ours = rep.samples()
        self.values.update(
            rule=rep.rule,
            n_pairs_pass=rep.n_pairs_pass,
            n_pairs=2 * rep.n_quintuples,
            diff_quintuple_rule=ours["quintuple"],
            diff_pair_rule=ours["pair"],
            paper_units_quintuple=paper // 6,
            paper_units_pair=paper // 3,
        )
        return pd.DataFrame(
            {
                "passes": ["a whole quintuple (both pairs below the threshold)", "one sentence pair"],
                "samples per passing unit": [6, 3],
                "passing units (ours)": [rep.n_pass, rep.n_pairs_pass],
                "difference samples (ours)": [ours["quintuple"], ours["pair"]],
                "passing units implied by the paper's 79,824": [paper // 6, paper // 3],
            },
            index=pd.Index(["per quintuple", "per sentence pair"], name="filter rule"),
        )

    def filter_figure(self):
        return plot_filter(self.run.filter, self.threshold)

    def by_encoder(self) -> pd.DataFrame:
        """The same filter under each model of the run, one at a time."""
        rows = []
        for m, r in self.run.by_model.items():
            rows.append(
                {
                    "filter encoder": m,
                    "median cos(prev, curr)": float(np.nanmedian(r.cos_prev_curr[m])),
                    "median cos(curr, next)": float(np.nanmedian(r.cos_curr_next[m])),
                    "quintuples passing": r.n_pass,
                    "pass rate %": 100 * r.pass_rate,
                    "undefined": r.n_undefined,
                }
            )
        self._by_encoder = pd.DataFrame(rows)
        return self._by_encoder

    def dedup(self) -> pd.DataFrame:
        tables = self.run.tables
        n_slots, n_unique = sum(3 * len(t) for t in tables.values()), len(unique_texts(tables))
        self.values.update(
            n_slots=n_slots,
            n_unique=n_unique,
            dedup_factor=n_slots / n_unique,
            curr_max=_curr_max(self.run.quintuples, tables),
        )
        return pd.DataFrame({"sentence slots in the three tables": [n_slots], "distinct sentences encoded": [n_unique]})

    def check_claims(self) -> None:
        """Check the chapter's sentences (:data:`CLAIMS`) on the values it glues."""
        check_claims(self.values)

    def save(self, *, dataset_source, sample_cap, seed) -> None:
        rep, q = self.run.filter, self.run.quintuples
        out = self._sizes.reset_index(names="operator")
        out["filter_encoders"] = ", ".join(rep.encoders)
        out["filter_threshold"] = self.threshold
        out["n_quintuples"] = len(q)
        out["filter_pass_rate"] = rep.pass_rate
        save_table(out, STUDY, "dataset_sizes", dataset_source=dataset_source, sample_cap=sample_cap, seed=seed)
        save_table(
            self._by_encoder, STUDY, "filter_by_encoder", threshold=self.threshold, dataset_source=dataset_source
        )
        save_table(
            self.filter_rules().reset_index(),
            STUDY,
            "filter_rules",
            threshold=self.threshold,
            filter_encoders=rep.encoders,
            dataset_source=dataset_source,
            sample_cap=sample_cap,
            seed=seed,
        )


def _curr_max(quintuples: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> int:
    """The most samples of one quintuple, over the operator tables, that hold its S_curr (as A,
    B or the target)."""
    curr = dict(zip(quintuples["id"], quintuples["s_curr"]))
    per = pd.concat(
        [
            t.assign(
                _has=[
                    curr.get(q) in row
                    for q, row in zip(t["qid"], t.drop(columns=["qid", "variant"]).itertuples(index=False))
                ]
            )
            for t in tables.values()
        ]
    )
    return int(per.groupby("qid")["_has"].sum().max()) if len(per) else 0
