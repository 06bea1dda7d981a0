"""The synthesis gathers every study's headlines in the registry's order and reads its prose
values off the profile. The profile tests run on a made-up registry (its criteria and reports
declared here, independent of the studies), so a study added to the real registry changes
nothing below; the expected values are worked out by hand from small made-up profiles."""

import dataclasses
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from compsem.crossstudy import synthesis  # noqa: E402
from compsem.crossstudy.synthesis import profile_matrix  # noqa: E402
from compsem.faces import Finding, leader_paragraph  # noqa: E402
from compsem.results import Headline  # noqa: E402
from compsem.studies import STUDIES  # noqa: E402
from tests.helpers.profiles import replicates  # noqa: E402

NAN = float("nan")
REAL_CRITERIA, REAL_REPORTS = synthesis.CRITERIA, synthesis.STUDY_REPORTS  # before the fake registry


def test_criteria_are_the_registered_studies_headlines_in_order():
    """Worked out from the registry, study by study: the synthesis holds every study's
    HEADLINES, in the registry's order, and asks every study's report."""
    expected = [h for s in STUDIES for h in s.module("report").HEADLINES]
    assert list(REAL_CRITERIA) == expected
    assert list(REAL_REPORTS) == [s.name for s in STUDIES]
    assert [c.part for c in REAL_CRITERIA] == [s.roman for s in STUDIES for _ in s.module("report").HEADLINES]


def test_every_study_declares_its_finding():
    for s in STUDIES:
        assert isinstance(s.module("report").FINDING, Finding), s.name


def _h(key, part, unit, reference, higher=True):
    return Headline(
        key,
        part,
        f"label of {key}",
        unit,
        reference,
        "items",
        f"meaning of {key}",
        higher=higher,
        direction=f"why {key}",
    )


#: A made-up registry of four Parts with ten criteria (the keys echo the book's, the rest is invented);
#: C6 argues no direction.
FAKE = (
    _h("C1", "I", "%", NAN),
    _h("C2", "I", "%", NAN),
    _h("C3", "I", "%", NAN),
    _h("C5", "I", "%", NAN),
    _h("C6", "I", "%", NAN, None),
    _h("CSTS", "II", "%", 50.0),
    _h("AAN", "III", "share", NAN),
    _h("PAIR", "III", "share", 0.5),
    _h("NSGAP", "III", "difference", 0.0),
    _h("RSA", "IV", "r", 0.0),
)
CRITERIA = FAKE


@pytest.fixture(autouse=True)
def fake_registry(monkeypatch):
    """The synthesis reads its criteria and reports from a made-up registry."""
    monkeypatch.setattr(synthesis, "CRITERIA", FAKE)
    monkeypatch.setattr(
        synthesis,
        "STUDY_REPORTS",
        {p: SimpleNamespace(HEADLINES=[c for c in FAKE if c.part == p]) for p in ("I", "II", "III", "IV")},
    )


def _prof(
    values: dict[str, dict[str, tuple]], spread: dict | None = None, control_of: dict | None = None
) -> pd.DataFrame:
    """A profile from {model: {criterion: (value, low, high[, ties])}}, replicates
    ``value + spread × OFFSETS`` (:func:`tests.helpers.profiles.replicates`: a paired interval of
    a − b is (v_a − v_b) ∓ 1.9 |s_a − s_b|), ``control_of``: {row model: model}."""
    unit = {c.key: c.unit for c in CRITERIA}
    rows = []
    for m, crit in values.items():
        for k, v in crit.items():
            value, low, high, *ties = v
            rows.append(
                {
                    "model": m,
                    "criterion": k,
                    "value": value,
                    "low": low,
                    "high": high,
                    "unit": unit[k],
                    "ties": ties[0] if ties else NAN,
                    "replicates": replicates(value, (spread or {}).get((m, k), 0.0)),
                    "control_of": (control_of or {}).get(m, ""),
                }
            )
    return pd.DataFrame(rows)


