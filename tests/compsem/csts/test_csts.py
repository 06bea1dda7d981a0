"""Tests of Part II (C-STS): data loader, pairing, losses, encoders, training, prompting."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import torch

from compsem.csts import data as cd
from compsem.csts import metrics as cmet
from compsem.csts import models as cm
from compsem.csts import prompting as cp
from compsem.csts import training as ct
from compsem.errors import DataError

WORDS = (
    "a the man woman dog cat red blue ball car runs sits on in park street colour of animal "
    "number people two one kind vehicle type place"
).split()


# ---------------------------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------------------------
def _rows(n_pairs=4):
    rows = []
    for i in range(n_pairs):
        s1 = f"a man {WORDS[4 + i % 6]} in the park"
        s2 = f"a woman {WORDS[5 + i % 6]} on the street"
        rows.append((s1, s2, "the colour of the ball", 4.0 + (i % 2)))
        rows.append((s1, s2, "the number of people", 1.0 + (i % 2)))
    return pd.DataFrame(rows, columns=["sentence1", "sentence2", "condition", "label"])


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    """A randomly initialised 2-layer BERT and a word-level tokenizer, saved as an HF folder."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny_bert")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(WORDS)))}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]"
    )
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=64,
    )
    BertModel(cfg).save_pretrained(folder)
    return f"hf:{folder}"


@pytest.fixture()
def csv_file(tmp_path):
    def write(df, name="c.csv"):
        p = tmp_path / name
        df.to_csv(p, index=False)
        return p

    return write


def test_pair_batches_hold_both_rows():
    df = cd.assign_pairs(_rows(5))
    batches = ct.pair_batches(df, 4, np.random.default_rng(0))
    seen = []
    for hi, lo in batches:
        assert len(hi) == len(lo) <= 2
        assert (df["pair_id"].to_numpy()[hi] == df["pair_id"].to_numpy()[lo]).all()
        seen += list(hi) + list(lo)
    assert sorted(seen) == list(range(10))


# ---------------------------------------------------------------------------------------------
# losses and scaling
# ---------------------------------------------------------------------------------------------
def test_quad_loss_by_hand():
    # p1=(1,0), p2=(1,1)/√2 -> cos=0.7071; n1=(1,0), n2=(0,1) -> cos=0; λ=0.5
    #   pair 1: max(0, 0.5 + 0 - 0.7071) = 0
    # p1=(1,0), p2=(0,1) -> cos=0; n1=(1,0), n2=(1,0) -> cos=1
    #   pair 2: max(0, 0.5 + 1 - 0) = 1.5            mean = 0.75
    cos = torch.nn.functional.cosine_similarity
    p1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    p2 = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
    n1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    n2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    loss = ct.quad_loss(cos(p1, p2), cos(n1, n2), 0.5)
    assert loss.item() == pytest.approx(0.75, abs=1e-6)
    # with λ = 0.8 pair 1 gives 0.8 - 0.7071 = 0.0929
    assert ct.quad_loss(cos(p1, p2), cos(n1, n2), 0.8).item() == pytest.approx((0.8 - 1 / math.sqrt(2) + 1.8) / 2, abs=1e-6)


def test_objective_layout_and_mse():
    scores = torch.tensor([0.9, 0.2, 0.1, 0.5])  # highs [0.9, 0.2], lows [0.1, 0.5]
    targets = torch.tensor([1.0, 1.0, 0.0, 0.0])
    mse = ((0.1**2) + (0.8**2) + (0.1**2) + (0.5**2)) / 4
    quad = (max(0, 0.3 + 0.1 - 0.9) + max(0, 0.3 + 0.5 - 0.2)) / 2
    assert ct.objective_loss("mse", scores, targets, 2, 0.3).item() == pytest.approx(mse)
    assert ct.objective_loss("quad", scores, targets, 2, 0.3).item() == pytest.approx(quad)
    assert ct.objective_loss("quad+mse", scores, targets, 2, 0.3).item() == pytest.approx(quad + mse)


def test_label_scaler_from_training_range():
    s = ct.LabelScaler.fit([2.0, 3.0, 4.0])
    assert s.transform([2, 3, 4]).tolist() == [0.0, 0.5, 1.0]
    assert s.inverse([0.25]).tolist() == [2.5]
    with pytest.raises(ValueError, match="all training labels equal"):
        ct.LabelScaler.fit([3.0, 3.0])


