"""Chapter 11: its frequency word is produced (compsem.claims.frequency); the rest is design."""

NOT_CLAIMS = {
    "Two things should then hold": "the paper's criteria",
    '"larger" always means "more alike"': "the sign convention",
    "the two margins": "a definition",
    "one of four cells": "a definition",
    "the two raw differences": "a definition",
    "when the two are not the same weights": "how the table labels rows",
    "two different models, compared only as neighbours": "the models' identities",
    "from two different datasets": "why pooled shares do not compare",
    "Two controls": "the chapter's design",
    "ratio of two angles": "the paper's definition",
    "which separates the two": "our signed ratio's definition",
    "The paper's encoders are mostly not available offline": "the paper's panel against the offline one (data/reference/paper_models/setcomp.csv)",
    "compares two different models": "the models' identities",
}
