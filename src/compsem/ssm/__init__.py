"""Part IV: sentence-space metrics (SSM) - pool, scorers, metrics, sentence-space layout."""
from .metrics import (SPACES, bootstrap_accuracy, bootstrap_ssm, calinski_harabasz, discrepancy_distance,
                      distances, entailment_accuracy, relatedness_distance, rsa, sparsity, ssm_table)
from .pool import CATEGORIES, SCALE, Pool, load_pool, load_reference, pair_categories
from .scorers import (EmbeddingCosine, LexicalCoverage, LLMChoice, MissingEntailmentLabel, NLICrossEncoder,
                      choice_prompt, content_words, entailment_index, expand_scorers, get_scorer, parse_choice,
                      score_matrix)

__all__ = [
    "SPACES", "CATEGORIES", "SCALE", "Pool", "load_pool", "load_reference", "pair_categories",
    "relatedness_distance", "discrepancy_distance", "distances", "sparsity", "calinski_harabasz", "rsa",
    "entailment_accuracy", "bootstrap_ssm", "bootstrap_accuracy", "ssm_table",
    "LexicalCoverage", "EmbeddingCosine", "NLICrossEncoder", "LLMChoice", "MissingEntailmentLabel",
    "entailment_index", "content_words", "choice_prompt", "parse_choice", "get_scorer", "expand_scorers",
    "score_matrix",
]
from .study import (REFERENCE, Scored, accuracy_frame, load_study, mean_scores_frame, paper_table, reference_scored,
                    score_all, scorer_specs, ssm_frame)

__all__ += ["REFERENCE", "Scored", "accuracy_frame", "load_study", "mean_scores_frame", "paper_table",
            "reference_scored", "score_all", "scorer_specs", "ssm_frame"]