def test_quad_rejected_for_cross_encoder():
    with pytest.raises(ValueError, match="bi- and tri-encoders only"):
        ct.TrainConfig(encoding="cross", objective="quad")


def test_correlations_x100_and_constant_is_nan():
    r = cmet.correlations([1, 2, 3, 5], [2, 4, 6, 8])
    assert r["spearman"] == pytest.approx(100.0)
    assert r["pearson"] == pytest.approx(100 * np.corrcoef([1, 2, 3, 5], [2, 4, 6, 8])[0, 1])
    with pytest.warns(UserWarning, match="constant"):
        assert np.isnan(cmet.correlations([1, 1, 1], [1, 2, 3])["spearman"])


# ---------------------------------------------------------------------------------------------
# encoders on a tiny BERT
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "encoding, pooling, tri_op",
    [
        ("cross", "cls", "hadamard"),
        ("cross", "cls_mlp", "hadamard"),
        ("cross", "mean", "hadamard"),
        ("bi", "mean", "hadamard"),
        ("bi", "cls", "hadamard"),
        ("tri", "mean", "hadamard"),
        ("tri", "cls_mlp", "concat"),
    ],
)
def test_forward_shapes(tiny_bert, encoding, pooling, tri_op):
    m = cm.build_model(tiny_bert, encoding=encoding, pooling=pooling, tri_op=tri_op, seed=0)
    df = _rows(3)
    out = m(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
    assert out.shape == (6,) and torch.isfinite(out).all()
    if encoding == "cross":
        assert ((out > 0) & (out < 1)).all()
    else:
        u1, u2 = m.embed_pair(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
        assert u1.shape == u2.shape == (6, 16)
        ref = torch.nn.functional.cosine_similarity(u1, u2, dim=-1)
        assert torch.allclose(out, ref, atol=1e-6)
        assert (out.abs() <= 1 + 1e-6).all()


def test_tri_encoder_matches_separate_encoding(tiny_bert):
    """Deduplicating shared texts must not change the tri-encoder's output."""
    m = cm.build_model(tiny_bert, encoding="tri", pooling="mean", tri_op="hadamard", seed=0).eval()
    df = _rows(2)
    with torch.no_grad():
        out = m(df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
        for i in range(len(df)):
            e = [m._encode([df[c].iloc[i]]) for c in ("sentence1", "sentence2", "condition")]
            ref = torch.nn.functional.cosine_similarity(e[2] * e[0], e[2] * e[1])
            assert out[i].item() == pytest.approx(ref.item(), abs=1e-5)


def test_condition_changes_bi_encoder_score(tiny_bert):
    m = cm.build_model(tiny_bert, encoding="bi", pooling="mean", seed=0).eval()
    with torch.no_grad():
        a = m(["a man runs"], ["a dog sits"], ["the colour of the animal"])
        b = m(["a man runs"], ["a dog sits"], ["the number of people"])
    assert a.item() != pytest.approx(b.item())


def test_freeze_lower_layers(tiny_bert):
    m = cm.build_model(tiny_bert, encoding="bi", seed=0)
    n_all = sum(p.numel() for p in m.backbone.parameters())
    n1 = m.freeze_lower(1)
    assert 0 < n1 < n_all
    assert not m.backbone.embeddings.word_embeddings.weight.requires_grad
    assert all(p.requires_grad for p in m.backbone.encoder.layer[1].parameters())
    assert not any(p.requires_grad for p in m.backbone.encoder.layer[0].parameters())


def test_backbone_copies_are_independent(tiny_bert):
    a, _ = cm.load_backbone(tiny_bert)
    b, _ = cm.load_backbone(tiny_bert)
    with torch.no_grad():
        a.embeddings.word_embeddings.weight.add_(1.0)
    assert not torch.equal(a.embeddings.word_embeddings.weight, b.embeddings.word_embeddings.weight)


@pytest.mark.parametrize("encoding, objective", [("bi", "quad+mse"), ("cross", "mse"), ("tri", "quad")])
def test_short_training_lowers_loss(tiny_bert, encoding, objective):
    train = cd.assign_pairs(_rows(4))
    cfg = ct.TrainConfig(encoding=encoding, objective=objective, lr=5e-3, epochs=8, batch_size=8, warmup_ratio=0.1)
    m = cm.build_model(tiny_bert, encoding=encoding, seed=0)
    hist = ct.fit(m, train, cfg, seed=0)
    assert hist["n_steps"] == 8 and len(hist["losses"]) == 8
    assert hist["epoch_loss"][-1] < hist["epoch_loss"][0]


def test_training_is_seeded(tiny_bert):
    train = cd.assign_pairs(_rows(4))
    cfg = ct.TrainConfig(encoding="bi", objective="mse", lr=1e-3, epochs=2, batch_size=4)
    r = [ct.train_and_evaluate(tiny_bert, train, {"train": train}, cfg, seed=3) for _ in range(2)]
    assert r[0]["train_spearman"] == r[1]["train_spearman"]
    assert r[0]["loss_last_epoch"] == r[1]["loss_last_epoch"]


def test_data_ablation_inputs(tiny_bert):
    with pytest.raises(ValueError, match="cross-encoder"):
        cm.build_model(tiny_bert, encoding="bi", input_mode="condition_only")
    m = cm.build_model(tiny_bert, encoding="cross", input_mode="condition_only", seed=0).eval()
    with torch.no_grad():
        a = m(["a man runs"], ["a dog sits"], ["the colour"])
        b = m(["a cat sits"], ["a car"], ["the colour"])
    assert a.item() == pytest.approx(b.item())  # sentences are ignored


# ---------------------------------------------------------------------------------------------
# prompting
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("4.0", 4.0),
        ("The answer is 2.0.", 2.0),
        (" 3 ", 3.0),
        ("Score: 5/5", 55.0),  # the literal rule keeps both digits
        ("0..0", None),
        ("no idea", None),
        ("", None),
        ("-1", 1.0),
    ],
)
def test_parser(text, expected):
    got = cp.parse_answer(text)
    if expected is None:
        assert math.isnan(got)
    else:
        assert got == expected


def test_invalid_answers_replaced_by_seeded_uniform():
    out = cp.parse_answers(["4.0", "blah", "2", "??"], seed=7)
    assert out["invalid"].tolist() == [False, True, False, True]
    assert out["invalid_rate"] == 50.0
    draws = np.random.default_rng(7).uniform(1, 5, size=2)
    assert out["pred"][[1, 3]].tolist() == pytest.approx(draws.tolist())
    assert out["pred"][[0, 2]].tolist() == [4.0, 2.0]


def test_prompt_structure():
    pool = cd.assign_pairs(_rows(4))
    ex = cp.pick_examples(pool, 4, seed=0)
    assert len(ex) == 4 and ex["pair_id"].iloc[0] == ex["pair_id"].iloc[1] and ex["pair_id"].iloc[2] == ex["pair_id"].iloc[3]
    assert (ex["label"].to_numpy()[::2] > ex["label"].to_numpy()[1::2]).all()
    q = {"sentence1": "s one", "sentence2": "s two", "condition": "the thing"}
    p0 = cp.build_prompt(q, instruction="none")
    assert p0.startswith("Input:") and p0.endswith("Output:") and "Condition: the thing" in p0
    p4 = cp.build_prompt(q, instruction="long", examples=ex)
    assert p4.startswith(cp.INSTRUCTIONS["long"]) and p4.count("Input:") == 5 and p4.count("Output:") == 5
    assert f"Output: {ex['label'].iloc[0]:.1f}" in p4
    ps = cp.build_prompt(q, instruction="short", examples=ex.iloc[:0])
    assert ps.count("Input:") == 1 and cp.INSTRUCTIONS["short"] in ps
    with pytest.raises(ValueError):
        cp.build_prompt(q, instruction="medium")


def test_run_prompting_with_fake_generator():
    df = cd.assign_pairs(_rows(4))
    seen = []

    def fake(prompts):  # answers the true label for C-High rows, junk for the others
        seen.extend(prompts)
        return [f"Answer: {lab:.1f}" if i % 2 == 0 else "hmm" for i, lab in enumerate(df["label"])]

    m, out = cp.run_prompting(df, df, fake, instruction="short", k=2, seed=1)
    assert m["invalid_rate"] == 50.0 and m["n"] == 8 and len(seen) == 8
    assert out["pred"].iloc[0] == df["label"].iloc[0]
    assert all(p.count("Input:") == 3 for p in seen)
    with pytest.raises(ValueError, match="returned"):
        cp.run_prompting(df, df, lambda ps: ["1"], k=0)


def test_openai_generator_payload(monkeypatch):
    captured = {}

    class Resp:
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def read(self):
            return json.dumps({"choices": [{"message": {"content": "3.0"}}]}).encode()

    def fake_urlopen(req, timeout):
        captured["url"] = req.full_url
        captured["body"] = json.loads(req.data)
        return Resp()

    monkeypatch.setattr(cp.urllib.request, "urlopen", fake_urlopen)
    g = cp.OpenAIGenerator("m1", base_url="http://localhost:9/v1", api_key="")
    assert g(["hello"]) == ["3.0"]
    assert captured["url"] == "http://localhost:9/v1/chat/completions"
    assert captured["body"]["max_tokens"] == 20 and captured["body"]["temperature"] == 0


def test_hf_causal_generator_caps_tokens(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<eos>", "<unk>", *sorted(set(WORDS)), "1", "2", "3", "Output:", "Input:"])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", unk_token="<unk>").save_pretrained(tmp_path)
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=128, n_embd=16, n_layer=1, n_head=2)).save_pretrained(tmp_path)
    g = cp.make_generator(f"hf:{tmp_path}")
    out = g(["a man runs Output:", "the dog Output:"])
    assert len(out) == 2
    assert all(len(o.split()) <= cp.MAX_NEW_TOKENS for o in out)
    assert not g.seq2seq


