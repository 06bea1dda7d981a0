"""TrainConfig, the presets and the paper's Table 8 choice (torch-free)."""

from __future__ import annotations

import pytest

from compsem.csts import config as C


def test_official_follows_run_sts_sh_and_cpu_is_the_default():
    off = C.TrainConfig.preset("official")
    # run_sts.sh at 3bacafa: --per_device_train_batch_size 8 --gradient_accumulation_steps 4, TRANSFORM=False, lr 1e-5, wd 0.1
    assert (off.batch_size, off.grad_accum, off.transform, off.lr, off.weight_decay) == (8, 4, False, 1e-5, 0.1)
    assert C.TrainConfig.preset("cpu") == C.TrainConfig() and C.TrainConfig().precision == "auto"


def test_table8_choice_by_hand():
    # Table 8: SimCSE-large bi lr 1e-5, wd 0.1, no transform; RoBERTa-base cross with the transform
    got = C.table8_choice("princeton-nlp/sup-simcse-roberta-large", "bi")
    assert (got["model"], got["lr"], got["weight_decay"], got["transform"]) == ("SimCSE-large", 1e-5, 0.1, False)
    assert C.table8_choice("hf:FacebookAI/roberta-base#pool=cls", "cross")["transform"] is True
    with pytest.raises(ValueError, match="official"):
        C.TrainConfig.preset("cpu", paper_table8=True, encoder="roberta-base")


def test_bad_fields_are_refused():
    with pytest.raises(ValueError, match="precision"):
        C.TrainConfig(precision="fp8")
    with pytest.raises(ValueError, match="grad_accum"):
        C.TrainConfig(grad_accum=0)


def test_dropout_draw_per_preset_reaches_the_model(word_bert):
    from compsem.csts import training as T

    assert C.TrainConfig.preset("cpu").dropout_draw == "one" == C.TrainConfig().dropout_draw
    assert C.TrainConfig.preset("official").dropout_draw == "torch"
    with pytest.raises(ValueError, match="dropout_draw must be one of"):
        C.TrainConfig(dropout_draw="numpy")
    for draw in C.DROPOUT_DRAWS:
        cfg = C.TrainConfig(encoding="bi", max_length=16, dropout_draw=draw)
        assert T.new_model(word_bert, cfg, seed=0, disk=False).dropout_draw == draw
