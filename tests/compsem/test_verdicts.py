"""The verdict rules on hand-made inputs, and a claims file read against made-up result files.

Every expected verdict below is worked out by hand from the rule's definition in
:mod:`compsem.verdicts` (each verdict reached, and each boundary on the side the rule puts it).
"""

import csv
import json
import math

import pytest

from compsem import verdicts as V
from compsem.errors import CompsemError
from compsem.results import RUN_MANIFEST
from compsem.studies import STUDIES

NAN = math.nan
STUDY = STUDIES[0].name


# ----------------------------------------------------------------------------- the rules


@pytest.mark.parametrize(
    "est, low, high, expected",
    [
        (60, 55, 65, "reproduced"),  # the whole interval above 50
        (52, 45, 59, "partly"),  # the estimate above, the interval reaches 50
        (55, 50, 60, "partly"),  # boundary: the interval's edge at the level is not above it
        (50, 45, 55, "not reproduced"),  # boundary: an estimate at the level is not above it
        (40, 35, 45, "not reproduced"),
        (52, NAN, NAN, "partly"),  # no interval: the direction alone, never "reproduced"
    ],
)
def test_above_a_fixed_level(est, low, high, expected):
    assert V.direction_verdict("above", est, low, high, 50) == expected


@pytest.mark.parametrize(
    "est, low, high, expected",
    [
        (40, 35, 45, "reproduced"),
        (48, 41, 55, "partly"),
        (50, 45, 55, "not reproduced"),
        (60, 55, 65, "not reproduced"),
    ],
)
def test_below_mirrors_above(est, low, high, expected):
    assert V.direction_verdict("below", est, low, high, 50) == expected


@pytest.mark.parametrize(
    "control, expected",
    [
        ((50, 40, 54), "reproduced"),  # our 55 is above the control's whole interval
        ((50, 40, 55), "partly"),  # boundary: the intervals touch at 55
        ((50, 40, 58), "partly"),  # they overlap
        ((61, 58, 64), "not reproduced"),  # the control's estimate is higher
    ],
)
def test_above_a_control_row(control, expected):
    assert V.direction_verdict("above", 60, 55, 65, *control) == expected


def test_below_a_control_uses_the_controls_lower_edge():
    assert V.direction_verdict("below", 30, 25, 35, 50, 36, 60) == "reproduced"
    assert V.direction_verdict("below", 30, 25, 37, 50, 36, 60) == "partly"


@pytest.mark.parametrize(
    "est, low, high, expected",
    [
        (1, -3, 4, "reproduced"),  # [-3, 4] inside [-5, 5]
        (4.5, 4, 5, "reproduced"),  # boundary: the interval's edge on the margin is inside
        (1, -3, 7, "partly"),  # the estimate inside, the interval not
        (5, 3, 7, "partly"),  # boundary: an estimate on the margin is inside
        (6, 4, 8, "not reproduced"),
        (-9, -12, -6, "not reproduced"),
    ],
)
def test_within_a_margin(est, low, high, expected):
    assert V.equivalence_verdict(est, low, high, 0, 5) == expected


def test_agreement_to_the_printed_decimal():
    # cut or rounded to four decimals, 0.79394 prints as the paper's 0.7939
    assert V.agreement_verdict([0.79394, 0.5], [0.7939, 0.5], 4) == "reproduced"
    # one printed unit apart is not within one unit (0.7940 against 0.7939)
    assert V.agreement_verdict([0.7940], [0.7939], 4) == "not reproduced"
    # ... unless the paper's number lies inside our interval
    assert V.agreement_verdict([0.7940], [0.7939], 4, low=[0.70], high=[0.85]) == "partly"
    assert V.agreement_verdict([0.7940], [0.7939], 4, low=[0.7940], high=[0.85]) == "not reproduced"
    # two of three cells agree: at least half -> partly; one of three -> not reproduced
    assert V.agreement_verdict([0.1, 0.2, 0.9], [0.1, 0.2, 0.3], 2) == "partly"
    assert V.agreement_verdict([0.1, 0.8, 0.9], [0.1, 0.2, 0.3], 2) == "not reproduced"
    # one of two is exactly half (AGREEMENT_PARTLY)
    assert V.AGREEMENT_PARTLY == 0.5 and V.agreement_verdict([0.1, 0.9], [0.1, 0.2], 2) == "partly"


def test_a_p_value_against_the_level():
    assert V.ALPHA == 0.05
    assert V.test_verdict("significant", 0.01) == "reproduced"
    assert V.test_verdict("significant", 0.05) == "not reproduced"  # boundary: p = 0.05 is not below
    assert V.test_verdict("not_significant", 0.05) == "reproduced"
    assert V.test_verdict("not_significant", 0.002) == "not reproduced"
    assert V.test_verdict("significant", NAN) == "not testable here"  # a test whose outcome cannot vary


