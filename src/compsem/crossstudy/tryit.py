"""Every criterion of every study, for sentences a reader types in.

Each function is the study's own ``report.try_it``: it takes the reader's texts and a list of
model specs and returns a tidy table, computed by the same functions the chapters use.
"""

from __future__ import annotations

from ..csts.report import try_it as conditional_similarity
from ..montague.report import try_it as adjective_noun
from ..setcomp.report import try_it as set_operators
from ..ssm.report import try_it as sentence_space

__all__ = ["set_operators", "conditional_similarity", "adjective_noun", "sentence_space"]
