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


def test_cpu_bf16_native_reads_the_flags():
    from compsem.device import cpu_bf16_native

    assert cpu_bf16_native("processor: 0\nflags\t\t: fpu sse avx512f avx512_bf16 amx_tile\n")
    assert cpu_bf16_native("flags : fpu amx_bf16\n")
    assert not cpu_bf16_native("flags : fpu sse avx2 avx512f\n") and not cpu_bf16_native("")


def test_autocast_dtype_honours_or_refuses_never_ignores():
    import pytest
    import torch

    from compsem.device import autocast_dtype, precision_note

    assert autocast_dtype("cpu", "auto", bf16_native=True) is torch.bfloat16
    assert autocast_dtype("cpu", "auto", bf16_native=False) is None
    assert autocast_dtype("cpu", "bf16") is torch.bfloat16  # asked for: honoured even without native bf16
    assert autocast_dtype("cpu", "fp32") is None
    with pytest.raises(ValueError, match="fp16"):
        autocast_dtype("cpu", "fp16")
    with pytest.raises(ValueError, match="precision"):
        autocast_dtype("cpu", "half")
    assert precision_note("cpu", "bf16") == "bf16 autocast (asked for)" and precision_note("cpu", "fp32") == "fp32 (asked for)"
