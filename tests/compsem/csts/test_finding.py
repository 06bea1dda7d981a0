"""compsem.csts.finding: Part II's paragraph of the synthesis, on made-up rows worked out by hand."""

from compsem.csts import report
from compsem.csts.finding import FINDING
from tests.helpers.profiles import rows


def test_each_model_against_the_coin_flip_level():
    # a [45, 58] contains 50; b [55, 65] lies above
    text = FINDING.sentences(
        rows({"a": {"CSTS": (52, 45, 58)}, "b": {"CSTS": (60, 55, 65)}}, reference=50.0), ["a", "b"], []
    )
    assert text.startswith(
        "For 1 of the 2 models the zero-shot pair accuracy of Part II has an interval that contains "
        "50 %, the coin-flip level. `b` lies above chance (60.0 % [55.0, 65.0]). Why a frozen encoder "
        "scores the wrong way round is not measured here; one hypothesis"
    )


def test_the_wrong_side_is_named_with_plural_agreement():
    one = FINDING.sentences(
        rows({"a": {"CSTS": (40, 32.7, 47.9)}, "b": {"CSTS": (60, 55, 65)}}, reference=50.0), ["a", "b"], []
    )
    assert one.startswith("For 0 of the 2 models")
    assert "`a` lies significantly below chance (40.0 % [32.7, 47.9]): it prefers the wrong condition" in one
    two = FINDING.sentences(
        rows({"a": {"CSTS": (40, 32.7, 47.9)}, "b": {"CSTS": (40, 32.7, 47.3)}}, reference=50.0), ["a", "b"], []
    )
    assert "`a` (40.0 % [32.7, 47.9]) and `b` (40.0 % [32.7, 47.3]) lie significantly below chance: they prefer" in two
    # where lower is better, above the reference is the wrong side
    low = FINDING.sentences(rows({"b": {"CSTS": (60, 55, 65)}}, reference=50.0, higher=False), ["b"], [])
    assert "`b` lies significantly above chance (60.0 % [55.0, 65.0]): it prefers the wrong condition" in low


def test_every_model_at_chance():
    text = FINDING.sentences(rows({"a": {"CSTS": (52, 45, 58)}}, reference=50.0), ["a"], [])
    assert text.startswith("For every model the zero-shot pair accuracy of Part II has an interval that contains 50 %")
    assert report.FINDING is FINDING


def test_every_model_below_chance_and_below_the_control_is_said_so_and_none_is_best():
    # the book's shape: every model below 50 %, the random control above them; replicates without spread, so
    # a − random = 35.7 − 46.4 = -10.7 and b − random = 41.6 − 46.4 = -4.8 on every draw
    r = rows(
        {"a": {"CSTS": (35.7, 29.6, 42.9)}, "b": {"CSTS": (41.6, 36.5, 46.4)}, "random": {"CSTS": (46.4, 39.3, 53.1)}},
        reference=50.0,
        ranked={"CSTS": (False, "not ranked: every model lies significantly below 50 % (made up).")},
    )
    text = FINDING.sentences(r, ["a", "b"], ["random"])
    assert "`a` (35.7 % [29.6, 42.9]) and `b` (41.6 % [36.5, 46.4]) lie significantly below chance" in text
    assert (
        "The control scores 46.4 % [39.3, 53.1] (`random`). On the same sentence pairs, 2 of the 2 paired "
        "comparisons of a model with a control do not lie above zero: `a` − `random` -10.7 [-10.7, -10.7] points "
        "(below the control); `b` − `random` -4.8 [-4.8, -4.8] points (below the control)."
    ) in text
    assert "best" not in text and "highest" not in text
