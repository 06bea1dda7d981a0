"""One device/dtype helper."""

import pytest
import torch

from compsem.device import DTYPES, resolve_device, torch_dtype


def test_explicit_device_is_kept_and_default_follows_torch():
    assert resolve_device("cuda:1") == "cuda:1"
    assert resolve_device(None) == ("cuda" if torch.cuda.is_available() else "cpu")


def test_dtype_defaults_and_names():
    assert torch_dtype("cpu") is torch.float32
    for name in DTYPES:
        assert torch_dtype("cpu", name) is getattr(torch, name)
    assert torch_dtype("cpu", "torch.float16") is torch.float16
    with pytest.raises(ValueError, match="float32, bfloat16, float16"):
        torch_dtype("cpu", "int8")
