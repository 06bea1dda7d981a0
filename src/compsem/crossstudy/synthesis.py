"""The compositionality profile: one headline number per study and criterion, per model.

:func:`profile` asks each study's own report (``compsem.<study>.report.headlines``) for its
headline criteria on the shipped data, so a reader's hub model gets a full profile from the
``models`` parameter alone. Every number comes with a 95 % bootstrap interval (resampling the
unit named in :data:`CRITERIA`) and the replicates of that bootstrap on resamples shared by every
model (``replicates``), so that two models scored on the same items pair.

Controls are drawn beside the models and never ranked among them: the baselines the run declares
(``controls``, e.g. ``bow`` and ``random``) and a study's own controls of each model (rows whose
``control_of`` names the model, e.g. Part I's shuffled targets). A criterion is ranked
(:func:`ranking`) only where its headline argues a direction and every model separates from every
control by a paired bootstrap of the difference on the same items (:func:`separation`); otherwise
its column says, in words produced from the test, why it is not. :func:`criteria_table`,
:func:`profile_table`, :func:`profile_figure`, :func:`ranks` and :func:`findings` turn the
profile into what the synthesis chapter shows and glues; they read the profile and compute nothing
the studies did not, but the paired differences. The chapter's introduction (:func:`questions`),
its notes on how each headline is computed (:func:`methods`) and its findings, one paragraph per
study (:func:`paragraphs`), come from each study's ``report.FINDING``
(:class:`compsem.faces.Finding`): no criterion is named here.

A row that cannot be ranked (every comparison a tie, every item exactly at the no-effect value,
or a reason the study gives in an optional ``degenerate`` column of its headline rows) is left
out of every "highest" sentence, the rank table and the heat map's colours, and named on the
page (:func:`degenerate`, :func:`compsem.sentences.degenerate_reason`).

The headlines are chosen so that no number depends on which other models are in the run
(Part I uses ε = 0 rather than the pooled ε range) and so that each has a stated chance or
theory-predicted reference value.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import figures
from ..errors import check_trust_remote_code
from ..fmt import deciding_digits, estimate, number
from ..results import Headline, Prose
from ..sentences import degenerate_reason, join_names, versus_reference
from ..stats import separation as paired_separation
from ..studies import STUDIES

__all__ = [
    "CRITERIA",
    "STUDY_REPORTS",
    "LEVEL",
    "profile",
    "takes_limit",
    "saved",
    "profile_matrix",
    "criteria_table",
    "profile_table",
    "degenerate",
    "control_names",
    "separation",
    "ranking",
    "profile_figure",
    "findings",
    "questions",
    "methods",
    "paragraphs",
    "ranks",
]

#: Each study's report, in the book's order.
STUDY_REPORTS = {s.name: s.module("report") for s in STUDIES}

#: Every headline criterion, in the book's order.
CRITERIA: tuple[Headline, ...] = tuple(h for r in STUDY_REPORTS.values() for h in r.HEADLINES)

#: The level of every paired interval of the separation test.
LEVEL = 0.95


def takes_limit(study: str) -> bool:
    """Whether ``study``'s ``report.headlines`` can cut its data (it takes a ``limit`` keyword)."""
    return "limit" in inspect.signature(STUDY_REPORTS[study].headlines).parameters


def profile(
    models: Sequence[str],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    trust_remote_code: bool = False,
    studies: Sequence[str] | None = None,
    limit: int | None = None,
) -> pd.DataFrame:
    """Tidy profile: one row per model and criterion (see :data:`CRITERIA`). ``trust_remote_code``
    must be the literal True or False and is passed through to every study's ``report.headlines``.
    ``studies``: only these studies' criteria (default every study); ``limit``: passed to the
    headlines of the studies that take one (:func:`takes_limit`), which keep their first ``limit``
    items."""
    trc = check_trust_remote_code(trust_remote_code, where="profile")
    names = list(STUDY_REPORTS) if studies is None else list(studies)
    rows = [
        row
        for n in names
        for row in STUDY_REPORTS[n].headlines(
            models,
            n_boot=n_boot,
            seed=seed,
            trust_remote_code=trc,
            **({"limit": limit} if limit is not None and takes_limit(n) else {}),
        )
    ]
    out = _columns(pd.DataFrame(rows))
    order = {c.key: i for i, c in enumerate(CRITERIA)}
    return out.sort_values(
        ["model", "criterion"], key=lambda s: s.map(order) if s.name == "criterion" else s, kind="stable"
    ).reset_index(drop=True)