def test_pair_bootstrap_ci_brackets_the_estimate():
    rng = np.random.default_rng(0)
    gold = np.repeat([5.0, 1.0], 30) + rng.normal(0, 0.1, 60)
    pred = gold + rng.normal(0, 1.0, 60)
    pairs = np.concatenate([np.arange(30), np.arange(30)])
    lo, hi = ct.pair_bootstrap_ci(pred, gold, pairs, n_boot=500, seed=1)
    est = cmet.correlations(pred, gold)["spearman"]
    assert lo < est < hi and hi - lo < 40
    # slow oracle for one replicate: same draw, scipy's spearman
    from scipy.stats import spearmanr

    draw = np.random.default_rng(1).integers(0, 30, size=(500, 30))[0]
    uniq = np.unique(pairs.astype(str))
    rows = np.concatenate([np.flatnonzero(pairs.astype(str) == uniq[j]) for j in draw])
    reps = ct.pair_bootstrap_replicates(pred, gold, pairs, n_boot=500, seed=1)
    assert reps[0] == pytest.approx(100 * spearmanr(pred[rows], gold[rows]).statistic, abs=1e-9)


def test_reference_tables_load():
    t3 = ct.reference("table3_finetune")
    assert {"encoding", "model", "spearman_mean", "source"} <= set(t3.columns)
    assert t3.query("encoding == 'bi' and model == 'SimCSE-large'")["spearman_mean"].item() == 47.5
    with pytest.raises(DataError, match="available"):
        ct.reference("nope")


