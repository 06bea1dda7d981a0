"""Adjective–noun composition read through Montague semantics (Part III).

Nouns denote sets; adjectives map sets to sets. If an embedding stood in for a denotation,
set inclusion should show up as a short distance. Three metamorphic relations test that with
no gold labels (the modifier-consistency paper, Carvalho et al.). The package has the faces of
every study:

* :mod:`.data` — the adjective classes, the word lists, the generated AN/AAN phrases;
* :mod:`.metrics` — Eq. 3/5/7 on distance arrays (pure, vectorised);
* :mod:`.study` — embed (the only module that calls the cache) and run the tests;
* :mod:`.tables` — consistency tables with cluster-bootstrap intervals, χ² and permutation tests;
* :mod:`.report` — the paper beside ours, figures, synthesis headlines, try-it;
* :mod:`.reproduce` — the paper's Tables 1/6/7/8 cell by cell and the per-rule decomposition.

Everything public is re-exported here, so ``from compsem import montague as mt`` is enough.
"""

from __future__ import annotations

from .data import (CATEGORIES, CATEGORY_NAMES, PAPER_PHRASE_COUNT, PHRASE_SETS, STRINGS, PhraseSet, Vocabulary,
                   build_phrases, expected_phrase_count, join_phrase, load_vocabulary, word_text)
from .metrics import (DISTANCES, READINGS, TIE_TOL, Rules, closer_than_all, non_subsectivity, pair_intersectivity,
                      pairwise_distance, rules_for, single_intersectivity, within_adjective_distances)
from .study import (Embedded, MontagueResult, embed_phrases, planned_texts, reading_label, run_models,
                    run_readings, run_tests)
from .tables import (CLASS_TESTS, aan_table, adjective_scores, an_table, as_matrix, category_difference_tests,
                     category_table, chi2_test, class_tests_view, pair_table, permutation_test, score_spread,
                     type_pair_table)
from .reproduce import (DECOMPOSITION, PAPER_TABLES, beside_paper, collect, reference_model, decomposition, decomposition_view, paper_table_of,
                        reproduced, reproduced_view, reproduction_summary, spelling_effect)
from .report import (PAPER_MODEL_OF, cell, class_gap, compare_with_paper, paper_model_of, load_paper_table,
                     plot_nonsubsective, plot_set_diagrams, plot_type_matrix)

__all__ = [
    "CATEGORIES", "CATEGORY_NAMES", "DISTANCES", "TIE_TOL", "PHRASE_SETS", "PAPER_PHRASE_COUNT",
    "STRINGS", "READINGS", "Rules", "rules_for", "reading_label",
    "Vocabulary", "PhraseSet", "Embedded", "MontagueResult",
    "load_vocabulary", "join_phrase", "word_text", "build_phrases", "expected_phrase_count",
    "embed_phrases", "pairwise_distance", "within_adjective_distances",
    "single_intersectivity", "closer_than_all", "pair_intersectivity", "non_subsectivity",
    "run_tests", "run_models", "run_readings", "planned_texts",
    "category_table", "type_pair_table", "an_table", "aan_table", "pair_table", "as_matrix",
    "category_difference_tests", "class_tests_view", "CLASS_TESTS", "adjective_scores",
    "permutation_test", "chi2_test", "score_spread",
    "PAPER_TABLES", "DECOMPOSITION", "reference_model", "beside_paper", "paper_table_of", "collect", "reproduced", "reproduced_view",
    "reproduction_summary", "decomposition", "decomposition_view", "spelling_effect",
    "load_paper_table", "compare_with_paper", "PAPER_MODEL_OF", "paper_model_of", "plot_type_matrix", "plot_set_diagrams",
    "cell", "class_gap", "plot_nonsubsective",
]