def _columns(prof: pd.DataFrame) -> pd.DataFrame:
    """``prof`` with the optional columns of a headline row filled in: ``replicates`` (None: the
    study gives none, so no paired test) and ``control_of`` (``""``: a model's own row)."""
    if "replicates" not in prof:
        prof = prof.assign(replicates=None)
    if "control_of" not in prof:
        prof = prof.assign(control_of="")
    return prof.assign(control_of=prof["control_of"].fillna("").astype(str))


def saved(prof: pd.DataFrame) -> pd.DataFrame:
    """The profile as its result file holds it: every column but the bootstrap replicates."""
    return prof.drop(columns=[c for c in ("replicates",) if c in prof])


def profile_matrix(prof: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    """Models × criteria (in :data:`CRITERIA` order)."""
    m = prof.pivot(index="model", columns="criterion", values=value)
    return m[[c.key for c in CRITERIA if c.key in m.columns]]


def _unit(key: str) -> str:
    return next(c.unit for c in CRITERIA if c.key == key)


def _criterion(key: str) -> Headline:
    return next(c for c in CRITERIA if c.key == key)


def _higher(key: str) -> bool | None:
    """The criterion's direction (:attr:`compsem.results.Headline.higher`): True when higher is
    better, False when lower is, None when its chapter argues none (it is then never ranked)."""
    return _argued(_criterion(key))


def _argued(c: Headline) -> bool | None:
    """``c.higher`` where the headline says where its chapter argues that direction
    (:attr:`compsem.results.Headline.direction`), else None: a direction nobody argued (the
    default ``higher=True`` with no ``direction``) is no direction, and never ranks."""
    return c.higher if c.higher is None or c.direction.strip() else None


def _fmt(value: float, unit: str, pct_digits: int = 1) -> str:
    """Percentages to ``pct_digits`` decimals, other values to two; never "-0.00"."""
    return number(value, pct_digits if unit == "%" else 2)


def criteria_table() -> pd.DataFrame:
    """The headlines' definitions, one row per criterion (key as index): "better" is "higher",
    "lower" or "no direction", and "why" says where the chapter argues it (or why it argues none)."""
    better = {True: "higher", False: "lower", None: "no direction"}
    return pd.DataFrame(
        [
            {
                "key": c.key,
                "Part": c.part,
                "headline": c.label,
                "meaning": c.meaning,
                "unit": c.unit,
                "resampled": c.resampled,
                "better": better[_argued(c)],
                "why": c.direction or "its chapter argues none",
                "chance / no effect": "–"
                if np.isnan(c.reference)
                else f"{c.reference:g}" + (" %" if c.unit == "%" else ""),
            }
            for c in CRITERIA
        ]
    ).set_index("key")


def control_names(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> list[str]:
    """Every control drawn beside ``models``: the run's ``controls`` found in the profile, then
    the studies' own controls of a model of ``models`` (rows whose ``control_of`` names it)."""
    prof = _columns(prof)
    own = prof[prof.control_of.isin(list(models))]
    own = own.assign(at=own.control_of.map({m: i for i, m in enumerate(models)})).sort_values("at", kind="stable")
    return [c for c in controls if c in set(prof.model)] + [m for m in dict.fromkeys(own.model) if m not in controls]


def profile_table(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> pd.DataFrame:
    """Criteria (labels) × models, then the controls (:func:`control_names`, headed
    "control: NAME"), each cell ``"value [low, high]"`` (percentages to one decimal and marked
    "%", other values to two: a model's column mixes units, and each cell says which it holds); a
    criterion without an interval shows its value alone, a degenerate one (:func:`degenerate`)
    ends in "(n/a)", a criterion a control has no row for reads "–"."""

    def cell(r):
        pct = r.unit == "%"
        return estimate(r.value, r.low, r.high, 1 if pct else 2, unit=" %" if pct else "") + (" (n/a)" if r.bad else "")

    prof = _with_reference(_columns(prof))
    ctrl = [c for c in control_names(prof, models, controls) if c not in models]
    if "unit" not in prof:
        prof = prof.assign(unit=prof["criterion"].map(lambda k: _criterion(k).unit))
    table = prof.assign(bad=degenerate(prof) != "")
    table = table.assign(text=table.apply(cell, axis=1)).pivot(index="criterion", columns="model", values="text")
    keys = [c.key for c in CRITERIA if c.key in table.index]
    table = table.reindex(index=keys, columns=list(models) + ctrl).fillna("–")
    table.index = [c.label for c in CRITERIA if c.key in keys]
    table.columns = list(models) + [f"control: {c}" for c in ctrl]
    return table


def degenerate(prof: pd.DataFrame) -> pd.Series:
    """Why each profile row must stay out of rankings (``""`` when it may be ranked), indexed
    like ``prof``: :func:`compsem.sentences.degenerate_reason` on its value, interval, reference,
    tie share and a study's own ``degenerate`` column when there is one."""
    flagged = prof["degenerate"].fillna("") if "degenerate" in prof else pd.Series("", index=prof.index)
    odd = [f for f in flagged if not isinstance(f, str)]
    if odd:
        raise TypeError(
            f"a study's 'degenerate' column must hold a reason in words, or '' when the row may be "
            f"ranked; got {odd[0]!r}"
        )
    ties = prof["ties"] if "ties" in prof else pd.Series(np.nan, index=prof.index)
    return pd.Series(
        [
            degenerate_reason(
                r.value, r.low, r.high, reference=r.reference if "reference" in prof else np.nan, ties=t, flagged=f
            )
            for r, t, f in zip(prof.itertuples(), ties, flagged)
        ],
        index=prof.index,
        name="degenerate",
    )


def _reference(key: str) -> float:
    return next(c.reference for c in CRITERIA if c.key == key)


def _with_reference(prof: pd.DataFrame) -> pd.DataFrame:
    return prof if "reference" in prof else prof.assign(reference=prof["criterion"].map(_reference))


_OUTCOME = {
    "higher": "above the control",
    "lower": "below the control",
    "no evidence of a difference": "no evidence of a difference",
    "undefined": "the paired test is undefined",
}


def _rankable(prof: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """The rows of ``models`` that may be ranked: finite, not degenerate."""
    rows = prof[prof.model.isin(list(models)) & (prof.control_of == "")]
    return rows[(degenerate(rows) == "") & np.isfinite(rows["value"].astype(float))]


def separation(
    prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = (), *, level: float = LEVEL
) -> pd.DataFrame:
    """The paired test of every model against every control, criterion by criterion: one row per
    (criterion, model, control) with the difference model − control, its paired percentile
    interval (the replicates' differences: both drawn on the same resamples of the same items,
    :func:`compsem.stats.separation`) and the outcome ("higher", "lower", "no evidence of a
    difference", "undefined"). A model's controls on a criterion are the run's ``controls`` with a
    row there and the rows whose ``control_of`` is the model; a degenerate row (a model's or a
    control's) takes no part. ``separated`` is True where the outcome lies on the side the
    headline calls better (either side, for a criterion without a direction)."""
    prof = _with_reference(_columns(prof))
    ok = prof[degenerate(prof) == ""]
    out = []
    for c in CRITERIA:
        rows = ok[ok.criterion == c.key]
        run_ctrl = rows[rows.model.isin(list(controls)) & (rows.control_of == "")]
        for m in models:
            mine = rows[(rows.model == m) & (rows.control_of == "")]
            if m in controls or mine.empty:
                continue
            r = mine.iloc[0]
            for k in pd.concat([run_ctrl, rows[rows.control_of == m]]).itertuples():
                sep = paired_separation(r.value, k.value, r.replicates, k.replicates, level=level)
                good = {True: ("higher",), False: ("lower",), None: ("higher", "lower")}[_argued(c)]
                out.append(
                    {
                        "criterion": c.key,
                        "model": m,
                        "control": k.model,
                        "difference": sep.difference,
                        "low": sep.low,
                        "high": sep.high,
                        "outcome": sep.outcome,
                        "separated": sep.outcome in good,
                    }
                )
    cols = ["criterion", "model", "control", "difference", "low", "high", "outcome", "separated"]
    return pd.DataFrame(out, columns=cols)


def _pair_words(r, unit: str) -> str:
    """One paired comparison in words, its bounds printed to the decimals that show their sign
    (:func:`compsem.fmt.deciding_digits`): a bound of -0.0009 reads "-0.001", not "0.00"."""
    d = deciding_digits((r.low, r.high), 1 if unit == "%" else 2)
    pts = " points" if unit == "%" else ""
    return f"`{r.model}` − `{r.control}` {estimate(r.difference, r.low, r.high, d)}{pts} ({_OUTCOME[r.outcome]})"


def _not_separated_words(bad: pd.DataFrame, tests: pd.DataFrame, higher: bool, unit: str, pct: str) -> str:
    """Why a criterion is not ranked when some model does not separate from a control, in the
    direction the paired tests show: where a control lies significantly on the better side of a
    model ("the control `bow` scores significantly higher than `a` and `b`, the side this
    criterion calls better"), the words say so; where every failing interval contains zero (or
    none is defined), "not ranked: not every model separates from every control", with the models
    that do separate from all of theirs named."""
    worse = bad[bad.outcome == ("lower" if higher else "higher")]
    detail = (
        f"({len(bad)} of {len(tests)} paired {pct} intervals not on the better side of zero: "
        + "; ".join(_pair_words(r, unit) for r in bad.itertuples())
        + ")"
    )
    if worse.empty:
        clear = [m for m, g in tests.groupby("model", sort=False) if bool(g["separated"].all())]
        them = (
            f"; {join_names(clear)} {'separates' if len(clear) == 1 else 'separate'} from every one of "
            f"{'its' if len(clear) == 1 else 'their'} controls"
            if clear
            else "; no model separates from all of its controls"
        )
        return f"not ranked: not every model separates from every control {detail}{them}."
    ctrls = list(dict.fromkeys(worse.control))
    who = ("the control " if len(ctrls) == 1 else "the controls ") + join_names(ctrls)
    verb = "scores" if len(ctrls) == 1 else "score"
    rest = "; the other intervals not on the better side contain zero or are undefined" if len(worse) < len(bad) else ""
    return (
        f"not ranked: {who} {verb} significantly {'higher' if higher else 'lower'} than "
        f"{join_names(list(dict.fromkeys(worse.model)))}, the side this criterion calls better {detail}{rest}."
    )


def ranking(
    prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = (), *, level: float = LEVEL
) -> pd.DataFrame:
    """Whether each criterion of the profile is ranked, and the words of its test (index: the
    criterion's key; columns ``ranked``, ``test``). A criterion is ranked only where

    1. its headline argues a direction (:attr:`compsem.results.Headline.higher` is not None and
       :attr:`~compsem.results.Headline.direction` says where its chapter argues it);
    2. at least two models can be ranked (not degenerate) and at least one control was run;
    3. not every model lies significantly on the wrong side of the headline's reference
       (chance, no effect) by its own interval;
    4. every model that can be ranked has a control on the criterion, and separates from every
       control (:func:`separation`): the paired interval of model − control lies wholly on the
       better side of zero.

    Otherwise ``test`` says which condition fails, with the numbers of the test."""
    prof = _with_reference(_columns(prof))
    sep = separation(prof, models, controls, level=level)
    pct = f"{number(100 * level, 0)} %"
    out = {}
    for c in CRITERIA:
        if c.key not in set(prof.criterion):
            continue
        real = _rankable(prof[prof.criterion == c.key], [m for m in models if m not in controls])
        tests = sep[sep.criterion == c.key]
        if _argued(c) is None:
            out[c.key] = (False, f"not ranked: no direction ({c.direction or 'its chapter argues none'}).")
            continue
        if len(real) < 2:
            out[c.key] = (False, "not ranked: fewer than two models can be ranked here.")
            continue
        if tests.empty:
            out[c.key] = (False, "not ranked: no control in this run to test the models against.")
            continue
        untested = [m for m in real.model if m not in set(tests.model)]
        if untested:  # a model never tested against a control has not separated from one
            verb = "has" if len(untested) == 1 else "have"
            out[c.key] = (False, f"not ranked: {join_names(untested)} {verb} no control here to be tested against.")
            continue
        wrong = "significantly below" if c.higher else "significantly above"
        side = [versus_reference(r.low, r.high, r.reference, higher=c.higher) for r in real.itertuples()]
        bad = tests[~tests.separated]
        if np.isfinite(c.reference) and all(s == wrong for s in side):
            ref = f"{c.reference:g}{' %' if c.unit == '%' else ''}"
            text = (
                f"not ranked: every model lies {wrong} {ref} (chance or no effect) by its own {pct} interval, so "
                "none is better, only less wrong"
            )
            text += (
                "; against the controls: " + "; ".join(_pair_words(r, c.unit) for r in tests.itertuples())
                if len(tests)
                else ""
            ) + "."
            out[c.key] = (False, text)
        elif len(bad):
            out[c.key] = (False, _not_separated_words(bad, tests, bool(c.higher), c.unit, pct))
        else:
            near = tests.assign(gap=tests["low"] if c.higher else -tests["high"]).sort_values("gap").iloc[0]
            out[c.key] = (
                True,
                f"ranked: every model separates from every control ({len(tests)} paired {pct} "
                f"intervals of the difference {'above' if c.higher else 'below'} zero; the closest: "
                + _pair_words(near, c.unit)
                + ").",
            )
    return pd.DataFrame(
        [{"criterion": k, "ranked": v[0], "test": v[1]} for k, v in out.items()],
        columns=["criterion", "ranked", "test"],
    ).set_index("criterion")


def profile_figure(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()):
    """Heat map of the profile: rows the models, then, below a line, the controls
    (:func:`control_names`); columns the criteria; every cell's text is its value (percentages
    rounded to whole numbers). Only the models' cells of a ranked column (:func:`ranking`) are
    coloured: their value's position between the worst and the best model of the column (best:
    the highest value, or the lowest where the criterion's ``higher`` is False). The controls'
    cells and every cell of a column that is not ranked are grey, outside every colour scale; a
    degenerate cell (:func:`degenerate`) reads "n/a". Returns the matplotlib Figure."""
    prof = _with_reference(_columns(prof))
    real = [m for m in models if m not in controls]
    ctrl = control_names(prof, real, controls)
    rows = real + ctrl
    bad = prof.assign(bad=degenerate(prof) != "").pivot(index="model", columns="criterion", values="bad")
    M = profile_matrix(prof).reindex(index=rows)
    bad = bad.reindex(index=M.index, columns=M.columns).fillna(False).astype(bool)
    ranked_keys = set(ranking(prof, models, controls).query("ranked").index)
    coloured = pd.DataFrame(False, index=M.index, columns=M.columns)
    coloured.loc[real, [k for k in M.columns if k in ranked_keys]] = True
    coloured &= ~bad & M.notna()
    ranked = M.where(coloured)
    lo, hi = ranked.min(axis=0), ranked.max(axis=0)
    scaled = (ranked - lo) / (hi - lo).replace(0, np.nan)
    flip = [k for k in scaled.columns if _higher(k) is False]  # lower is better there: the best is yellow
    scaled[flip] = 1 - scaled[flip]
    # a column with one coloured value (or all equal) gets the middle colour, not a blank cell
    scaled = scaled.where(~coloured | (hi - lo != 0), 0.5)
    texts = pd.DataFrame(
        {k: ["n/a" if b else _fmt(v, _unit(k), 0) for v, b in zip(M[k], bad[k])] for k in M.columns}, index=M.index
    )
    figures.set_theme()
    fig, ax = plt.subplots(figsize=(1.0 * M.shape[1] + 3.0, 0.55 * M.shape[0] + 1.6))
    figures.heatmap(scaled, ax=ax, annot=texts.where(coloured, ""), vmin=0, vmax=1, cbar=False, annot_size=9)
    ax.grid(False)
    for i, j in zip(*np.nonzero(~coloured.to_numpy())):  # grey: drawn, outside every colour scale
        ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor="0.92", edgecolor="white", linewidth=0.5))
        ax.text(
            j + 0.5,
            i + 0.5,
            "–" if pd.isna(M.iat[i, j]) else texts.iat[i, j],
            ha="center",
            va="center",
            fontsize=9,
            color="0.3",
        )
    if ctrl:
        ax.axhline(len(real), color="black", linewidth=2)
    ax.set_yticks(np.arange(len(rows)) + 0.5, real + [f"control: {c}" for c in ctrl])
    ax.set_xlabel("headline (see the table above)")
    ax.set_ylabel("")
    ax.tick_params(axis="x", rotation=0)
    ax.tick_params(axis="y", rotation=0)
    fig.tight_layout()
    return fig


def _part(name: str) -> str:
    return next(s.roman for s in STUDIES if s.name == name)


def _finding(report):
    """The study's :class:`compsem.faces.Finding` (``report.FINDING``), or None."""
    return getattr(report, "FINDING", None)


def questions() -> str:
    """The chapter's introduction: what each Part asks, from every study's ``FINDING.question``
    ("Part I asks whether …; Part II whether …; … and Part IV whether …")."""
    asked = [(_part(n), f.question) for n, r in STUDY_REPORTS.items() if (f := _finding(r)) is not None]
    if not asked:
        return "No study declares what it asks (its report's FINDING)."
    said = [f"Part {asked[0][0]} asks whether {asked[0][1]}"] + [f"Part {p} whether {q}" for p, q in asked[1:]]
    return (said[0] if len(said) == 1 else "; ".join(said[:-1]) + "; and " + said[-1]) + "."


def methods() -> str:
    """How each study's headlines are computed (every study's ``FINDING.method``), one paragraph."""
    return " ".join(f.method for r in STUDY_REPORTS.values() if (f := _finding(r)) is not None)


def paragraphs(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> list[str]:
    """One paragraph per study that declares a ``FINDING`` and has rows in the profile:
    ``*topic.*`` and the sentences its ``FINDING.sentences`` produces from the profile's rows of
    its criteria, the controls' rows among them (with their ``reference``, ``higher``,
    ``degenerate``, ``replicates`` and ``control_of`` columns, and the criterion's ``ranked`` and
    ``test`` from :func:`ranking`), for the real models and the run's controls."""
    prof = _with_reference(_columns(prof))
    rank = ranking(prof, models, controls)
    prof = prof.assign(
        degenerate=degenerate(prof),
        higher=prof["criterion"].map(_higher),
        ranked=prof["criterion"].map(rank["ranked"]).fillna(False).astype(bool),
        test=prof["criterion"].map(rank["test"]).fillna(""),
    )
    if "ties" not in prof:
        prof = prof.assign(ties=np.nan)
    real = [m for m in models if m not in set(controls)]
    out = []
    for r in STUDY_REPORTS.values():
        f = _finding(r)
        rows = prof[prof.criterion.isin([h.key for h in r.HEADLINES])]
        if f is not None and not rows.empty:
            out.append(f"*{f.topic}.* {f.sentences(rows.reset_index(drop=True), real, list(controls))}")
    return out


def _own_controls(prof: pd.DataFrame, models: Sequence[str]) -> list[str]:
    """The kinds of the studies' own controls, as their rows name them after the model
    ("(shuffled targets)" → "shuffled targets"), with the Parts that run them."""
    own = prof[prof.control_of.isin(list(models))]
    kinds: dict[str, set] = {}
    for r in own.itertuples():
        kind = r.model[len(r.control_of) :].strip().strip("()") if r.model.startswith(r.control_of) else r.model
        kinds.setdefault(kind, set()).add(_criterion(r.criterion).part)
    return [f"each model on {k} (Part {', '.join(sorted(p))})" for k, p in kinds.items()]


def findings(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> dict[str, Any]:
    """The values the synthesis chapter glues into its prose, read off the profile and the
    registry: how many models, headlines and Parts, what each Part asks (:func:`questions`), which
    rows are degenerate, the controls of the run, and how many paired comparisons the separation
    test made and how many criteria it ranks (:func:`ranking`). The studies' paragraphs are
    :func:`paragraphs`.

    ``models`` are every model of the run, ``controls`` the baselines among them.
    """
    prof = _with_reference(_columns(prof))
    prof = prof.assign(degenerate=degenerate(prof))
    real = [m for m in models if m not in set(controls)]
    bad = prof[(prof.degenerate != "") & prof.model.isin(real + list(controls))]
    sep, rank = separation(prof, models, controls), ranking(prof, models, controls)
    named = [f"`{c}`" for c in controls if c in set(prof.model)] + _own_controls(prof, real)
    n_ranked, n_crit = int(rank["ranked"].sum()), len(rank)
    n_dir = sum(_higher(k) is not None for k in rank.index)  # only these can ever be ranked
    ranked_keys = list(rank.index[rank["ranked"]])
    return {
        "n_real": len(real),
        "n_headlines": len(CRITERIA),
        "n_parts": len({c.part for c in CRITERIA}),
        "questions": Prose(questions()),
        "methods": Prose(methods()),
        "degenerate_sentence": Prose(
            "No row of this profile is degenerate."
            if bad.empty
            else "Left out of every ranking, and shown as n/a in the figure: "
            + "; ".join(f"`{r.model}` on {r.criterion} ({r.degenerate})" for r in bad.itertuples())
            + "."
        ),
        "n_comparisons": len(sep),
        "n_ranked": n_ranked,
        "controls_sentence": Prose(
            "This run declares no control, so no criterion can be ranked."
            if not named
            else "The controls of this run, drawn beside the models and not ranked among them: "
            + join_names(named, quote="")
            + "."
        ),
        "comparisons_sentence": Prose(
            f"The separation test made {len(sep)} paired comparisons (each model against each of its controls, on "
            f"each criterion), each with a {number(100 * LEVEL, 0)} % interval; it ranks {n_ranked} of the {n_crit} "
            "criteria of this profile"
            + (f" ({', '.join(ranked_keys)})." if ranked_keys else ".")
            + (
                " A criterion is ranked only when every one of its intervals lies on the better side of zero, and such "
                f"an all-of test is itself at the {number(100 * (1 - LEVEL), 0)} % level, so no correction for the "
                "number of intervals is needed for it. The multiplicity that remains is over the criteria that argue a "
                f"direction (the others are never ranked): with {n_dir} of them, one may pass by chance although no "
                "model differs from its controls, and the order of the models within a ranked column is not tested "
                "here."
                if len(sep)
                else ""
            )
        ),
    }


def ranks(prof: pd.DataFrame, models: Sequence[str], controls: Sequence[str] = ()) -> pd.DataFrame:
    """Rank of each model within each ranked criterion (1 = best: the highest value, or the
    lowest where the criterion's :attr:`~compsem.results.Headline.higher` is False; ties share
    the mean rank), one row per criterion of the profile (key as index), one column per real
    model (the controls are never ranked), and the last column the words of the criterion's test
    (:func:`ranking`). A column the test does not rank reads "–" for every model; a degenerate row
    (:func:`degenerate`) reads "n/a" and the others are ranked without it. Ranks say nothing
    about whether neighbours' intervals overlap."""
    prof = _with_reference(_columns(prof))
    real = [m for m in models if m not in set(controls)]
    rank = ranking(prof, models, controls)
    own = prof[(prof.control_of == "") & prof.model.isin(real)]
    bad = own.assign(bad=degenerate(own) != "").pivot(index="criterion", columns="model", values="bad")
    M = profile_matrix(own).reindex(index=real).T
    bad = bad.reindex(index=M.index, columns=M.columns).fillna(False).astype(bool)
    out = pd.DataFrame("–", index=M.index, columns=real)
    for k in M.index:
        higher = _higher(k)
        if k in rank.index and bool(rank.loc[k, "ranked"]) and higher is not None:
            r = M.loc[k].mask(bad.loc[k]).rank(ascending=not higher)
            out.loc[k] = [f"{x:g}" if np.isfinite(x) else "n/a" for x in r]
    out["separation from the controls"] = [rank.loc[k, "test"] if k in rank.index else "–" for k in out.index]
    out.index.name = "headline"
    out.columns.name = "rank (1 = best)"
    return out
