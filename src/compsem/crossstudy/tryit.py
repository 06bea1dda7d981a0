"""Every criterion of every study, for sentences a reader types in.

Each function is the study's own ``report.try_it``: it takes the reader's texts and a list of
model specs and returns a tidy table, computed by the same functions the chapters use.
``trust_remote_code`` is handed to the study only when it is ``True`` (the default loaders never
run remote code), and a study whose ``try_it`` does not take it says so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

from ..csts.report import try_it as _csts_try_it
from ..errors import check_trust_remote_code
from ..montague.report import try_it as _montague_try_it
from ..setcomp.report import try_it as _setcomp_try_it
from ..ssm.report import try_it as _ssm_try_it

__all__ = ["set_operators", "conditional_similarity", "adjective_noun", "sentence_space", "remote_code_kwargs"]


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
                  trust_remote_code: bool = False):
    """Part I criteria for one A, B and candidate overlap, difference and union (setcomp)."""
    return _setcomp_try_it(a, b, overlap, difference, union, models,
                           **remote_code_kwargs(_setcomp_try_it, trust_remote_code))


def conditional_similarity(sentence1: str, sentence2: str, condition_high: str, condition_low: str,
                           models: Sequence[str], *, trust_remote_code: bool = False):
    """Part II zero-shot scores of a pair under two conditions (csts)."""
    return _csts_try_it(sentence1, sentence2, condition_high, condition_low, models,
                        **remote_code_kwargs(_csts_try_it, trust_remote_code))


def adjective_noun(adjectives: Sequence[str], nouns: Sequence[str], models: Sequence[str], *,
                   trust_remote_code: bool = False, **options):
    """Part III tests on every adjective-noun phrase (montague); ``options`` go to the study."""
    return _montague_try_it(adjectives, nouns, models, **options,
                            **remote_code_kwargs(_montague_try_it, trust_remote_code))


def sentence_space(premise: str, hypotheses: Sequence[str], models: Sequence[str], *,
                   trust_remote_code: bool = False):
    """Part IV score matrices and distances of a tiny pool (ssm)."""
    return _ssm_try_it(premise, hypotheses, models, **remote_code_kwargs(_ssm_try_it, trust_remote_code))
