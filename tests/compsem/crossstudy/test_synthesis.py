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
from compsem.faces import Finding  # noqa: E402
from compsem.results import Headline  # noqa: E402
from compsem.studies import STUDIES  # noqa: E402

NAN = float("nan")
REAL_CRITERIA, REAL_REPORTS = synthesis.CRITERIA, synthesis.STUDY_REPORTS   # before the fake registry


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


def _h(key, part, unit, reference):
    return Headline(key, part, f"label of {key}", unit, reference, "items", f"meaning of {key}")


#: A made-up registry of four Parts with ten criteria (the keys echo the book's, the rest is invented).
FAKE = (_h("C1", "I", "%", NAN), _h("C2", "I", "%", NAN), _h("C3", "I", "%", NAN), _h("C5", "I", "%", NAN),
        _h("C6", "I", "%", NAN), _h("CSTS", "II", "%", 50.0), _h("AAN", "III", "share", NAN),
        _h("PAIR", "III", "share", 0.5), _h("NSGAP", "III", "difference", 0.0), _h("RSA", "IV", "r", 0.0))
CRITERIA = FAKE


@pytest.fixture(autouse=True)
def fake_registry(monkeypatch):
    """The synthesis reads its criteria and reports from a made-up registry."""
    monkeypatch.setattr(synthesis, "CRITERIA", FAKE)
    monkeypatch.setattr(synthesis, "STUDY_REPORTS", {p: SimpleNamespace(HEADLINES=[c for c in FAKE if c.part == p])
                                                       for p in ("I", "II", "III", "IV")})


def _prof(values: dict[str, dict[str, tuple]]) -> pd.DataFrame:
    """A profile from {model: {criterion: (value, low, high[, ties])}}."""
    unit = {c.key: c.unit for c in CRITERIA}
    rows = []
    for m, crit in values.items():
        for k, v in crit.items():
            value, low, high, *ties = v
            rows.append({"model": m, "criterion": k, "value": value, "low": low, "high": high,
                         "unit": unit[k], "ties": ties[0] if ties else NAN})
    return pd.DataFrame(rows)


# Part I means: a (80+60+70+40+50)/5 = 60 [mean of lows (70+50+60+30+40)/5 = 50, of highs 70],
# b (90+50+60+30+20)/5 = 50 [40, 59]: b's 59 reaches above a's 50, so the two overlap.
# NSGAP: b has the larger gap (0.05 > 0.02) and the only interval above zero (low 0.01 > 0);
# a's high 0.05 reaches b's low 0.01: overlap. CSTS: a's [45, 58] contains 50, b's [55, 65] lies
# above. RSA: b 0.5 [0.4, 0.6] and a 0.3 [0.2, 0.4] touch at 0.4, which counts as overlap.
# bow: every PAIR comparison a tie (0 under strict <), NSGAP exactly 0 with no spread, CSTS
# exactly 50 with no spread: all three degenerate.
PROFILE = _prof({
    "a": {"C1": (80, 70, 90), "C2": (60, 50, 70), "C3": (70, 60, 80), "C5": (40, 30, 50), "C6": (50, 40, 60),
          "CSTS": (52, 45, 58), "AAN": (0.9, 0.8, 1.0), "PAIR": (0.7, 0.6, 0.8, 0.1), "NSGAP": (0.02, -0.01, 0.05),
          "RSA": (0.3, 0.2, 0.4)},
    "b": {"C1": (90, 80, 95), "C2": (50, 40, 60), "C3": (60, 50, 70), "C5": (30, 20, 40), "C6": (20, 10, 30),
          "CSTS": (60, 55, 65), "AAN": (0.8, 0.7, 0.9), "PAIR": (0.6, 0.5, 0.7, 0.0), "NSGAP": (0.05, 0.01, 0.09),
          "RSA": (0.5, 0.4, 0.6)},
    "bow": {"C1": (10, 5, 15), "C2": (10, 5, 15), "C3": (10, 5, 15), "C5": (10, 5, 15), "C6": (10, 5, 15),
            "CSTS": (50, 50, 50), "AAN": (1.0, 1.0, 1.0), "PAIR": (0.0, 0.0, 0.0, 1.0), "NSGAP": (0.0, 0.0, 0.0),
            "RSA": (0.9, 0.8, 0.95)},
    "random": {"C1": (95, 90, 99), "C2": (97.5, 95, 99), "C3": (0, 0, 0), "C5": (0, 0, 0), "C6": (0, 0, 0),
               "CSTS": (50, 45, 55), "AAN": (0.5, 0.4, 0.6), "PAIR": (0.5, 0.4, 0.6, 0.0), "NSGAP": (0.9, 0.8, 1.0),
               "RSA": (0.99, 0.9, 1.0)},
})


