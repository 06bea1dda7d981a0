"""Part IV's run: the score cache, the cosine path through the embedding cache, NLI
probabilities cached once for both readings, the warnings, and the chapter-level run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from compsem.encoders import get_encoder, installed_panel
from compsem.ssm.data import Pool, load_pool
from compsem.ssm.lexical import LexicalCoverage
from compsem.ssm.nli import NLICrossEncoder
from compsem.ssm.study import REFERENCE, Scored, planned_texts, run, score_all, score_matrix, score_texts
from tests.helpers.tiny import tiny_bert_classifier


class Counting(LexicalCoverage):
    calls: list = []

    def score(self, texts, **kw):
        Counting.calls.append(1)
        return super().score(texts, **kw)


def test_score_cache_roundtrip(tmp_path):
    Counting.calls = []
    texts = ["the red cat sleeps", "a cat sleeps"]
    R1 = score_matrix(Counting(), texts, cache_dir=tmp_path)
    R2 = score_matrix(Counting(), texts, cache_dir=tmp_path)
    assert len(Counting.calls) == 1
    np.testing.assert_array_equal(R1, R2)
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".npy"]
    meta = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert meta["identity"] == "lexical-coverage-v1" and meta["n"] == 2 and meta["symmetric"] is False
    score_matrix(Counting(), texts + ["a dog barks"], cache_dir=tmp_path)  # other texts: a new entry
    assert len(Counting.calls) == 2
    score_matrix(Counting(), texts, cache=False)
    assert len(Counting.calls) == 3
    with pytest.raises(ValueError, match="no texts"):
        score_matrix(Counting(), [], cache_dir=tmp_path)


def test_cosine_goes_through_the_encoder(tmp_path):
    texts = ["a red car", "a blue car", "a red car", "the dog sleeps"]
    R = score_matrix("bow", texts, cache_dir=tmp_path)
    X = get_encoder("bow").encode(texts).astype(float)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    np.testing.assert_allclose(R, np.clip(Xn @ Xn.T, 0, 1), atol=1e-6)
    R2, symmetric = score_texts("bow", texts)
    np.testing.assert_allclose(R2, R)
    assert symmetric


def test_nli_probabilities_are_cached_once_for_both_readings(tmp_path, monkeypatch):
    texts = ["a b", "b a", "a a b"]
    path = tiny_bert_classifier(
        tmp_path / "m", ["a", "b"], {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, initializer_range=0.5
    )
    cache = tmp_path / "cache"
    R1, pred1 = score_matrix(f"nli:{path}#entailment=1", texts, cache_dir=cache, with_labels=True, progress=False)
    stored = np.load(next(cache.glob("*.npy")))
    assert stored.shape == (3, 3, 3)  # every label's probability
    np.testing.assert_allclose(stored.sum(axis=-1), 1.0, atol=1e-6)
    monkeypatch.setattr(NLICrossEncoder, "pair_probabilities", lambda *a, **k: pytest.fail("not from the cache"))
    R2, pred2 = score_matrix(f"nli:{path}#entailment=2", texts, cache_dir=cache, with_labels=True)
    np.testing.assert_allclose(R1, stored[..., 1])
    np.testing.assert_allclose(R2, stored[..., 2])
    np.testing.assert_array_equal(pred1, stored.argmax(-1) == 1)
    np.testing.assert_array_equal(pred2, stored.argmax(-1) == 2)
    assert score_matrix("lexical", texts, cache_dir=cache, with_labels=True)[1] is None


def test_score_all_warns_about_sentences_without_scores(small_pool):
    pool = load_pool(small_pool)
    with pytest.warns(RuntimeWarning, match="1 sentence"):
        scored = score_all(
            Pool(
                pool.ids[:3] + ("x",),
                np.array([1, 1, 1, 1]),
                pool.roles[:3] + ("inferential",),
                pool.texts[:3] + ("it is what it is",),
            ),
            ["lexical"],
            progress=False,
        )
    s = scored["lexical"]
    assert isinstance(s, Scored) and s.valid.tolist() == [True, True, True, False] and s.predicted is None


def test_run_and_planned_texts(small_pool):
    r = run(["lexical", "bow"], pool_source=small_pool, progress=False)
    assert r.specs == ["lexical", "bow"] and list(r.scored) == ["lexical", "bow"]
    assert list(r.with_reference) == [REFERENCE, "lexical", "bow"]
    assert r.scored["bow"].symmetric and not r.scored["lexical"].symmetric
    assert set(r.matrices) == {REFERENCE, "lexical", "bow"} and r.matrices[REFERENCE] is r.R_ref
    prov = r.provenance(n_boot=5)
    assert (
        prov["models"] == ["lexical", "bow"] and prov["n_boot"] == 5 and set(prov["identities"]) == {"lexical", "bow"}
    )
    assert prov["identities"]["lexical"] == "lexical-coverage-v1" and prov["pool_checksum"] == r.pool.checksum
    assert prov["parameters"] == {"pool_source": small_pool, "trust_remote_code": False, "device": None, "dtype": None}
    plan = planned_texts({"pool_source": str(small_pool), "models": ["lexical", "bow"]})
    assert list(plan) == ["lexical", "bow"]
    assert plan["bow"] == list(r.pool.texts) and len(plan["bow"]) == 18
    # "panel" is the lexical scorer plus the installed encoder panel, as in the chapters
    assert list(planned_texts({})) == ["lexical", *installed_panel()]
    assert all(len(t) == len(load_pool()) for t in planned_texts({}).values())


def test_a_paper_run_offline_fails_fast_naming_the_downloads(small_pool, monkeypatch):
    from compsem.errors import ModelsUnavailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(NLICrossEncoder, "__post_init__", lambda self: pytest.fail("nothing may load"))
    with pytest.raises(ModelsUnavailableError) as err:
        run("paper", pool_source=small_pool, progress=False)
    text = str(err.value)
    for hub_id in (
        "textattack/bert-base-uncased-MNLI",
        "MoritzLaurer/DeBERTa-v3-base-mnli",
        "princeton-nlp/sup-simcse-roberta-large",
    ):
        assert hub_id in text


def test_the_paper_run_note_scales_texts_by_the_pools_sentences():
    # the paper's pool has 401 sentences (Section 2.1); the shipped one 251
    from compsem.ssm import study

    assert study._paper_scale() == pytest.approx((401 / 251, (401 / 251) ** 2))
    assert "401 in the paper against 251 shipped" in study.PAPER_RUN.note()
