"""Tiny, randomly initialised Hugging Face models built in-process, for tests and benchmarks.

Nothing is downloaded: a word-level tokenizer is written from a word list, and a model of a
few thousand parameters is saved beside it, so every loading path (``AutoModel``, the
classifiers, the generators, the encoders' ``hf:`` spec) can be exercised offline. This is the
one place that builds them; ``tests/conftest.py`` exposes the common ones as session fixtures
and ``benchmarks/`` imports it for the timing of the NLI path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["WORDS", "word_tokenizer", "tiny_bert", "tiny_gpt2", "tiny_gpt2_lm", "tiny_t5", "tiny_bert_classifier"]

#: The default vocabulary of the tiny models (whitespace tokens).
WORDS: tuple[str, ...] = (
    "a",
    "the",
    "red",
    "blue",
    "car",
    "dog",
    "man",
    "plays",
    "guitar",
    "runs",
    "fast",
    "slow",
    "is",
    "big",
)
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")


def word_tokenizer(
    words: Iterable[str],
    *,
    specials: Iterable[str] = BERT_SPECIALS,
    lowercase: bool = False,
    bert_template: bool = True,
    **special_map,
):
    """A fast tokenizer over ``words`` (whitespace pre-tokenised; unknown words to the first
    special token, or ``[UNK]``). With ``bert_template`` single texts read ``[CLS] a [SEP]`` and
    pairs ``[CLS] a [SEP] b [SEP]``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = list(specials)
    vocab = {t: k for k, t in enumerate([*specials, *dict.fromkeys(w for w in words if w not in specials)])}
    unk = "[UNK]" if "[UNK]" in vocab else specials[0]
    tk = Tokenizer(models.WordLevel(vocab, unk_token=unk))
    if lowercase:
        tk.normalizer = normalizers.Lowercase()
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    if bert_template:
        tk.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
        )
        special_map = {
            "unk_token": "[UNK]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "sep_token": "[SEP]",
            **special_map,
        }
    return PreTrainedTokenizerFast(tokenizer_object=tk, **special_map)


def tiny_bert(
    folder: str | Path, *, words: Iterable[str] = WORDS, seed: int = 0, hidden: int = 16, layers: int = 1
) -> Path:
    """A BERT encoder (``BertModel``) with a word-level tokenizer, saved to ``folder``."""
    import torch
    from transformers import BertConfig, BertModel

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = word_tokenizer(words)
    tok.save_pretrained(folder)
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(tok.get_vocab()),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=64,
    )
    BertModel(cfg).eval().save_pretrained(folder)
    return folder


def _gpt2(folder: str | Path, cls_name: str, words: Iterable[str], seed: int) -> Path:
    import torch
    import transformers

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = word_tokenizer(words, specials=("<unk>", "<eos>"), bert_template=False, unk_token="<unk>", eos_token="<eos>")
    tok.save_pretrained(folder)
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(
        vocab_size=len(tok.get_vocab()), n_embd=16, n_layer=1, n_head=2, n_positions=128, eos_token_id=1, bos_token_id=1
    )
    getattr(transformers, cls_name)(cfg).eval().save_pretrained(folder)
    return folder


def tiny_gpt2(folder: str | Path, *, words: Iterable[str] = WORDS, seed: int = 0) -> Path:
    """A decoder-only GPT-2 body (``GPT2Model``, no pad token), saved to ``folder``."""
    return _gpt2(folder, "GPT2Model", words, seed)


def tiny_gpt2_lm(folder: str | Path, *, words: Iterable[str] = WORDS, seed: int = 0) -> Path:
    """A causal LM (``GPT2LMHeadModel``, no pad token) for the generators, saved to ``folder``."""
    return _gpt2(folder, "GPT2LMHeadModel", words, seed)


def tiny_t5(folder: str | Path, *, words: Iterable[str] = WORDS, seed: int = 0) -> Path:
    """A seq2seq model (``T5ForConditionalGeneration``) for the generators, saved to ``folder``."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = word_tokenizer(
        words,
        specials=("<pad>", "</s>", "<unk>"),
        bert_template=False,
        unk_token="<unk>",
        eos_token="</s>",
        pad_token="<pad>",
    )
    tok.save_pretrained(folder)
    torch.manual_seed(seed)
    cfg = T5Config(
        vocab_size=len(tok.get_vocab()),
        d_model=16,
        d_kv=8,
        d_ff=32,
        num_layers=1,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    T5ForConditionalGeneration(cfg).eval().save_pretrained(folder)
    return folder


def tiny_bert_classifier(
    path: str | Path,
    words: Iterable[str],
    id2label: Mapping[int, str],
    *,
    seed: int = 0,
    hidden: int = 16,
    layers: int = 2,
    lowercase: bool = False,
    initializer_range: float = 0.02,
) -> Path:
    """Save a random ``BertForSequenceClassification`` with labels ``id2label`` and its tokenizer to ``path``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    path = Path(path)
    tok = word_tokenizer(words, lowercase=lowercase)
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(tok.get_vocab()),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=128,
        initializer_range=initializer_range,
        num_labels=len(id2label),
        id2label=dict(id2label),
        label2id={v: k for k, v in id2label.items()},
    )
    BertForSequenceClassification(cfg).eval().save_pretrained(path)
    tok.save_pretrained(path)
    return path
