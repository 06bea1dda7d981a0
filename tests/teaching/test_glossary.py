"""The glossary has the terms the chapters and exercises lean on, each pointing at a page that
exists, and what it says about them holds for the library."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tests.helpers import ROOT

GLOSSARY = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")


def _entries() -> dict[str, str]:
    body = GLOSSARY[GLOSSARY.index("```{glossary}") :]
    out, term = {}, None
    for line in body.splitlines()[1:]:
        if line.startswith("```"):
            break
        if line and not line.startswith(" "):
            term = line.strip()
            out[term] = ""
        elif term:
            out[term] += line.strip() + " "
    return out


def _labels() -> set[str]:
    texts = [p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")]
    texts += [p.read_text(encoding="utf-8").replace("\\n", "\n") for p in (ROOT / "notebooks").glob("*.ipynb")]
    return {m for t in texts for m in re.findall(r'^\s*"?\(([\w-]+)\)=', t, flags=re.M)}


@pytest.mark.parametrize("term", ["Pair accuracy", "Condition prior", "Fusion, quintuple", "Margin", "Hadamard head"])
def test_the_new_terms_are_defined_and_point_at_real_pages(term):
    entries = _entries()
    assert term in entries, sorted(entries)
    refs = re.findall(r"\{ref\}`([\w-]+)`", entries[term])
    assert refs and set(refs) <= _labels(), refs


def test_the_new_terms_sit_in_alphabetical_order():
    lowered = [re.sub(r"[^a-z0-9 ]", "", t.lower()) for t in _entries()]
    for term in ("condition prior", "fusion quintuple", "hadamard head", "margin", "pair accuracy"):
        pos = lowered.index(term)
        assert lowered[pos - 1] < term < lowered[pos + 1], lowered[pos - 1 : pos + 2]


def test_what_the_entries_say_holds_in_the_library():
    import torch

    from compsem.csts import metrics as cm
    from compsem.csts import models as mo

    # condition prior: the condition's mean training label; an unseen one gets the overall mean
    pred = cm.condition_prior(["colour", "colour", "type"], [1.0, 3.0, 5.0], ["colour", "type", "size"])
    np.testing.assert_allclose(pred, [2.0, 5.0, 3.0])
    # pair accuracy: a score tie counts half; a model that ignores the condition gets 50 %
    assert cm.pair_accuracy([0.9, 0.5], [0.1, 0.5]) == 75.0
    assert cm.pair_accuracy([0.3, 0.7], [0.3, 0.7]) == 50.0
    # Hadamard head: elementwise product, blind to the condition's positive scale
    c, s = torch.tensor([2.0, 1.0, 0.0]), torch.tensor([1.0, 3.0, 5.0])
    head = lambda c, s: mo.CSTSModel._mix(SimpleNamespace(tri_op="hadamard"), c, s)  # noqa: E731
    assert head(c, s).tolist() == [2.0, 3.0, 0.0]
    s2 = torch.tensor([4.0, 1.0, 2.0])
    cos = torch.nn.functional.cosine_similarity
    assert float(cos(head(3 * c, s), head(3 * c, s2), dim=0)) == pytest.approx(
        float(cos(head(c, s), head(c, s2), dim=0))
    )
    entry = _entries()["Pair accuracy"]
    assert "counting as half" in entry and "exactly 50 %" in entry
    assert "mean of all training labels" in _entries()["Condition prior"]
