"""Losses, presets, batches and the training loop (tiny BERT)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from compsem.csts import data as cd
from compsem.csts import training as ct


def test_quad_loss_by_hand():
    cos = torch.nn.functional.cosine_similarity
    p1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    p2 = torch.tensor([[1.0, 1.0], [0.0, 1.0]])  # cos = 1/sqrt(2), 0
    n1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    n2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])  # cos = 0, 1
    # lambda 0.5: pair 1 max(0, 0.5 + 0 - 0.7071) = 0; pair 2 max(0, 0.5 + 1 - 0) = 1.5 -> mean 0.75
    assert ct.quad_loss(cos(p1, p2), cos(n1, n2), 0.5).item() == pytest.approx(0.75, abs=1e-6)
    assert ct.quad_loss(cos(p1, p2), cos(n1, n2), 0.8).item() == pytest.approx((0.8 - 1 / math.sqrt(2) + 1.8) / 2)
    assert ct.quad_loss(torch.zeros(0), torch.zeros(0), 1.0).item() == 0.0


def test_objective_layout_mse_and_tie_mask():
    scores = torch.tensor([0.9, 0.2, 0.1, 0.5])  # highs [0.9, 0.2], lows [0.1, 0.5]
    targets = torch.tensor([1.0, 1.0, 0.0, 0.0])
    mse = ((0.1**2) + (0.8**2) + (0.1**2) + (0.5**2)) / 4
    quad = (max(0, 0.3 + 0.1 - 0.9) + max(0, 0.3 + 0.5 - 0.2)) / 2
    assert ct.objective_loss("mse", scores, targets, 2, 0.3).item() == pytest.approx(mse)
    assert ct.objective_loss("quad", scores, targets, 2, 0.3).item() == pytest.approx(quad)
    assert ct.objective_loss("quad+mse", scores, targets, 2, 0.3).item() == pytest.approx(quad + mse)
    # the second pair tied: only pair 1 enters the quad term (0), MSE unchanged
    mask = torch.tensor([True, False])
    assert ct.objective_loss("quad+mse", scores, targets, 2, 0.3, mask).item() == pytest.approx(mse)


def test_label_scaler_from_training_range():
    s = ct.LabelScaler.fit([2.0, 3.0, 4.0])
    assert s.transform([2, 3, 4]).tolist() == [0.0, 0.5, 1.0]
    assert s.inverse([0.25]).tolist() == [2.5]
    with pytest.raises(ValueError, match="all training labels equal"):
        ct.LabelScaler.fit([3.0, 3.0])


def test_presets_follow_the_code_and_the_cpu_budget():
    off = ct.TrainConfig.preset("official")
    # run_sts.sh at 3bacafa: --per_device_train_batch_size 8 --gradient_accumulation_steps 4; TRANSFORM defaults to False
    assert (off.margin, off.pooling, off.grad_clip, off.max_length, off.batch_size, off.grad_accum) == (
        1.0,
        "cls",
        None,
        512,
        8,
        4,
    )
    assert not off.transform and off.condition_transform and off.concat_gelu and off.cross_head == "linear"
    # the paper's Table 8: SimCSE-large bi without the transform, cross with it; unmapped models refused
    enc = "hf:princeton-nlp/sup-simcse-roberta-large#pool=cls"
    assert not ct.TrainConfig.preset("official", paper_table8=True, encoder=enc, encoding="bi").transform
    assert ct.TrainConfig.preset("official", paper_table8=True, encoder=enc, encoding="cross").transform
    with pytest.raises(ValueError, match="Table 8 has no setting"):
        ct.TrainConfig.preset("official", paper_table8=True, encoder="sbert-mini")
    assert off.train_layers is None and not off.paired_mse and off.quad_ties == "include"
    cpu = ct.TrainConfig.preset("cpu")
    assert cpu == ct.TrainConfig()  # the defaults are the cpu preset
    assert ct.TrainConfig.preset("official", lr=3e-5).lr == 3e-5
    with pytest.raises(TypeError, match="unknown"):
        ct.TrainConfig.preset("cpu", nope=1)
    with pytest.raises(ValueError, match="bi- and tri-encoders only"):
        ct.TrainConfig(encoding="cross", objective="quad")


def test_pair_batches_hold_both_rows(rows):
    df = cd.assign_pairs(rows(5))
    seen = []
    for hi, lo in ct.pair_batches(df, 4, np.random.default_rng(0)):
        assert len(hi) == len(lo) <= 2
        assert (df["pair_id"].to_numpy()[hi] == df["pair_id"].to_numpy()[lo]).all()
        assert (df["label"].to_numpy()[hi] >= df["label"].to_numpy()[lo]).all()
        seen += list(hi) + list(lo)
    assert sorted(seen) == list(range(10))


def test_batches_per_preset(rows):
    df = rows(4)
    df.loc[2:3, "label"] = 3.0  # pair 2 tied
    df = cd.assign_pairs(df)
    rng = np.random.default_rng(0)
    # official MSE: plain shuffled rows, no pairing
    b = ct._batches(df, ct.TrainConfig.preset("official", batch_size=4), rng)
    assert [n for _, n, _ in b] == [0, 0] and sorted(np.concatenate([i for i, _, _ in b])) == list(range(8))
    # cpu quad: pairs, the tied pair masked out of the quad term
    b = ct._batches(df, ct.TrainConfig.preset("cpu", objective="quad+mse", batch_size=8), rng)
    idx, n, mask = b[0]
    assert n == 4 and mask.sum() == 3 and not mask[list(idx[:4]).index(2)]


@pytest.mark.parametrize("preset", ["cpu", "official"])
@pytest.mark.parametrize("encoding, objective", [("bi", "quad+mse"), ("cross", "mse"), ("tri", "quad")])
def test_short_training_lowers_loss(word_bert, rows, preset, encoding, objective):
    train = cd.assign_pairs(rows(4))
    # the [CLS] vectors of a random tiny BERT are nearly parallel (cosine ~ 1 for every text),
    # which leaves the cosine objectives almost no gradient: mean pooling for this check
    cfg = ct.TrainConfig.preset(
        preset,
        encoding=encoding,
        objective=objective,
        epochs=16,
        batch_size=8,
        lr=5e-3 if preset == "cpu" else 3e-3,
        weight_decay=0.0,
        pooling="mean",
        max_length=32,
        train_layers=1 if preset == "cpu" else None,
    )
    m = ct.new_model(word_bert, cfg, seed=0)
    hist = ct.fit(m, train, cfg, seed=0)
    assert hist["n_steps"] == 16 and len(hist["losses"]) == 16
    assert hist["epoch_loss"][-1] < hist["epoch_loss"][0]


def test_training_is_seeded(word_bert, rows):
    train = cd.assign_pairs(rows(4))
    cfg = ct.TrainConfig(encoding="bi", objective="mse", lr=1e-3, epochs=2, batch_size=4)
    out = []
    for _ in range(2):
        m = ct.new_model(word_bert, cfg, seed=3)
        out.append((ct.fit(m, train, cfg, seed=3)["losses"], ct.predict(m, train)))
    assert out[0][0] == out[1][0] and np.array_equal(out[0][1], out[1][1])


def test_predict_returns_row_order(word_bert, rows):
    df = cd.assign_pairs(rows(3))
    m = ct.new_model(word_bert, ct.TrainConfig(encoding="bi", train_layers=None), seed=0)
    p = ct.predict(m, df, batch_size=2)  # scored in length order, returned in row order
    one = [ct.predict(m, df.iloc[[i]])[0] for i in range(len(df))]
    assert np.allclose(p, one, atol=1e-6)


def test_bucketed_batches_are_a_partition_with_sorted_batches():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 100, size=103)
    batches = ct.bucketed_batches(lengths, 4, np.random.default_rng(1), bucket_batches=5)
    assert sorted(np.concatenate(batches).tolist()) == list(range(103))
    # buckets of 20 items: 5 full buckets of 5 batches, the last bucket of 3 items is one short batch
    assert sorted(len(b) for b in batches) == [3] + [4] * 25
    # every batch comes from one bucket sorted by length: within a batch lengths do not decrease
    assert all((np.diff(lengths[b]) >= 0).all() for b in batches)
    # padding: the mean spread within a batch is smaller than in random batches of the same size
    spread = np.mean([np.ptp(lengths[b]) for b in batches if len(b) > 1])
    rand = rng.permutation(103)
    assert spread < np.mean([np.ptp(lengths[rand[i : i + 4]]) for i in range(0, 100, 4)])


def test_explicit_bf16_is_honoured_on_cpu_and_fp16_refused(word_bert, rows):
    df = cd.assign_pairs(rows(4))
    cfg = ct.TrainConfig(
        encoding="bi", objective="quad+mse", batch_size=4, max_length=16, train_layers=1, device="cpu", precision="bf16"
    )
    model = ct.new_model(word_bert, cfg, seed=0, disk=False)
    hist = ct.fit(model, df, cfg, seed=0)
    assert hist["precision"] == "bf16 autocast (asked for)" and np.isfinite(hist["losses"]).all()
    with pytest.raises(ValueError, match="fp16"):
        ct.fit(
            ct.new_model(word_bert, cfg.with_(precision="fp16"), seed=0, disk=False),
            df,
            cfg.with_(precision="fp16"),
            seed=0,
        )


def test_gradient_accumulation_counts_updates(word_bert, rows):
    """6 pairs, 2 pairs per micro-batch -> 3 micro-batches; 2 per update -> 2 updates (2 + 1)."""
    df = cd.assign_pairs(rows(6))
    cfg = ct.TrainConfig(
        encoding="bi",
        objective="mse",
        batch_size=4,
        grad_accum=2,
        max_length=16,
        train_layers=1,
        device="cpu",
        precision="fp32",
    )
    hist = ct.fit(ct.new_model(word_bert, cfg, seed=0, disk=False), df, cfg, seed=0)
    assert (hist["n_micro_batches"], hist["n_steps"], len(hist["losses"])) == (3, 2, 3)


@pytest.mark.parametrize("progress, env, shown", [(True, None, True), (False, None, False), (True, "1", False)])
def test_fit_draws_its_bar_only_when_asked_and_allowed(word_bert, rows, capsys, monkeypatch, progress, env, shown):
    if env is None:
        monkeypatch.delenv("TQDM_DISABLE", raising=False)
    else:
        monkeypatch.setenv("TQDM_DISABLE", env)
    train = cd.assign_pairs(rows(2))
    cfg = ct.TrainConfig.preset("cpu", encoding="bi", objective="mse", epochs=1, batch_size=8, max_length=16)
    ct.fit(ct.new_model(word_bert, cfg, seed=0), train, cfg, seed=0, progress=progress)
    assert ("train bi/mse" in capsys.readouterr().err) is shown