# Part I means: a (80+60+70+40+50)/5 = 60 [mean of lows (70+50+60+30+40)/5 = 50, of highs 70],
# b (90+50+60+30+20)/5 = 50 [40, 59]. bow: every PAIR comparison a tie (0 under strict <), NSGAP
# exactly 0 with no spread, CSTS exactly 50 with no spread: all three degenerate.
# Replicates have no spread unless SPREAD says so: every paired interval is then the difference itself.
PROFILE = _prof(
    {
        "a": {
            "C1": (80, 70, 90),
            "C2": (60, 50, 70),
            "C3": (70, 60, 80),
            "C5": (40, 30, 50),
            "C6": (50, 40, 60),
            "CSTS": (52, 45, 58),
            "AAN": (0.9, 0.8, 1.0),
            "PAIR": (0.7, 0.6, 0.8, 0.1),
            "NSGAP": (0.02, -0.01, 0.05),
            "RSA": (0.3, 0.2, 0.4),
        },
        "b": {
            "C1": (90, 80, 95),
            "C2": (50, 40, 60),
            "C3": (60, 50, 70),
            "C5": (30, 20, 40),
            "C6": (20, 10, 30),
            "CSTS": (60, 55, 65),
            "AAN": (0.8, 0.7, 0.9),
            "PAIR": (0.6, 0.5, 0.7, 0.0),
            "NSGAP": (0.05, 0.01, 0.09),
            "RSA": (0.5, 0.4, 0.6),
        },
        "bow": {
            "C1": (10, 5, 15),
            "C2": (10, 5, 15),
            "C3": (10, 5, 15),
            "C5": (10, 5, 15),
            "C6": (10, 5, 15),
            "CSTS": (50, 50, 50),
            "AAN": (1.0, 1.0, 1.0),
            "PAIR": (0.0, 0.0, 0.0, 1.0),
            "NSGAP": (0.0, 0.0, 0.0),
            "RSA": (0.9, 0.8, 0.95),
        },
        "random": {
            "C1": (95, 90, 99),
            "C2": (97.5, 95, 99),
            "C3": (0, 0, 0),
            "C5": (0, 0, 0),
            "C6": (0, 0, 0),
            "CSTS": (50, 45, 55),
            "AAN": (0.5, 0.4, 0.6),
            "PAIR": (0.5, 0.4, 0.6, 0.0),
            "NSGAP": (0.9, 0.8, 1.0),
            "RSA": (0.99, 0.9, 1.0),
        },
    }
)


def test_findings_count_from_the_registry_and_name_degenerate_rows():
    f = synthesis.findings(PROFILE, ["a", "b", "random"], controls=["random"])
    assert (f["n_real"], f["n_headlines"], f["n_parts"]) == (2, 10, 4)
    assert f["degenerate_sentence"] == "No row of this profile is degenerate."
    f = synthesis.findings(PROFILE, ["a", "bow"], controls=[])
    assert "`bow` on PAIR (every comparison is a tie)" in f["degenerate_sentence"]
    assert "`bow` on NSGAP (every item gives exactly 0, the no-effect value)" in f["degenerate_sentence"]


def _with_findings(monkeypatch, findings: dict):
    """The fake registry's Parts, each with the Finding given for it (or none)."""
    monkeypatch.setattr(
        synthesis,
        "STUDY_REPORTS",
        {
            p: SimpleNamespace(
                HEADLINES=[c for c in FAKE if c.part == p], **({"FINDING": findings[p]} if p in findings else {})
            )
            for p in ("I", "II", "III", "IV")
        },
    )
    monkeypatch.setattr(synthesis, "_part", lambda name: name)