def test_hf_seq2seq_generator(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", *sorted(set(WORDS)), "1", "2", "Output:"])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="</s>", unk_token="<unk>", pad_token="<pad>").save_pretrained(tmp_path)
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=len(vocab), d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                   decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(cfg).save_pretrained(tmp_path)
    g = cp.HFGenerator(str(tmp_path), max_new_tokens=5)
    out = g(["a man runs Output:", "the dog Output:", "red car Output:"])
    assert g.seq2seq and len(out) == 3
    assert all(len(o.split()) <= 5 for o in out)


def test_zero_shot_textpair_is_cosine_of_pair_encodings(tiny_bert):
    from compsem.csts.training import zero_shot_textpair

    df = cd.assign_pairs(_rows(2))
    s = zero_shot_textpair(df, tiny_bert)
    m = cm.build_model(tiny_bert, encoding="bi", pooling="mean", seed=0).eval()
    with torch.no_grad():
        a = m._encode([df.sentence1.iloc[0]], [df.condition.iloc[0]])
        b = m._encode([df.sentence2.iloc[0]], [df.condition.iloc[0]])
    assert s.shape == (4,)
    assert s[0] == pytest.approx(torch.nn.functional.cosine_similarity(a, b).item(), abs=1e-5)


def test_pair_accuracy_by_hand():
    from compsem.csts.zeroshot import pair_accuracy

    df = cd.assign_pairs(_rows(3))  # rows: (high, low) x 3 pairs in file order
    assert pair_accuracy([0.9, 0.1, 0.5, 0.5, 0.2, 0.8], df) == pytest.approx(100 * (1 + 0.5 + 0) / 3)
