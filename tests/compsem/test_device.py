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


def test_autocast_dtype_honours_or_refuses_never_ignores(monkeypatch):
    import pytest
    import torch

    monkeypatch.delenv("COMPSEM_PRECISION", raising=False)

    from compsem.device import autocast_dtype, precision_note

    assert autocast_dtype("cpu", "auto", bf16_native=True) is torch.bfloat16
    assert autocast_dtype("cpu", "auto", bf16_native=False) is None
    assert autocast_dtype("cpu", "bf16") is torch.bfloat16  # asked for: honoured even without native bf16
    assert autocast_dtype("cpu", "fp32") is None
    with pytest.raises(ValueError, match="fp16"):
        autocast_dtype("cpu", "fp16")
    with pytest.raises(ValueError, match="precision"):
        autocast_dtype("cpu", "half")
    assert (
        precision_note("cpu", "bf16") == "bf16 autocast (asked for)"
        and precision_note("cpu", "fp32") == "fp32 (asked for)"
    )
    # a GPU trains in fp32 unless asked: bf16 autocast was measured slower there (benchmarks/gpu.json)
    assert autocast_dtype("cuda", "auto") is None and autocast_dtype("cuda:1", "auto") is None
    assert autocast_dtype("cuda", "bf16") is torch.bfloat16 and autocast_dtype("cuda", "fp16") is torch.float16
    assert precision_note("cuda", "auto") == "fp32 (GPU: faster than bf16 autocast for this model)"


def test_precision_environment_switch_forces_auto_only(monkeypatch):
    """COMPSEM_PRECISION=fp32 turns every precision="auto" into fp32 even on a CPU (or GPU) with
    native bf16; an explicit precision is kept; a wrong value is an error, never ignored."""
    import pytest
    import torch

    from compsem.device import autocast_dtype, forced_precision, precision_note
    from compsem.errors import CompsemError

    monkeypatch.setenv("COMPSEM_PRECISION", "fp32")
    assert forced_precision() == "fp32"
    assert autocast_dtype("cpu", "auto", bf16_native=True) is None
    assert autocast_dtype("cpu", "bf16") is torch.bfloat16
    assert precision_note("cpu", "auto") == "fp32 (forced by COMPSEM_PRECISION=fp32)"
    monkeypatch.setenv("COMPSEM_PRECISION", "bf16")
    assert autocast_dtype("cpu", "auto", bf16_native=False) is torch.bfloat16
    assert autocast_dtype("cpu", "fp32") is None
    assert precision_note("cpu", "auto") == "bf16 autocast (forced by COMPSEM_PRECISION=bf16)"
    for unset in ("", "auto", " auto "):
        monkeypatch.setenv("COMPSEM_PRECISION", unset)
        assert forced_precision() is None
        assert autocast_dtype("cpu", "auto", bf16_native=True) is torch.bfloat16
    for bad in ("FP32", "float32", "fp16", "yes"):
        monkeypatch.setenv("COMPSEM_PRECISION", bad)
        with pytest.raises(CompsemError, match="COMPSEM_PRECISION.*fp32, bf16"):
            autocast_dtype("cpu", "auto")
    assert forced_precision({}) is None and forced_precision({"COMPSEM_PRECISION": "fp32"}) == "fp32"