def test_the_introduction_and_paragraphs_loop_over_the_studies_findings(monkeypatch):
    seen = {}

    def sentences(part):
        def f(rows, models, controls):
            seen[part] = (sorted(set(rows.criterion)), list(models), list(controls), list(rows.columns))
            return f"{len(rows)} rows of Part {part}."

        return f

    _with_findings(
        monkeypatch,
        {p: Finding(f"Topic {p}", f"question {p} holds", f"Method {p}.", sentences(p)) for p in ("I", "II", "IV")},
    )
    assert (
        synthesis.questions() == "Part I asks whether question I holds; Part II whether question II holds; and "
        "Part IV whether question IV holds."
    )
    assert synthesis.methods() == "Method I. Method II. Method IV."
    paras = synthesis.paragraphs(PROFILE, ["a", "b", "random"], controls=["random"])
    # Part I: 5 criteria x 4 models; Part II: 1 x 4; Part IV: 1 x 4; Part III declares no finding
    assert paras == [
        "*Topic I.* 20 rows of Part I.",
        "*Topic II.* 4 rows of Part II.",
        "*Topic IV.* 4 rows of Part IV.",
    ]
    assert seen["I"][:3] == (["C1", "C2", "C3", "C5", "C6"], ["a", "b"], ["random"])
    assert {"reference", "higher", "degenerate", "ties", "replicates", "control_of", "ranked", "test"} <= set(
        seen["II"][3]
    )
    assert synthesis.findings(PROFILE, ["a"])["questions"] == synthesis.questions()
    _with_findings(monkeypatch, {"II": Finding("T", "one question holds", "M.", sentences("II"))})
    assert synthesis.questions() == "Part II asks whether one question holds."


def test_profile_table_formats_value_and_interval_and_heads_the_controls_apart():
    t = synthesis.profile_table(PROFILE, ["b", "a"], controls=["bow"])
    assert list(t.columns) == ["b", "a", "control: bow"]
    c1, csts, nsgap = (next(c.label for c in CRITERIA if c.key == k) for k in ("C1", "CSTS", "NSGAP"))
    assert t.loc[c1, "a"] == "80.0 % [70.0, 90.0]"  # percentages: one decimal, marked
    assert t.loc[nsgap, "b"] == "0.05 [0.01, 0.09]"  # other values: two decimals
    assert t.loc[csts, "b"] == "60.0 % [55.0, 65.0]"
    assert t.loc[c1, "control: bow"] == "10.0 % [5.0, 15.0]"
    tiny = PROFILE.assign(low=PROFILE.low.where(PROFILE.criterion != "RSA", -0.001))
    assert (
        synthesis.profile_table(tiny, ["a"]).loc[next(c.label for c in CRITERIA if c.key == "RSA"), "a"]
        == "0.30 [0.00, 0.40]"
    )  # no "-0.00"
    pair = next(c.label for c in CRITERIA if c.key == "PAIR")
    assert synthesis.profile_table(PROFILE, ["bow"]).loc[pair, "bow"] == "0.00 [0.00, 0.00] (n/a)"  # all ties
    no_ci = PROFILE.assign(low=NAN)
    assert synthesis.profile_table(no_ci, ["a"]).loc[c1, "a"] == "80.0 %"


def test_without_a_control_nothing_is_ranked():
    r = synthesis.ranks(PROFILE, ["a", "b"])
    assert set(r.loc["C1", ["a", "b"]]) == {"–"}
    assert (
        r.loc["C1", "separation from the controls"] == "not ranked: no control in this run to test the models against."
    )
    assert r.loc["C6", "separation from the controls"] == "not ranked: no direction (why C6)."
    assert list(r.index) == [c.key for c in CRITERIA] and list(r.columns) == ["a", "b", "separation from the controls"]


def test_profile_asks_each_study_and_orders_by_criterion(monkeypatch):
    crit = {c.key: c for c in CRITERIA}

    def fake(keys):
        def headlines(models, *, n_boot, seed, trust_remote_code):
            assert n_boot == 7 and seed == 3 and trust_remote_code is False
            return [{"model": m, "criterion": k, "value": float(i)} for m in models for i, k in enumerate(keys)][::-1]

        return SimpleNamespace(HEADLINES=[crit[k] for k in keys], headlines=headlines)

    monkeypatch.setattr(synthesis, "STUDY_REPORTS", {"fourth": fake(["RSA"]), "first": fake(["C2", "C1"])})
    prof = synthesis.profile(["y", "x"], n_boot=7, seed=3)
    assert list(zip(prof.model, prof.criterion)) == [
        ("x", "C1"),
        ("x", "C2"),
        ("x", "RSA"),
        ("y", "C1"),
        ("y", "C2"),
        ("y", "RSA"),
    ]
    assert list(prof[prof.model == "x"].value) == [1.0, 0.0, 0.0]


