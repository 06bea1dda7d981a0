"""The frozen-layer store: memory and disk, one folder per setting, a broken chunk skipped."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from compsem.csts import frozen as F


def test_round_trip_through_disk(tmp_path):
    s = F.FrozenStore(tmp_path / "f")
    a, b = torch.arange(6.0).reshape(3, 2), torch.ones(1, 2)
    s.add([("x", None), ("y", "c")], [a, b])
    assert ("x", None) in s and s.missing([("x", None), ("z", None), ("z", None)]) == [("z", None)]
    back = F.FrozenStore(tmp_path / "f")  # a later run
    assert len(back) == 2 and back.n_read == 2
    assert torch.equal(back.get(("x", None)), a) and torch.equal(back.get(("y", "c")), b)


def test_float16_on_disk_for_bf16_states(tmp_path):
    s = F.FrozenStore(tmp_path / "h", disk_dtype="float16")
    s.add([("x", None)], [torch.tensor([[1.0, 1.0 / 3.0]])])
    arr = np.load(next((tmp_path / "h").glob("*.npy")))
    assert arr.dtype == np.float16
    got = F.FrozenStore(tmp_path / "h").get(("x", None))
    assert got[0, 0].item() == 1.0 and got[0, 1].item() == pytest.approx(1 / 3, abs=1e-3)
    # the run that computed the states sees the same rounded numbers as a later run reading them
    assert torch.equal(s.get(("x", None)), got)


def test_a_truncated_chunk_is_named_and_skipped(tmp_path):
    s = F.FrozenStore(tmp_path / "b")
    s.add([("x", None)], [torch.ones(2, 2)])
    npy = next((tmp_path / "b").glob("*.npy"))
    npy.write_bytes(npy.read_bytes()[:20])
    with pytest.warns(UserWarning, match=npy.stem):
        back = F.FrozenStore(tmp_path / "b")
        assert back.missing([("x", None)]) == [("x", None)]


def test_one_folder_per_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    a = F.store_folder("m@1", 64, 4, "fp32")
    assert a == F.store_folder("m@1", 64, 4, "fp32")
    assert len({a, F.store_folder("m@2", 64, 4, "fp32"), F.store_folder("m@1", 32, 4, "fp32"),
                F.store_folder("m@1", 64, 3, "fp32"), F.store_folder("m@1", 64, 4, "bfloat16")}) == 5
