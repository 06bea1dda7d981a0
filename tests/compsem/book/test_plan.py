"""python -m compsem plan: texts per model, cached counts, time from the benchmark; offline."""

import json
import sys
import types

import pytest

from compsem.book.running import plan as P
from compsem.book.cli import main
from compsem.cache import EmbeddingCache, embed
from compsem.errors import CompsemError
from tests.helpers.fake_encoders import HashEncoder


def write_notebook(path, source):
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
            {
                "cell_type": "code",
                "metadata": {"tags": ["parameters"]},
                "source": source,
                "outputs": [],
                "execution_count": None,
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))
    return path


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    nb = write_notebook(
        tmp_path / "11_fake.ipynb",
        [
            'models = ["sbert-mini", "bow"]\n',
            "n_items = 3  # how many\n",
            "trust_remote_code = False\n",
            "label = 'x'.upper()\n",
        ],
    )
    fake = types.ModuleType("compsem.setcomp.study")
    # the contract: the study resolves the chapter's models itself and names the texts of each
    fake.planned_texts = lambda params: {
        m: [f"text {i}" for i in range(params["n_items"])] + ["text 0"] for m in params["models"]
    }
    monkeypatch.setitem(sys.modules, "compsem.setcomp.study", fake)
    bench = tmp_path / "results.json"
    bench.write_text(json.dumps({"encode": {"sbert-mini": {"encoded_per_s_cold": 2.0}}}))
    embed(["text 0"], HashEncoder(spec="sbert-mini"), cache=EmbeddingCache())  # one text already cached
    return nb, bench


def test_parameters_are_read_not_executed(setup):
    nb, _ = setup
    assert P.notebook_parameters(nb) == {
        "models": ["sbert-mini", "bow"],
        "n_items": 3,
        "trust_remote_code": False,
        "label": "'x'.upper()",
    }
    assert P.study_of(nb) == "setcomp" and P.study_of("90_synthesis.ipynb") is None


def test_plan_counts_cached_texts_and_estimates(setup):
    nb, bench = setup
    table, notes = P.plan(nb, {"n_items": 5}, bench=bench)
    rows = table.set_index("model")
    assert rows.loc["sbert-mini", ["texts", "cached", "to_embed"]].tolist() == [5, 1, 4]
    assert rows.loc["sbert-mini", "estimate"] == "2 s"  # 4 texts at 2 texts/s
    assert rows.loc["bow", ["texts", "cached", "to_embed"]].tolist() == [5, 0, 5]  # never cached
    assert rows.loc["bow", "estimate"] == "no benchmark for this model"
    assert notes[0].startswith("11_fake.ipynb (setcomp)") and len(notes) == 1  # both load offline


def test_plan_says_what_is_missing(setup, monkeypatch):
    nb, bench = setup
    monkeypatch.setitem(sys.modules, "compsem.setcomp.study", types.ModuleType("compsem.setcomp.study"))
    table, notes = P.plan(nb, {"models": ["sbert-mini", "hf:nobody/none"]}, bench=bench)
    assert "has no planned_texts(params) yet" in notes[1] and table.empty


def test_plan_names_a_model_that_cannot_be_loaded(setup):
    nb, bench = setup
    table, notes = P.plan(nb, {"models": ["sbert-mini", "hf:nobody/none"]}, bench=bench)
    assert "would download nobody/none" in notes[1]
    assert table["model"].tolist() == ["sbert-mini", "hf:nobody/none"]


def test_cli_plan(setup, capsys):
    nb, _ = setup
    assert main(["plan", str(nb), "-p", "models", '["sbert-mini"]']) == 0
    out = capsys.readouterr().out
    assert "sbert-mini" in out and "bow" not in out and "11_fake.ipynb" in out


def test_notebook_without_parameters_cell(tmp_path):
    path = tmp_path / "11_x.ipynb"
    path.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    with pytest.raises(CompsemError, match="no cell tagged 'parameters'"):
        P.notebook_parameters(path)


