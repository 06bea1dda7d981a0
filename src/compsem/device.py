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
``cpu_bf16_native()``   whether this CPU computes bf16 natively (AVX-512 BF16 or AMX)
``autocast_dtype(d, p)`` the autocast dtype for training precision ``p`` on ``d``, or None
``forced_precision()``  what ``$COMPSEM_PRECISION`` forces ``"auto"`` to (or None)
======================  ==============================================================

On a GPU, ``precision="auto"`` trains in fp32: on an H200, C-STS fine-tuning of ``sbert-mini``
at the book's ``cpu`` preset ran 1.4 to 5.4 times *slower* under bf16 autocast than in fp32
(``benchmarks/gpu.json``, written by ``benchmarks/gpu_check.py``; why was not profiled). ``"bf16"``
or ``"fp16"`` (the C-STS authors' ``--fp16``) are honoured when asked for.

``COMPSEM_PRECISION``: set to ``fp32`` (or ``bf16``) to make every ``precision="auto"`` of a
process — a whole book build, ``COMPSEM_PRECISION=fp32 make book`` — resolve to that precision,
e.g. to rebuild on a CPU with native bf16 the numbers of a CPU without it. Unset, empty or
``auto``: no forcing. Any other value is an error naming the accepted ones, never ignored. An
explicit ``precision="fp32"``/``"bf16"`` in a call is kept as asked.
"""

from __future__ import annotations

import hashlib
import os

from .settings import setting

__all__ = [
    "machine_key",
    "resolve_device",
    "torch_dtype",
    "DTYPES",
    "PRECISIONS",
    "gpu_count",
    "cpu_bf16_native",
    "autocast_dtype",
    "precision_note",
    "forced_precision",
    "PRECISION_ENV",
]

#: The precisions a reader may name.
DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
#: The training precisions a reader may name (``auto``: the fastest that keeps the numbers).
PRECISIONS: tuple[str, ...] = ("auto", "fp32", "bf16", "fp16")
_CPU_FLAGS = ("avx512_bf16", "amx_bf16")
#: the environment variable that forces what ``precision="auto"`` resolves to
PRECISION_ENV = "COMPSEM_PRECISION"
_FORCEABLE = ("fp32", "bf16")


def forced_precision(environ=None) -> str | None:
    """``"fp32"`` or ``"bf16"`` when ``$COMPSEM_PRECISION`` forces ``precision="auto"`` to it;
    None when it is unset, empty or ``auto``. Any other value raises a
    :class:`~compsem.errors.SettingError` (a :class:`CompsemError`) naming the accepted ones
    (read through :func:`compsem.settings.setting`, like every ``COMPSEM_*`` variable)."""
    value = setting(PRECISION_ENV, environ)
    return None if value == "auto" else value


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


def cpu_bf16_native(cpuinfo: str | None = None) -> bool:
    """Whether this CPU has native bf16 arithmetic (``avx512_bf16`` or ``amx_bf16`` among its
    flags, read from ``/proc/cpuinfo`` or given as ``cpuinfo``; torch's capability string
    ``AVX512_BF16``/``AMX`` counts too). False where neither can be read."""
    if cpuinfo is None:
        try:
            import torch

            cap = str(torch.backends.cpu.get_cpu_capability()).upper()
            if "BF16" in cap or "AMX" in cap:
                return True
        except (ImportError, AttributeError):  # pragma: no cover - old torch
            pass
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as f:
                cpuinfo = f.read()
        except OSError:  # not Linux
            return False
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[-1].split())
    return any(f in flags for f in _CPU_FLAGS)


def autocast_dtype(device: str, precision: str = "auto", *, bf16_native: bool | None = None):
    """The dtype for ``torch.autocast`` when training in ``precision`` on ``device``, or None
    (full fp32).

    ``auto``: fp32 on a GPU (measured faster there for the book's model, see the module's
    notes); bf16 on a CPU with native bf16 (:func:`cpu_bf16_native`), fp32 on other CPUs —
    unless ``$COMPSEM_PRECISION`` forces it
    (:func:`forced_precision`). ``bf16`` is honoured on any device (on a CPU
    without native bf16 it is emulated, slowly, but it is what was asked). ``fp16`` on a CPU is
    refused (torch's CPU fp16 autocast is no faster and loses range): a ``ValueError`` says so.
    """
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    on_gpu = str(device).startswith("cuda")
    if precision == "auto":
        precision = forced_precision() or "auto"
    if precision == "fp32":
        return None
    if precision == "bf16":
        return torch.bfloat16
    if precision == "fp16":
        if not on_gpu:
            raise ValueError(f"precision='fp16' is not offered on {device!r}: use 'bf16' (or 'auto') on a CPU")
        return torch.float16
    if on_gpu:
        return None
    if str(device) == "cpu" and (cpu_bf16_native() if bf16_native is None else bf16_native):
        return torch.bfloat16
    return None


def precision_note(device: str, precision: str = "auto") -> str:
    """In words, what :func:`autocast_dtype` chose, e.g. ``"bf16 autocast (CPU with native
    bf16)"`` or ``"fp32 (this CPU has no native bf16)"``."""
    dt = autocast_dtype(device, precision)
    name = {None: "fp32"}.get(dt) or str(dt).removeprefix("torch.").replace("bfloat16", "bf16").replace(
        "float16", "fp16"
    )
    on_gpu = str(device).startswith("cuda")
    forced = forced_precision() if precision == "auto" else None
    if forced:
        how = f"forced by {PRECISION_ENV}={forced}"
        return f"{name} ({how})" if dt is None else f"{name} autocast ({how})"
    if precision != "auto":
        return f"{name} (asked for)" if dt is None else f"{name} autocast (asked for)"
    if dt is None:
        return (
            "fp32 (GPU: faster than bf16 autocast for this model)" if on_gpu else "fp32 (this CPU has no native bf16)"
        )
    return f"{name} autocast ({'GPU' if on_gpu else 'CPU with native bf16'})"


def machine_key() -> str:
    """A short digest of what makes a speed comparison on this machine come out the
    same: the CPU's model name and flags, the core count, torch's threads and the versions of
    torch and onnxruntime."""
    import torch

    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            lines = f.read().splitlines()
        cpu = "|".join(sorted({ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(("model name", "flags"))}))
    except OSError:  # not Linux: the platform string stands in
        import platform

        cpu = platform.processor() or platform.machine()
    text = "\n".join(
        [cpu, str(os.cpu_count()), str(torch.get_num_threads()), _version("torch"), _version("onnxruntime")]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "none"
