"""Part II's runs: baselines, the run cache, zero-shot text pairs, planned texts."""

from __future__ import annotations

import ast
import json

import numpy as np
import pandas as pd
import pytest
import torch

from compsem import paths
from compsem.csts import data as cd
from compsem.csts import runcache
from compsem.csts import study as st
from compsem.csts import training as ct


def test_baselines_condition_prior_on_hand_data(rows):
    train = cd.assign_pairs(rows(4))
    test = cd.assign_pairs(rows(2))
    b = st.baselines(train, {"test": test}).set_index("split").loc["test"]
    # colour -> mean(4, 5, 4, 5) = 4.5 and number -> 1.5 on every pair: perfect pair order
    assert b["pair_accuracy"] == 100.0 and b["share_conditions_seen_%"] == 100.0
    assert b["n_pairs"] == 2 and b["n_tied_pairs"] == 0


def test_train_and_evaluate_is_seeded_and_reused(word_bert, rows):
    train = cd.assign_pairs(rows(4))
    cfg = ct.TrainConfig(encoding="bi", objective="quad+mse", lr=1e-3, epochs=2, batch_size=4, max_length=32)
    a = st.train_and_evaluate(word_bert, train, {"train": train}, cfg, seed=3, reuse=False)
    b = st.train_and_evaluate(word_bert, train, {"train": train}, cfg, seed=3, reuse=False)
    assert a["train_spearman"] == b["train_spearman"] and not a["reused"]
    c = st.train_and_evaluate(word_bert, train, {"train": train}, cfg, seed=3)
    assert c["reused"] and c["train_spearman"] == a["train_spearman"]
    d = st.train_and_evaluate(word_bert, train, {"train": train}, cfg.with_(lr=2e-3), seed=3)
    assert not d["reused"]
    assert {"train_pair_accuracy", "train_pair_accuracy_with_ties", "n_quad_pairs"} <= set(a)


def test_zero_shot_textpair_is_cosine_of_pair_encodings(word_bert, rows):
    df = cd.assign_pairs(rows(2))
    s = st.zero_shot_textpair(df, word_bert)
    m = ct.new_model(word_bert, ct.TrainConfig(encoding="bi", train_layers=None), seed=0).eval()
    with torch.no_grad():
        a = m._encode([df.sentence1.iloc[0]], [df.condition.iloc[0]])
        b = m._encode([df.sentence2.iloc[0]], [df.condition.iloc[0]])
    assert s.shape == (4,)
    assert s[0] == pytest.approx(torch.nn.functional.cosine_similarity(a, b).item(), abs=1e-5)


def test_pair_accuracy_ties_both_ways(rows):
    df = rows(3)
    df.loc[2:3, "label"] = 3.0  # pair 2 tied
    df = cd.assign_pairs(df)
    s = [0.9, 0.1, 0.2, 0.8, 0.5, 0.5]
    assert st.pair_accuracy(s, df) == pytest.approx(100 * (1 + 0.5) / 2)  # ties left out
    assert st.pair_accuracy(s, df, label_ties="include") == pytest.approx(100 * 1.5 / 3)


def test_book_data_subsamples_and_planned_texts():
    parts, rep = st.book_data("reannotated", train_pairs=100, eval_pairs=50)
    assert parts["train"]["pair_id"].nunique() == 100 and parts["test"]["pair_id"].nunique() == 50
    planned = st.planned_texts({"data": "reannotated", "eval_pairs": 50, "models": ["sbert-mini", "bow"]})
    assert list(planned) == ["sbert-mini", "bow"]
    texts = planned["sbert-mini"]
    t = parts["test"]
    want = (
        set(t.sentence1)
        | set(t.sentence2)
        | set(st.attach(t.sentence1, t.condition))
        | set(st.attach(t.sentence2, t.condition))
    )
    assert set(texts) == want and len(texts) == len(set(texts)) and planned["bow"] == texts
    # parameters not given are the chapter's own, read from its cell (its source, parsed here by ast)
    cell = next(
        c
        for c in json.loads((paths.repo_root() / "notebooks" / st.ZERO_SHOT_CHAPTER).read_text())["cells"]
        if "parameters" in c["metadata"].get("tags", [])
    )
    by_ast = {n.targets[0].id: ast.literal_eval(n.value) for n in ast.parse("".join(cell["source"])).body}
    assert st.zero_shot_defaults() == by_ast


def test_resolve_models_paper_fails_fast_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert st.resolve_models(["sbert-mini"]) == ["sbert-mini"]
    with pytest.raises(Exception, match="roberta-base") as err:
        st.resolve_models("paper")
    assert "cannot be loaded" in str(err.value)
    with pytest.raises(Exception, match="flan-t5-small"):
        st.resolve_models("paper", kind="generator")


