"""Every number of Part II's worked example (book/part2_csts_worked.md) and of the by-hand
exercises (book/part2_csts_exercises.md), recomputed with the library and compared with the
value printed on the page, to the printed rounding."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from compsem import measures, paths
from compsem.csts import models as cm
from compsem.csts import prompting as cp
from compsem.csts import training as ct
from compsem.csts import tables as tb
from compsem.csts.study import pair_accuracy
from tests.helpers import ROOT, graded

BOOK = ROOT / "book"

S1 = np.array([2.0, 1.0, 0.0])
S2 = np.array([2.0, 0.0, 1.0])
C_HIGH = np.array([2.0, 1.0, 1.0])
C_LOW = np.array([1.0, 2.0, 2.0])
C_LOW_EX = np.array([0.0, 1.0, 1.0])  # exercise 1
LABELS = np.array([5.0, 1.0])  # C-High row, C-Low row
MARGIN = 0.5


def hadamard(c, s):
    """The library's tri-encoder head (``CSTSModel._mix`` with ``tri_op='hadamard'``)."""
    return cm.CSTSModel._mix(SimpleNamespace(tri_op="hadamard"), torch.tensor(c), torch.tensor(s)).numpy()


def tri_score(c):
    return measures.cosine(hadamard(c, S1), hadamard(c, S2))


def pair_frame():
    return pd.DataFrame({"pair_id": ["p000", "p000"], "role": ["high", "low"], "label": LABELS})


def quad(high, low, margin=MARGIN):
    return float(ct.quad_loss(torch.tensor([high]), torch.tensor([low]), margin))


def objective(name, high, low):
    z = ct.LabelScaler.fit(LABELS).transform(LABELS)
    scores = torch.tensor([high, low], dtype=torch.float64)
    return float(ct.objective_loss(name, scores, torch.tensor(z, dtype=torch.float64), 1, MARGIN))


def r4(x):
    return round(float(x), 4)


