"""Every criterion of every study, for sentences a reader types in.

Each function is the study's own ``report.try_it``: it takes the reader's texts and a list of
model specs and returns a tidy table, computed by the same functions the chapters use. Each
``read_*`` function turns such a result into one line of interpretation (Markdown, model names
in backticks), so the page says what the numbers mean for the reader's own sentences.
``trust_remote_code`` must be the literal ``True`` or ``False``
(:func:`compsem.errors.check_trust_remote_code`) and is passed through to the study (every
``try_it`` takes it: the contract test checks); the default loaders never run remote code.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..csts.report import try_it as _csts_try_it
from ..errors import check_trust_remote_code
from ..fmt import plural
from ..montague.report import try_it as _montague_try_it
from ..setcomp.report import try_it as _setcomp_try_it
from ..ssm.report import try_it as _ssm_try_it

__all__ = ["set_operators", "conditional_similarity", "adjective_noun", "sentence_space", "matrices", "remote_code_kwargs",
           "read_set_operators", "read_conditional_similarity", "read_adjective_noun", "read_sentence_space"]


def remote_code_kwargs(fn: Callable, trust_remote_code: bool) -> dict:
    """``{"trust_remote_code": True}`` for ``fn`` when asked for, else ``{}``; a ``ValueError``
    when ``fn`` cannot take it (rather than silently loading without it)."""
    if not check_trust_remote_code(trust_remote_code, where=f"{fn.__module__}.{fn.__name__}"):
        return {}
    if "trust_remote_code" not in inspect.signature(fn).parameters:
        raise ValueError(f"{fn.__module__}.{fn.__name__} does not take trust_remote_code: "
                         "run this study's own chapter with trust_remote_code = True instead")
    return {"trust_remote_code": True}


def set_operators(a: str, b: str, overlap: str, difference: str, union: str, models: Sequence[str], *,
                  trust_remote_code: bool = False) -> pd.DataFrame:
    """Part I criteria for one A, B and candidate overlap, difference and union (setcomp)."""
    trc = check_trust_remote_code(trust_remote_code, where="set_operators")
    return _setcomp_try_it(a, b, overlap, difference, union, models, trust_remote_code=trc)


def conditional_similarity(sentence1: str, sentence2: str, condition_high: str, condition_low: str,
                           models: Sequence[str], *, trust_remote_code: bool = False) -> pd.DataFrame:
    """Part II zero-shot scores of a pair under two conditions (csts)."""
    trc = check_trust_remote_code(trust_remote_code, where="conditional_similarity")
    return _csts_try_it(sentence1, sentence2, condition_high, condition_low, models, trust_remote_code=trc)


def adjective_noun(adjectives: Sequence[str], nouns: Sequence[str], models: Sequence[str], *,
                   trust_remote_code: bool = False, **options) -> pd.DataFrame:
    """Part III tests on every adjective-noun phrase (montague); ``options`` go to the study."""
    trc = check_trust_remote_code(trust_remote_code, where="adjective_noun")
    return _montague_try_it(adjectives, nouns, models, **options, trust_remote_code=trc)


def sentence_space(premise: str, hypotheses: Sequence[str], models: Sequence[str], *,
                   trust_remote_code: bool = False) -> pd.DataFrame:
    """Part IV score matrices and distances of a tiny pool, in long form (ssm)."""
    trc = check_trust_remote_code(trust_remote_code, where="sentence_space")
    return _ssm_try_it(premise, hypotheses, models, trust_remote_code=trc)


def matrices(spaces: pd.DataFrame) -> dict[str, dict[str, pd.DataFrame]]:
    """:func:`sentence_space`'s long form as ``{model: {matrix: square DataFrame}}`` (P, H1, ...)."""
    out: dict[str, dict[str, pd.DataFrame]] = {}
    labels = list(dict.fromkeys(spaces["row"]))
    for (name, key), g in spaces.groupby(["model", "matrix"], sort=False):
        out.setdefault(name, {})[key] = g.pivot(index="row", columns="column", values="value").loc[labels, labels] \
            .rename_axis(index=None, columns=None)
    return out