def test_profile_matrix_orders_criteria():
    prof = pd.DataFrame([{"model": "m", "criterion": c.key, "value": i} for i, c in enumerate(CRITERIA)][::-1])
    assert list(profile_matrix(prof).columns) == [c.key for c in CRITERIA]
    assert list(profile_matrix(prof).loc["m"]) == list(np.arange(len(CRITERIA), dtype=float))


def test_profile_hands_trust_remote_code_to_the_studies(monkeypatch):
    seen = []

    def headlines(models, *, n_boot, seed, trust_remote_code=False):
        seen.append(trust_remote_code)
        return [{"model": m, "criterion": "RSA", "value": 1.0} for m in models]

    crit = {c.key: c for c in CRITERIA}
    monkeypatch.setattr(
        synthesis, "STUDY_REPORTS", {"fourth": SimpleNamespace(HEADLINES=[crit["RSA"]], headlines=headlines)}
    )
    synthesis.profile(["x"], trust_remote_code=True)
    synthesis.profile(["x"])
    assert seen == [True, False]


def test_a_study_must_give_a_reason_not_a_flag():
    prof = PROFILE.assign(degenerate=[True] + [""] * (len(PROFILE) - 1))
    with pytest.raises(TypeError, match="reason in words"):
        synthesis.degenerate(prof)


# Contradicting data (issue 44): bow is a control and has the highest C1; on C3 `b` does not separate from
# `random` (b − random = 5 ∓ 1.9 × 5 = [-4.5, 14.5]; a − random = 10 ∓ 9.5 = [0.5, 19.5]); on CSTS every model
# lies below 50 % and below both controls; C2 and RSA separate every model from every control, C2 with
# `a`'s own control (its shuffled targets, 32 %); C6 argues no direction.
CONTRA = _prof(
    {
        "a": {
            "C1": (60, 50, 70),
            "C2": (99, 97, 100),
            "C3": (60, 50, 70),
            "C6": (50, 40, 60),
            "CSTS": (40, 35, 45),
            "RSA": (0.5, 0.4, 0.6),
        },
        "b": {
            "C1": (50, 40, 60),
            "C2": (97, 95, 99),
            "C3": (55, 45, 65),
            "C6": (20, 10, 30),
            "CSTS": (38, 33, 43),
            "RSA": (0.3, 0.2, 0.4),
        },
        "bow": {
            "C1": (90, 85, 95),
            "C2": (20, 15, 25),
            "C3": (10, 5, 15),
            "C6": (10, 5, 15),
            "CSTS": (41, 36, 46),
            "RSA": (0.1, 0.05, 0.15),
        },
        "random": {
            "C1": (10, 5, 15),
            "C2": (25, 20, 30),
            "C3": (50, 40, 60),
            "CSTS": (46, 40, 53),
            "RSA": (0.0, -0.05, 0.05),
        },
        "a (shuffled targets)": {"C2": (32, 24, 40)},
    },
    spread={("random", "C3"): 5.0},
    control_of={"a (shuffled targets)": "a"},
)
MODELS, CONTROLS = ["a", "b", "bow", "random"], ["bow", "random"]


def test_a_control_with_the_highest_value_is_not_ranked_and_the_criterion_says_why():
    r = synthesis.ranks(CONTRA, MODELS, CONTROLS)
    assert list(r.columns) == ["a", "b", "separation from the controls"]  # no control among the ranked
    assert list(r.loc["C1", ["a", "b"]]) == ["–", "–"]
    # both failing intervals lie wholly below zero: the words say the control scores higher, not "no separation"
    assert r.loc["C1", "separation from the controls"] == (
        "not ranked: the control `bow` scores significantly higher than `a` and `b`, the side this criterion calls "
        "better (2 of 4 paired 95 % intervals not on the better side of zero: `a` − `bow` -30.0 [-30.0, -30.0] "
        "points (below the control); `b` − `bow` -40.0 [-40.0, -40.0] points (below the control))."
    )


