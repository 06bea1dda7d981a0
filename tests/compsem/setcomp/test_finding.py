"""compsem.setcomp.finding: Part I's paragraph of the synthesis, on made-up rows worked out by hand."""

from compsem.setcomp import report
from compsem.setcomp.finding import FINDING
from tests.helpers.profiles import rows

# a: (80+60+70+40+50)/5 = 60 [lows (70+50+60+30+40)/5 = 50, highs 70]; b: 50 [40, 59]: b's 59
# reaches above a's 50, so the two overlap. The control passes C2 for 97.5 %, shown rounded: 98.
ROWS = rows({"a": {"C1": (80, 70, 90), "C2": (60, 50, 70), "C3": (70, 60, 80), "C5": (40, 30, 50), "C6": (50, 40, 60)},
             "b": {"C1": (90, 80, 95), "C2": (50, 40, 60), "C3": (60, 50, 70), "C5": (30, 20, 40), "C6": (20, 10, 30)},
             "random": {"C1": (95, 90, 99), "C2": (97.5, 95, 99), "C3": (0, 0, 0), "C5": (0, 0, 0), "C6": (0, 0, 0)}})


def test_the_mean_of_part_one_is_ranked_as_far_as_the_intervals_allow():
    text = FINDING.sentences(ROWS, ["a", "b"], ["random"])
    assert text.startswith("`a` has the highest mean of the 5 Part I criteria (60.0 % [50.0, 70.0]), but its interval "
                           "overlaps that of `b`: no evidence of a difference from these unpaired intervals. (The interval of a "
                           "mean over 5 criteria")
    assert "even the control `random` projects the overlap sentence between A and B for 98 % of the samples" in text
    assert "`random` projects" not in FINDING.sentences(ROWS, ["a", "b"], [])


def test_a_model_with_a_degenerate_criterion_is_left_out():
    bad = ROWS.copy()
    bad.loc[(bad.model == "b") & (bad.criterion == "C3"), "degenerate"] = "every item gives exactly 0"
    text = FINDING.sentences(bad, ["a", "b"], [])
    assert text.startswith("`a` (60.0 % [50.0, 70.0]) is the only model that can be ranked here. `b` is left out of "
                           "the ranking: a Part I criterion is degenerate.")


def test_the_finding_covers_the_headlines():
    assert {h.key for h in report.HEADLINES} == {"C1", "C2", "C3", "C5", "C6"} and report.FINDING is FINDING
