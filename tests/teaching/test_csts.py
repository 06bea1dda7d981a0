"""Every number of Part II's worked example (book/part2_csts_worked.md) and of the by-hand
exercises (book/part2_csts_exercises.md), recomputed with the library and compared with the
value printed on the page, to the printed rounding."""

from __future__ import annotations

import re
from pathlib import Path
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
from tests.helpers import ROOT

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
    for s in ("0.8000", "0.9412", "0.5000", "0.4412", "0.00346", "0.1267", "0.3400", "0.0588",
              "-0.0412", "0.1856", "0.75", "100 %", "50 %", r"\lambda = 0.5", r"\lambda = 0.4"):
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
    "answer, value",
    [("4/5", 45.0), ("3.5 out of 5.", 3.55), ("Score: 4", 4.0), ("four", None)],
)
def test_exercise_parser(answer, value):
    got = cp.parse_answer(answer, rule="paper-text")
    if value is None:
        assert np.isnan(got)
    else:
        assert got == value
    text = page("part2_csts_exercises.md")
    assert f'"{answer}"' in text
    if value is not None:
        assert f"{value:g}" in text


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
    for v in (S1, S2, C_HIGH, C_LOW, hadamard(C_HIGH, S1), hadamard(C_HIGH, S2), hadamard(C_LOW, S1), hadamard(C_LOW, S2)):
        assert vec(v) in svg, vec(v)
    hi, lo, ign = tri_score(C_HIGH), tri_score(C_LOW), measures.cosine(S1, S2)
    for x in (hi, lo, ign, quad(hi, lo)):
        assert f"{x:.4f}" in svg
    assert "16/17" in svg and "4/8" in svg and "λ = 0.5" in svg