def test_a_criterion_where_one_model_does_not_separate_from_a_control_is_not_ranked():
    rank = synthesis.ranking(CONTRA, MODELS, CONTROLS)
    assert not rank.loc["C3", "ranked"]
    assert rank.loc["C3", "test"] == (
        "not ranked: not every model separates from every control (1 of 4 paired 95 % intervals not on the better "
        "side of zero: `b` − `random` 5.0 [-4.5, 14.5] points (no evidence of a difference)); `a` separates from "
        "every one of its controls."
    )
    sep = synthesis.separation(CONTRA, MODELS, CONTROLS).set_index(["criterion", "model", "control"])
    assert sep.loc[("C3", "a", "random"), ["low", "high"]].tolist() == pytest.approx([0.5, 19.5])
    assert sep.loc[("C3", "a", "random"), "outcome"] == "higher"


def test_all_models_below_chance_are_not_ranked_and_no_best_is_named(monkeypatch):
    rank = synthesis.ranking(CONTRA, MODELS, CONTROLS)
    assert not rank.loc["CSTS", "ranked"]
    assert rank.loc["CSTS", "test"] == (
        "not ranked: every model lies significantly below 50 % (chance or no effect) by its own 95 % interval, so "
        "none is better, only less wrong; against the controls: `a` − `bow` -1.0 [-1.0, -1.0] points (below the "
        "control); `a` − `random` -6.0 [-6.0, -6.0] points (below the control); `b` − `bow` -3.0 [-3.0, -3.0] points "
        "(below the control); `b` − `random` -8.0 [-8.0, -8.0] points (below the control)."
    )
    _with_findings(
        monkeypatch,
        {"II": Finding("Conditions", "q", "M.", leader_paragraph("CSTS", "pair accuracy", digits=1, unit=" %"))},
    )
    (para,) = synthesis.paragraphs(CONTRA, MODELS, CONTROLS)
    assert para.startswith("*Conditions.* CSTS is not ranked here: every model lies significantly below 50 %. ")
    assert "highest" not in para and "best" not in para
    assert para.endswith(
        "On the same items, 4 of the 4 paired comparisons of a model with a control do not lie "
        "above zero: `a` − `bow` -1.0 [-1.0, -1.0] points (below the control); `a` − `random` -6.0 "
        "[-6.0, -6.0] points (below the control); `b` − `bow` -3.0 [-3.0, -3.0] points (below the "
        "control); `b` − `random` -8.0 [-8.0, -8.0] points (below the control)."
    )


def test_a_separated_criterion_is_ranked_among_the_models_only(monkeypatch):
    r = synthesis.ranks(CONTRA, MODELS, CONTROLS)
    assert (r.loc["RSA", "a"], r.loc["RSA", "b"]) == ("1", "2")
    assert r.loc["RSA", "separation from the controls"] == (
        "ranked: every model separates from every control (4 paired 95 % intervals of the difference above zero; "
        "the closest: `b` − `bow` 0.20 [0.20, 0.20] (above the control))."
    )
    # C2: a's own control (shuffled targets) is one of its controls, and the closest
    assert (r.loc["C2", "a"], r.loc["C2", "b"]) == ("1", "2")
    assert r.loc["C2", "separation from the controls"].endswith(
        "(5 paired 95 % intervals of the difference above zero; the closest: `a` − `a (shuffled targets)` 67.0 "
        "[67.0, 67.0] points (above the control))."
    )
    assert r.loc["C6", "separation from the controls"] == "not ranked: no direction (why C6)."
    _with_findings(monkeypatch, {"IV": Finding("Space", "q", "M.", leader_paragraph("RSA", "RSA"))})
    (para,) = synthesis.paragraphs(CONTRA, MODELS, CONTROLS)
    assert para == (
        "*Space.* `a` has the highest RSA (0.50 [0.40, 0.60]); on the same items the paired interval "
        "of its lead lies above zero over every other model (the smallest: 0.20 [0.20, 0.20] over `b`; one paired "
        "comparison, a 95 % interval). On "
        "the same items every model lies above each of its controls by a paired 95 % interval (4 "
        "comparisons; the smallest difference: `b` − `bow` 0.20 [0.20, 0.20])."
    )


