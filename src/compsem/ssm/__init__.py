"""Part IV: sentence-space metrics (SSM).

Faces: :mod:`.data` (the pool, the reference, pair categories), :mod:`.metrics` (distances,
sparsity, CH, RSA, accuracy), :mod:`.study` (scoring every ordered pair, cached),
:mod:`.tables` (cluster bootstrap, Table 2/3 analogues), :mod:`.report` (paper beside ours,
glued values, headline, try-it). Part IV's own: :mod:`.scorers` (the spec grammar of the
models), :mod:`.lexical`, :mod:`.nli`, :mod:`.choice` (the scorers), :mod:`.space` (MDS maps)
and :mod:`.plots` (figures).
"""
from .choice import LLMChoice, choice_prompt, parse_choice
from .data import CATEGORIES, SCALE, Pool, load_pool, load_reference, load_study, pair_categories
from .lexical import LexicalCoverage, content_words
from .metrics import (SPACES, agreement_accuracy, calinski_harabasz, discrepancy_distance, distances,
                      entailment_accuracy, relatedness_distance, rsa, sparsity)
from .nli import MissingEntailmentLabel, NLICrossEncoder, entailment_index
from .scorers import EmbeddingCosine, check_scorer_spec, make_scorer, resolve_models
from .study import REFERENCE, Run, Scored, planned_texts, reference_scored, run, score_all, score_matrix
from .tables import accuracy_frame, bootstrap_accuracy, bootstrap_ssm, mean_scores_frame, ssm_frame, ssm_table

__all__ = [
    "CATEGORIES", "SCALE", "Pool", "load_pool", "load_reference", "load_study", "pair_categories",
    "SPACES", "relatedness_distance", "discrepancy_distance", "distances", "sparsity", "calinski_harabasz", "rsa",
    "agreement_accuracy", "entailment_accuracy",
    "LexicalCoverage", "content_words", "NLICrossEncoder", "MissingEntailmentLabel", "entailment_index",
    "LLMChoice", "choice_prompt", "parse_choice", "EmbeddingCosine", "make_scorer", "resolve_models",
    "check_scorer_spec",
    "REFERENCE", "Scored", "Run", "run", "score_all", "score_matrix", "reference_scored", "planned_texts",
    "bootstrap_ssm", "bootstrap_accuracy", "ssm_table", "accuracy_frame", "ssm_frame", "mean_scores_frame",
]
