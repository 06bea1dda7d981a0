"""The runner reruns a Part IV chapter with another scorer (a tiny NLI model) and another pool."""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from compsem.book.runner import run_notebook
from tests.helpers import ROOT

from .test_scorers import _build_tiny_nli



CLUSTERS = [
    ("a dog runs in the park .", ["the dog runs in a park .", "in the park a dog runs ."],
     ["a dog runs .", "an animal moves outside .", "a dog is in the park ."]),
    ("cats sleep on mats today .", ["today cats sleep on mats .", "on mats cats sleep today ."],
     ["cats sleep .", "an animal is on mats .", "cats sleep today ."]),
    ("it is raining in the park today .", ["today it is raining in the park .", "in the park it is raining today ."],
     ["it is raining .", "the park is wet .", "it is raining today ."]),
]


def _write_pool(folder: Path) -> Path:
    pool_rows, judg = [], []
    for c, (prem, syns, infs) in enumerate(CLUSTERS, start=1):
        pid = f"c{c}_p"
        pool_rows.append((pid, c, "premise", prem))
        for role, hyps in (("synonymous", syns), ("inferential", infs)):
            for k, h in enumerate(hyps, start=1):
                hid = f"c{c}_{role[0]}{k}"
                pool_rows.append((hid, c, role, h))
                judg.append((pid, hid, role, 1))
                judg.append((hid, pid, f"{role}_reversed", 1 if role == "synonymous" else 0))
    with (folder / "pool.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("sentence_id", "cluster", "role", "text"), *pool_rows])
    with (folder / "judgements.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("premise_id", "hypothesis_id", "category", "score"), *judg])
    return folder / "pool.csv"


@pytest.mark.slow
def test_metrics_chapter_reruns_with_a_tiny_nli_scorer(tmp_path):
    model = _build_tiny_nli(tmp_path / "nli", {0: "contradiction", 1: "entailment", 2: "neutral"})
    pool = _write_pool(tmp_path)
    out = tmp_path / "run"
    run_notebook(ROOT / "notebooks" / "42_ssm_metrics.ipynb",
                 {"scorers": [f"nli:{model}", "lexical"], "models": [], "pool_source": str(pool), "n_boot": 50},
                 out=out, progress=False)
    tab = pd.read_csv(out / "results" / "ssm" / "ssm_metrics.csv")
    nli = tab[tab.scorer == f"nli:{model}"]
    assert sorted(nli.space) == ["dis", "rel"]           # an NLI scorer has both spaces
    assert (tab.n_sentences == 18).all()
    acc = pd.read_csv(out / "results" / "ssm" / "accuracy.csv")
    assert set(acc.scorer) == {f"nli:{model}", "lexical"}