def test_findings_count_from_the_registry_and_name_degenerate_rows():
    f = synthesis.findings(PROFILE, ["a", "b", "random"], controls=["random"])
    assert (f["n_real"], f["n_headlines"], f["n_parts"]) == (2, 10, 4)
    assert f["degenerate_sentence"] == "No row of this profile is degenerate."
    f = synthesis.findings(PROFILE, ["a", "bow"], controls=[])
    assert "`bow` on PAIR (every comparison is a tie)" in f["degenerate_sentence"]
    assert "`bow` on NSGAP (every item gives exactly 0, the no-effect value)" in f["degenerate_sentence"]


def _with_findings(monkeypatch, findings: dict):
    """The fake registry's Parts, each with the Finding given for it (or none)."""
    monkeypatch.setattr(synthesis, "STUDY_REPORTS", {
        p: SimpleNamespace(HEADLINES=[c for c in FAKE if c.part == p], **({"FINDING": findings[p]} if p in findings else {}))
        for p in ("I", "II", "III", "IV")})
    monkeypatch.setattr(synthesis, "_part", lambda name: name)


def test_the_introduction_and_paragraphs_loop_over_the_studies_findings(monkeypatch):
    seen = {}

    def sentences(part):
        def f(rows, models, controls):
            seen[part] = (sorted(set(rows.criterion)), list(models), list(controls), list(rows.columns))
            return f"{len(rows)} rows of Part {part}."
        return f

    _with_findings(monkeypatch, {p: Finding(f"Topic {p}", f"question {p} holds", f"Method {p}.", sentences(p))
                                 for p in ("I", "II", "IV")})
    assert synthesis.questions() == "Part I asks whether question I holds; Part II whether question II holds; and " \
                                    "Part IV whether question IV holds."
    assert synthesis.methods() == "Method I. Method II. Method IV."
    paras = synthesis.paragraphs(PROFILE, ["a", "b", "random"], controls=["random"])
    # Part I: 5 criteria x 4 models; Part II: 1 x 4; Part IV: 1 x 4; Part III declares no finding
    assert paras == ["*Topic I.* 20 rows of Part I.", "*Topic II.* 4 rows of Part II.", "*Topic IV.* 4 rows of Part IV."]
    assert seen["I"][:3] == (["C1", "C2", "C3", "C5", "C6"], ["a", "b"], ["random"])
    assert {"reference", "higher", "degenerate", "ties"} <= set(seen["II"][3])
    assert synthesis.findings(PROFILE, ["a"])["questions"] == synthesis.questions()
    _with_findings(monkeypatch, {"II": Finding("T", "one question holds", "M.", sentences("II"))})
    assert synthesis.questions() == "Part II asks whether one question holds."


def test_profile_table_formats_value_and_interval():
    t = synthesis.profile_table(PROFILE, ["b", "a"])
    assert list(t.columns) == ["b", "a"]
    c1, csts, nsgap = (next(c.label for c in CRITERIA if c.key == k) for k in ("C1", "CSTS", "NSGAP"))
    assert t.loc[c1, "a"] == "80.0 % [70.0, 90.0]"                       # percentages: one decimal, marked
    assert t.loc[nsgap, "b"] == "0.05 [0.01, 0.09]"                      # other values: two decimals
    assert t.loc[csts, "b"] == "60.0 % [55.0, 65.0]"
    tiny = PROFILE.assign(low=PROFILE.low.where(PROFILE.criterion != "RSA", -0.001))
    assert synthesis.profile_table(tiny, ["a"]).loc[next(c.label for c in CRITERIA if c.key == "RSA"), "a"] == \
        "0.30 [0.00, 0.40]"                                              # no "-0.00"
    pair = next(c.label for c in CRITERIA if c.key == "PAIR")
    assert synthesis.profile_table(PROFILE, ["bow"]).loc[pair, "bow"] == "0.00 [0.00, 0.00] (n/a)"   # all ties
    no_ci = PROFILE.assign(low=NAN)
    assert synthesis.profile_table(no_ci, ["a"]).loc[c1, "a"] == "80.0 %"


def test_ranks_by_hand():
    r = synthesis.ranks(PROFILE, ["a", "b"])
    assert r.loc["a", "C1"] == "2" and r.loc["b", "C1"] == "1"
    assert r.loc["a", "C2"] == "1" and r.loc["b", "RSA"] == "1"
    assert list(r.columns) == [c.key for c in CRITERIA]


def test_ranks_leave_a_degenerate_row_unranked():
    r = synthesis.ranks(PROFILE, ["a", "bow"])
    # bow's PAIR (all ties) and NSGAP (exactly 0) are not ranked; a is then first alone
    assert r.loc["bow", "PAIR"] == "n/a" and r.loc["bow", "NSGAP"] == "n/a"
    assert r.loc["a", "PAIR"] == "1" and r.loc["a", "NSGAP"] == "1"
    assert r.loc["bow", "RSA"] == "1" and r.loc["a", "RSA"] == "2"


