"""compsem.setcomp.finding: Part I's paragraph of the synthesis, on made-up rows worked out by hand.

Replicates have no spread unless a test gives one, so a paired interval is the difference itself
(:func:`tests.helpers.profiles.replicates`)."""

from compsem.setcomp import report
from compsem.setcomp.finding import FINDING
from tests.helpers.profiles import rows

NOT_C1 = "does not separate encoders from the controls here (made-up words)."
VALUES = {
    "a": {"C1": (49.6, 40.8, 57.6), "C2": (99.2, 97.6, 100.0)},
    "b": {"C1": (40.0, 30.0, 50.0), "C2": (97.6, 94.4, 100.0)},
    "random": {"C1": (36.0, 28.0, 44.8), "C2": (25.6, 17.6, 33.6)},
    "a (shuffled targets)": {"C1": (0.0, 0.0, 0.0), "C2": (32.0, 24.0, 40.0)},
}
OWN = {"a (shuffled targets)": "a"}
ROWS = rows(VALUES, control_of=OWN, ranked={"C1": (False, NOT_C1)})


def test_c2_is_set_against_chance_and_the_shuffled_targets_by_the_paired_test():
    text = FINDING.sentences(ROWS, ["a", "b"], ["random"])
    # C2 ranked: a leads b by 99.2 − 97.6 = 1.6 on every replicate; C1 is not ranked
    assert text.startswith(
        "`a` has the highest share of samples meeting C2 (99.2 % [97.6, 100.0]); on the same samples the paired "
        "interval of its lead lies above zero over every other model (the smallest: 1.6 [1.6, 1.6] over `b`; one "
        "paired comparison, a 95 % interval). C1 is "
        "not ranked here; the separation test above says why for each. "
    )
    # a − random 73.6, a − its shuffled targets 99.2 − 32.0 = 67.2 (the smallest), b − random 72.0
    assert text.endswith(
        "C2 holds for 99.2 % [97.6, 100.0] (`a`) and 97.6 % [94.4, 100.0] (`b`) of the overlap samples, for 25.6 % "
        "[17.6, 33.6] (the control `random`: random vectors, the chance level of chapter 11), and for 32.0 % "
        "[24.0, 40.0] (`a`) with the overlap sentences of other quintuples (shuffled targets). On the same overlap "
        "samples every model lies above each of its controls by a paired 95 % interval (3 comparisons; the smallest "
        "difference: `a` − `a (shuffled targets)` 67.2 [67.2, 67.2] points)."
    )
    assert "for free" not in text and "follows from C1" not in text


def test_the_words_follow_contradicting_data():
    # the shuffled targets nearly as high as the real ones, with spread 1: a − shuffled = 0.8 ∓ 1.9 = [-1.1, 2.7]
    close = {**VALUES, "a (shuffled targets)": {"C1": (0.0, 0.0, 0.0), "C2": (98.4, 96.0, 100.0)}}
    text = FINDING.sentences(
        rows(close, control_of=OWN, spread={("a (shuffled targets)", "C2"): 1.0}), ["a", "b"], ["random"]
    )
    assert text.endswith(
        "On the same overlap samples, 1 of the 3 paired comparisons of a model with a control does "
        "not lie above zero: `a` − `a (shuffled targets)` 0.8 [-1.1, 2.7] points (no evidence of a "
        "difference)."
    )
    # C2 not ranked either: no leader is named
    both = rows(VALUES, control_of=OWN, ranked={"C1": (False, NOT_C1), "C2": (False, NOT_C1)})
    text = FINDING.sentences(both, ["a", "b"], ["random"])
    assert text.startswith("C1 and C2 are not ranked here;") and "highest" not in text


def test_a_model_with_a_degenerate_criterion_is_left_out():
    bad = rows(VALUES, control_of=OWN, degenerate={("b", "C2"): "every item gives exactly 0"})
    text = FINDING.sentences(bad, ["a", "b"], [])
    assert (
        "`a` has the highest share of samples meeting C2 (99.2 % [97.6, 100.0]), the only model that can be ranked "
        "here." in text
    )
    assert "C2 holds for 99.2 % [97.6, 100.0] (`a`) of the overlap samples, and for 32.0 %" in text


def test_the_finding_covers_the_headlines_and_c5_c6_argue_no_direction():
    assert {h.key for h in report.HEADLINES} == {"C1", "C2", "C3", "C5", "C6"} and report.FINDING is FINDING
    directions = {h.key: h.higher for h in report.HEADLINES}
    assert directions == {"C1": True, "C2": True, "C3": True, "C5": None, "C6": None}
    assert all(h.direction for h in report.HEADLINES)
