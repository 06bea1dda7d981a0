"""One place that decides where models run and in which precision.

Every model-loading path (sentence encoders, C-STS training, text generators, NLI scorers)
asks :func:`resolve_device` and :func:`torch_dtype` instead of probing ``torch.cuda`` itself,
so a reader's ``device="cuda:1"`` or ``dtype="float16"`` means the same everywhere.

======================  ==============================================================
call                    answer
======================  ==============================================================
``resolve_device()``    ``"cuda"`` when a GPU is visible, else ``"cpu"``
``resolve_device(d)``   ``d`` unchanged (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``)
``torch_dtype(dev)``    bf16 on a GPU that supports it, fp16 on other GPUs, fp32 on CPU
``torch_dtype(dev, n)`` the named dtype (``"float32"``, ``"bfloat16"``, ``"float16"``)
======================  ==============================================================
"""

from __future__ import annotations

__all__ = ["resolve_device", "torch_dtype", "DTYPES", "gpu_count"]

#: The precisions a reader may name.
DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")


def resolve_device(device: str | None = None) -> str:
    """``device`` when given, else ``"cuda"`` if torch sees a GPU, else ``"cpu"``."""
    if device:
        return str(device)
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def gpu_count() -> int:
    """Number of CUDA devices torch can see (0 without torch or GPU)."""
    try:
        import torch
    except ImportError:  # pragma: no cover
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def torch_dtype(device: str, dtype: str | None = None):
    """The torch dtype for weights on ``device``.

    Parameters
    ----------
    device : str
        A device string as returned by :func:`resolve_device`.
    dtype : {"float32", "bfloat16", "float16"}, optional
        Force a precision; by default bf16 on a GPU with bf16 support, fp16 on other GPUs,
        fp32 elsewhere.

    Raises
    ------
    ValueError
        ``dtype`` is not one of :data:`DTYPES`.
    """
    import torch

    if dtype is not None:
        name = str(dtype).removeprefix("torch.")
        if name not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}; got {dtype!r}")
        return getattr(torch, name)
    if str(device).startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32