@pytest.mark.parametrize(
    "call",
    [
        lambda: V.direction_verdict("sideways", 1, 0, 2, 0),
        lambda: V.direction_verdict("above", NAN, 0, 2, 0),
        lambda: V.equivalence_verdict(1, 0, 2, 0, 0),
        lambda: V.agreement_verdict([0.1], [0.1, 0.2], 2),
        lambda: V.agreement_verdict([NAN], [0.1], 2),
        lambda: V.test_verdict("significant", 1.5),
        lambda: V.test_verdict("above", 0.5),
    ],
)
def test_bad_inputs_to_a_rule_are_verdict_errors(call):
    with pytest.raises(V.VerdictError):
        call()


def test_summary_counts_every_verdict():
    def v(word):
        return V.Verdict("x", "", "", "", "", "", word, "", "")

    line = V.summary_line("I", "Sets", [v("reproduced"), v("reproduced"), v("not testable here")])
    assert line == "Part I (Sets): 2 reproduced, 0 partly, 0 not reproduced, 1 not testable here, of 3 claims"


# ----------------------------------------------------------------------------- a claims file and its results


def _write(path, rows, header=None):
    """A CSV of ``rows``; a claims file (``data/reference/``) opens with the line citing its paper."""
    header = header or list(rows[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        if path.parent.name == "reference":
            f.write("# a made-up paper\n")
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)


def _claim(**kw):
    return {c: kw.get(c, "") for c in (*V.COLUMNS, *V.OPTIONAL_COLUMNS) if c in V.COLUMNS or c in kw}


CLAIMS = [
    _claim(
        claim="X-1",
        rule="agree",
        result="cells",
        select="model == 'm'",
        estimate="ours",
        paper_column="paper",
        digits="4",
        decimals="4",
        claim_text="the cells match",
    ),
    _claim(
        claim="X-2",
        rule="above",
        result="shares",
        select="model == 'm'",
        estimate="pct",
        low="low",
        high="high",
        unit="%",
        digits="1",
        reference="25",
        claim_text="above a quarter",
    ),
    _claim(
        claim="X-3",
        rule="above",
        result="shares",
        select="model == 'm'",
        reference_select="model == 'control'",
        estimate="pct",
        low="low",
        high="high",
        unit="%",
        digits="1",
        compared_with="the control",
    ),
    _claim(claim="X-4", rule="untestable", why="model: no such model here"),
]


@pytest.fixture
def made_up(tmp_path, monkeypatch):
    """A data folder with a claims file for the first study, and a results folder (no manifest:
    the book's own results) with the two files it reads."""
    data, results = tmp_path / "data", tmp_path / "results"
    _write(data / "reference" / f"{STUDY}_claims.csv", CLAIMS, header=list(V.COLUMNS))
    _write(
        results / STUDY / "cells.csv",
        [{"model": "m", "ours": 0.79394, "paper": 0.7939}, {"model": "m", "ours": 0.5, "paper": 0.5}],
    )
    _write(
        results / STUDY / "shares.csv",
        [
            {"model": "m", "pct": 40.0, "low": 35.0, "high": 45.0},
            {"model": "control", "pct": 30.0, "low": 26.0, "high": 34.0},
        ],
    )
    monkeypatch.setenv("COMPSEM_DATA", str(data))
    monkeypatch.setenv("COMPSEM_RESULTS", str(results))
    return data, results


def _words(results=None, **kw):
    return {v.claim: v.verdict for v in V.Claims(STUDY).evaluate(results=results, **kw)}


def test_a_claims_file_read_against_its_results(made_up):
    got = V.Claims(STUDY).evaluate()
    assert {v.claim: v.verdict for v in got} == {
        "X-1": "reproduced",
        "X-2": "reproduced",
        "X-3": "reproduced",
        "X-4": "not testable here",
    }
    by = {v.claim: v for v in got}
    assert by["X-1"].ours == "2 cells of 2 within one printed unit; largest difference 0.000040"
    assert by["X-2"].ours == "40.0 % [35.0, 45.0]" and by["X-2"].compared_with == "the level (25.0 %)"
    assert by["X-3"].compared_with == "the control: 30.0 % [26.0, 34.0]"
    assert by["X-4"].word == "not testable here (no such model offline): no such model here"
    values = V.Claims(STUDY).values()
    assert values["verdicts_summary"].endswith(
        ": 3 reproduced, 0 partly, 0 not reproduced, 1 not testable here, of 4 claims"
    )
    assert list(values["verdicts_table"].index) == ["X-1", "X-2", "X-3", "X-4"]
    assert "Rule 'agree'" in values["verdicts_rules"] and "Rules 'above' and 'below'" in values["verdicts_rules"]


def test_contradicting_results_change_the_verdicts(made_up):
    _, results = made_up
    # our cells far from the paper's, and our share below the level and the control
    _write(
        results / STUDY / "cells.csv",
        [{"model": "m", "ours": 0.6, "paper": 0.7939}, {"model": "m", "ours": 0.1, "paper": 0.5}],
    )
    _write(
        results / STUDY / "shares.csv",
        [
            {"model": "m", "pct": 20.0, "low": 15.0, "high": 27.0},
            {"model": "control", "pct": 30.0, "low": 26.0, "high": 34.0},
        ],
    )
    assert _words() == {
        "X-1": "not reproduced",
        "X-2": "not reproduced",
        "X-3": "not reproduced",
        "X-4": "not testable here",
    }
    # one cell back within a printed unit, the share just above the level: partly
    _write(
        results / STUDY / "cells.csv",
        [{"model": "m", "ours": 0.79394, "paper": 0.7939}, {"model": "m", "ours": 0.1, "paper": 0.5}],
    )
    _write(
        results / STUDY / "shares.csv",
        [
            {"model": "m", "pct": 26.0, "low": 20.0, "high": 31.0},
            {"model": "control", "pct": 30.0, "low": 26.0, "high": 34.0},
        ],
    )
    assert _words() == {"X-1": "partly", "X-2": "partly", "X-3": "not reproduced", "X-4": "not testable here"}


def test_a_missing_result_file_is_an_error_in_the_book_and_untestable_in_a_rerun(made_up, tmp_path):
    _, results = made_up
    (results / STUDY / "shares.csv").unlink()
    with pytest.raises(V.VerdictError, match=r"claim X-2: the result file .*shares\.csv does not exist"):
        V.Claims(STUDY).evaluate()
    # a run folder (its manifest beside results/) holds only the chapters it ran
    (tmp_path / RUN_MANIFEST).write_text(json.dumps({"run": "r1", "notebook": "x.ipynb"}))
    got = {v.claim: v for v in V.Claims(STUDY).evaluate()}
    assert got["X-1"].verdict == "reproduced"
    assert got["X-2"].verdict == "not testable here" and f"results/{STUDY}/shares.csv" in got["X-2"].why


@pytest.mark.parametrize(
    "change, message",
    [
        ({"select": "model == 'nobody'"}, r"claim X-2: the selection .* matches no row"),
        ({"select": "modell == 'm'"}, r"claim X-2: the selection .* does not apply"),
        ({"estimate": "share"}, r"claim X-2: .* has no column 'share'"),
        ({"reference": "a quarter"}, r"claim X-2: column 'reference' must be a number"),
        ({"result": "nothing"}, r"claim X-2: the result file .*nothing\.csv does not exist"),
        ({"select": ""}, r"claim X-2: the selection '' matches 2 rows"),
    ],
)
def test_a_claim_that_names_what_the_results_lack_is_a_clear_error(made_up, change, message):
    data, _ = made_up
    rows = [dict(CLAIMS[1], **change)]
    _write(data / "reference" / f"{STUDY}_claims.csv", rows, header=list(V.COLUMNS))
    with pytest.raises(V.VerdictError, match=message):
        V.Claims(STUDY).evaluate()


@pytest.mark.parametrize(
    "rows, message",
    [
        ([_claim(claim="X-1", rule="guess")], "unknown rules"),
        ([CLAIMS[3], CLAIMS[3]], "no two share it"),
        ([_claim(claim="X-9", rule="untestable")], "says why"),
        ([_claim(claim="X-9", rule="untestable", why="no such model here")], "opens with its reasons"),
        ([_claim(claim="X-9", rule="untestable", why="model, weather: no such model here")], "opens with its reasons"),
        ([_claim(claim="X-9", rule="untestable", why="model:")], "opens with its reasons"),
    ],
)
def test_a_malformed_claims_file_is_a_clear_error(made_up, rows, message):
    data, _ = made_up
    _write(data / "reference" / f"{STUDY}_claims.csv", rows, header=list(V.COLUMNS))
    with pytest.raises(V.VerdictError, match=message):
        V.Claims(STUDY).evaluate()


def test_a_claims_file_without_a_column_is_a_clear_error(made_up):
    data, _ = made_up
    _write(data / "reference" / f"{STUDY}_claims.csv", [{"claim": "X-1", "rule": "untestable"}])
    with pytest.raises(V.VerdictError, match="lacks the columns"):
        V.Claims(STUDY).table()


def test_tests_and_equivalences_read_from_the_results(made_up):
    data, results = made_up
    rows = [
        _claim(
            claim="Y-1", rule="not_significant", result="tests", select="test == 'a'", estimate="perm_p", digits="3"
        ),
        _claim(claim="Y-2", rule="significant", result="tests", select="test == 'b'", estimate="perm_p", digits="3"),
        _claim(claim="Y-3", rule="significant", result="tests", select="test == 'c'", estimate="perm_p", digits="3"),
        _claim(
            claim="Y-4",
            rule="within",
            result="shares",
            select="model == 'm'",
            estimate="pct",
            low="low",
            high="high",
            digits="1",
            reference="42",
            margin="5",
        ),
    ]
    _write(data / "reference" / f"{STUDY}_claims.csv", rows, header=list(V.COLUMNS))
    _write(
        results / STUDY / "tests.csv",
        [{"test": "a", "perm_p": 0.4}, {"test": "b", "perm_p": 0.0004}, {"test": "c", "perm_p": ""}],
    )
    got = {v.claim: v for v in V.Claims(STUDY).evaluate()}
    assert [got[k].verdict for k in ("Y-1", "Y-2", "Y-3", "Y-4")] == [
        "reproduced",
        "reproduced",
        "not testable here",
        "partly",
    ]  # [35, 45] is not within [37, 47]
    assert got["Y-1"].ours == "p = 0.400" and got["Y-2"].ours == "p < 0.001"
    assert got["Y-3"].word.startswith("not testable here: the test is undefined")
    assert got["Y-4"].compared_with == "the level (42.0 ± 5.0)"


def test_a_rerun_without_the_claimed_rows_leaves_the_claim_untestable(made_up, tmp_path):
    # a reader's rerun with another model: the file exists, the paper model's rows do not
    _, results = made_up
    _write(results / STUDY / "shares.csv", [{"model": "other", "pct": 20.0, "low": 15.0, "high": 27.0}])
    with pytest.raises(V.VerdictError, match=r"claim X-2: the selection .* matches no row"):
        V.Claims(STUDY).evaluate()
    (tmp_path / RUN_MANIFEST).write_text(json.dumps({"run": "r1", "notebook": "x.ipynb"}))
    got = {v.claim: v for v in V.Claims(STUDY).evaluate()}
    assert got["X-2"].verdict == "not testable here" and "has no row where" in got["X-2"].why


# ----------------------------------------------------------------------------- paired differences and gaps


PAIRED = [
    _claim(
        claim="P-1",
        rule="paired_above",
        result="diffs",
        select="a == 'x' and b == 'y'",
        estimate="difference",
        low="low",
        high="high",
        digits="1",
        compared_with="y on the same items",
    ),
    _claim(
        claim="P-2",
        rule="above",
        result="scores",
        select="mode == 'full'",
        reference_select="mode == 'part'",
        estimate="score",
        digits="1",
        margin="5",
        compared_with="the part alone",
    ),
]


@pytest.fixture
def paired_up(tmp_path, monkeypatch):
    data, results = tmp_path / "data", tmp_path / "results"
    _write(data / "reference" / f"{STUDY}_claims.csv", PAIRED, header=list(V.COLUMNS))
    monkeypatch.setenv("COMPSEM_DATA", str(data))
    monkeypatch.setenv("COMPSEM_RESULTS", str(results))
    return results


def _paired(results, diff, low, high, full, part):
    _write(results / STUDY / "diffs.csv", [{"a": "x", "b": "y", "difference": diff, "low": low, "high": high}])
    _write(results / STUDY / "scores.csv", [{"mode": "full", "score": full}, {"mode": "part", "score": part}])
    return {v.claim: v for v in V.Claims(STUDY).evaluate()}


def test_a_paired_difference_decides_against_zero(paired_up):
    # the paired interval [1, 5] lies above zero: reproduced (the marginal intervals need not be separate)
    got = _paired(paired_up, 3.0, 1.0, 5.0, 60.0, 40.0)
    assert got["P-1"].verdict == "reproduced"
    assert got["P-1"].ours == "3.0 [1.0, 5.0]"
    assert got["P-1"].compared_with == "y on the same items (paired difference against 0.0)"
    # contradicting data: the interval reaches zero -> partly; the difference below zero -> not reproduced
    assert _paired(paired_up, 3.0, -0.5, 6.0, 60.0, 40.0)["P-1"].verdict == "partly"
    assert _paired(paired_up, -2.0, -4.0, -0.1, 60.0, 40.0)["P-1"].verdict == "not reproduced"


def test_a_claimed_gap_moves_the_level_by_its_margin(paired_up):
    # 60 against 40 + 5 = 45, no interval recorded: the right side of the moved level, untested -> partly
    got = _paired(paired_up, 3.0, 1.0, 5.0, 60.0, 40.0)
    assert got["P-2"].verdict == "partly"
    assert got["P-2"].compared_with == "the part alone: 40.0, by more than 5.0"
    # 46.0 against 44.5: above the part alone, but by 1.5, less than the claimed gap of 5 -> not reproduced
    assert _paired(paired_up, 3.0, 1.0, 5.0, 46.0, 44.5)["P-2"].verdict == "not reproduced"


def test_a_paired_rule_with_a_control_row_or_a_negative_gap_is_an_error(paired_up):
    _write(
        paired_up.parent / "data" / "reference" / f"{STUDY}_claims.csv",
        [{**PAIRED[0], "reference_select": "a == 'y'"}],
        header=list(V.COLUMNS),
    )
    _write(paired_up / STUDY / "diffs.csv", [{"a": "x", "b": "y", "difference": 1, "low": 0.5, "high": 2}])
    with pytest.raises(V.VerdictError, match="a paired rule reads one row of paired differences"):
        V.Claims(STUDY).evaluate()
    _write(
        paired_up.parent / "data" / "reference" / f"{STUDY}_claims.csv",
        [{**PAIRED[0], "margin": "-1"}],
        header=list(V.COLUMNS),
    )
    with pytest.raises(V.VerdictError, match="a claimed gap"):
        V.Claims(STUDY).evaluate()


def _shown(results, data, shares, diff):
    """A paired claim shown by its share (the paper's kind of number): ``shares`` the model's and
    its control's (pct, low, high), ``diff`` the paired difference (difference, low, high)."""
    claim = {
        **_claim(
            claim="S-1",
            rule="paired_above",
            result="regions",
            select="model == 'm'",
            estimate="d",
            low="d_low",
            high="d_high",
            unit="points",
            digits="1",
            reference_select="model == 'm (shuffled)'",
            compared_with="m with shuffled targets",
        ),
        **dict(zip(V.SHOWN, ("pct", "low", "high", "%"))),
    }
    _write(data / "reference" / f"{STUDY}_claims.csv", [claim], header=list(V.COLUMNS) + list(V.SHOWN))
    (m, c), (d, dlo, dhi) = shares, diff
    _write(
        results / STUDY / "regions.csv",
        [
            {"model": "m", "pct": m[0], "low": m[1], "high": m[2], "d": d, "d_low": dlo, "d_high": dhi},
            {"model": "m (shuffled)", "pct": c[0], "low": c[1], "high": c[2], "d": "", "d_low": "", "d_high": ""},
        ],
    )
    return V.Claims(STUDY).evaluate()[0]


def test_a_paired_claim_shows_the_share_beside_the_paper_and_decides_on_the_difference(paired_up):
    data = paired_up.parent / "data"
    got = _shown(paired_up, data, ((99.2, 97.6, 100.0), (32.0, 24.0, 40.0)), (67.2, 58.4, 76.0))
    assert got.verdict == "reproduced"
    assert got.ours == "99.2 % [97.6, 100.0]"  # the share, the paper's kind of number, not the difference
    assert got.compared_with == (
        "m with shuffled targets: 32.0 % [24.0, 40.0] (paired difference 67.2 points [58.4, 76.0], against 0.0 points)"
    )
    # contradicting data: the same marginal shares, but a paired interval reaching zero -> partly, and the
    # words show the interval that decided
    got = _shown(paired_up, data, ((99.2, 97.6, 100.0), (32.0, 24.0, 40.0)), (3.0, -1.0, 7.0))
    assert got.verdict == "partly" and "paired difference 3.0 points [-1.0, 7.0]" in got.compared_with
    got = _shown(paired_up, data, ((30.0, 22.0, 38.0), (32.0, 24.0, 40.0)), (-2.0, -6.0, 2.0))
    assert got.verdict == "not reproduced" and got.ours == "30.0 % [22.0, 38.0]"


def test_the_rules_text_names_the_paired_rules_once():
    text = V.rules_text(["paired_below", "above"])
    assert "Rules 'paired_above' and 'paired_below'" in text and "Rules 'above' and 'below'" in text
    assert "Rule 'paired_below'" not in text


def test_a_study_that_declares_how_a_row_is_named_gets_it_beside_the_number(made_up):
    _, results = made_up

    def describe(result, row, folder):
        return f"model {row['model']} of {result}" if result == "shares" else ""

    by = {v.claim: v for v in V.Claims(STUDY, describe=describe).evaluate()}
    # select the row of model m in shares.csv; X-1 (several cells) and X-4 (untestable) name nothing
    assert by["X-2"].ours == "40.0 % [35.0, 45.0] (model m of shares)" and by["X-3"].ours.endswith(
        "(model m of shares)"
    )
    assert by["X-1"].ours.startswith("2 cells of 2") and "model" not in by["X-1"].ours and by["X-4"].ours == "–"
    # contradicting data: the selected row changes, and the words follow the row
    _write(
        results / STUDY / "shares.csv",
        [
            {"model": "m", "pct": 41.0, "low": 35.0, "high": 45.0},
            {"model": "control", "pct": 30.0, "low": 26.0, "high": 34.0},
        ],
    )
    same = {v.claim: v.ours for v in V.Claims(STUDY, describe=lambda r, row, f: f"{row['pct']:.0f} points").evaluate()}
    assert same["X-2"] == "41.0 % [35.0, 45.0] (41 points)"
    assert {v.claim: v.ours for v in V.Claims(STUDY).evaluate()}["X-2"] == "41.0 % [35.0, 45.0]"


# ----------------------------------------------------------------------------- a second reading of a claim

SECOND = [
    {c: "" for c in V.OPTIONAL_COLUMNS}
    | _claim(
        claim="S-1",
        rule="paired_above",
        result="cells",
        select="mode == 'zero'",
        estimate="d",
        low="low",
        high="high",
        unit="points",
        digits="1",
    )
    | {"also_select": "mode == 'grid'", "also_label": "the grid average"}
]


@pytest.fixture
def second(tmp_path, monkeypatch):
    data, results = tmp_path / "data", tmp_path / "results"
    _write(data / "reference" / f"{STUDY}_claims.csv", SECOND, header=[*V.COLUMNS, *V.OPTIONAL_COLUMNS])
    monkeypatch.setenv("COMPSEM_DATA", str(data))
    monkeypatch.setenv("COMPSEM_RESULTS", str(results))
    return results


def _two(results, zero, grid):
    rows = [{"mode": m, "d": v[0], "low": v[1], "high": v[2]} for m, v in (("zero", zero), ("grid", grid))]
    _write(results / STUDY / "cells.csv", rows)
    return V.Claims(STUDY).evaluate()[0]


def test_a_second_reading_is_stated_and_says_when_the_direction_depends_on_it(second):
    # the first reading decides: 33.6 [25.0, 42.0] above zero -> reproduced; the grid average lies below zero
    # (-21.1, not reproduced), so the direction depends on the choice of reading
    v = _two(second, (33.6, 25.0, 42.0), (-21.1, -25.7, -16.5))
    assert v.verdict == "reproduced" and v.ours == "33.6 points [25.0, 42.0]"
    assert v.differs == (
        "–; read as the grid average instead: -21.1 points [-25.7, -16.5], not reproduced: "
        "the direction depends on this choice"
    )
    # contradicting data: both readings above zero -> the same verdict, and no dependence is claimed
    v = _two(second, (33.6, 25.0, 42.0), (7.0, 3.5, 10.6))
    assert v.verdict == "reproduced" and v.differs.endswith("7.0 points [3.5, 10.6], reproduced, the same verdict")
    # the grid average above zero but its interval reaching it: partly, the same direction
    v = _two(second, (33.6, 25.0, 42.0), (2.0, -1.0, 5.0))
    assert v.differs.endswith(": the verdict (not the direction) depends on this choice")
    # the first reading below zero: its own verdict is the row's, whatever the second says
    assert _two(second, (-3.0, -5.0, -1.0), (7.0, 3.5, 10.6)).verdict == "not reproduced"


def test_a_second_reading_needs_its_label_and_a_rule_that_reads_a_direction(second):
    data = second.parent / "data" / "reference" / f"{STUDY}_claims.csv"
    header = [*V.COLUMNS, *V.OPTIONAL_COLUMNS]
    _write(data, [{**SECOND[0], "also_label": ""}], header=header)
    with pytest.raises(V.VerdictError, match="column 'also_label'"):
        _two(second, (1.0, 0.5, 2.0), (1.0, 0.5, 2.0))
    _write(data, [{**SECOND[0], "rule": "significant"}], header=header)
    with pytest.raises(V.VerdictError, match="a second reading"):
        _two(second, (0.01, 0.5, 2.0), (0.01, 0.5, 2.0))


def test_a_rerun_without_the_second_reading_says_so(second):
    # a reader's rerun (a run manifest) that wrote only the ε = 0 rows: the verdict stands, the second reading is
    # not testable and says why
    _write(second / STUDY / "cells.csv", [{"mode": "zero", "d": 3.0, "low": 1.0, "high": 5.0}])
    (second / RUN_MANIFEST).write_text(json.dumps({"notebook": "x"}))
    v = V.Claims(STUDY).evaluate(results=second)[0]
    assert v.verdict == "reproduced"
    assert v.differs.startswith("–; read as the grid average instead: not testable here (this run's results/")


# ----------------------------------------------------------------------------- the scope of a claim


def test_a_claim_tested_on_fewer_cases_than_it_names_is_partly(made_up):
    data, results = made_up
    row = _claim(
        claim="Z-1",
        rule="not_significant",
        result="tests",
        select="model == 'm' and test == 'b'",
        estimate="perm_p",
        digits="3",
        scope="test=a:AN phrases|b:AAN phrases",
    )
    _write(data / "reference" / f"{STUDY}_claims.csv", [row], header=[*V.COLUMNS, "scope"])
    tests = [{"model": "m", "test": "a", "perm_p": ""}, {"model": "m", "test": "b", "perm_p": 0.4}]
    _write(results / STUDY / "tests.csv", tests)
    got = V.Claims(STUDY).evaluate()[0]
    # p = 0.4 is "reproduced" by the rule, but only on b: the test on a is undefined (NaN), so partly
    assert got.verdict == "partly" and got.word.startswith("partly: reproduced where tested, on fewer cases")
    assert (
        got.differs
        == "scope: tested on AAN phrases (on AN phrases the test is undefined), fewer cases than the claim names"
    )
    assert "Scope: a claim the paper makes of more models or inputs" in V.Claims(STUDY).values()["verdicts_rules"]
    # contradicting data: p = 0.01 on b contradicts a claim of every case, so not reproduced stands
    _write(results / STUDY / "tests.csv", [tests[0], {**tests[1], "perm_p": 0.01}])
    assert V.Claims(STUDY).evaluate()[0].verdict == "not reproduced"
    # the whole scope tested (a row per case in the selection's file, the claim names only b): reproduced
    _write(data / "reference" / f"{STUDY}_claims.csv", [{**row, "scope": "test=b"}], header=[*V.COLUMNS, "scope"])
    _write(results / STUDY / "tests.csv", tests)
    got = V.Claims(STUDY).evaluate()[0]
    assert got.verdict == "reproduced" and got.differs == "scope: tested on b"
    # a case the result file lacks is "not run here"; a scope naming a column the file lacks is an error
    _write(
        data / "reference" / f"{STUDY}_claims.csv", [{**row, "scope": "test=b|c:pairs"}], header=[*V.COLUMNS, "scope"]
    )
    assert "pairs not run here" in V.Claims(STUDY).evaluate()[0].differs
    _write(data / "reference" / f"{STUDY}_claims.csv", [{**row, "scope": "kind=b"}], header=[*V.COLUMNS, "scope"])
    with pytest.raises(V.VerdictError, match="the scope names column 'kind'"):
        V.Claims(STUDY).evaluate()
    _write(data / "reference" / f"{STUDY}_claims.csv", [{**row, "scope": "test"}], header=[*V.COLUMNS, "scope"])
    with pytest.raises(V.VerdictError, match="a scope is 'column=value"):
        V.Claims(STUDY).evaluate()


def test_the_papers_models_in_a_scope_count_only_the_very_weights(tmp_path):
    # Part III's paper reports 8 models; sbert-mini loads MiniLM's weights, glove-50d is only a stand-in
    import pandas as pd

    study = "montague"
    row = _claim(claim="Z-2", estimate="perm_p", scope="model=paper")
    df = pd.DataFrame({"model": ["sbert-mini", "glove-50d"], "perm_p": [0.4, 0.3]})
    narrower, words = V.scope_of(row, study, df, df.iloc[:1], "here", tmp_path / "t.csv")
    assert narrower and words == (
        "tested on 1 of the paper's 8 models (MiniLM; the other 7 not run here), fewer cases than the claim names"
    )
    with pytest.raises(V.VerdictError, match="tests none of the paper's models"):
        V.scope_of(row, study, df, df.iloc[1:], "here", tmp_path / "t.csv")


# ----------------------------------------------------------------------------- reasons and quotations


def _untestable(data, whys):
    rows = [_claim(claim=f"U-{i}", rule="untestable", why=w) for i, w in enumerate(whys, 1)]
    _write(data / "reference" / f"{STUDY}_claims.csv", rows, header=list(V.COLUMNS))
    return V.Claims(STUDY).values()


def test_the_untestable_rule_names_the_reasons_its_rows_declare(made_up):
    data, _ = made_up
    values = _untestable(data, ["optional: not run by default", "quantity, model: no level is named"])
    rules = values["verdicts_rules"]
    # the reasons in the order of UNTESTABLE, each with its claims; the one no row gives is absent
    assert "in this table 'no such model offline' (U-2): " in rules
    assert "'not run in the default build' (U-1): " in rules and "'no testable quantity' (U-2): " in rules
    assert rules.index("no such model offline") < rules.index("not run in the default build")
    assert "no such data offline" not in rules
    assert list(values["verdicts_table"]["verdict"]) == [
        "not testable here (not run in the default build): not run by default",
        "not testable here (no testable quantity; no such model offline): no level is named",
    ]
    # contradicting rows: every claim untestable for a missing model only -> one reason, other words
    rules = _untestable(data, ["model: gone", "model: gone too"])["verdicts_rules"]
    assert "in this table 'no such model offline' (U-1, U-2): " in rules
    assert "default build" not in rules and "no testable quantity" not in rules


def test_the_rules_text_without_untestable_rows_names_no_reason():
    assert "in this table" not in V.rules_text(["untestable"])
    assert "in this table" not in V.rules_text(["above"], {})


def test_words_quote_the_papers_tables(made_up):
    data, _ = made_up
    _write(
        data / "reference" / f"{STUDY}_tbl.csv",
        [
            {"model": "a", "encoding": "bi", "objective": "mse", "split": "validation"},
            {"model": "a", "encoding": "tri", "objective": "quad+mse", "split": "validation"},
        ],
    )
    row = dict(
        CLAIMS[3],
        differs="not the paper's {{ paper('tbl', 'split') }} split",
        paper_value="bi with {{ paper('tbl', 'objective', model='a', encoding='bi') }}, "
        "tri with {{ paper('tbl', 'objective', encoding='tri') }}; {{ paper('tbl', 'objective') }}",
    )
    _write(data / "reference" / f"{STUDY}_claims.csv", [row], header=list(V.COLUMNS))
    table = V.Claims(STUDY).values()["verdicts_table"]
    assert table.loc["X-4", "what differs"] == "not the paper's validation split"
    assert table.loc["X-4", "the paper's number"] == "bi with mse, tri with quad+mse; mse and quad+mse"
    # contradicting data: the paper's table read on the test split, its bi-encoder trained with quad+mse
    _write(
        data / "reference" / f"{STUDY}_tbl.csv",
        [
            {"model": "a", "encoding": "bi", "objective": "quad+mse", "split": "test"},
            {"model": "a", "encoding": "tri", "objective": "quad+mse", "split": "test"},
        ],
    )
    table = V.Claims(STUDY).values()["verdicts_table"]
    assert table.loc["X-4", "what differs"] == "not the paper's test split"
    assert table.loc["X-4", "the paper's number"] == "bi with quad+mse, tri with quad+mse; quad+mse"


@pytest.mark.parametrize(
    "quote, message",
    [
        ("{{ paper('tbl', 'split', model='b') }}", "no row of"),
        ("{{ paper('tbl', 'size') }}", "has no column 'size'"),
        ("{{ paper('nope', 'split') }}", "no transcribed table"),
        ("{{ paper('tbl', 'split') }", "quotes the paper's tables wrongly"),
        ("{{ table }}", "quotes the paper's tables wrongly"),
    ],
)
def test_a_wrong_quotation_is_a_clear_error(made_up, quote, message):
    data, _ = made_up
    _write(data / "reference" / f"{STUDY}_tbl.csv", [{"model": "a", "split": "test"}])
    _write(data / "reference" / f"{STUDY}_claims.csv", [dict(CLAIMS[3], differs=quote)], header=list(V.COLUMNS))
    with pytest.raises(CompsemError, match=message):
        V.Claims(STUDY).table()


# ----------------------------------------------------------------------------- a level read against controls

CONTROLLED_ROW = [
    {c: "" for c in V.OPTIONAL_COLUMNS}
    | _claim(
        claim="K-1",
        rule="above",
        result="rsa",
        select="scorer == 'model'",
        estimate="r",
        low="low",
        high="high",
        digits="3",
        reference="0",
        compared_with="no correlation",
    )
    | {"control_select": "scorer in ['c1', 'c2']", "control_label": "the controls", "control_name": "scorer"}
]


@pytest.fixture
def controlled(tmp_path, monkeypatch):
    data, results = tmp_path / "data", tmp_path / "results"
    _write(data / "reference" / f"{STUDY}_claims.csv", CONTROLLED_ROW, header=[*V.COLUMNS, *V.OPTIONAL_COLUMNS])
    monkeypatch.setenv("COMPSEM_DATA", str(data))
    monkeypatch.setenv("COMPSEM_RESULTS", str(results))
    return results


def _against(results, model, c1, c2):
    rows = [{"scorer": s, "r": v[0], "low": v[1], "high": v[2]} for s, v in (("model", model), ("c1", c1), ("c2", c2))]
    _write(results / STUDY / "rsa.csv", rows)
    return V.Claims(STUDY).evaluate()[0]


def test_a_level_that_the_controls_pass_as_well_gives_at_most_partly(controlled):
    # 0.426 [0.406, 0.453] lies wholly above 0 (reproduced against the level), but both controls are higher:
    # at most partly, and both controls' numbers are shown
    v = _against(controlled, (0.426, 0.406, 0.453), (0.549, 0.528, 0.572), (0.545, 0.523, 0.569))
    assert v.verdict == "partly"
    assert v.compared_with == ("no correlation (0.000); the controls: c1 0.549 [0.528, 0.572], c2 0.545 [0.523, 0.569]")
    assert v.word == (
        "partly: on the claimed side of the level, but our interval does not lie wholly above that of the controls"
    )
    # contradicting data: both controls' whole intervals below ours (0.40 < 0.406) -> reproduced stands
    v = _against(controlled, (0.426, 0.406, 0.453), (0.20, 0.18, 0.22), (0.30, 0.28, 0.40))
    assert v.verdict == "reproduced" and v.note == ""
    # boundary: one control's interval touches ours (0.406) -> partly
    assert _against(controlled, (0.426, 0.406, 0.453), (0.20, 0.18, 0.22), (0.30, 0.28, 0.406)).verdict == "partly"
    # below the level: not reproduced stays, whatever the controls
    v = _against(controlled, (-0.1, -0.2, -0.05), (-0.5, -0.6, -0.4), (-0.5, -0.6, -0.4))
    assert v.verdict == "not reproduced" and v.note == ""


def test_controls_need_their_words_a_level_rule_and_a_row(controlled):
    data = controlled.parent / "data" / "reference" / f"{STUDY}_claims.csv"
    header = [*V.COLUMNS, *V.OPTIONAL_COLUMNS]
    good = ((0.4, 0.3, 0.5), (0.1, 0.0, 0.2), (0.1, 0.0, 0.2))
    _write(data, [{**CONTROLLED_ROW[0], "control_label": ""}], header=header)
    with pytest.raises(V.VerdictError, match="column 'control_label'"):
        _against(controlled, *good)
    _write(data, [{**CONTROLLED_ROW[0], "rule": "paired_above"}], header=header)
    with pytest.raises(V.VerdictError, match="'above' / 'below'"):
        _against(controlled, *good)
    _write(data, [{**CONTROLLED_ROW[0], "control_select": "scorer == 'none'"}], header=header)
    with pytest.raises(V.VerdictError, match="matches no row"):
        _against(controlled, *good)


def test_the_rules_text_states_the_control_rule_only_where_a_row_names_controls():
    assert V.CONTROLLED in V.rules_text(["above"], controlled=True)
    assert "Controls:" not in V.rules_text(["above"])
