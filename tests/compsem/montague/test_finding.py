"""compsem.montague.finding: Part III's paragraph of the synthesis, on made-up rows worked out by hand."""

from compsem.montague import report
from compsem.montague.finding import FINDING
from tests.helpers.profiles import rows

# NSGAP: b has the larger gap (0.05 > 0.02) and the only interval above zero (low 0.01 > 0); a's
# high 0.05 reaches b's low 0.01: overlap. bow ties on every PAIR comparison.
ROWS = rows(
    {
        "a": {"PAIR": (0.7, 0.6, 0.8, 0.1), "NSGAP": (0.02, -0.01, 0.05)},
        "b": {"PAIR": (0.6, 0.5, 0.7, 0.0), "NSGAP": (0.05, 0.01, 0.09)},
        "bow": {"PAIR": (0.0, 0.0, 0.0, 1.0), "NSGAP": (0.0, 0.0, 0.0)},
    },
    reference=0.0,
    degenerate={
        ("bow", "NSGAP"): "every item gives exactly 0, the no-effect value",
        ("bow", "PAIR"): "every comparison is a tie",
    },
)


def test_the_gap_leader_the_count_above_zero_and_ties():
    text = FINDING.sentences(ROWS, ["a", "b"], ["bow"])
    # b − a = 0.03 on every (made-up) replicate: the paired interval [0.03, 0.03] lies above zero
    assert text.startswith(
        "`b` has the highest non-subsectivity gap (0.05 [0.01, 0.09]); on the same adjectives the "
        "paired 95 % interval of its lead lies above zero over every other model (the smallest: 0.03 "
        "[0.03, 0.03] over `a`)."
    )
    assert "1 of the 2 models has a gap whose interval lies above zero, the direction Montague" in text  # agreement
    assert "Ties are not evidence: 100 % of `bow`'s intersective–privative comparisons are ties" in text


def test_a_degenerate_gap_is_left_out_and_the_count_agrees():
    text = FINDING.sentences(ROWS, ["a", "bow"], [])
    assert text.startswith(
        "`a` has the highest non-subsectivity gap (0.02 [-0.01, 0.05]), the only model that can be "
        "ranked here. `bow` is left out of the ranking: every item gives exactly 0, the no-effect "
        "value."
    )
    assert (
        "No model has a gap whose interval lies above zero, the direction Montague semantics predicts "
        "(degenerate gaps left out)." in text
    )
    assert report.FINDING is FINDING


def test_the_count_above_zero_leaves_a_degenerate_row_out():
    # issue 35's example 5: b's gap is above zero; bow's is degenerate, so it is not among the counted models
    text = FINDING.sentences(ROWS, ["a", "b", "bow"], [])
    assert "1 of the 2 models has a gap whose interval lies above zero" in text


def test_an_unranked_gap_names_no_leader_and_compares_with_the_controls():
    # the synthesis does not rank NSGAP; random's gap 0.04 with spread 0.04: a − random = -0.24 ∓ 1.9 × 0.04 =
    # [-0.316, -0.164], b − random = 0.01 ∓ 0.076 = [-0.066, 0.086]
    r = rows(
        {
            "a": {"NSGAP": (-0.2, -0.3, -0.1)},
            "b": {"NSGAP": (0.05, 0.01, 0.09)},
            "random": {"NSGAP": (0.04, -0.05, 0.12)},
        },
        reference=0.0,
        spread={("random", "NSGAP"): 0.04},
        ranked={"NSGAP": (False, "does not separate encoders from the controls here (made up).")},
    )
    text = FINDING.sentences(r, ["a", "b"], ["random"])
    assert text.startswith(
        "NSGAP is not ranked here: it does not separate encoders from the controls. On the same "
        "adjectives, 2 of the 2 paired comparisons of a model with a control do not lie above zero: "
        "`a` − `random` -0.24 [-0.32, -0.16] (below the control); `b` − `random` 0.01 [-0.07, 0.09] "
        "(no evidence of a difference)."
    )
    assert "highest" not in text