def test_a_control_is_never_named_best_even_where_it_leads(monkeypatch):
    _with_findings(monkeypatch, {"I": Finding("Sets", "q", "M.", leader_paragraph("C1", "C1", digits=1, unit=" %"))})
    (para,) = synthesis.paragraphs(CONTRA, MODELS, CONTROLS)
    assert para.startswith(
        "*Sets.* C1 is not ranked here: the control `bow` scores significantly higher than `a` and `b`, the side "
        "this criterion calls better. On the same items, 2 of the 4 paired comparisons of a model with a control do not lie above zero"
    )
    assert "highest" not in para
    # the same rows with bow declared a model: bow leads C1 and nothing separates (random is the only control)
    rank = synthesis.ranking(CONTRA, MODELS, ["random"])
    assert rank.loc["C1", "ranked"]
    assert synthesis.ranks(CONTRA, MODELS, ["random"]).loc["C1", "bow"] == "1"


def test_findings_count_the_comparisons_and_name_the_controls():
    f = synthesis.findings(CONTRA, MODELS, CONTROLS)
    # C1 4, C2 5 (a: bow, random, its shuffled targets; b: bow, random), C3 4, C6 2 (random has none), CSTS 4, RSA 4
    assert f["n_comparisons"] == 23 and f["n_ranked"] == 2
    assert f["comparisons_sentence"] == (
        "The separation test made 23 paired comparisons (each model against each of its controls, on each criterion), "
        "each with a 95 % interval; it ranks 2 of the 6 criteria of this profile (C2, RSA). A criterion is ranked "
        "only when every one of its intervals lies on the better side of zero, and such an all-of test is itself at "
        "the 5 % level, so no correction for the number of intervals is needed for it. The multiplicity that remains "
        "is over the criteria that argue a direction (the others are never ranked): with 5 of them, one may pass by "
        "chance although no model differs from its controls, and the order of the models within a ranked column is "
        "not tested here."
    )
    assert f["controls_sentence"] == (
        "The controls of this run, drawn beside the models and not ranked among them: "
        "`bow`, `random` and each model on shuffled targets (Part I)."
    )
    assert (
        synthesis.findings(CONTRA[CONTRA.control_of == ""], ["a", "b"], [])["controls_sentence"]
        == "This run declares no control, so no criterion can be ranked."
    )


def test_the_heat_map_colours_only_models_in_ranked_columns_and_draws_the_controls_below():
    fig = synthesis.profile_figure(CONTRA, MODELS, CONTROLS)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "a",
        "b",
        "control: bow",
        "control: random",
        "control: a (shuffled targets)",
    ]
    keys = [c.key for c in CRITERIA if c.key in set(CONTRA.criterion)]  # C1 C2 C3 C6 CSTS RSA
    mesh = ax.collections[0].get_array().reshape(5, len(keys))
    coloured = ~np.ma.getmaskarray(mesh)
    want = np.zeros((5, len(keys)), bool)
    want[:2, [keys.index("C2"), keys.index("RSA")]] = True
    assert (coloured == want).all()
    # within a ranked column the better model is yellow (1): a on C2 (99 > 97) and on RSA
    assert (mesh[0, keys.index("C2")], mesh[1, keys.index("C2")]) == (1, 0)
    texts = [t.get_text() for t in ax.texts]
    assert texts[:4] == ["99", "0.50", "97", "0.30"]  # the coloured cells first, row by row
    assert "90" in texts[4:] and "32" in texts[4:]  # bow's C1 and a's shuffled C2: drawn, grey
    plt.close(fig)


def test_the_criteria_table_states_a_direction_only_where_argued():
    t = synthesis.criteria_table()
    assert t.loc["C1", "better"] == "higher" and t.loc["C6", "better"] == "no direction"
    assert t.loc["C6", "why"] == "why C6"


