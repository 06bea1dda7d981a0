"""Tiny, randomly initialised Hugging Face models built in-process, for tests and benchmarks.

Nothing is downloaded: a word-level tokenizer is written from a word list, and a model of a
few thousand parameters is saved beside it, so every loading path (``AutoModel``,
``AutoModelForSequenceClassification``, the encoders' ``hf:`` spec) can be exercised offline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["word_tokenizer", "tiny_bert_classifier"]

BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")


def word_tokenizer(words: Iterable[str], *, lowercase: bool = False):
    """A BERT-style fast tokenizer over ``words`` (whitespace pre-tokenised, ``[CLS] a [SEP] b [SEP]``
    for pairs, unknown words to ``[UNK]``)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {t: k for k, t in enumerate([*BERT_SPECIALS, *dict.fromkeys(w for w in words if w not in BERT_SPECIALS)])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    if lowercase:
        tk.normalizer = normalizers.Lowercase()
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]")


def tiny_bert_classifier(path: str | Path, words: Iterable[str], id2label: Mapping[int, str], *, seed: int = 0,
                         hidden: int = 16, layers: int = 2, lowercase: bool = False,
                         initializer_range: float = 0.02) -> Path:
    """Save a random ``BertForSequenceClassification`` with labels ``id2label`` and its tokenizer to ``path``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    path = Path(path)
    tok = word_tokenizer(words, lowercase=lowercase)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(tok.get_vocab()), hidden_size=hidden, num_hidden_layers=layers,
                     num_attention_heads=2, intermediate_size=2 * hidden, max_position_embeddings=128,
                     initializer_range=initializer_range, num_labels=len(id2label), id2label=dict(id2label),
                     label2id={v: k for k, v in id2label.items()})
    BertForSequenceClassification(cfg).eval().save_pretrained(path)
    tok.save_pretrained(path)
    return path
