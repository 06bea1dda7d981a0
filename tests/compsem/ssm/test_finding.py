"""compsem.ssm.finding: Part IV's paragraph of the synthesis, on made-up rows worked out by hand."""

from compsem.ssm import report
from compsem.ssm.finding import FINDING
from tests.helpers.profiles import rows


def test_the_rsa_leader_as_far_as_the_intervals_allow():
    # b 0.5 [0.4, 0.6] and a 0.3 [0.2, 0.4] touch at 0.4, which counts as overlap; bow 0.9 [0.8, 0.95] clears both
    r = rows({"a": {"RSA": (0.3, 0.2, 0.4)}, "b": {"RSA": (0.5, 0.4, 0.6)}, "bow": {"RSA": (0.9, 0.8, 0.95)}})
    assert FINDING.sentences(r, ["a", "b"], ["bow"]).startswith(
        "`b` has the highest RSA with the reference (0.50 [0.40, 0.60]), but its interval overlaps that of `a`")
    assert FINDING.sentences(r, ["a", "bow"], []).startswith(
        "`bow` has the highest RSA with the reference (0.90 [0.80, 0.95]), its interval clear of every other model's.")
    low = rows({"a": {"RSA": (0.3, 0.2, 0.4)}, "b": {"RSA": (0.5, 0.4, 0.6)}}, higher=False)
    assert FINDING.sentences(low, ["a", "b"], []).startswith("`a` has the lowest RSA with the reference (0.30 [0.20, 0.40])")
    assert report.FINDING is FINDING
