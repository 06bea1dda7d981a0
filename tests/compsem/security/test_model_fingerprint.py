"""Finding 8: a local model's fingerprint covers every file of its folder, code included, so an
edited model is a new identity and the cache never serves the vectors of the old code."""

import shutil

import numpy as np

from compsem.cache import EmbeddingCache, embed, last_stats
from compsem.encoders import weights_digest
from compsem.encoders.neural import HFMeanPoolingEncoder


def test_editing_any_file_of_a_model_folder_changes_its_digest(tmp_path):
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    files = {
        "modeling_custom.py": "SCALE = 1\n",
        "sub/helper.py": "x = 1\n",
        "config.json": "{}",
        "tokenizer.json": "{}",
        "weights.safetensors": "w",
        "preprocess.cfg": "a=1",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    before = weights_digest(folder)
    for name, text in files.items():
        (folder / name).write_text(text + "\n# edited\n")
        assert weights_digest(folder) != before, f"an edit of {name} left the digest unchanged"
        (folder / name).write_text(text)
        assert weights_digest(folder) == before
    for name in ("README.md", ".gitattributes", "README_modeling.py"):  # issue 37: every file counts
        (folder / name).write_text("notes")
        assert weights_digest(folder) != before, f"{name} does not count"
        before = weights_digest(folder)


def test_an_edited_model_code_file_is_a_cache_miss(tiny_bert, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(tiny_bert, folder)
    (folder / "modeling_custom.py").write_text("SCALE = 1\n")
    store = EmbeddingCache(tmp_path / "e.sqlite")
    texts = ["the red cat"]
    first = HFMeanPoolingEncoder(str(folder), spec=f"hf:{folder}")
    X = embed(texts, first, cache=store)
    (folder / "modeling_custom.py").write_text("SCALE = 10\n")
    second = HFMeanPoolingEncoder(str(folder), spec=f"hf:{folder}")
    assert second.identity != first.identity
    Y = embed(texts, second, cache=store)
    assert last_stats().n_cached == 0 and last_stats().n_encoded == 1  # encoded again, not served from the cache
    assert np.allclose(X, Y)  # (this code file is not used by BERT)
