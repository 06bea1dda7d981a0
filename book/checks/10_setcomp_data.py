"""Chapter 10: its hidden cell checks its counts (compsem.setcomp.datachapter.check_claims);
the rest are the paper's construction."""

NOT_CLAIMS = {
    "two union samples for each of its": "the paper's construction (two union samples per triple); the counts are glued",
    "for the first two": "the definition of a set-operator triple",
    "the five sentences stand in set relations": "the paper's construction",
    "half the combined length of the two sources": "the paper's length budget",
    "its two sources": "the definition of a fusion",
    "the two neighbouring sentences": "the filter's definition",
    "all six samples or none": "the filter rule's definition",
    "the three samples built on": "the filter rule's definition",
    "the three built on": "the filter rule's definition",
    "13,304 of 37,292 triples": "the paper's counts (data/reference/setcomp_dataset.csv)",
    "the two cosines of every quintuple": "what the figure shows",
    "The three tables hold": "the three operator tables",
    "all six difference samples": "the benchmark's design",
    "compared by a paired test on the same samples, never by their intervals alone": "the book's method (compsem.stats.paired_ranking_sentence)",
    "reuse the sources' words more than a paraphrasing model": "why hand-written fusions differ, a caveat (no paraphrasing model was run)",
}
