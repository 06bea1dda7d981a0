"""Fixtures of Part II's tests: small C-STS frames and a tiny word-level BERT."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

WORDS = (
    "a the man woman dog cat red blue ball car runs sits on in park street colour of animal "
    "number people two one kind vehicle type place"
).split()


def make_rows(n_pairs: int = 4) -> pd.DataFrame:
    """``n_pairs`` sentence pairs, each a C-High row (label 4 or 5) then a C-Low row (1 or 2)."""
    rows = []
    for i in range(n_pairs):
        s1 = f"a man {WORDS[4 + i % 6]} in the park"
        s2 = f"a woman {WORDS[5 + i % 6]} on the street"
        rows.append((s1, s2, "the colour of the ball", 4.0 + (i % 2)))
        rows.append((s1, s2, "the number of people", 1.0 + (i % 2)))
    return pd.DataFrame(rows, columns=["sentence1", "sentence2", "condition", "label"])


@pytest.fixture()
def rows():
    return make_rows


@pytest.fixture(scope="session")
def word_bert(tmp_path_factory):
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
        tokenizer_object=tk,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    BertModel(cfg).save_pretrained(folder)
    return f"hf:{folder}"
