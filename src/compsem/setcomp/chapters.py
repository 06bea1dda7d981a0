"""The views of chapters 11–13 (chapter 10's is :mod:`.datachapter`): each
table a chapter shows, the values it glues, what it saves.

A chapter builds one view (through :mod:`.report`, which exports them) from a
:func:`.study.run` and calls its methods cell by cell; every method returns a table or a figure
and records the numbers the prose glues in ``values`` (the last cell glues them all with
``glue_all(report.values(view))``). Nothing here embeds: the run holds the embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import claims
from .. import measures as M
from ..fmt import number
from ..encoders.kinds import is_control
from ..labels import labelled
from ..results import Prose, save_table
from ..sentences import comparisons_words, join_names, paired_ranking_sentence, paired_words
from ..stats import paired_comparison
from .metrics import CELLS, EPS_MODES, eps_label, geometry, ned_check
from ..encoders.registry import PANEL, available_encoders
from ..reference import paper_model_count, paper_models, paper_table
from .beside import cells_beside_paper, fmt_ci, ned_paper_check, paper_name, raw_beside_paper
from .plots import plot_cells_summary, plot_norm_ratios, plot_position_histograms
from .controls import c3_against_shuffled, control_values
from .study import STUDY, OperatorRun
from .tables import (
    LABELS,
    c4_samples,
    c4_table,
    cell_samples,
    cells_per_sample,
    cells_table,
    eps_modes_table,
    geometry_samples,
    geometry_table,
    norm_ratio_stats,
    paired_difference,
    paired_leads,
    raw_scores_table,
    union_table,
    with_leads,
)

__all__ = [
    "OverlapChapter",
    "DifferenceChapter",
    "UnionChapter",
    "cell_measures",
    "ranking_sentence",
    "floor_words",
    "control_gate",
    "fixed_ratio_models",
    "norm_ranking_sentence",
]


def cell_measures(measures: Sequence[str]) -> list[str]:
    """The measures of the cell tables: cosine and NED where asked for (the paper's pair)."""
    return [m for m in ("cos", "ned") if m in measures] or list(measures[:1])


def ranking_sentence(
    samples: dict[str, np.ndarray],
    *,
    what: str,
    higher: bool = True,
    constant: bool = True,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
    excluded: dict[str, str] | None = None,
) -> Prose:
    """Which model has the highest (``higher``) or lowest percentage, only as far as paired
    tests allow: the models are scored on the same samples, so each lead is a paired bootstrap
    of the per-sample difference, the comparisons held together by Bonferroni and counted
    (:func:`compsem.sentences.paired_ranking_sentence`).

    ``samples`` maps each model to its per-sample shares in [0, 1] (the values whose mean × 100
    the chapter's table shows). A model with an undefined share, or (``constant``) the same
    value on every sample (e.g. all 0 %), is left out and named, as are those of ``excluded``
    (``{model: why}``); a control (``bow``:
    :func:`compsem.encoders.kinds.is_control`) is shown beside the ranking, never in it.

    ``groups`` (each sample's quintuple): the samples of one quintuple share sentences, so the
    comparison is made on the quintuples, each the mean of its samples (a cluster-level paired
    test; with as many samples in every quintuple, the same means as over the samples).
    """
    items = "samples"
    if groups is not None:
        g = np.asarray(groups)
        samples = {m: pd.Series(np.asarray(v, dtype=float)).groupby(g).mean().to_numpy() for m, v in samples.items()}
        items = "quintuples"
    return Prose(
        paired_ranking_sentence(
            samples,
            what=what,
            higher=higher,
            scale=100,
            digits=1,
            unit=" %",
            items=items,
            constant=constant,
            n_boot=n_boot,
            seed=seed,
            excluded=excluded,
            controls=[m for m in samples if is_control(m)],
        )
    )


def ranking_by_mode(
    emb,
    operator: str,
    measure: str,
    *,
    mode,
    what: str,
    size: int = 132,
    n_boot: int = 1000,
    seed: int = 0,
    groups=None,
) -> Prose:
    """The (T,T) ranking of :func:`ranking_sentence` under the chapter's ε ``mode``, and where that
    mode's range depends on the other models of the run (``"pooled"``) the caveat and the same
    ranking at ε = 0, which needs no range: a ranking of a panel-dependent share is said to be
    one."""

    def ranked(m) -> str:
        tt = cell_samples(emb, operator, measure, "TT", mode=m, size=size)
        return str(ranking_sentence(tt, what=what, n_boot=n_boot, seed=seed, groups=groups))

    first = ranked(mode)
    if eps_label(mode) != "pooled":
        return Prose(first)
    return Prose(
        f"{first} This ranking is of the pooled ε grid average, whose range the other models of the run set, "
        f"so it may change with the panel. At ε = 0, which needs no range: {ranked('fixed')}"
    )


def paper_panel_sentence(rows: pd.DataFrame, panel: Sequence[str], optional: Sequence[str] = ()) -> str:
    """How the paper's encoders can be run here, counted from its panel file
    (``data/reference/paper_models/<study>.csv``, :func:`compsem.reference.paper_models`): how
    many have the very weights the paper used on the hub, how many only an API (``oa:``), and
    which of those run offline (a spec of the project's own ``panel``; those of ``optional`` only
    once installed). Rows that share a ``paper_name`` are one model."""
    enc = rows[rows["kind"] == "encoder"]
    n = int(enc["paper_name"].nunique())
    same = enc[enc["same_model"].astype(bool)]
    hub = same[same["hub_id"].fillna("").astype(str) != ""]["paper_name"].unique()
    api = [
        name
        for name, g in same.groupby("paper_name", sort=False)
        if name not in set(hub) and g["spec"].astype(str).str.startswith("oa:").any()
    ]
    local = [
        name
        for name, g in same.groupby("paper_name", sort=False)
        if g["spec"].astype(str).str.split("#").str[0].isin(list(panel)).any()
    ]
    opt = {
        name
        for name, g in same.groupby("paper_name", sort=False)
        if g["spec"].astype(str).str.split("#").str[0].isin(list(optional)).any()
    }
    said = f"Of the paper's {n} encoders, {len(hub)} have the very weights the paper used on the hub"
    if api:
        said += f" and {len(api)} ({', '.join(api)}) {'is' if len(api) == 1 else 'are'} served only by a web API"
    said += " (`data/reference/paper_models/setcomp.csv`)"
    if not local:
        return said + "; none of them runs offline here."
    names = [m for m in local if m not in opt] + [f"{m} (once installed: an optional model)" for m in local if m in opt]
    rest = len(hub) + len(api) - len(local)
    return (
        said
        + f"; of these only {join_names(names, quote='')} run{'s' if len(local) == 1 else ''} offline here"
        + (f", the other {rest} need a download or the API." if rest > 0 else ".")
    )


def fixed_ratio_models(ratios: dict[str, np.ndarray], *, tol: float = 1e-6) -> dict[str, str]:
    """The models whose every defined norm ratio lies within ``tol`` of 1, each with why it is left
    out of a paired comparison of comparable shares: its share is 100 % on every sample of this run
    (the largest deviation from 1 measured, never assumed from how the encoder is built), so a
    comparison with it tests nothing about the sentences."""
    out = {}
    for m, r in ratios.items():
        r = np.asarray(r, dtype=float)
        r = r[np.isfinite(r)]
        if r.size and np.all(np.abs(r - 1) <= tol):
            dev = float(np.max(np.abs(r - 1)))
            out[m] = (
                f"its norm ratio lies within {tol:.0e} of 1 on every sample (measured: the largest deviation is "
                f"{dev:.1e}), so its share is 100 % on these samples and a paired comparison with it tests nothing"
            )
    return out


def floor_words(values: dict[str, float], *, digits: int = 1, unit: str = " %") -> str:
    """The lowest value over the models of a run, the controls given apart (never counted as
    models: :func:`compsem.encoders.kinds.is_control`): "at least 97.6 % for every model of the
    run, `glove-50d` the lowest; the control `bow`: 92.8 %"; one model: "`m` is the only model of the
    run; …"."""
    real = {m: float(v) for m, v in values.items() if not is_control(m)}
    ctrl = {m: float(v) for m, v in values.items() if is_control(m)}
    tail = ""
    if ctrl:
        tail = ("the control " if len(ctrl) == 1 else "the controls ") + ", ".join(
            f"`{m}`: {number(v, digits)}{unit}" for m, v in ctrl.items()
        )
    if not real:
        return "no model of the run, only controls" + (f"; {tail}" if tail else "")
    if len(real) == 1:
        return f"`{next(iter(real))}` is the only model of the run" + (f"; {tail}" if tail else "")
    floor = min(real.values())
    lowest = [m for m, v in real.items() if v - floor < 1e-9]  # a tie names every model at the floor
    who = f"{join_names(lowest)} the lowest" if len(lowest) < len(real) else "every one of them at it"
    return f"at least {number(floor, digits)}{unit} for every model of the run, {who}" + (f"; {tail}" if tail else "")


def control_gate(
    samples: dict[str, np.ndarray],
    control: str,
    *,
    what: str,
    control_words: str,
    groups=None,
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[bool, str]:
    """Do the models separate from a ``control`` scored on the same samples? Each model's
    per-sample shares (in [0, 1]; controls of :func:`compsem.encoders.kinds.is_control` and the
    ``control`` itself are not models) against the control's, by a paired bootstrap on the
    quintuples (``groups``: each quintuple the mean of its samples), the m comparisons held
    together by Bonferroni. True with the words "every model ... more often than <control_words>"
    only when every paired interval lies above zero; else False, with each model that does not
    and its outcome, so that a criterion the control meets as often is never used to rank."""
    items = "samples"
    share = 100 * float(np.nanmean(samples[control])) if control in samples else float("nan")
    if groups is not None:
        g = np.asarray(groups)
        samples = {m: pd.Series(np.asarray(v, dtype=float)).groupby(g).mean().to_numpy() for m, v in samples.items()}
        items = "quintuples"
    models = [m for m in samples if m != control and not is_control(m)]
    if control not in samples or not models:
        return False, f"No model can be tested against {control_words} here, so none is ranked on {what}."
    m = len(models)
    res = {
        k: paired_comparison(samples[k], samples[control], alpha=alpha / m, n_boot=n_boot, seed=seed, scale=100)
        for k in models
    }
    n = len(samples[control])
    count = comparisons_words(m, alpha)
    bad = [k for k in models if res[k].words != "higher"]
    if not bad:
        return True, (
            f"On the same {n} {items} every model meets it more often than {control_words}, by a paired interval "
            f"above zero ({count}), so the models may be ranked on {what}."
        )

    def verb(names):
        return "meets" if len(names) == 1 else "meet"

    def shown(names):
        return "; ".join(
            f"`{k}` {number(res[k].estimate, 1)} points [{number(res[k].low, 1)}, {number(res[k].high, 1)}]"
            for k in names
        )

    parts = []
    same = [k for k in bad if res[k].words == "undefined"]
    if same:
        parts.append(
            f"{join_names(same)} {verb(same)} it exactly as often as {control_words} on every one of them "
            f"({number(share, 1)} %, as the control; the paired test is undefined)"
        )
    for word, how in (
        ("no evidence of a difference", f"with no evidence of a difference from {control_words}"),
        ("lower", f"less often than {control_words}, by a paired interval below zero"),
    ):
        some = [k for k in bad if res[k].words == word]
        if some:
            parts.append(f"{join_names(some)} {verb(some)} it {how} ({shown(some)})")
    tested = f" ({count})" if len(same) < m else ""
    return False, (
        f"On the same {n} {items}, "
        + "; ".join(parts)
        + f"{tested}. It does not separate {'this model' if len(bad) == 1 else 'these models'} from "
        f"{control_words}, so no model is ranked on {what}."
    )


def norm_ranking_sentence(
    within: dict[str, np.ndarray], excluded: dict[str, str], *, groups=None, n_boot: int = 1000, seed: int = 0
) -> Prose:
    """Chapter 13's ranking of the share of comparable pairs (lowest first): the models whose norm
    ratio varies (those of ``excluded`` named and left out, the controls beside), ranked by
    :func:`ranking_sentence` when at least two are left; with one or none, "No ranking: only
    `glove-50d` has norm ratios that vary (74.4 %)", never a ranking of one."""
    left = [m for m in within if m not in excluded and not is_control(m)]
    if len(left) >= 2:
        return ranking_sentence(
            within,
            what="share of comparable pairs",
            higher=False,
            constant=False,
            n_boot=n_boot,
            seed=seed,
            groups=groups,
            excluded=excluded,
        )
    pct = {m: 100 * float(np.nanmean(v)) for m, v in within.items()}
    head = (
        f"No ranking: only `{left[0]}` has norm ratios that vary ({number(pct[left[0]], 1)} %)."
        if left
        else "No ranking: no model has norm ratios that vary."
    )
    tail = "".join(f" `{m}` is left out: {why}." for m, why in excluded.items() if m in within and not is_control(m))
    ctrl = "".join(
        f" `{m}` ({number(pct[m], 1)} %) is a control, shown beside the models and not ranked."
        for m in within
        if is_control(m)
    )
    return Prose(head + tail + ctrl)


def _paper(name: str) -> pd.DataFrame:
    return paper_table(STUDY, name)


def _regions(geo: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    return labelled(
        geo.assign(pct=[fmt_ci(*r) for r in geo[["pct", "low", "high"]].to_numpy()]).pivot(
            index="model", columns="region", values="pct"
        )[list(order)],
        LABELS,
    )


class _OperatorChapter:
    operator = ""

    def __init__(self, run: OperatorRun, *, n_boot: int = 1000, seed: int = 0, **params):
        self.run, self.n_boot, self.seed, self.params = run, n_boot, seed, params
        self.models, self.main = run.models, run.main
        self.m0 = run.models[0]
        self.emb, self.controls = run.emb[run.main], run.controls[run.main]
        # each sample's quintuple: the unit every interval and paired test of the chapter resamples
        self.groups = {k: t["qid"].to_numpy() for k, t in run.subsets.items()}
        self.g = self.groups[self.main]
        self.values: dict = {"first_model": self.m0, "n_quintuples": len(np.unique(self.g))}
        self.geoms = geometry(self.emb, self.operator)
        self.control_geoms = geometry(self.controls, self.operator)

    def position_figure(self, title: str):
        return plot_position_histograms(self.geoms, title=title)

    def _geometry(self, **kw) -> pd.DataFrame:
        # the first model against its shuffled-target control on the same samples: a paired difference per
        # region (the claims' verdicts read it)
        shuf = self.run.shuffled_name
        paired = {self.m0: shuf} if shuf in self.control_geoms and self.m0 in self.geoms else {}
        self.geo = geometry_table(
            {**self.geoms, **self.control_geoms},
            n_boot=self.n_boot,
            seed=self.seed,
            groups=self.g,
            paired=paired,
            **kw,
        )
        return self.geo

    def _prov(self) -> dict:
        return dict(models=self.models, **self.params, seed=self.seed, n_boot=self.n_boot)

    def _modes(self) -> list:
        """The ε modes a result file of the claims holds: the chapter's own and ε = 0 (the reading
        that does not depend on the other models of the run), once each."""
        return [self.eps_range] + ([] if eps_label(self.eps_range) == "fixed" else ["fixed"])

    def _cells_with_leads(self, emb, tab: pd.DataFrame, mode, groups) -> pd.DataFrame:
        """``tab`` (a :func:`cells_table` under ``mode``) with each model's paired lead in (T,T)
        over the other models of the run (:func:`.tables.paired_leads`) on its (T,T) rows."""
        for meas in self.cm:
            tt = cell_samples(emb, self.operator, meas, "TT", mode=mode, size=self.grid_size)
            leads = paired_leads(
                {m: tt[m] for m in self.models if m in tt}, groups=groups, n_boot=self.n_boot, seed=self.seed
            )
            tab = with_leads(tab, leads, measure=meas, cell="TT", mode=eps_label(mode))
        return tab


class OverlapChapter(_OperatorChapter):
    """Chapter 11: Table 12 margins, C1 cells (Tables 1/13), ε choices, baselines, C2."""

    operator = "overlap"

    def __init__(self, run: OperatorRun, *, measures: Sequence[str], grid_size: int = 132, eps_range="pooled", **kw):
        super().__init__(run, grid_size=grid_size, eps_range=eps_range, **kw)
        self.measures, self.grid_size, self.eps_range = list(measures), grid_size, eps_range
        self.cm = cell_measures(measures)
        self.values["n_overlap"] = len(run.subsets[self.main])

    def margins(self) -> pd.DataFrame:
        self.raw = raw_scores_table(self.emb, "overlap", self.measures)
        return raw_beside_paper(
            self.raw,
            _paper("overlap_deltas"),
            {
                "M(A,O) − M(A,B)": ("m_ao_minus_m_ab", "d1_mean", "d1_std"),
                "M(B,O) − M(A,B)": ("m_bo_minus_m_ab", "d2_mean", "d2_std"),
            },
        ).set_index(["measure", "model"])

    def cells(self, measure: str | None = None) -> pd.DataFrame:
        if not hasattr(self, "cells_tab"):
            self.cells_tab = cells_table(
                self.emb,
                "overlap",
                self.cm,
                mode=self.eps_range,
                size=self.grid_size,
                n_boot=self.n_boot,
                seed=self.seed,
                groups=self.g,
            )
        return cells_beside_paper(self.cells_tab, _paper("c1_cells"), measure or self.cm[0]).set_index("model")

    def summary_figure(self):
        c, m = self.cells_tab, self.cm[0]
        ttab = c[(c["cell"] == "TT") & (c["measure"] == m)].set_index("model")
        tt = ttab["pct"]
        ff = c[(c["cell"] == "FF") & (c["measure"] == m)].set_index("model")["pct"]
        ref_tt = _paper("c1_cells").query("measure == 'cos'")["TT"]
        self.values.update(
            c1_tt_sentence=ranking_by_mode(
                self.emb,
                "overlap",
                m,
                mode=self.eps_range,
                what="share of samples in (T,T)",
                size=self.grid_size,
                n_boot=self.n_boot,
                seed=self.seed,
                groups=self.g,
            ),
            c1_first_tt=float(tt.iloc[0]),
            c1_first_ff=float(ff.iloc[0]),
            c1_paper_min=float(ref_tt.min()),
            c1_paper_max=float(ref_tt.max()),
            paper_n_encoders=paper_model_count(STUDY),
            paper_panel_sentence=Prose(
                paper_panel_sentence(
                    paper_models(STUDY),
                    available_encoders(),
                    [m for m in available_encoders() if not PANEL[m].default],
                )
            ),
            paper_overlap=int(paper_table(STUDY, "dataset").set_index("quantity")["value"]["overlap_samples"]),
        )
        return plot_cells_summary(c, cell="TT", label="% samples in (T,T)")

    def eps_modes(self, extra: Sequence = ()) -> pd.DataFrame:
        return eps_modes_table(self.emb, "overlap", self.cm[0], size=self.grid_size, extra=extra).round(1)

    def baselines(self) -> pd.DataFrame:
        base_emb = {**self.controls, self.m0: self.emb[self.m0]}
        base = pd.concat(
            [
                cells_table(
                    base_emb,
                    "overlap",
                    self.cm[:1],
                    mode=m,
                    size=self.grid_size,
                    n_boot=self.n_boot,
                    seed=self.seed,
                    groups=self.g,
                )
                for m in ("per-model", "fixed")
            ]
        )
        w = base.pivot_table(index=["model", "mode"], columns="cell", values="pct")[list(CELLS)]
        tt0 = float(w.loc[(self.m0, "fixed"), "TT"])
        # real against shuffled O on the same samples: a paired test of the per-sample (T,T) at ε = 0
        zero = cell_samples(base_emb, "overlap", self.cm[0], "TT", mode="fixed", size=self.grid_size)
        vs = paired_comparison(
            zero[self.m0], zero[self.run.shuffled_name], n_boot=self.n_boot, seed=self.seed, scale=100
        )
        self.values["c1_vs_shuffled_sentence"] = Prose(
            paired_words(vs, "the real O meets both conditions", "a shuffled O", "samples")
        )
        self.values.update(
            c1_shuffled_tt0=float(w.loc[(self.run.shuffled_name, "fixed"), "TT"]),
            c1_first_tt0=tt0,
            c1_first_tt0_often=claims.frequency(tt0 / 100),
        )
        return w.round(1)

    def c2(self) -> pd.DataFrame:
        geo = self._geometry()
        between = geo[geo["region"] == "between"].set_index("model")["pct"]
        ds = _paper("dataset").set_index("quantity")["value"]
        c1_zero = cell_samples(
            {self.m0: self.emb[self.m0]}, "overlap", self.cm[0], "TT", mode="fixed", size=self.grid_size
        )[self.m0]
        self.values.update(
            c2_first_between=float(between[self.m0]),
            c2_floor=Prose(floor_words(between[self.models].to_dict())),
            c2_random_between=float(between["random"]),
            c2_paper_gpt3=float(ds["gpt3_overlap_projection_between_pct"]),
            **control_values(
                "c2",
                real=self.geoms[self.m0],
                model=self.m0,
                target="O",
                shuffled=self.control_geoms[self.run.shuffled_name],
                random=self.control_geoms["random"],
                c1_at_zero=c1_zero,
                n_boot=self.n_boot,
                seed=self.seed,
            ),
        )
        return _regions(geo, ["between", "near_a", "near_b", "outside"])

    def claim_cells(self) -> pd.DataFrame:
        """The C1 cells of every model under the chapter's ε mode and at ε = 0, with the paired
        (T,T) − (F,F) and each model's paired lead in (T,T) over the other models: what Part I's
        verdicts read (``results/setcomp/c1_cells.csv``)."""
        tabs = []
        for i, mode in enumerate(self._modes()):
            tab = (
                self.cells_tab
                if i == 0
                else cells_table(
                    self.emb,
                    "overlap",
                    self.cm,
                    mode=mode,
                    size=self.grid_size,
                    n_boot=self.n_boot,
                    seed=self.seed,
                    groups=self.g,
                )
            )
            tabs.append(self._cells_with_leads(self.emb, tab, mode, self.g))
        return pd.concat(tabs, ignore_index=True)

    def save(self) -> None:
        prov = self._prov()
        save_table(self.claim_cells().assign(criterion="C1"), STUDY, "c1_cells", **prov)
        save_table(self.geo.assign(criterion="C2"), STUDY, "c2_geometry", **prov)
        save_table(self.raw, STUDY, "overlap_margins", **prov)
        save_table(geometry_samples(self.geoms, self.run.subsets[self.main]), STUDY, "c2_samples", **prov)


class DifferenceChapter(_OperatorChapter):
    """Chapter 12: Table 14 scores, C3 cells (Tables 2/15), C4 (Table 3), C5, baselines."""

    operator = "difference"
    UNFILTERED = "unfiltered (all quintuples)"

    def __init__(self, run: OperatorRun, *, measures: Sequence[str], grid_size: int = 132, eps_range="pooled", **kw):
        super().__init__(run, grid_size=grid_size, eps_range=eps_range, **kw)
        self.measures, self.grid_size, self.eps_range = list(measures), grid_size, eps_range
        self.cm = cell_measures(measures)
        rep = run.filter
        self.values.update(
            n_pass=rep.n_pass,
            pass_rate=100 * rep.pass_rate,
            n_diff_main=len(run.subsets[self.main]),
            n_diff_all=len(run.subsets[self.UNFILTERED]),
            main_subset=self.main,
        )

    def sizes(self) -> pd.DataFrame:
        return pd.DataFrame({"difference samples": {k: len(v) for k, v in self.run.subsets.items()}})

    def scores(self) -> pd.DataFrame:
        self.raw = pd.concat(
            [raw_scores_table(e, "difference", self.measures).assign(subset=k) for k, e in self.run.emb.items()]
        )
        main = self.raw[self.raw["subset"] == self.main].drop(columns="subset")
        return raw_beside_paper(
            main,
            _paper("difference_scores"),
            {
                "M(B,D)": ("m_bd", "m_bd", None),
                "M(A,D) − M(B,D)": ("m_ad_minus_m_bd", "m_ad_minus_m_bd", None),
                "M(A,B) − M(B,D)": ("m_ab_minus_m_bd", "m_ab_minus_m_bd", None),
            },
        ).set_index(["measure", "model"])

    def ned_paper(self) -> pd.DataFrame:
        """The paper's NED column against plain (1 − cos)/2 (Table 14)."""
        t = ned_paper_check()
        d = t["NED − (1 − cos)/2"]
        self.values.update(
            ned_n_fit=int(t["fits"].sum()),
            ned_n_models=len(t),
            ned_laser=float(d["LASER"]),
            ned_infersent=float(d["InferSent"]),
            ned_fit_max=float(d[t["fits"]].abs().max()),
        )
        rest = d[~t["fits"]].drop(["LASER", "InferSent"])
        side = "always above it" if rest.min() > 0 else "always below it" if rest.max() < 0 else "on both sides of it"
        self.values.update(
            ned_n_rest=len(rest), ned_llm_min=float(rest.min()), ned_llm_max=float(rest.max()), ned_llm_side=side
        )
        return t.round(4).assign(fits=t["fits"].map({True: "yes", False: "no"}))

    def ned_ours(self) -> pd.DataFrame:
        """Mean over (B, D) pairs of our NED and the two simpler candidates, per model of the run."""
        rows = {}
        for m, e in self.emb.items():
            r = ned_check(e["difference"]["b"], e["difference"]["t"])
            rows[m] = {k: float(np.nanmean(v)) for k, v in r.items()}
        t = pd.DataFrame(rows).T.rename(
            columns={
                "ned": "NED (ours)",
                "half_one_minus_cos": "(1 − cos)/2",
                "half_one_minus_pearson": "(1 − Pearson r)/2",
            }
        )
        gap = (t["NED (ours)"] - t["(1 − cos)/2"]).abs()
        self.values.update(ned_ours_gap_model=gap.idxmax(), ned_ours_gap=float(gap.max()))
        return t.round(4)

    def cells(self, measure: str | None = None) -> pd.DataFrame:
        if not hasattr(self, "cells_tab"):
            self.cells_tab = pd.concat(
                [
                    cells_table(
                        e,
                        "difference",
                        self.cm,
                        mode=self.eps_range,
                        size=self.grid_size,
                        n_boot=self.n_boot,
                        seed=self.seed,
                        groups=self.groups[k],
                    ).assign(subset=k)
                    for k, e in self.run.emb.items()
                ]
            )
        c = self.cells_tab
        return cells_beside_paper(c[c["subset"] == self.main], _paper("c3_cells"), measure or self.cm[0]).set_index(
            "model"
        )

    def eps_modes(self) -> pd.DataFrame:
        """(T,T) share per subset under the three named ε modes; glues the paper's ranges too."""
        modes = pd.concat(
            [
                cells_table(e, "difference", self.cm[:1], mode=m, size=self.grid_size, n_boot=0).assign(subset=k)
                for k, e in self.run.emb.items()
                for m in EPS_MODES
            ]
        )
        ttm = modes[modes["cell"] == "TT"].pivot_table(index="model", columns=["subset", "mode"], values="pct")
        ref = _paper("c3_cells")
        r2, r15 = ref[ref["measure"] == "cos"], ref[ref["measure"] == "ned"]
        enc, llm = r2[r2["model"].isin(["SBERT-mini", "SBERT-L", "USE"])]["TT"], r2[r2["family"] == "llm"]["TT"]
        high15 = r15[r15["TT"] > 90]
        self.values.update(
            c3_tt_sentence=ranking_by_mode(
                self.emb,
                "difference",
                self.cm[0],
                mode=self.eps_range,
                what="(T,T) share",
                size=self.grid_size,
                n_boot=self.n_boot,
                seed=self.seed,
                groups=self.g,
            ),
            c3_first_fixed=float(ttm.loc[self.m0, (self.main, "fixed")]),
            c3_first_fixed_unf=float(ttm.loc[self.m0, (self.UNFILTERED, "fixed")]),
            p_enc_lo=float(enc.min()),
            p_enc_hi=float(enc.max()),
            p_llm_lo=float(llm.min()),
            p_llm_hi=float(llm.max()),
            p_llm_count=claims.count(len(llm), "LLM encoder"),
            p_t15_models=", ".join(high15["model"]),
            p_t15_lo=float(high15["TT"].min()),
        )
        return ttm.round(1)

    def c4(self) -> pd.DataFrame:
        modes = [self.eps_range] + ([] if self.eps_range == "fixed" else ["fixed"])
        c4 = pd.concat(
            [
                c4_table(
                    e, self.cm, mode=m, size=self.grid_size, n_boot=self.n_boot, seed=self.seed, groups=self.groups[k]
                ).assign(subset=k)
                for k, e in self.run.emb.items()
                for m in modes
            ]
        )
        c4 = self._c4_minus_c3(c4, modes)
        self.c4_tab = c4.copy()
        c4["ours"] = [fmt_ci(*r) for r in c4[["pct", "low", "high"]].to_numpy()]
        w = c4.pivot_table(index="model", columns=["subset", "mode", "measure"], values="ours", aggfunc="first")
        ref = _paper("c4").pivot_table(index="model", columns="measure", values="pct_CD3")
        paper = ref.reindex([paper_name(m) for m in self.models])
        paper.index = self.models
        # the paper's cells at its own precision (two decimals); a model the paper did not run says so
        paper = paper.map(lambda v: "not in the paper" if pd.isna(v) else number(v, 2))
        paper.columns = pd.MultiIndex.from_tuples(
            [("paper, Table 3", "pooled (16 encoders)", c) for c in paper.columns]
        )
        main = c4[
            (c4["subset"] == self.main) & (c4["mode"] == eps_label(self.eps_range)) & (c4["measure"] == self.cm[0])
        ].set_index("model")
        # C4 ranks the models only where they separate from random vectors at ε = 0 (the reading that needs no
        # range): a criterion random vectors meet as often orders nothing about meaning
        zero = c4_samples({**self.emb, "random": self.controls["random"]}, self.cm[0], mode="fixed")
        ok, gate = control_gate(
            zero,
            "random",
            what="C4's grid-averaged score",
            control_words="random vectors at ε = 0",
            groups=self.g,
            n_boot=self.n_boot,
            seed=self.seed,
        )
        rank = (
            " "
            + ranking_sentence(
                c4_samples(self.emb, self.cm[0], mode=self.eps_range, size=self.grid_size),
                what="grid-averaged C4 score",
                higher=False,
                n_boot=self.n_boot,
                seed=self.seed,
                groups=self.g,
            )
            if ok
            else ""
        )
        self.values.update(
            c4_first=float(main.loc[self.m0, "pct"]),
            c4_first_fixed=100 * float(np.mean(zero[self.m0])),
            c4_rank_sentence=Prose(gate + rank),
        )
        return pd.concat([w, paper], axis=1)

    def c5(self) -> pd.DataFrame:
        geo = self._geometry()
        near_a = geo[geo["region"] == "near_a"].set_index("model")["pct"]
        med_t = float(geo.groupby("model")["median_t"].first()[self.m0])
        self.values.update(
            c5_first_near_a=float(near_a[self.m0]),
            c5_random_near_a=float(near_a["random"]),
            c5_first_median_t=med_t,
            c5_first_median_axis=1 - med_t,
        )  # the histogram shows 1 - t
        return _regions(geo, ["near_a", "between", "near_b", "outside"])

    def baselines(self) -> pd.DataFrame:
        base_emb = {**self.controls, self.m0: self.emb[self.m0]}
        kw = dict(size=self.grid_size, n_boot=0)
        base = pd.concat(
            [cells_table(base_emb, "difference", self.cm[:1], mode=m, **kw) for m in ("per-model", "fixed")]
        )
        bc4 = pd.concat([c4_table(base_emb, self.cm[:1], mode=m, **kw) for m in ("per-model", "fixed")])
        bw = base.pivot_table(index=["model", "mode"], columns="cell", values="pct")[list(CELLS)]
        bw["C4 %"] = bc4.set_index(["model", "mode"])["pct"]
        shuf = self.run.shuffled_name
        zero = cells_per_sample(base_emb, "difference", self.cm[0], mode="fixed", size=self.grid_size)
        self.values["c3_vs_shuffled_sentence"] = c3_against_shuffled(
            zero[self.m0], zero[shuf], model=self.m0, n_boot=self.n_boot, seed=self.seed, groups=self.g
        )
        self.values.update(
            c4_random_fixed=float(bw.loc[("random", "fixed"), "C4 %"]),
            c3_shuf_fixed=float(bw.loc[(shuf, "fixed"), "TT"]),
            c3_shuf_ft=float(bw.loc[(shuf, "fixed"), "FT"]),
        )
        return bw.round(1)

    def claim_cells(self) -> pd.DataFrame:
        """The C3 cells of every subset and model under the chapter's ε mode and at ε = 0, with
        the paired (T,T) − (F,F) and each model's paired lead in (T,T) over the other models:
        what Part I's verdicts read (``results/setcomp/c3_cells.csv``)."""
        tabs = []
        for k, e in self.run.emb.items():
            for i, mode in enumerate(self._modes()):
                c = self.cells_tab
                tab = (
                    c[c["subset"] == k].drop(columns="subset")
                    if i == 0
                    else cells_table(
                        e,
                        "difference",
                        self.cm,
                        mode=mode,
                        size=self.grid_size,
                        n_boot=self.n_boot,
                        seed=self.seed,
                        groups=self.groups[k],
                    )
                )
                tabs.append(self._cells_with_leads(e, tab, mode, self.groups[k]).assign(subset=k))
        return pd.concat(tabs, ignore_index=True)

    def _c4_minus_c3(self, c4: pd.DataFrame, modes: Sequence) -> pd.DataFrame:
        """``c4`` with ``minus_c3`` (and ``_low``, ``_high``): per sample, the share meeting C4
        minus the share meeting both C3 conditions, on the same samples and ε mode, in points,
        resampling quintuples (the paper's "C4 exceeds C3")."""
        c4 = c4.assign(minus_c3=float("nan"), minus_c3_low=float("nan"), minus_c3_high=float("nan"))
        for k, e in self.run.emb.items():
            for mode in modes:
                for meas in self.cm:
                    four = c4_samples(e, meas, mode=mode, size=self.grid_size)
                    three = cell_samples(e, "difference", meas, "TT", mode=mode, size=self.grid_size)
                    for m in four:
                        at = (
                            (c4["subset"] == k)
                            & (c4["mode"] == eps_label(mode))
                            & (c4["measure"] == meas)
                            & (c4["model"] == m)
                        )
                        c4.loc[at, ["minus_c3", "minus_c3_low", "minus_c3_high"]] = paired_difference(
                            four[m], three[m], groups=self.groups[k], n_boot=self.n_boot, seed=self.seed
                        )
        return c4

    def summary_figure(self):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
        c, c4 = self.cells_tab, self.c4_tab
        plot_cells_summary(c[c["subset"] == self.main], cell="TT", label="% samples in (T,T), C3", ax=axes[0])
        plot_cells_summary(
            c4[(c4["subset"] == self.main) & (c4["mode"] == eps_label(self.eps_range))],
            cell=None,
            label="grid-averaged C4 score (%)",
            ax=axes[1],
        )
        fig.tight_layout()
        return fig

    def save(self) -> None:
        rep = self.run.filter
        prov = self._prov() | dict(
            filter_encoders=rep.encoders,
            filter_threshold=rep.threshold,
            filter_rule=rep.rule,
            filter_pass_rate=rep.pass_rate,
        )
        save_table(self.claim_cells().assign(criterion="C3"), STUDY, "c3_cells", **prov)
        save_table(self.c4_tab.assign(criterion="C4"), STUDY, "c4", **prov)
        # C4 at ε = 0 for the first model beside its controls on the same samples (Part I's verdict on C4)
        beside = {**self.controls, self.m0: self.emb[self.m0]}
        c4_ctrl = c4_table(
            beside, self.cm[:1], mode="fixed", size=self.grid_size, n_boot=self.n_boot, seed=self.seed, groups=self.g
        )
        save_table(c4_ctrl.assign(subset=self.main, criterion="C4"), STUDY, "c4_controls", **prov)
        save_table(self.geo.assign(criterion="C5", subset=self.main), STUDY, "c5_geometry", **prov)
        save_table(self.raw, STUDY, "difference_scores", **prov)
        save_table(
            geometry_samples(self.geoms, self.run.subsets[self.main]).assign(subset=self.main),
            STUDY,
            "c5_samples",
            **prov,
        )


class UnionChapter(_OperatorChapter):
    """Chapter 13: C6 geometry, the norm ratios (Figure 10), C6 by norm case."""

    operator = "union"

    def __init__(self, run: OperatorRun, *, comparable: float = 0.1, near: float = 0.25, **kw):
        super().__init__(run, comparable=comparable, near=near, **kw)
        self.comparable, self.near = comparable, near
        self.values["n_union"] = len(run.subsets[self.main])

    def c6_geometry(self) -> pd.DataFrame:
        geo = self._geometry(near=self.near)
        between = geo[geo["region"] == "between"].set_index("model")["pct"]
        self.values.update(
            c6_first_between=float(between[self.m0]),
            c6_floor=Prose(floor_words(between[self.models].to_dict())),
            c6_shuf_between=float(between[self.run.shuffled_name]),
            **control_values(
                "c6",
                real=self.geoms[self.m0],
                model=self.m0,
                target="U",
                shuffled=self.control_geoms[self.run.shuffled_name],
                random=self.control_geoms["random"],
                n_boot=self.n_boot,
                seed=self.seed,
                groups=self.g,
            ),
        )
        return _regions(geo, ["between", "near_a", "near_b", "outside"])

    def between_figure(self):
        return plot_cells_summary(
            self.geo[self.geo["region"] == "between"].assign(measure="between A and B"),
            cell=None,
            label="% projections between A and B",
        )

    def norm_figure(self):
        self.ratios = {
            m: M.norm_ratio(e["union"]["a"], e["union"]["b"], warn=False)
            for m, e in {**self.emb, **self.controls}.items()
            if m != self.run.shuffled_name
        }
        return plot_norm_ratios(self.ratios)

    def norms(self) -> pd.DataFrame:
        self.norm_stats = norm_ratio_stats(self.ratios, comparable=self.comparable)
        pc = self.norm_stats.loc[self.models, "% comparable"]
        # per sample: is the ratio comparable (NaN ratios left out of every paired comparison)
        within = {m: np.where(np.isnan(r), np.nan, np.abs(r - 1) <= self.comparable) for m, r in self.ratios.items()}
        # a model whose every ratio is 1 (a normalised encoder) is comparable on every sample by construction:
        # its 100 % is its property, not a defect, and a paired comparison with it tests nothing about the
        # sentences, so it is named and left out of the comparisons
        self.values.update(
            norm_comparable_floor=Prose(floor_words(pc.to_dict())),
            norm_comparable_sentence=norm_ranking_sentence(
                {m: within[m].astype(float) for m in self.models},
                fixed_ratio_models({m: self.ratios[m] for m in self.models}),
                n_boot=self.n_boot,
                seed=self.seed,
                groups=self.g,
            ),
        )
        return self.norm_stats.round(3)

    def c6(self) -> pd.DataFrame:
        c6 = union_table(
            {**self.emb, **self.controls},
            {**self.geoms, **self.control_geoms},
            comparable=self.comparable,
            near=self.near,
            n_boot=self.n_boot,
            seed=self.seed,
            groups=self.g,
        )
        c6["expected region"] = c6["norm_case"].map(
            {"comparable": "between", "a_larger": "near A", "b_larger": "near B"}
        )
        self.c6_tab = c6.copy()
        c6["% in expected region"] = [fmt_ci(*r) for r in c6[["pct_expected", "low", "high"]].to_numpy()]
        return labelled(c6.pivot(index="model", columns="norm_case", values=["n_case", "% in expected region"]), LABELS)

    def save(self) -> None:
        prov = self._prov()
        save_table(self.geo.assign(criterion="C6-geometry"), STUDY, "c6_geometry", **prov)
        save_table(self.c6_tab.assign(criterion="C6"), STUDY, "c6_norm_cases", **prov)
        save_table(self.norm_stats.reset_index(names="model"), STUDY, "union_norm_ratios", **prov)
        save_table(geometry_samples(self.geoms, self.run.subsets[self.main]), STUDY, "c6_samples", **prov)