def test_condition_prior_on_the_book_split_matches_the_datasheet():
    text = " ".join((paths.data_dir("csts") / "DATASHEET.md").read_text().split())
    for split, (test, val) in {"pair": ("40.8", "37.8"), "sentence": ("41.6", "39.4")}.items():
        parts, _ = st.book_data("reannotated", split_seed=0, split=split)
        b = st.baselines(parts["train"], {"validation": parts["validation"], "test": parts["test"]}).set_index("split")
        assert f"{b.loc['test', 'spearman']:.1f}" == test and f"{b.loc['validation', 'spearman']:.1f}" == val
    assert "Spearman of 40.8" in text and "37.8 on validation" in text
    assert "sentence split 41.6 on test and 39.4 on validation" in text


class _FakeTraining:
    """Stands in for compsem.csts.training: counts fits, scores every row by its position."""

    def __init__(self):
        self.fits = 0

    def install(self, monkeypatch):
        from compsem.csts import training as T

        monkeypatch.setattr(T, "new_model", lambda encoder, cfg, **kw: object())
        monkeypatch.setattr(T, "predict", lambda model, df, **kw: np.arange(len(df), dtype=float))

        def fit(model, df, cfg, *, seed):
            self.fits += 1
            return {
                "epoch_loss": [1.0],
                "loss_first_quarter": 1.0,
                "loss_last_quarter": 0.5,
                "seconds": 2.0,
                "fill_seconds": 0.5,
                "n_train_rows": len(df),
                "n_quad_pairs": 0,
                "precision": "fp32 (asked for)",
                "fused_adamw": False,
            }

        monkeypatch.setattr(T, "fit", fit)
        return self


def test_a_truncated_run_file_is_named_and_recomputed(monkeypatch, tmp_path):
    """Issue 19 finding 5: the old code crashed with a bare JSONDecodeError on a half-written run."""
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    fake = _FakeTraining().install(monkeypatch)
    parts, _ = st.book_data("embedded")
    cfg = st.configs_from(["bi/mse"])[0]
    evals = {"test": parts["test"]}
    first = st.train_and_evaluate("sbert-mini", parts["train"], evals, cfg, seed=0)
    path = st.run_path(st.run_key("sbert-mini", parts["train"], evals, cfg, seed=0))
    assert path.is_file() and not first["reused"] and fake.fits == 1
    assert st.train_and_evaluate("sbert-mini", parts["train"], evals, cfg, seed=0)["reused"] and fake.fits == 1
    path.write_text(path.read_text()[:25])  # a kill mid-write under the old, non-atomic writer
    with pytest.warns(UserWarning, match=path.name):
        again = st.train_and_evaluate("sbert-mini", parts["train"], evals, cfg, seed=0)
    assert not again["reused"] and fake.fits == 2 and again["test_n"] == first["test_n"]
    assert not list(path.parent.glob("*.tmp"))  # the atomic writer leaves no temporary file


def test_scaling_last_point_is_the_finetune_chapters_run(monkeypatch, tmp_path):
    """Chapter 23's last scaling point reads chapter 22's run back: same key, no new training."""
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    fake = _FakeTraining().install(monkeypatch)
    ch22 = st.run(["sbert-mini"], configs=["cross/mse", "bi/quad+mse"], data="embedded")  # chapter 22's defaults
    assert fake.fits == 2 and not ch22.runs["reused"].any()
    parts, _ = st.book_data("embedded")  # chapter 23 loads the same split
    n_all = parts["train"]["pair_id"].nunique()
    scale, priors = st.scaling("sbert-mini", parts, st.configs_from(["bi/quad+mse"]), [2, 5, None])
    assert scale["train_pairs"].tolist() == [2, 5, n_all] and fake.fits == 4  # only the two subsets trained
    last = scale[scale["train_pairs"] == n_all].iloc[0]
    assert (
        last["reused"] and last["test_spearman"] == ch22.runs.query("config == 'bi/quad+mse'")["test_spearman"].item()
    )
    assert priors.query("train_pairs == @n_all")["spearman"].item() == ch22.baselines["spearman"].item()
    # and the ablation's "full" input is chapter 22's cross/mse run
    full = st.configs_from(["cross/mse"], input_mode="full")
    assert st.sweep("sbert-mini", parts["train"], {"test": parts["test"]}, full, [0])["reused"].all() and fake.fits == 4