def test_rankings_read_each_headlines_direction(monkeypatch):
    # RSA with lower better: every model lies above 0 (the no-effect value), on the wrong side: not ranked
    monkeypatch.setattr(
        synthesis, "CRITERIA", tuple(dataclasses.replace(c, higher=False) if c.key == "RSA" else c for c in CRITERIA)
    )
    rank = synthesis.ranking(CONTRA, MODELS, CONTROLS)
    assert not rank.loc["RSA", "ranked"] and rank.loc["RSA", "test"].startswith(
        "not ranked: every model lies significantly above 0 (chance or no effect)"
    )
    # with no reference, the wrong side of the controls decides: every model lies above them
    monkeypatch.setattr(
        synthesis,
        "CRITERIA",
        tuple(dataclasses.replace(c, reference=NAN) if c.key == "RSA" else c for c in synthesis.CRITERIA),
    )
    rank = synthesis.ranking(CONTRA.drop(columns=[c for c in ("reference",) if c in CONTRA]), MODELS, CONTROLS)
    assert rank.loc["RSA", "test"].startswith(
        "not ranked: the controls `bow` and `random` score significantly lower than `a` and `b`, the side this "
        "criterion calls better (4 of 4 paired 95 % intervals"
    )
    assert synthesis.criteria_table().loc["RSA", "better"] == "lower"
    # with the controls' RSA above the models', lower-is-better ranks the lowest first
    high_ctrl = CONTRA.assign(value=CONTRA.value.where(~CONTRA.model.isin(CONTROLS) | (CONTRA.criterion != "RSA"), 0.9))
    high_ctrl["replicates"] = [replicates(v) for v in high_ctrl.value]
    r = synthesis.ranks(high_ctrl, MODELS, CONTROLS)
    assert (r.loc["RSA", "a"], r.loc["RSA", "b"]) == ("2", "1")


def test_ranks_leave_a_degenerate_row_unranked():
    # bow's PAIR (all ties) and NSGAP (exactly 0) are degenerate: as a model they are not ranked
    prof = PROFILE[PROFILE.criterion.isin(["PAIR", "NSGAP"])]
    ctrl = pd.DataFrame(
        [
            {
                "model": "zero",
                "criterion": k,
                "value": -1.0,
                "low": -1.0,
                "high": -1.0,
                "unit": "share",
                "ties": 0.0,
                "replicates": replicates(-1.0),
                "control_of": "",
            }
            for k in ("PAIR", "NSGAP")
        ]
    )
    r = synthesis.ranks(pd.concat([prof, ctrl], ignore_index=True), ["a", "b", "bow", "zero"], ["zero"])
    assert r.loc["PAIR", "bow"] == "n/a" and r.loc["NSGAP", "bow"] == "n/a"
    assert (r.loc["PAIR", "a"], r.loc["PAIR", "b"]) == ("1", "2")


def test_the_saved_profile_keeps_every_column_but_the_replicates():
    out = synthesis.saved(CONTRA)
    assert "replicates" not in out and list(out.columns) == [c for c in CONTRA.columns if c != "replicates"]
    assert list(out.control_of[out.model == "a (shuffled targets)"]) == ["a"]


def test_the_words_of_a_failed_separation_follow_its_direction():
    # contradicting data for the words: one interval wholly on the worse side, one containing zero
    tests = pd.DataFrame(
        {
            "model": ["a", "b", "a", "b"],
            "control": ["bow", "bow", "random", "random"],
            "difference": [-10.0, 2.0, 5.0, 6.0],
            "low": [-15.0, -1.0, 1.0, 2.0],
            "high": [-5.0, 5.0, 9.0, 10.0],
            "outcome": ["lower", "no evidence of a difference", "higher", "higher"],
            "separated": [False, False, True, True],
        }
    )
    bad = tests[~tests.separated]
    words = synthesis._not_separated_words(bad, tests, True, "%", "95 %")
    assert words.startswith(
        "not ranked: the control `bow` scores significantly higher than `a`, the side this criterion calls better "
        "(2 of 4 paired 95 % intervals not on the better side of zero: `a` − `bow` -10.0 [-15.0, -5.0] points "
        "(below the control); `b` − `bow` 2.0 [-1.0, 5.0] points (no evidence of a difference))"
    )
    assert words.endswith("; the other intervals not on the better side contain zero or are undefined.")
    # the same difference with its interval reaching zero: no direction is claimed
    bad = bad.assign(high=[1.0, 5.0], outcome=["no evidence of a difference"] * 2)
    assert synthesis._not_separated_words(bad, tests, True, "%", "95 %").startswith(
        "not ranked: not every model separates from every control (2 of 4"
    )


