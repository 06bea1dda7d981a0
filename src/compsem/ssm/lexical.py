"""The offline asymmetric baseline of Part IV: lexical coverage.

R(i, j) is the share of the hypothesis's content words that the premise contains, so a short
hypothesis made of premise words is "covered" while the premise is not covered by it: the
crudest imitation of entailment's direction, which needs no model and runs in the default build.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..encoders import validate_texts
from .data import unique_texts
from ..fmt import plural

__all__ = ["STOP_WORDS", "NEGATIONS", "stem", "content_words", "LexicalCoverage"]

#: function words dropped before counting coverage. Negations (not, no, never, nothing, nobody,
#: none) are deliberately *kept* as content words: they change what follows.
STOP_WORDS = frozenset(
    """
a an the this that these those some any each every all both either neither another such
i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
one ones who whom whose which what where when while why how there here then than so too very
and or but nor if because since as though although until unless whether also just only even
of to in on at by for from with without into onto over under about above below after before
during through between among against across along around behind beside besides near off out up
down upon within per via
be am is are was were been being have has had having do does did doing done
will would shall should can could may might must ought
not_a_word
""".split()
)
NEGATIONS = frozenset({"not", "no", "never", "nothing", "nobody", "none"})
_TOKEN = re.compile(r"[a-z0-9]+(?:['\u2019][a-z]+)?")


def stem(word: str) -> str:
    """A deliberately crude suffix stripper (documented, deterministic):
    possessive 's; -ies -> -y; -es after s/x/z/ch/sh; plural -s (not -ss); -ing; -ed."""
    w = re.sub(r"['\u2019]s$", "", word)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith("es") and re.search(r"(s|x|z|ch|sh)es$", w):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    return w


def content_words(text: str) -> frozenset[str]:
    """Lower-case, split into letter/digit runs (keeping one apostrophe suffix), expand
    "n't" to "not", drop :data:`STOP_WORDS`, stem with :func:`stem`."""
    out = set()
    for tok in _TOKEN.findall(text.lower()):
        if tok.endswith(("n't", "n\u2019t")):
            out.add("not")
            continue
        if tok in STOP_WORDS:
            continue
        out.add(tok if tok in NEGATIONS else stem(tok))
    return frozenset(out)


@dataclass
class LexicalCoverage:
    """R(i, j) = |C(s_i) & C(s_j)| / |C(s_j)|: the share of the hypothesis's content words
    covered by the premise. Asymmetric; a hypothesis without content words gives NaN (counted
    and warned)."""

    symmetric: bool = False
    identity: str = "lexical-coverage-v1"
    name: str = "lexical"

    def score(self, texts: Sequence[str], *, progress: bool = True) -> np.ndarray:
        uniq, inv = unique_texts(validate_texts(texts))
        sets = [content_words(t) for t in uniq]
        vocab = {w: k for k, w in enumerate(sorted(set().union(*sets)))}
        B = np.zeros((len(uniq), max(len(vocab), 1)))
        for r, s in enumerate(sets):
            B[r, [vocab[w] for w in s]] = 1.0
        overlap = B @ B.T  # |C_i & C_j|
        size = B.sum(axis=1)  # |C_j|
        n_empty = int((size == 0).sum())
        if n_empty:
            warnings.warn(
                f"{plural(n_empty, 'sentence')} {'has' if n_empty == 1 else 'have'} no content words: their column is NaN",
                RuntimeWarning,
                stacklevel=2,
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            R = overlap / np.where(size == 0, np.nan, size)[None, :]
        return R[np.ix_(inv, inv)]
