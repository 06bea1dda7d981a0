"""Issue 37, finding 4: what ONNX Runtime files on disk say is checked, not trusted
(compsem.encoders.onnxtrust). An export edited in the cache, with its record's checksum updated
to match and a stored choice of ONNX Runtime beside it, is caught by the probe against torch and
made again; a stored choice that is malformed or made for another identity is measured again,
with one warning; a verified export is probed once per machine, not at every load."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from compsem.data import file_sha256
from compsem.encoders import SentenceTransformerEncoder
from compsem.encoders import onnx as ob
from compsem.errors import CacheWarning

try:  # new in issue 37; imported this way so that the first test also runs (and fails) on 467c50a
    from compsem.encoders import onnxtrust
except ImportError:  # pragma: no cover - only on the code before the fix
    onnxtrust = None


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A cache and overlay of this test's own, and a process that has written no export yet."""
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    if onnxtrust is not None:
        monkeypatch.setattr(onnxtrust, "_SEEN", set())
    return tmp_path


def _enc(tiny_st):
    return SentenceTransformerEncoder(str(tiny_st), spec="st:tiny", device="cpu", backend="onnx")


def _scale_weights(path, factor):
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    for init in model.graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype == np.float32 and arr.ndim == 2:
            init.CopyFrom(numpy_helper.from_array(arr * np.float32(factor), init.name))
    onnx.save(model, str(path))


def test_an_edited_export_with_a_matching_record_is_probed_and_made_again(tiny_st, fresh, monkeypatch):
    texts = ["a red car", "the dog runs fast", "a big blue man plays guitar"]
    first = _enc(tiny_st)
    torch_vectors = first.backend._torch(texts, 8)
    first.backend.encode_onnx(texts)
    path = first.backend.path
    _scale_weights(path, 1.02)  # 2 % off, then the record made to match
    meta = json.loads(path.with_name("export.json").read_text())
    path.with_name("export.json").write_text(json.dumps({**meta, "sha256": file_sha256(path)}))
    decision = first.backend._decision_file()
    decision.write_text(
        json.dumps({"backend": "onnxruntime fp32", "identity": first.identity, "max_abs": 0.0, "speedup": 2.0})
    )
    if onnxtrust is not None:
        monkeypatch.setattr(onnxtrust, "_SEEN", set())  # a later process
    again = _enc(tiny_st)
    again.backend.mode = "auto"
    with pytest.warns(UserWarning, match="not written or verified by you on this machine and differs from torch"):
        got = again.backend.encode_onnx(texts)
    assert np.abs(got - torch_vectors).max() <= ob.TOLERANCE
    assert onnxtrust.trusted(file_sha256(again.backend.path))


def test_a_verified_export_is_probed_once_per_machine(tiny_st, fresh, monkeypatch):
    _enc(tiny_st).backend.encode_onnx(["a red car"])  # written by this process: trusted
    monkeypatch.setattr(onnxtrust, "_SEEN", set())
    calls = []
    real = onnxtrust.probe_difference
    monkeypatch.setattr(onnxtrust, "probe_difference", lambda *a: calls.append(1) or real(*a))
    for _ in range(2):
        _enc(tiny_st).backend.encode_onnx(["a red car"])
    assert calls == []  # the user's own list vouches for it
    (fresh / "overlay" / "onnx").joinpath(next(p.name for p in (fresh / "overlay" / "onnx").iterdir())).unlink()
    monkeypatch.setattr(onnxtrust, "_SEEN", set())
    _enc(tiny_st).backend.encode_onnx(["a red car"])  # forgotten: probed (and equal), then listed
    _enc(tiny_st).backend.encode_onnx(["a red car"])
    assert calls == [1]


@pytest.mark.parametrize(
    "stored",
    [
        [1],
        {"backend": "onnxruntime fp32"},
        {"backend": "gpu", "identity": "ID"},
        {"backend": "onnxruntime fp32", "identity": "ID", "max_abs": 0.002},
        "null",
    ],
)
def test_a_malformed_or_foreign_choice_is_measured_again(tiny_st, fresh, monkeypatch, stored):
    enc = _enc(tiny_st)
    enc.backend.mode = "auto"
    path = enc.backend._decision_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(stored, dict) and stored.get("identity") == "ID":
        stored = {**stored, "identity": enc.identity}
    path.write_text(json.dumps(stored))
    monkeypatch.setattr(enc.backend, "check", lambda texts, batch_size=32: {"max_abs": 0.0, "speedup": 0.5})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = enc.backend.decide(["a red car"] * ob.MIN_TEXTS)
    ours = [w for w in seen if issubclass(w.category, CacheWarning)]
    assert len(ours) == 1 and str(path) in str(ours[0].message)
    assert got["backend"] == "torch" and got["reason"] == "not measured faster"  # measured, not read
    assert onnxtrust.read_decision(path, enc.identity)["backend"] == "torch"  # and stored afresh


def test_read_decision_names_the_file():
    with pytest.raises(FileNotFoundError):
        onnxtrust.read_decision(onnxtrust.Path("/nonexistent/decision.json"), "ID")
