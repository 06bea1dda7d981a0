"""Shared fixtures: an isolated cache/results/overlay folder per test session, and tiny Hugging Face
models built in-process with random weights (the builders live in :mod:`tests.helpers.tiny`).

Tests marked ``slow`` (a notebook or a real model end to end) are off in ``make test`` and
run by ``make test-all``."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.helpers import tiny

# hypothesis (tests/compsem/fuzz/) keeps its files (a Unicode table; no example database: the
# profiles say database=None) in a fresh folder of this session, never in the repository
_HYPOTHESIS_DIR = tempfile.mkdtemp(prefix="compsem-hypothesis-")
atexit.register(shutil.rmtree, _HYPOTHESIS_DIR, ignore_errors=True)
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _HYPOTHESIS_DIR

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True, scope="session")
def _isolated_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("compsem")
    old = {k: os.environ.get(k) for k in ("COMPSEM_CACHE", "COMPSEM_RESULTS", "COMPSEM_CACHE_OVERLAY")}
    os.environ["COMPSEM_CACHE"] = str(base / "cache")
    os.environ["COMPSEM_RESULTS"] = str(base / "results")
    os.environ["COMPSEM_CACHE_OVERLAY"] = str(base / "overlay")  # never the reader's own ~/.cache
    yield base
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A 1-layer BERT encoder (hidden size 16) with a word-level tokenizer."""
    return tiny.tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory) -> Path:
    """A 1-layer GPT-2 body (decoder-only, no pad token)."""
    return tiny.tiny_gpt2(tmp_path_factory.mktemp("tiny") / "gpt2")


@pytest.fixture(scope="session")
def tiny_gpt2_lm(tmp_path_factory) -> Path:
    """A 1-layer GPT-2 causal LM for the generators."""
    return tiny.tiny_gpt2_lm(tmp_path_factory.mktemp("tiny") / "gpt2_lm")


@pytest.fixture(scope="session")
def tiny_t5(tmp_path_factory) -> Path:
    """A 1-layer T5 seq2seq model for the generators."""
    return tiny.tiny_t5(tmp_path_factory.mktemp("tiny") / "t5")


@pytest.fixture
def repo_root() -> Path:
    return Path(__file__).resolve().parents[1]


def read_json(path: Path):
    return json.loads(Path(path).read_text())