def test_run_provenance_and_key_inputs(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    _FakeTraining().install(monkeypatch)
    res = st.run(["sbert-mini"], configs=["bi/mse"], data="embedded")
    prov = res.provenance()
    assert prov["models"] == ["sbert-mini"] and prov["identities"]["sbert-mini"].startswith("sbert-mini@")
    assert set(prov["data_checksums"]) == {"train", "validation", "test"} and prov["parameters"]["train_pairs"] is None
    parts = res.parts
    cfg = res.configs[0]
    k = st.run_key("sbert-mini", parts["train"], {"test": parts["test"]}, cfg, seed=0)
    assert k != st.run_key("sbert-mini", parts["train"], {"test": parts["test"]}, cfg, seed=1)
    assert k != st.run_key("sbert-mini", parts["train"], {"test": parts["test"]}, cfg.with_(lr=1e-4), seed=0)
    # precision "auto" is keyed by what it resolves to on this machine, not by the word "auto"
    assert (
        k == st.run_key("sbert-mini", parts["train"], {"test": parts["test"]}, cfg.with_(precision="bf16"), seed=0)
    ) == (runcache._resolved_precision(cfg).endswith("bfloat16"))


def test_eval_data_scores_another_file_beside_the_prior(monkeypatch, tmp_path):
    """A published-style validation file with a -1 row: left out, counted, scored as "other"."""
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    fake = _FakeTraining().install(monkeypatch)
    other = tmp_path / "csts_validation.csv"
    pd.DataFrame(
        {
            "sentence1": ["a", "a", "b", "b", "c"],
            "sentence2": ["x", "x", "y", "y", "z"],
            "condition": ["the colour", "the number", "the colour", "the number", "the colour"],
            "label": [5.0, 1.0, 4.0, 2.0, -1.0],
        }
    ).to_csv(other, index=False)
    res = st.run(["sbert-mini"], configs=["bi/mse"], data="embedded", eval_data=str(other))
    assert res.other_report.n_rows_read == 5 and res.other_report.n_unlabelled == 1 and res.other_report.n_rows == 4
    row = res.runs.iloc[0]
    # the fake model scores rows 0, 1, 2, 3 -> Spearman against 5, 1, 4, 2 by hand: ranks (1,2,3,4) vs (4,1,3,2)
    d2 = (1 - 4) ** 2 + (2 - 1) ** 2 + (3 - 3) ** 2 + (4 - 2) ** 2
    assert row["other_spearman"] == pytest.approx(100 * (1 - 6 * d2 / (4 * 15)))
    assert "other" in set(res.baselines["split"]) and res.eval_splits == ["test", "other"]
    assert fake.fits == 1


def test_eval_data_scores_go_into_the_result_tables(monkeypatch, tmp_path):
    """A rerun with eval_data writes the reader's "other" rows (interval, prior beside) to
    results/csts/finetune_scores.csv as chapter 22 does, and the run's JSON records them."""
    import json

    from compsem import results
    from compsem.csts import tables as tb

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "results"))
    _FakeTraining().install(monkeypatch)
    # two conditions of the training rows with different mean labels, so that the prior is defined
    train = st.book_data("embedded")[0]["train"]
    means = train.groupby("condition")["label"].mean().sort_values()
    lo_c, hi_c = means.index[0], means.index[-1]
    other = tmp_path / "csts_validation.csv"
    pd.DataFrame(
        {
            "sentence1": ["a", "a", "b", "b", "c", "c"],
            "sentence2": ["x", "x", "y", "y", "z", "z"],
            "condition": [hi_c, lo_c] * 3,
            "label": [5.0, 1.0, 4.0, 2.0, 3.0, 1.0],
        }
    ).to_csv(other, index=False)
    res = st.run(["sbert-mini"], configs=["bi/mse"], data="embedded", eval_data=str(other))
    path = results.save_table(
        tb.split_scores(res.runs, res.baselines, res.eval_splits), "csts", "finetune_scores", **res.provenance()
    )
    back = pd.read_csv(path)
    assert back["split"].tolist() == ["test", "other"]
    o = back[back["split"] == "other"].iloc[0]
    # the fake model scores rows 0..5 -> Spearman against 5, 1, 4, 2, 3, 1 (ties averaged), by scipy as an oracle
    from scipy.stats import spearmanr

    assert o["spearman"] == pytest.approx(100 * spearmanr(range(6), [5, 1, 4, 2, 3, 1]).statistic)
    assert o["spearman_ci_low"] <= o["spearman"] + 1e-9 and o["spearman"] <= o["spearman_ci_high"] + 1e-9
    # the prior predicts each condition's mean training label: hi, lo, hi, lo, hi, lo
    prior = 100 * spearmanr([means[hi_c], means[lo_c]] * 3, [5, 1, 4, 2, 3, 1]).statistic
    assert o["prior_spearman"] == pytest.approx(prior) and o["n"] == 6 and o["n_pairs"] == 3
    side = json.loads(path.with_suffix(".json").read_text())
    assert side["other_scores"][0]["spearman"] == pytest.approx(o["spearman"]) and side["data_checksums"]["other"]
    with pytest.raises(KeyError, match="validation"):
        tb.split_scores(res.runs, res.baselines, ["validation"])


def test_the_paper_run_note_says_part_two_is_costed_at_the_books_data_and_grid():
    # the paper's training split: 60 % of 18,908 = 11,344.8 rows; the book's pair split trains on
    # its own rows, and the grid is 7 configurations x 3 seeds = 21 runs per model
    from compsem.csts import study

    note = study.PAPER_RUN.note()
    n_train = len(study.book_data(split_seed=0)[0]["train"])
    assert f"{n_train:,} training rows" in note and "about 11,345 rows" in note
    assert "21 runs per model (7 configurations × 3 seeds" in note
