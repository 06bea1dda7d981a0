"""Part IV's scorers behind the book's one model grammar.

A chapter's ``models`` parameter names what fills the score matrix R(i, j) in [0, 1]
(premise s_i, hypothesis s_j); every spec is one the rest of the book understands, plus two
of Part IV's own:

==================================  ==============================================================
spec                                scorer
==================================  ==============================================================
``lexical``                         :class:`~compsem.ssm.lexical.LexicalCoverage` (offline, asymmetric)
``nli:NAME[#entailment=K]``         :class:`~compsem.ssm.nli.NLICrossEncoder` (a Hugging Face NLI model
                                    or folder; ``K`` an index or label name when the labels are unnamed)
``gen:hf:NAME``, ``gen:openai:NAME``  :class:`~compsem.ssm.choice.LLMChoice` over
                                    :func:`compsem.llm.make_generator` (four-option question)
any encoder spec                    :class:`EmbeddingCosine` over :func:`compsem.encoders.get_encoder`
(``sbert-mini``, ``hf:NAME``, ...)  (symmetric: only the relatedness space exists)
``"panel"``                         ``lexical`` and the installed encoder panel
``"paper"``                         the paper's panel that maps to specs (``data/reference/paper_models/ssm.csv``)
==================================  ==============================================================

This module only builds scorers; :mod:`compsem.ssm.study` runs them (and is the one place that
embeds texts and caches score matrices).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..encoders import check_spec, get_encoder
from ..encoders.registry import check_spec_text
from ..encoders import resolve_models as resolve_encoder_models
from ..errors import UnknownModelError
from ..llm import GENERATOR_FORMS, is_generator_spec, make_generator
from ..measures import cosine_matrix
from .choice import LLMChoice
from .lexical import LexicalCoverage
from .nli import NLICrossEncoder, parse_nli_spec
from ..fmt import plural

__all__ = ["SCORER_FORMS", "EmbeddingCosine", "make_scorer", "resolve_models", "check_scorer_spec", "is_asymmetric"]

#: The spec forms of Part IV's own scorers (errors list them beside the encoders).
SCORER_FORMS: tuple[str, ...] = (
    "lexical",
    "nli:<Hugging Face NLI model or folder>[#entailment=<index|label>]",
    *GENERATOR_FORMS,
)


@dataclass
class EmbeddingCosine:
    """R(i, j) = max(0, cos(e_i, e_j)) for a ``compsem`` encoder spec. Symmetric. Negative
    cosines are clipped to 0 (unrelated) so that R stays a score in [0, 1].

    The scorer does not embed: :func:`compsem.ssm.study.score_matrix` passes it the vectors
    (``from_vectors``), so that the study is the one module that calls the embedding cache.
    """

    model: str
    clip: bool = True
    trust_remote_code: bool = False
    device: str | None = None
    symmetric: bool = True

    @property
    def name(self) -> str:
        return self.model

    @property
    def identity(self) -> str:
        enc = get_encoder(self.model, trust_remote_code=self.trust_remote_code, device=self.device)
        return f"cosine:{enc.identity}:clip={self.clip}"

    def from_vectors(self, X: np.ndarray) -> np.ndarray:
        """R (N, N) from the embeddings X (N, d); a zero or non-finite vector gives a NaN row
        and column (warned)."""
        X = np.asarray(X, dtype=float)
        norms = np.linalg.norm(X, axis=1)
        bad = ~np.isfinite(norms) | (norms == 0)
        if bad.any():
            warnings.warn(
                f"{plural(int(bad.sum()), 'sentence')} {'has' if bad.sum() == 1 else 'have'} no usable {self.model} embedding: "
                "their rows and columns are NaN",
                RuntimeWarning,
                stacklevel=2,
            )
        R = cosine_matrix(X, warn=False)
        return np.clip(R, 0.0, 1.0) if self.clip else R


def _unknown(spec, exc: UnknownModelError | None = None) -> UnknownModelError:
    available = list(getattr(exc, "available", []) or [])
    return UnknownModelError(str(spec), [*SCORER_FORMS, *available], forms=("or any encoder spec (scored by cosine)",))


def check_scorer_spec(spec: str) -> str:
    """Check a spec's form without loading anything; return it stripped.

    Raises
    ------
    UnknownModelError
        the spec is of no known form; the message lists Part IV's forms and the encoders.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _unknown(repr(spec))
    spec = check_spec_text(spec)
    if spec == "lexical" or is_generator_spec(spec):
        return spec
    if spec.startswith("nli:"):
        parse_nli_spec(spec)
        return spec
    if spec.startswith(("llm:", "emb:")):
        raise UnknownModelError(
            spec,
            SCORER_FORMS,
            forms=("'llm:NAME' is now 'gen:hf:NAME'; 'emb:NAME' is now just the encoder spec 'NAME'",),
        )
    try:
        return check_spec(spec)
    except UnknownModelError as exc:
        raise _unknown(spec, exc) from None


def is_asymmetric(spec: str) -> bool:
    """True for the scorers that have a discrepancy space (lexical, NLI, generators)."""
    return spec == "lexical" or spec.startswith("nli:") or is_generator_spec(spec)


def make_scorer(
    spec,
    *,
    trust_remote_code: bool = False,
    device: str | None = None,
    dtype: str | None = None,
    batch_size: int | None = None,
):
    """The scorer of a spec (see the module docstring); scorer objects pass through unchanged.

    ``device``/``dtype`` (:mod:`compsem.device`) and ``trust_remote_code`` (only when the reader
    asks) go to the model loaders; ``batch_size`` to the NLI and generator scorers.
    """
    if not isinstance(spec, str):
        return spec
    spec = check_scorer_spec(spec)
    if spec == "lexical":
        return LexicalCoverage()
    if spec.startswith("nli:"):
        kw = {"batch_size": batch_size} if batch_size else {}
        return NLICrossEncoder.from_spec(spec, device=device, dtype=dtype, trust_remote_code=trust_remote_code, **kw)
    if is_generator_spec(spec):
        opts = {"max_new_tokens": 4, "device": device, "dtype": dtype, "trust_remote_code": trust_remote_code}
        if spec.startswith("gen:hf:"):
            opts["batch_size"] = batch_size or 8
        return LLMChoice(make_generator(spec, **opts), model_name=spec, batch_size=batch_size or 16)
    return EmbeddingCosine(spec, trust_remote_code=trust_remote_code, device=device)


def resolve_models(models: str | Iterable[str], *, trust_remote_code: bool = False) -> list[str]:
    """A chapter's ``models`` parameter as a list of Part IV specs, duplicates removed
    (the book's one grammar, :func:`compsem.encoders.resolve_models`, with Part IV's scorers).

    ``"panel"`` is ``lexical`` plus the installed encoder panel (each scored by cosine).
    ``"paper"`` is the paper's NLI models and SimCSE as far as they map to public checkpoints
    (``data/reference/paper_models/ssm.csv``); ChatGPT is left out (an API key, one paid request
    per ordered pair): add ``"gen:openai:gpt-3.5-turbo"`` to the list for it. Other entries
    are checked with :func:`check_scorer_spec`.
    """
    return resolve_encoder_models(
        models,
        study="ssm",
        kind=("nli", "encoder"),
        panel=("lexical",),
        check=check_scorer_spec,
        trust_remote_code=trust_remote_code,
    )