# ---------------------------------------------------------------------------------------------
# one line of interpretation per section
# ---------------------------------------------------------------------------------------------
def _short(criterion: str) -> str:
    m = re.match(r"(C\d)(?: (Δ\d))?", criterion)
    return " ".join(g for g in m.groups() if g) if m else criterion


def read_set_operators(table: pd.DataFrame) -> str:
    """Per model, how many of the pass/fail checks hold and which fail (the norm-ratio row
    describes the inputs and is not counted)."""
    lines = []
    for model, g in table.groupby("model", sort=False):
        judged = g[g.verdict.isin(["holds", "fails"])]
        failed = [_short(c) for c in judged[judged.verdict == "fails"].criterion]
        text = f"`{model}` passes {int((judged.verdict == 'holds').sum())} of {len(judged)} checks"
        text += f" and fails {', '.join(failed)}" if failed else ", every one"
        undefined = int((g.verdict == "undefined").sum())
        lines.append(text + (f" ({undefined} undefined)" if undefined else "") + ".")
    return " ".join(lines)


def read_conditional_similarity(table: pd.DataFrame) -> str:
    """Which models score the pair higher under C-High than under C-Low, and by how much."""
    diff = (table["cos with C-High"] - table["cos with C-Low"]).round(2)   # as printed: no "-0.00"
    right = [f"`{m}` (+{d:.2f})" for m, d in zip(table.model, diff) if d > 0]
    wrong = [f"`{m}` ({d:+.2f})" if d else f"`{m}` (0.00)" for m, d in zip(table.model, diff) if not d > 0]
    if not wrong:
        return "Every model scores the pair higher under C-High than under C-Low: " + ", ".join(right) + "."
    if not right:
        return ("No model scores the pair higher under C-High than under C-Low (" + ", ".join(wrong)
                + "): for these sentences the condition does not move the similarity the right way.")
    return ("Higher under C-High, as it should be: " + ", ".join(right) + "; not: " + ", ".join(wrong) + ".")


def read_adjective_noun(table: pd.DataFrame) -> str:
    """Per model, for how many phrases each single-phrase test holds (the pair test's shares are
    in the table)."""
    single = table[~table.test.str.startswith("pair test")]
    lines = []
    for model, g in single.groupby("model", sort=False):
        parts = []
        for test, h in g.groupby("test", sort=False):
            judged = h[h.verdict.isin(["holds", "fails"])]
            undefined = len(h) - len(judged)
            name = test.split(" (")[0]
            text = (f"{name} holds for {int((judged.verdict == 'holds').sum())} of {plural(len(judged), 'phrase')}"
                    if len(judged) else f"{name} is undefined for every phrase")
            parts.append(text + (f" ({undefined} undefined: a word the model does not know)" if undefined and len(judged)
                                 else ""))
        lines.append(f"`{model}`: " + "; ".join(parts) + ".")
    return " ".join(lines)


def read_sentence_space(spaces: pd.DataFrame | Mapping[str, Mapping[str, pd.DataFrame]]) -> str:
    """The largest asymmetry of each scorer (|R(i, j) − R(j, i)|) and the hypothesis nearest the
    premise in the relatedness space (``spaces``: :func:`sentence_space`'s long form, or
    :func:`matrices` of it)."""
    if isinstance(spaces, pd.DataFrame):
        spaces = matrices(spaces)
    lines = []
    for name, mats in spaces.items():
        R = mats["R"]
        A = np.abs(R.to_numpy() - R.to_numpy().T)
        i, j = np.unravel_index(np.nanargmax(A), A.shape)
        d = mats["D_rel"].loc["P"].drop("P")
        near = f"nearest the premise in $D_{{rel}}$: {d.idxmin()} ({d.min():.2f})"
        if A[i, j] > 0:
            a, b = R.index[i], R.columns[j]
            lines.append(f"`{name}`: asymmetric, most for {a} and {b} (R({a}, {b}) = {R.iloc[i, j]:.2f}, "
                         f"R({b}, {a}) = {R.iloc[j, i]:.2f}), so its discrepancy space has structure; {near}.")
        else:
            lines.append(f"`{name}`: symmetric, so $D_{{dis}} \\equiv 1$ and only the relatedness space "
                         f"exists; {near}.")
    return " ".join(lines)