def test_profile_figure_shows_values_over_column_scaled_colours():
    fig = synthesis.profile_figure(PROFILE, ["a", "b"])
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    # row a then row b, columns in CRITERIA order; percentages as whole numbers
    assert texts[:10] == ["80", "60", "70", "40", "50", "52", "0.90", "0.70", "0.02", "0.30"]
    assert texts[10:] == ["90", "50", "60", "30", "20", "60", "0.80", "0.60", "0.05", "0.50"]
    # with two models each column is scaled to 0 (lower) and 1 (higher): a is dark where b is higher
    mesh = ax.collections[0].get_array().reshape(2, 10)
    assert list(mesh[0]) == [0, 1, 1, 1, 1, 0, 1, 1, 0, 0]
    plt.close(fig)


def test_profile_figure_gives_a_degenerate_cell_no_colour():
    fig = synthesis.profile_figure(PROFILE, ["a", "bow"])
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("n/a") >= 2                       # bow's PAIR and NSGAP (and CSTS at exactly 50)
    mesh = np.ma.getmaskarray(ax.collections[0].get_array()).reshape(2, 10)
    keys = [c.key for c in CRITERIA]
    assert mesh[1, keys.index("PAIR")] and mesh[1, keys.index("NSGAP")]     # blank, not "best"
    assert not mesh[1, keys.index("RSA")]
    assert not mesh[0, keys.index("PAIR")]                 # a, alone ranked there, keeps its colour and text
    assert "0.70" in texts
    plt.close(fig)


def test_profile_asks_each_study_and_orders_by_criterion(monkeypatch):
    crit = {c.key: c for c in CRITERIA}

    def fake(keys):
        def headlines(models, *, n_boot, seed, trust_remote_code):
            assert n_boot == 7 and seed == 3 and trust_remote_code is False
            return [{"model": m, "criterion": k, "value": float(i)} for m in models for i, k in enumerate(keys)][::-1]
        return SimpleNamespace(HEADLINES=[crit[k] for k in keys], headlines=headlines)

    monkeypatch.setattr(synthesis, "STUDY_REPORTS", {"fourth": fake(["RSA"]), "first": fake(["C2", "C1"])})
    prof = synthesis.profile(["y", "x"], n_boot=7, seed=3)
    assert list(zip(prof.model, prof.criterion)) == [("x", "C1"), ("x", "C2"), ("x", "RSA"),
                                                      ("y", "C1"), ("y", "C2"), ("y", "RSA")]
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
    monkeypatch.setattr(synthesis, "STUDY_REPORTS", {"fourth": SimpleNamespace(HEADLINES=[crit["RSA"]], headlines=headlines)})
    synthesis.profile(["x"], trust_remote_code=True)
    synthesis.profile(["x"])
    assert seen == [True, False]


def _lower_is_better(monkeypatch, key):
    """Declare ``key`` lower-is-better (``Headline.higher`` False) for the synthesis."""
    monkeypatch.setattr(synthesis, "CRITERIA",
                        tuple(dataclasses.replace(c, higher=False) if c.key == key else c for c in CRITERIA))


def test_rankings_read_each_headlines_direction(monkeypatch):
    # RSA: b 0.5 [0.4, 0.6], a 0.3 [0.2, 0.4], bow 0.9 [0.8, 0.95]; with lower better a comes first
    _lower_is_better(monkeypatch, "RSA")
    r = synthesis.ranks(PROFILE, ["a", "b", "bow"])
    assert (r.loc["a", "RSA"], r.loc["b", "RSA"], r.loc["bow", "RSA"]) == ("1", "2", "3")
    assert (r.loc["a", "C1"], r.loc["b", "C1"]) == ("2", "1")          # the other columns keep "higher is better"
    assert synthesis.criteria_table().loc["RSA", "better"] == "lower"
    assert synthesis.criteria_table().loc["C1", "better"] == "higher"
    # the heat map's best (yellow, 1) is the lowest RSA: a
    fig = synthesis.profile_figure(PROFILE, ["a", "b"])
    mesh = fig.axes[0].collections[0].get_array().reshape(2, 10)
    assert (mesh[0, 9], mesh[1, 9]) == (1, 0)
    plt.close(fig)


def test_a_study_must_give_a_reason_not_a_flag():
    prof = PROFILE.assign(degenerate=[True] + [""] * (len(PROFILE) - 1))
    with pytest.raises(TypeError, match="reason in words"):
        synthesis.degenerate(prof)
