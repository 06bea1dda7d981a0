"""The study face: the filter embeds through the injected function, runs and planned texts."""

import numpy as np
import pandas as pd
import pytest

from compsem.errors import ModelsUnavailableError
from compsem.setcomp import data as ds
from compsem.setcomp import study


def quint(i, **over):
    row = {
        "id": f"q{i}",
        "s_prev": f"prev {i}",
        "s_curr": f"curr {i}",
        "s_next": f"next {i}",
        "s1": f"fusion one {i}",
        "s2": f"fusion two {i}",
    }
    row.update(over)
    return row


def fake_embed(vectors):
    def f(texts, spec):
        return np.array([vectors[spec][t] for t in texts], dtype=float)

    return f


def test_difference_filter_is_all_or_nothing():
    q = pd.DataFrame([quint(1), quint(2), quint(3)])
    e = {
        "prev 1": [1, 0],
        "curr 1": [0, 1],
        "next 1": [1, 0],  # both pairs cos 0 -> pass
        "prev 2": [1, 0],
        "curr 2": [0, 1],
        "next 2": [0, 1],  # second pair cos 1 -> fail
        "prev 3": [1, 0.1],
        "curr 3": [1, 0],
        "next 3": [0, 1],
    }  # first pair ~1 -> fail
    rep = study.difference_filter(q, encoders="m", threshold=0.25, embed_fn=fake_embed({"m": e}))
    assert rep.mask.tolist() == [True, False, False]
    assert rep.n_pass == 1 and rep.pass_rate == pytest.approx(1 / 3)
    t = ds.build_operator_tables(q, difference_mask=rep.mask)
    assert len(t["difference"]) == 6 and set(t["difference"]["qid"]) == {"q1"}
    assert len(t["overlap"]) == 3 and len(t["union"]) == 6  # the filter touches differences only


def test_difference_filter_threshold_is_strict_and_every_encoder_must_pass():
    q = pd.DataFrame([quint(1)])
    c = np.cos(np.deg2rad(60))  # 0.5
    e1 = {"prev 1": [1, 0], "curr 1": [c, np.sin(np.deg2rad(60))], "next 1": [1, 0]}
    e2 = {"prev 1": [1, 0], "curr 1": [0, 1], "next 1": [1, 0]}
    f = fake_embed({"a": e1, "b": e2})
    assert not study.difference_filter(q, encoders="a", threshold=0.5, embed_fn=f).mask[0]  # 0.5 < 0.5 is false
    assert study.difference_filter(q, encoders="a", threshold=0.51, embed_fn=f).mask[0]
    assert not study.difference_filter(q, encoders=["a", "b"], threshold=0.3, embed_fn=f).mask[0]
    assert study.difference_filter(q, encoders=["b"], threshold=0.3, embed_fn=f).mask[0]


def test_difference_filter_undefined_cosine_fails_and_is_counted():
    q = pd.DataFrame([quint(1), quint(2)])
    e = {"prev 1": [0, 0], "curr 1": [0, 1], "next 1": [1, 0], "prev 2": [1, 0], "curr 2": [0, 1], "next 2": [1, 0]}
    rep = study.difference_filter(q, encoders="m", embed_fn=fake_embed({"m": e}))
    assert rep.mask.tolist() == [False, True] and rep.n_undefined == 1


def test_planned_texts_are_the_distinct_sentences_of_the_three_tables():
    q = ds.load_source("embedded", cap=5, seed=0)
    plan = study.planned_texts(
        {"dataset_source": "embedded", "sample_cap": 5, "seed": 0, "models": ["bow", "glove-50d"]}
    )
    assert list(plan) == ["bow", "glove-50d"] and plan["bow"] == plan["glove-50d"]
    texts = plan["bow"]
    # five columns per quintuple, every sentence distinct in the shipped set
    assert set(texts) == set(q[list(ds.QUINTUPLE_COLUMNS)].to_numpy().ravel())
    assert len(texts) == len(set(texts))


def test_run_operator_embeds_models_and_controls():
    def fake(texts, model):
        return np.array([[len(t), 1.0 + (model == "random")] for t in texts])

    run = study.run("difference", ["m"], sample_cap=4, embed_fn=fake, filter_encoders=["m"])
    assert run.filter.encoders == ["m"] and run.main in ("filtered", "unfiltered (all quintuples)")
    assert len(run.subsets["unfiltered (all quintuples)"]) == 24
    assert set(run.controls[run.main]) == {"random", "m (shuffled D)"}
    assert run.emb[run.main]["m"]["difference"]["a"].shape == (len(run.subsets[run.main]), 2)


def test_paper_panel_offline_fails_fast_naming_the_downloads(monkeypatch):
    from compsem.encoders import resolve_models

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    specs = resolve_models("paper", study="setcomp")
    assert {"sbert-mini", "use"} <= set(specs)
    assert "hf:Qwen/Qwen2.5-7B" in specs
    with pytest.raises(ModelsUnavailableError, match="would download Qwen/Qwen2.5-7B"):
        study.resolve_models("paper")
    assert study.resolve_models(["sbert-mini", "bow"]) == ["sbert-mini", "bow"]


def test_run_data_and_provenance_name_models_identities_checksum_and_parameters():
    """run("data") filters under the filter encoder and each model; provenance() is what a chapter
    would write beside its tables (the checksum recomputed here from the quintuples' CSV text)."""
    import hashlib

    def fake(texts, model):  # orthogonal one-hot rows: every cosine between distinct texts is 0
        return np.eye(len(texts))

    run = study.run("data", ["bow"], sample_cap=3, embed_fn=fake, filter_encoders=["bow"])
    assert isinstance(run, study.DataRun) and run.filter.n_pass == 3  # 0 < 0.25 for every pair
    prov = run.provenance()
    assert prov["models"] == ["bow"] and prov["study"] == "setcomp"
    assert prov["identities"]["bow"].startswith("bow")
    expected = hashlib.sha256(run.quintuples.to_csv(index=False).encode()).hexdigest()[:16]
    assert prov["quintuples_checksum"] == expected
    assert prov["parameters"]["sample_cap"] == 3 and prov["parameters"]["filter_encoders"] == ["bow"]
    with pytest.raises(ValueError, match="choose from data, overlap, difference, union"):
        study.run("intersection", ["bow"])


def test_the_paper_scale_counts_quintuples_not_samples():
    # the paper's 37,292 quintuples (one overlap sample each) against the 125 shipped: the texts a
    # chapter embeds are the quintuples' sentences, so they scale by 37292 / 125 = 298.336, not by
    # the samples' 191,698 / 1,125 (the shipped set counts every difference sample before the filter)
    from compsem.setcomp import study

    assert study._quintuples() == (37292, 125)
    assert study._paper_scale() == pytest.approx((298.336, 298.336))
    assert "37,292 in the paper against 125 shipped" in study.PAPER_RUN.note()
