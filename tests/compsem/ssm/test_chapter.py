"""The runner reruns a Part IV chapter with other models (a tiny NLI model whose labels are
unnamed, with the entailment index in the spec) and another pool."""

from __future__ import annotations

import pandas as pd
import pytest

from compsem.book.running.runner import run_notebook
from tests.helpers import ROOT
from tests.helpers.tiny import tiny_bert_classifier


@pytest.mark.slow
def test_metrics_chapter_reruns_with_a_tiny_nli_model(small_pool, tmp_path):
    words = sorted({w for t in pd.read_csv(small_pool).text for w in t.split()})
    model = tiny_bert_classifier(
        tmp_path / "nli", words, {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, initializer_range=0.5
    )
    spec = f"nli:{model}#entailment=1"
    out = tmp_path / "run"
    run_notebook(
        ROOT / "notebooks" / "42_ssm_metrics.ipynb",
        {"models": [spec, "lexical"], "pool_source": str(small_pool), "n_boot": 50},
        out=out,
        progress=False,
    )
    tab = pd.read_csv(out / "results" / "ssm" / "ssm_metrics.csv")
    nli = tab[tab.scorer == spec]
    assert sorted(nli.space) == ["dis", "rel"]  # an NLI model has both spaces
    assert (tab.n_sentences == 18).all()
    acc = pd.read_csv(out / "results" / "ssm" / "accuracy.csv")
    assert set(acc.scorer) == {spec, "lexical"}
    by = acc.set_index("scorer")
    assert by.loc[spec, "accuracy_label"].notna().all() and by.loc["lexical", "accuracy_label"].isna().all()


@pytest.mark.parametrize("nb", ["41_ssm_matrices", "42_ssm_metrics", "43_ssm_space"])
def test_chapters_that_load_models_take_models_trust_remote_code_and_device(nb):
    from compsem.book.running.runner import parameters_of

    params = parameters_of(ROOT / "notebooks" / f"{nb}.ipynb")  # papermill must parse every line
    assert params["models"] == '"panel"' and params["trust_remote_code"] == "False" and params["device"] == "None"
