"""Every criterion of every study, for sentences a reader types in.

Each function is the study's own ``report.try_it``: it takes the reader's texts and a list of
model specs and returns a tidy table (a long-form ``pandas.DataFrame``), computed by the same
functions the chapters use. ``trust_remote_code`` must be the literal ``True`` or ``False``
(:func:`compsem.errors.check_trust_remote_code`: a string never becomes ``True``) and is passed
through to the study (every ``try_it`` takes it: the contract test checks); the default loaders
never run remote code.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..csts.report import try_it as _csts_try_it
from ..errors import check_trust_remote_code
from ..montague.report import try_it as _montague_try_it
from ..setcomp.report import try_it as _setcomp_try_it
from ..ssm.report import try_it as _ssm_try_it

__all__ = ["set_operators", "conditional_similarity", "adjective_noun", "sentence_space"]


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