def test_a_direction_no_chapter_argues_is_no_direction_and_never_ranks(monkeypatch):
    # RSA separates every model from every control in CONTRA, and is ranked while its chapter argues "higher"
    assert synthesis.ranking(CONTRA, MODELS, CONTROLS).loc["RSA", "ranked"]
    # the same data with higher=True left as the default and no direction argued: "better" is not "higher"
    monkeypatch.setattr(
        synthesis, "CRITERIA", tuple(dataclasses.replace(c, direction="") if c.key == "RSA" else c for c in CRITERIA)
    )
    t = synthesis.criteria_table()
    assert t.loc["RSA", "better"] == "no direction" and t.loc["RSA", "why"] == "its chapter argues none"
    rank = synthesis.ranking(CONTRA, MODELS, CONTROLS)
    assert not rank.loc["RSA", "ranked"]
    assert rank.loc["RSA", "test"] == "not ranked: no direction (its chapter argues none)."
    assert list(synthesis.ranks(CONTRA, MODELS, CONTROLS).loc["RSA", ["a", "b"]]) == ["–", "–"]


def test_a_model_that_equals_its_control_on_every_resample_does_not_separate():
    # C2 is ranked in CONTRA; give bow a's own C2 replicates: a − bow is 0 on every resample, so the paired test
    # cannot vary: undefined, never "no evidence of a difference" nor a separation, and C2 is not ranked
    assert synthesis.ranking(CONTRA, MODELS, CONTROLS).loc["C2", "ranked"]
    same = CONTRA.copy()
    a_c2 = same[(same.model == "a") & (same.criterion == "C2")].index[0]
    bow_c2 = same[(same.model == "bow") & (same.criterion == "C2")].index[0]
    for col in ("value", "low", "high"):
        same.loc[bow_c2, col] = same.loc[a_c2, col]
    same.at[bow_c2, "replicates"] = same.at[a_c2, "replicates"]
    sep = synthesis.separation(same, MODELS, CONTROLS).set_index(["criterion", "model", "control"])
    assert sep.loc[("C2", "a", "bow"), "outcome"] == "undefined"
    assert not sep.loc[("C2", "a", "bow"), "separated"]
    rank = synthesis.ranking(same, MODELS, CONTROLS)
    assert not rank.loc["C2", "ranked"]
    assert "`a` − `bow` 0.0 points (the paired test is undefined)" in rank.loc["C2", "test"]


def test_a_model_with_no_control_on_a_criterion_has_not_separated_and_the_criterion_is_not_ranked():
    # no run controls: on C2 only `a` has a control (its shuffled targets, 99 against 32); `b` was never tested,
    # so C2 cannot be ranked, however far `a` lies above its own control
    rank = synthesis.ranking(CONTRA, ["a", "b"], [])
    assert not rank.loc["C2", "ranked"]
    assert rank.loc["C2", "test"] == "not ranked: `b` has no control here to be tested against."
    assert list(synthesis.ranks(CONTRA, ["a", "b"], []).loc["C2", ["a", "b"]]) == ["–", "–"]


def test_a_paired_bound_prints_to_the_decimals_that_show_its_sign():
    # -0.0009 prints "0.00" at two decimals, hiding that the interval contains zero
    r = SimpleNamespace(
        model="g", control="random", difference=0.19, low=-0.0009, high=0.36, outcome="no evidence of a difference"
    )
    assert synthesis._pair_words(r, "share") == "`g` − `random` 0.190 [-0.001, 0.360] (no evidence of a difference)"
    r = SimpleNamespace(model="g", control="bow", difference=12.3, low=0.04, high=20.0, outcome="higher")
    assert synthesis._pair_words(r, "%") == "`g` − `bow` 12.30 [0.04, 20.00] points (above the control)"
    r = SimpleNamespace(model="g", control="bow", difference=0.19, low=0.05, high=0.36, outcome="higher")
    assert synthesis._pair_words(r, "share") == "`g` − `bow` 0.19 [0.05, 0.36] (above the control)"