def page(name):
    return (BOOK / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# worked example
# ---------------------------------------------------------------------------------------------
def test_the_pair_is_the_embedded_sets_p000():
    df = pd.read_csv(paths.data_dir("csts") / "csts_embedded.csv")
    rows = df[df.pair_id == "p000"].set_index("condition_type")
    text = page("part2_csts_worked.md")
    for col in ("sentence1", "sentence2"):
        assert rows.loc["high", col] in text
    assert (rows.loc["high", "condition"], rows.loc["high", "label"]) == ("The type of vehicle", 5.0)
    assert (rows.loc["low", "condition"], rows.loc["low", "label"]) == ("The colour of the vehicle", 1.0)


def test_condition_ignored_cosine():
    assert float(S1 @ S2) == 4
    assert np.isclose(np.linalg.norm(S1) ** 2, 5) and np.isclose(np.linalg.norm(S2) ** 2, 5)
    assert r4(measures.cosine(S1, S2)) == 0.8000


def test_hadamard_head_and_cosines():
    assert hadamard(C_HIGH, S1).tolist() == [4, 1, 0]
    assert hadamard(C_HIGH, S2).tolist() == [4, 0, 1]
    assert hadamard(C_LOW, S1).tolist() == [2, 2, 0]
    assert hadamard(C_LOW, S2).tolist() == [2, 0, 2]
    assert np.isclose(tri_score(C_HIGH), 16 / 17)
    assert r4(tri_score(C_HIGH)) == 0.9412
    assert r4(tri_score(C_LOW)) == 0.5000
    assert r4(tri_score(C_HIGH) - tri_score(C_LOW)) == 0.4412


def test_pair_accuracy():
    assert pair_accuracy([tri_score(C_HIGH), tri_score(C_LOW)], pair_frame()) == 100.0
    ignored = measures.cosine(S1, S2)
    assert pair_accuracy([ignored, ignored], pair_frame()) == 50.0


def test_label_scaling():
    sc = ct.LabelScaler.fit(LABELS)
    assert (sc.lo, sc.hi) == (1.0, 5.0)
    assert sc.transform([5.0, 1.0, 4.0]).tolist() == [1.0, 0.0, 0.75]


def test_mse():
    hi, lo = tri_score(C_HIGH), tri_score(C_LOW)
    assert round((hi - 1) ** 2, 5) == 0.00346
    assert r4(objective("mse", hi, lo)) == 0.1267
    ign = measures.cosine(S1, S2)
    assert r4(objective("mse", ign, ign)) == 0.3400


def test_quadruplet_loss():
    hi, lo = tri_score(C_HIGH), tri_score(C_LOW)
    assert np.isclose(quad(hi, lo), 1 / 17)
    assert r4(quad(hi, lo)) == 0.0588
    assert r4(0.4 + lo - hi) == -0.0412
    assert quad(hi, lo, margin=0.4) == 0.0
    ign = measures.cosine(S1, S2)
    assert r4(quad(ign, ign)) == 0.5000
    assert r4(objective("quad+mse", hi, lo)) == 0.1856
    assert np.isclose(objective("quad+mse", hi, lo), objective("quad", hi, lo) + objective("mse", hi, lo))


def test_worked_page_prints_these_numbers():
    text = page("part2_csts_worked.md")
    for s in (
        "0.8000",
        "0.9412",
        "0.5000",
        "0.4412",
        "0.00346",
        "0.1267",
        "0.3400",
        "0.0588",
        "-0.0412",
        "0.1856",
        "0.75",
        "100 %",
        "50 %",
        r"\lambda = 0.5",
        r"\lambda = 0.4",
    ):
        assert s in text, s


def test_worked_margin_is_the_chapters_default():
    assert ct.TrainConfig().margin == MARGIN == ct.TrainConfig.preset("cpu").margin
    nb = (ROOT / "notebooks" / "22_csts_finetune.ipynb").read_text()
    assert re.search(r'preset = \\"cpu\\"', nb)  # the chapters' default preset is the worked margin's
    assert ct.TrainConfig.preset("official").margin == 1.0 and "code uses 1.0" in page("part2_csts_worked.md")


# ---------------------------------------------------------------------------------------------
# exercises
# ---------------------------------------------------------------------------------------------
def test_exercise_pure_colour_condition():
    assert hadamard(C_LOW_EX, S1).tolist() == [0, 1, 0]
    assert hadamard(C_LOW_EX, S2).tolist() == [0, 0, 1]
    lo = tri_score(C_LOW_EX)
    hi = tri_score(C_HIGH)
    assert lo == 0.0
    assert r4(quad(hi, lo)) == 0.0
    assert r4(0.5 + lo - hi) == -0.4412
    assert r4(objective("mse", hi, lo)) == 0.0017
    # the scale of the condition vector does not matter: (k c) ⊙ s = k (c ⊙ s)
    assert np.isclose(tri_score(3 * C_HIGH), tri_score(C_HIGH))
    text = page("part2_csts_exercises.md")
    for s in ("(0, 1, 1)", "(0, 1, 0)", "(0, 0, 1)", "-0.4412", "0.0017"):
        assert s in text, s


@pytest.mark.parametrize(
    "answer, paper_text, official",
    [
        ("4/5", 45.0, 4.0),
        ("3.5 out of 5.", 3.55, 3.5),
        ("Score: 4", 4.0, 4.0),
        ("four", None, None),
        ("1 to 5: 4", 154.0, 1.0),
    ],
)
def test_exercise_parser(answer, paper_text, official):
    """Both rules of the chapter, worked out by hand above; the page's table row shows both."""
    for rule, value in (("paper-text", paper_text), ("official", official)):
        got = cp.parse_answer(answer, rule=rule)
        assert np.isnan(got) if value is None else got == value, (rule, answer, got)
    assert cp.parse_answer(answer) == cp.parse_answer(answer, rule="official") or official is None  # the default
    text = page("part2_csts_exercises.md")
    if answer == "1 to 5: 4":  # quoted in the solution's prose for the first-number rule
        assert f'"{answer}" is read\nas {official:g}' in text or f'"{answer}" is read as {official:g}' in text
        return
    row = next(line for line in text.splitlines() if line.startswith(f'| `"{answer}"` |'))
    cells = [c.strip() for c in row.strip("|").split("|")]
    for cell, value in zip(cells[1:], (paper_text, official)):
        assert ("**invalid**" in cell) if value is None else (f"**{value:g}**" in cell), (cell, value)


def test_exercise_parser_names_the_chapters_parameter_and_default():
    nb = (ROOT / "notebooks" / "24_csts_prompting.ipynb").read_text()
    assert re.search(r'parser = \\"official\\"', nb)  # the chapter's default rule
    assert set(cp.PARSERS) == {"official", "paper-text"}
    text = page("part2_csts_exercises.md")
    ex = text[text.index(":label: ex-csts-2") : text.index(":label: ex-csts-3")]
    assert "`parser`" in ex and 'rule="paper-text"' in ex and "default" in ex


def test_exercise_pair_accuracy_reasons_about_the_chapters_data():
    """Ex 3.3 reasons about the data the chapters score (the re-annotated set): graded labels with
    common middle values, and pairs whose two rows tie, which pair accuracy leaves out."""
    from compsem.csts import data as cd

    for nb in ("21_csts_zeroshot", "22_csts_finetune"):
        assert re.search(r'^    "data = \\"reannotated\\"', (ROOT / "notebooks" / f"{nb}.ipynb").read_text(), re.M), nb
    df, _ = cd.load_csts("reannotated")
    middle = df["label"].between(2, 4).mean()
    assert middle > 0.5  # "middle labels are common"
    assert df["tied"].any()  # some pairs have no C-High row
    text = page("part2_csts_exercises.md")
    sol = text[text.index("```{solution} ex-csts-3") : text.index("````{exercise} Zero-shot")]
    assert "re-annotated" in sol and "nearly all 1 or 5" not in sol
    tied = pd.DataFrame(
        {
            "pair_id": ["a", "a", "b", "b"],
            "role": ["high", "low", "high", "low"],
            "label": [4.0, 2.0, 3.0, 3.0],
            "tied": [False, False, True, True],
        }
    )
    # pair b ties; only pair a counts, and it is ranked the wrong way round: 0 %, not 25 %
    assert pair_accuracy([0.1, 0.9, 0.5, 0.2], tied) == 0.0


def test_exercise_quad_margin_reads_columns_that_differ():
    """Ex 3.5: at the cpu preset's single epoch the first and last epoch losses are one number,
    so the page points at the quarter losses, which the run record carries."""
    assert ct.TrainConfig.preset("cpu").epochs == 1
    record_keys = re.findall(r'"(loss_\w+)":', (ROOT / "src" / "compsem" / "csts" / "study.py").read_text())
    assert {"loss_first_quarter", "loss_last_quarter"} <= set(record_keys)
    text = page("part2_csts_exercises.md")
    sol = text[text.index("```{solution} ex-csts-5") :]
    assert "`loss_first_quarter`, `loss_last_quarter`" in sol
    assert (
        "`loss_first_epoch` and\n`loss_last_epoch` are one and the same number" in sol
        or "`loss_first_epoch` and `loss_last_epoch` are one and the same number" in sol
    )
    for config in ("bi/mse", "bi/quad", "tri/mse", "tri/quad"):
        encoding, objective = config.split("/")
        ct.TrainConfig.preset("cpu", encoding=encoding, objective=objective, margin=0.2)  # valid configurations


def test_exercise_quad_margin_one_can_reach_zero_and_the_page_does_not_say_it_cannot():
    """Ex 3.5: with λ = 1.0 the hinge is zero whenever cos_p − cos_n ≥ 1, so the page may say the
    loss "is unlikely to" fall to near zero, never that it "cannot"; and it judges a difference by
    its paired interval, with no rule by size beside it."""
    from compsem.csts import metrics as cmx

    # by hand: cos_p = 0.9, cos_n = -0.2 leads by 1.1 >= 1: max(0, 1 - 0.2 - 0.9) = 0
    assert cmx.quad_margin_loss([0.9], [-0.2], margin=1.0) == 0.0
    # a lead of 0.5 leaves 1 - 0.5 = 0.5 at λ = 1.0, and 0 at λ = 0.2
    assert cmx.quad_margin_loss([0.6], [0.1], margin=1.0) == pytest.approx(0.5)
    assert cmx.quad_margin_loss([0.6], [0.1], margin=0.2) == 0.0
    text = page("part2_csts_exercises.md")
    sol = " ".join(text[text.index("```{solution} ex-csts-5") :].split())
    assert "with $\\lambda = 1.0$ it cannot" not in sol and "with $\\lambda = 1.0$ it is unlikely to" in sol
    assert "few points as noise" not in sol and "by its paired interval" in sol


def test_part2_markdown_has_no_control_characters():
    """A JSON ``\\b`` in a notebook source (meant as LaTeX ``\\big``) is a backspace that the
    reader sees as broken maths; none may remain in Part II's notebooks or pages."""
    import json

    root = ROOT
    for nb in sorted((root / "notebooks").glob("2*_csts_*.ipynb")):
        for i, cell in enumerate(json.loads(nb.read_text(encoding="utf-8"))["cells"]):
            bad = {hex(ord(ch)) for ch in "".join(cell["source"]) if ord(ch) < 32 and ch not in "\n\t"}
            assert not bad, f"{nb.name} cell {i}: control characters {sorted(bad)}"
    for md in sorted(BOOK.glob("part2_csts*.md")):
        assert not any(ord(ch) < 32 and ch not in "\n\t" for ch in md.read_text(encoding="utf-8")), md.name


def test_mean_pm_std_handles_one_seed():
    runs = pd.DataFrame({"config": ["a", "a", "b"], "test_spearman": [10.0, 20.0, 5.0]})
    summary = tb.summarise(runs, splits=("test",))
    assert tb.mean_pm_std(summary, "test_spearman") == ["15.0 ± 7.1", "5.0"]


def test_worked_figure_shows_the_tested_numbers():
    svg = (BOOK / "images" / "csts_tri_encoder.svg").read_text(encoding="utf-8")
    vec = lambda v: "(" + ", ".join(f"{x:g}" for x in v) + ")"  # noqa: E731
    for v in (
        S1,
        S2,
        C_HIGH,
        C_LOW,
        hadamard(C_HIGH, S1),
        hadamard(C_HIGH, S2),
        hadamard(C_LOW, S1),
        hadamard(C_LOW, S2),
    ):
        assert vec(v) in svg, vec(v)
    hi, lo, ign = tri_score(C_HIGH), tri_score(C_LOW), measures.cosine(S1, S2)
    for x in (hi, lo, ign, quad(hi, lo)):
        assert f"{x:.4f}" in svg
    assert "16/17" in svg and "4/8" in svg and "λ = 0.5" in svg


def test_exercise_template_leaves_the_ignored_rows_and_the_prior_alone():
    """Ex 3.4: only the rows with the condition attached read the template (checked with the
    bag-of-words encoder on two pairs of the embedded set)."""
    from compsem.csts import study as cs

    df = pd.read_csv(paths.data_dir("csts") / "csts_embedded.csv").head(4)
    a = cs.zero_shot_scores(df, "bow", template="{sentence} ({condition})")
    b = cs.zero_shot_scores(df, "bow", template="{condition}: {sentence}")
    np.testing.assert_array_equal(a["ignored"].to_numpy(), b["ignored"].to_numpy())
    assert list(a.columns) == ["ignored", "attached"]
    assert "condition prior's row (which reads no sentence, so no template can move it)" in page(
        "part2_csts_exercises.md"
    ).replace("\n", " ")


def test_autograded_answers_are_the_librarys():
    """The answers `make assignments` grades Exercises 1 and 2 against, recomputed as above."""
    hi, lo = tri_score(C_HIGH), tri_score(C_LOW_EX)
    text = page("part2_csts_exercises.md")
    graded(
        text,
        "ex-csts-1",
        {
            "h_low_1": hadamard(C_LOW_EX, S1),
            "h_low_2": hadamard(C_LOW_EX, S2),
            "cos_low": lo,
            "quad_loss": quad(hi, lo),
            "mse_loss": objective("mse", hi, lo),
            "scores_change": not bool(np.isclose(tri_score(3 * C_HIGH), hi)),
        },
    )

    def parsed(answer, rule):
        v = cp.parse_answer(answer, rule=rule)
        return None if np.isnan(v) else v

    answers = {"4_5": "4/5", "out_of_5": "3.5 out of 5.", "score": "Score: 4", "four": "four"}
    graded(
        text,
        "ex-csts-2",
        {
            f"{prefix}_{k}": parsed(a, rule)
            for k, a in answers.items()
            for prefix, rule in (("paper", "paper-text"), ("official", "official"))
        },
    )
