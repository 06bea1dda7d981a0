"""compsem.ssm.finding: Part IV's paragraph of the synthesis, on made-up rows worked out by hand."""

from compsem.ssm import report
from compsem.ssm.finding import FINDING
from tests.helpers.profiles import rows


def test_the_rsa_leader_only_where_ranked_and_never_a_control():
    # replicates without spread: b − a = 0.2 on every draw; bow (0.9) is a control, above both models
    r = rows({"a": {"RSA": (0.3, 0.2, 0.4)}, "b": {"RSA": (0.5, 0.4, 0.6)}, "bow": {"RSA": (0.9, 0.8, 0.95)}})
    assert FINDING.sentences(r, ["a", "b"], ["bow"]).startswith(
        "`b` has the highest RSA with the reference (0.50 [0.40, 0.60]); on the same clusters the paired 95 % interval "
        "of its lead lies above zero over every other model (the smallest: 0.20 [0.20, 0.20] over `a`). On the same "
        "clusters, 2 of the 2 paired comparisons of a model with a control do not lie above zero: `a` − `bow` -0.60 "
        "[-0.60, -0.60] (below the control); `b` − `bow` -0.40 [-0.40, -0.40] (below the control)."
    )
    unranked = rows(
        {"a": {"RSA": (0.3, 0.2, 0.4)}, "b": {"RSA": (0.5, 0.4, 0.6)}, "bow": {"RSA": (0.9, 0.8, 0.95)}},
        ranked={"RSA": (False, "does not separate encoders from the controls here (made up).")},
    )
    text = FINDING.sentences(unranked, ["a", "b"], ["bow"])
    assert text.startswith("RSA is not ranked here: it does not separate encoders from the controls.")
    assert "highest" not in text and "we have not measured how much" in text
    low = rows({"a": {"RSA": (0.3, 0.2, 0.4)}, "b": {"RSA": (0.5, 0.4, 0.6)}}, higher=False)
    assert FINDING.sentences(low, ["a", "b"], []).startswith(
        "`a` has the lowest RSA with the reference (0.30 [0.20, 0.40])"
    )
    assert report.FINDING is FINDING
