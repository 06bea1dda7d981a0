"""Shared fixtures: an isolated cache/results folder per test session, and tiny Hugging Face
models (an encoder and a decoder-only LM) built in-process with random weights."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WORDS = ["a", "the", "red", "blue", "car", "dog", "man", "plays", "guitar", "runs", "fast", "slow", "is", "big"]


@pytest.fixture(autouse=True, scope="session")
def _isolated_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("compsem")
    old = {k: os.environ.get(k) for k in ("COMPSEM_CACHE", "COMPSEM_RESULTS")}
    os.environ["COMPSEM_CACHE"] = str(base / "cache")
    os.environ["COMPSEM_RESULTS"] = str(base / "results")
    yield base
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def _word_tokenizer(folder: Path, specials: list[str], **special_map):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(specials + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=specials[0] if "[UNK]" not in specials else "[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, **special_map)
    fast.save_pretrained(folder)
    return len(vocab)


def build_tiny_bert(folder: Path, seed: int = 0) -> Path:
    """A 1-layer BERT with hidden size 16 and a word-level tokenizer, saved to ``folder``."""
    import torch
    from transformers import BertConfig, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    n = _word_tokenizer(folder, ["[PAD]", "[UNK]", "[CLS]", "[SEP]"], pad_token="[PAD]", unk_token="[UNK]",
                        cls_token="[CLS]", sep_token="[SEP]")
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=n, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    BertModel(cfg).eval().save_pretrained(folder)
    return folder


def build_tiny_gpt2(folder: Path, seed: int = 0) -> Path:
    """A 1-layer GPT-2 (decoder-only) with no pad token, saved to ``folder``."""
    import torch
    from transformers import GPT2Config, GPT2Model

    folder.mkdir(parents=True, exist_ok=True)
    n = _word_tokenizer(folder, ["<unk>", "<eos>"], unk_token="<unk>", eos_token="<eos>")
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=n, n_embd=16, n_layer=1, n_head=2, n_positions=64, eos_token_id=1, bos_token_id=1)
    GPT2Model(cfg).eval().save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny") / "gpt2")


@pytest.fixture
def repo_root() -> Path:
    return Path(__file__).resolve().parents[1]


def read_json(path: Path):
    return json.loads(Path(path).read_text())
