"""Fixtures shared by the encoder tests."""

import pytest


@pytest.fixture(scope="module")
def tiny_st(tiny_bert, tmp_path_factory):
    """A sentence-transformers folder around the tiny BERT (mean pooling, normalised)."""
    from sentence_transformers import SentenceTransformer, models

    body = models.Transformer(str(tiny_bert), max_seq_length=32)
    folder = tmp_path_factory.mktemp("tiny_st") / "st"
    SentenceTransformer(modules=[body, models.Pooling(16, "mean"), models.Normalize()], device="cpu").save(str(folder))
    return folder