def test_unbenchmarked_hub_model_is_scaled_from_sbert_mini_by_size(setup):
    nb, bench = setup
    table, notes = P.plan(
        nb, {"models": ["hf:FacebookAI/roberta-base", "oa:text-embedding-ada-002"], "n_items": 5}, bench=bench
    )
    rows = table.set_index("model")
    # 2 texts/s x 0.09 GB / 0.5 GB = 0.36 texts/s; 5 texts -> 13.9 s
    assert rows.loc["hf:FacebookAI/roberta-base", "texts_per_s"] == 0.4
    assert rows.loc["hf:FacebookAI/roberta-base", "estimate"] == "14 s (rough: sbert-mini's rate scaled by model size)"
    assert rows.loc["oa:text-embedding-ada-002", "estimate"] == "no benchmark for this model"


def test_a_study_that_resolves_its_models_decides_the_rows(tmp_path, monkeypatch):
    """A planned_texts that returns {spec: texts} names the models (the study's own "panel");
    pair scorers (lexical, nli:, gen:) are listed as embedding nothing, not counted as texts."""
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    nb = write_notebook(tmp_path / "41_fake.ipynb", ['models = "panel"\n'])
    fake = types.ModuleType("compsem.ssm.study")
    fake.planned_texts = lambda params: {"lexical": ["a", "b"], "nli:some/model": ["a", "b"], "bow": ["a", "b"]}
    monkeypatch.setitem(sys.modules, "compsem.ssm.study", fake)
    table, notes = P.plan(nb, bench=tmp_path / "none.json")
    rows = table.set_index("model")
    assert list(rows.index) == ["lexical", "nli:some/model", "bow"]
    assert rows.loc["bow", "texts"] == 2 and rows.loc["bow", "to_embed"] == 2
    for spec in ("lexical", "nli:some/model"):
        assert rows.loc[spec, "texts"] == "-" and "embeds nothing" in rows.loc[spec, "estimate"]


# ---- the kind of model a chapter takes (its study's MODEL_SLOTS): refused before any work ----
from compsem.encoders.kinds import ModelKindError  # noqa: E402
from compsem.studies import STUDIES  # noqa: E402
from tests.helpers import ROOT  # noqa: E402

NB = ROOT / "notebooks"


def test_plan_refuses_use_for_fine_tuning_with_the_reason():
    with pytest.raises(ModelKindError) as err:
        P.plan(NB / "22_csts_finetune.ipynb", {"models": ["use"]})
    assert str(err.value) == (
        "`use` cannot be fine-tuned: it is a TensorFlow-Hub export with no trainable layers; "
        "fine-tunable offline: sbert-mini"
    )


def test_plan_refuses_an_encoder_as_the_prompting_chapters_generator(capsys):
    assert main(["plan", str(NB / "24_csts_prompting.ipynb"), "-p", "models", '["sbert-mini"]']) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ModelKindError: `sbert-mini` is a sentence encoder, not a text generator")


def test_chapter_23_refuses_a_second_model_instead_of_ignoring_it():
    with pytest.raises(ModelKindError, match=r"chapter 23 runs at most 1 fine-tunable backbone, got 2 models"):
        P.plan(NB / "23_csts_ablation_scaling.ipynb", {"models": ["sbert-mini", "sbert-l"]})
    # "panel" holds use, glove-50d and bow: none of them can be fine-tuned
    with pytest.raises(ModelKindError, match="`use` cannot be fine-tuned"):
        P.plan(NB / "22_csts_finetune.ipynb", {"models": "panel"})


def test_the_prompting_chapter_plans_without_a_generator():
    table, notes = P.plan(NB / "24_csts_prompting.ipynb", {})
    assert len(table) == 0 and "no generator given" in notes[1]


def test_the_run_refuses_the_wrong_kind_before_it_creates_anything(tmp_path):
    from compsem.book.running.runner import run_notebook

    out = tmp_path / "run"
    with pytest.raises(ModelKindError, match="`use` cannot be fine-tuned"):
        run_notebook(NB / "22_csts_finetune.ipynb", {"models": ["use"]}, out=out)
    assert not out.exists()


def test_prefetch_refuses_the_wrong_kind_before_planning_units():
    from compsem.book.running.prefetch import planned_work

    with pytest.raises(ModelKindError, match="`use` cannot be fine-tuned"):
        planned_work(NB / "22_csts_finetune.ipynb", {"models": ["use"]})


def test_every_chapter_with_models_declares_its_kind():
    """Each study declares the kind of model of every chapter that has a ``models`` parameter."""
    missing = [
        nb.name
        for s in STUDIES
        for nb in s.chapters(NB)
        if "models" in P.notebook_parameters(nb) and P.model_slot(nb) is None
    ]
    assert missing == []
