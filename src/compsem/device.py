"""One place that decides where models run and in which precision.

Every model-loading path (sentence encoders, C-STS training, text generators, NLI scorers)
asks :func:`resolve_device` and :func:`torch_dtype` instead of probing ``torch.cuda`` itself,
so a reader's ``device="cuda:1"`` or ``dtype="float16"`` means the same everywhere.

======================  ==============================================================
call                    answer
======================  ==============================================================
``resolve_device()``    ``$COMPSEM_DEVICE`` when it names one, else ``"cuda"`` when a GPU is visible, else ``"cpu"``
``resolve_device(d)``   ``d`` unchanged (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``)
``torch_dtype(dev)``    bf16 on a GPU that supports it, fp16 on other GPUs, fp32 on CPU
``torch_dtype(dev, n)`` the named dtype (``"float32"``, ``"bfloat16"``, ``"float16"``)
``cpu_bf16_native()``   whether this CPU's flags claim bf16 (AVX-512 BF16 or AMX): a hint only
``autocast_dtype(d, p)`` the autocast dtype for training precision ``p`` on ``d``, or None
``forced_precision()``  what ``$COMPSEM_PRECISION`` forces ``"auto"`` to (or None)
``cpu_precision()``     the measured choice of ``"auto"`` on this CPU (:func:`probe_precisions`)
======================  ==============================================================

**On a CPU, ``precision="auto"`` is measured, not read from a flag.** A CPU flag says that bf16
instructions exist, not that they are fast: an Intel Xeon with ``avx512_bf16`` ran a bf16 matrix
product at about half its fp32 rate (issue 46). So the first ``"auto"`` of a process times the
training shapes of the book's model (:data:`PROBE_SHAPE`: a feed-forward block's forward and
backward, under autocast) in fp32 and bf16, and in fp16 where the CPU has ``avx512_fp16``, a few
interleaved rounds, well under a second (:func:`probe_precisions`), and :func:`choose_precision`
picks bf16 only where it ran at least :data:`MIN_GAIN` times the fp32 rate. fp16 is timed and
shown but never chosen: no measurement of its scores against fp32 has been made
(:data:`FP16_SCORES_MEASURED`). The outcome is kept per machine (:func:`machine_key`: CPU model,
family and flags, cores, torch's threads and version) as JSON in this user's private overlay
(:func:`compsem.store.private_folder`), never in a shared cache; a file there that another user
owns, that others may write, or whose content is not exactly what the probe writes, is ignored
with one warning and measured again (:func:`read_choice`). The run record's ``precision_used``
says why (:func:`precision_note`, e.g. ``"fp32 (bf16 measured 0.55× fp32 here)"``).

Encoding does not depend on it: sentence encoders run fp32 on a CPU (their torch-or-ONNX backend
is measured once per machine by :mod:`compsem.encoders.onnx`, under the same :func:`machine_key`),
and the frozen layers' states of C-STS training are filled in the precision the training uses.

On a GPU, ``precision="auto"`` trains in fp32: on an H200, C-STS fine-tuning of ``sbert-mini``
at the book's ``cpu`` preset ran 1.4 to 5.4 times *slower* under bf16 autocast than in fp32
(``benchmarks/gpu.json``, written by ``benchmarks/gpu_check.py``; why was not profiled). ``"bf16"``
or ``"fp16"`` (the C-STS authors' ``--fp16``) are honoured when asked for.

``COMPSEM_PRECISION``: set to ``fp32`` (or ``bf16``) to make every ``precision="auto"`` of a
process — a whole book build, ``COMPSEM_PRECISION=fp32 make book`` — resolve to that precision
without a probe, e.g. to rebuild on a machine that chose bf16 the numbers of one that chose fp32. Unset, empty or
``auto``: no forcing. Any other value is an error naming the accepted ones, never ignored. An
explicit ``precision="fp32"``/``"bf16"`` in a call is kept as asked.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import time
import warnings
from pathlib import Path

from .errors import CacheWarning, CompsemError, UnsafeFolderError
from .settings import setting

__all__ = [
    "machine_key",
    "machine_fields",
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
    "PROBE_SHAPE",
    "MIN_GAIN",
    "FP16_SCORES_MEASURED",
    "probe_precisions",
    "choose_precision",
    "cpu_precision",
    "read_choice",
    "choice_file",
    "ChoiceError",
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
    """``device`` when given, else ``$COMPSEM_DEVICE`` when it names one, else ``"cuda"`` if torch
    sees a GPU, else ``"cpu"``."""
    if device:
        return str(device)
    forced = setting("COMPSEM_DEVICE")
    if forced != "auto":
        return forced
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


def _cpuinfo() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:  # not Linux
        return ""


def _flags(cpuinfo: str) -> set[str]:
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[-1].split())
    return flags


def cpu_bf16_native(cpuinfo: str | None = None) -> bool:
    """Whether this CPU's flags claim bf16 arithmetic (``avx512_bf16`` or ``amx_bf16`` among its
    flags, read from ``/proc/cpuinfo`` or given as ``cpuinfo``; torch's capability string
    ``AVX512_BF16``/``AMX`` counts too). False where neither can be read. A claim, not a speed:
    ``precision="auto"`` never decides from it (:func:`cpu_precision` measures)."""
    if cpuinfo is None:
        try:
            import torch

            cap = str(torch.backends.cpu.get_cpu_capability()).upper()
            if "BF16" in cap or "AMX" in cap:
                return True
        except (ImportError, AttributeError):  # pragma: no cover - old torch
            pass
        cpuinfo = _cpuinfo()
    return any(f in _flags(cpuinfo) for f in _CPU_FLAGS)


# ---------------------------------------------------------------------------------------------
# the precision probe
# ---------------------------------------------------------------------------------------------
#: (tokens, hidden, intermediate) of the probe: ``sbert-mini``'s hidden and feed-forward sizes, on
#: about half the packed tokens of one training batch of the ``cpu`` preset (16 rows, about 768
#: tokens), so that many rounds fit the budget (the smallest of many timings is the one least
#: moved by other work on the machine)
PROBE_SHAPE = (384, 384, 1536)
#: a precision other than fp32 is chosen only where the probe ran it at least this many times the
#: fp32 rate (fp32 is the reference precision; a smaller gain is within a loaded machine's noise)
MIN_GAIN = 1.10
#: whether fp16 training on a CPU has been measured to keep the scores within noise of fp32; until
#: it has (a ``make bench`` comparison like bf16's), fp16 is timed where the CPU has ``avx512_fp16``
#: and shown, but never chosen
FP16_SCORES_MEASURED = False
#: the probe's rounds (each precision once per round, interleaved) and its time budget in seconds
PROBE_ROUNDS, PROBE_BUDGET_S, PROBE_MIN_ROUNDS = 20, 0.5, 3
_PROBE_VERSION = 1
_CHOICES = ("fp32", "bf16")


class ChoiceError(CompsemError):
    """A stored precision choice that is not exactly what :func:`cpu_precision` writes."""


def probe_candidates(flags: set[str] | None = None) -> tuple[str, ...]:
    """The precisions the probe times on a CPU with ``flags``: fp32 and bf16 always (an emulated
    bf16 is timed like a native one), fp16 only where the CPU has ``avx512_fp16``."""
    flags = _flags(_cpuinfo()) if flags is None else set(flags)
    return ("fp32", "bf16", "fp16") if "avx512_fp16" in flags else ("fp32", "bf16")


def _block_step(shape=PROBE_SHAPE):
    """``step(precision) -> seconds``: one forward and backward of a feed-forward block (Linear,
    GELU, Linear) of ``shape`` under that precision's CPU autocast, timed."""
    import torch

    tokens, hidden, inner = shape
    gen = torch.Generator().manual_seed(0)
    # the layers' initialisation draws from torch's global generator: fork it, so that a probe taken
    # inside a seeded run leaves that run's random stream (dropout, shuffling) as it was
    with torch.random.fork_rng(devices=[]):
        net = torch.nn.Sequential(torch.nn.Linear(hidden, inner), torch.nn.GELU(), torch.nn.Linear(inner, hidden))
    x = torch.randn(tokens, hidden, generator=gen)
    dtypes = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}

    def step(precision: str) -> float:
        dt = dtypes[precision]
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=dt or torch.float32, enabled=dt is not None):
            y = net(x)
        y.float().sum().backward()
        return time.perf_counter() - t0

    return step


def probe_flop(shape=PROBE_SHAPE) -> float:
    """Floating-point operations of one probe step: the two products' ``2·t·h·i`` each, forward,
    and twice that backward (gradients of inputs and of weights)."""
    tokens, hidden, inner = shape
    return 3 * 2 * (2 * tokens * hidden * inner)


def probe_precisions(
    *,
    step=None,
    flags: set[str] | None = None,
    shape=PROBE_SHAPE,
    rounds: int = PROBE_ROUNDS,
    budget_s: float = PROBE_BUDGET_S,
    clock=time.perf_counter,
) -> dict:
    """Time ``step(precision) -> seconds`` (default: :func:`_block_step` of ``shape``) for each of
    :func:`probe_candidates`: one unmeasured step each, then ``rounds`` rounds of one step per
    precision, the order reversed every other round (A B, B A, …), stopping once
    ``budget_s`` is spent (:data:`PROBE_MIN_ROUNDS` at least). Returns ``rates`` (GFLOP/s of the
    fastest step per precision, with :func:`probe_flop`), ``steps`` (how many were timed each),
    ``shape`` and ``seconds``."""
    cands = probe_candidates(flags)
    step = step or _block_step(shape)
    t0 = clock()
    for p in cands:
        step(p)
    best = {p: math.inf for p in cands}
    done = 0
    for r in range(max(PROBE_MIN_ROUNDS, rounds)):
        for p in cands if r % 2 == 0 else cands[::-1]:
            best[p] = min(best[p], float(step(p)))
        done = r + 1
        if done >= PROBE_MIN_ROUNDS and clock() - t0 > budget_s:
            break
    flop = probe_flop(shape)
    rates = {p: (round(flop / t / 1e9, 1) if 0 < t < math.inf else 0.0) for p, t in best.items()}
    return {"rates": rates, "steps": done, "shape": list(shape), "seconds": round(clock() - t0, 3)}


def choose_precision(rates: dict, *, fp16_checked: bool = FP16_SCORES_MEASURED) -> tuple[str, str]:
    """``(choice, why)`` from the probe's ``rates`` (GFLOP/s per precision): the fastest of fp32
    and bf16 (and fp16 only with ``fp16_checked``), where a precision other than fp32 must reach
    :data:`MIN_GAIN` times the fp32 rate; ``why`` names the ratios, e.g. ``"bf16 measured 0.55×
    fp32 here"``. Rates that are missing, not finite or not positive are a :class:`ChoiceError`."""
    for p in ("fp32", "bf16"):
        v = rates.get(p)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ChoiceError(f"the precision probe's {p} rate is {str(v)[:40]}, not a finite number > 0")
    base = float(rates["fp32"])
    ratio = {p: float(v) / base for p, v in rates.items() if p != "fp32"}
    allowed = [p for p in ratio if p == "bf16" or (p == "fp16" and fp16_checked)]
    fast = max(allowed, key=lambda p: ratio[p])
    choice = fast if ratio[fast] >= MIN_GAIN else "fp32"
    parts = [f"bf16 measured {ratio['bf16']:.2f}× fp32 here"]
    if "fp16" in ratio:
        parts.append(
            f"fp16 {ratio['fp16']:.2f}×"
            + ("" if fp16_checked else ", never chosen: its scores against fp32 are not measured")
        )
    return choice, "; ".join(parts)


def machine_fields() -> dict:
    """What :func:`machine_key` digests, in words: the CPU's model name, family, model number and
    flags (``/proc/cpuinfo``), the core count, torch's threads and version, onnxruntime's version."""
    import torch

    info = _cpuinfo()
    first = {}
    for ln in info.splitlines():
        k, sep, v = ln.partition(":")
        if sep and k.strip() in ("model name", "cpu family", "model") and k.strip() not in first:
            first[k.strip()] = v.strip()
    if not info:  # not Linux: the platform string stands in
        import platform

        first["model name"] = platform.processor() or platform.machine()
    return {
        "cpu_model": first.get("model name", ""),
        "cpu_family": first.get("cpu family", ""),
        "cpu_model_number": first.get("model", ""),
        "cpu_flags": " ".join(sorted(_flags(info))),
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": _version("torch"),
        "onnxruntime": _version("onnxruntime"),
    }


def machine_key() -> str:
    """A short digest of what makes a speed comparison on this machine come out the same
    (:func:`machine_fields`: the CPU's model, family and flags, the core count, torch's threads
    and the versions of torch and onnxruntime)."""
    f = machine_fields()
    text = "\n".join(
        str(f[k])
        for k in (
            "cpu_model",
            "cpu_family",
            "cpu_model_number",
            "cpu_flags",
            "cores",
            "torch_threads",
            "torch",
            "onnxruntime",
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def choice_file(key: str | None = None) -> Path:
    """``<private overlay>/precision/choice-<machine key>.json``: where this user's measured
    choice for this machine is kept (the overlay checked by :func:`compsem.store.private_folder`)."""
    from .paths import overlay_dir
    from .store import private_folder

    folder = private_folder(overlay_dir()) / "precision"
    folder.mkdir(mode=0o700, exist_ok=True)
    private_folder(folder, create=False)
    return folder / f"choice-{key or machine_key()}.json"


def _own_file(path: Path, uid: int | None = None) -> None:
    """Refuse (:class:`ChoiceError`) a stored choice that is no plain file of user ``uid`` (by
    default this process's user), or that its group or others may write."""
    st = os.lstat(path)
    uid = os.geteuid() if uid is None and hasattr(os, "geteuid") else uid
    if not stat.S_ISREG(st.st_mode):
        raise ChoiceError(f"the stored precision choice {path} is not a plain file")
    if uid is not None and st.st_uid != uid:
        raise ChoiceError(f"the stored precision choice {path} belongs to another user (uid {st.st_uid})")
    if st.st_mode & 0o022:
        raise ChoiceError(
            f"the stored precision choice {path} may be written by others (mode {stat.S_IMODE(st.st_mode):o})"
        )


def read_choice(path: Path, key: str, *, uid: int | None = None) -> dict:
    """The choice stored in ``path`` when it is this user's own file (:func:`_own_file`) and
    exactly what :func:`cpu_precision` writes for machine ``key`` (``uid``: whose file it must be,
    by default this process's user): its rates give the same
    choice again (:func:`choose_precision`). Else a :class:`ChoiceError` naming the file and the
    fault (``FileNotFoundError`` when there is none). JSON only, never unpickled."""
    from .store import read_record

    path = Path(path)
    _own_file(path, uid)
    rec = read_record(path, "the stored precision choice", ChoiceError)
    if rec.get("version") != _PROBE_VERSION or rec.get("machine_key") != key:
        raise ChoiceError(
            f"the stored precision choice {path} was written for another machine or probe "
            f"(key {str(rec.get('machine_key'))[:20]!r}, version {str(rec.get('version'))[:10]})"
        )
    rates = rec.get("rates")
    if not isinstance(rates, dict) or not set(rates) <= {"fp32", "bf16", "fp16"}:
        raise ChoiceError(f"the stored precision choice {path} has no rates per precision")
    choice, why = choose_precision(rates)
    if rec.get("choice") != choice:
        raise ChoiceError(
            f"the stored precision choice {path} names {str(rec.get('choice'))[:20]!r}, but its own rates give {choice}"
        )
    return {**rec, "why": why}


_MEMO: dict = {}


def cpu_precision(*, probe=None) -> dict:
    """The measured choice of ``precision="auto"`` on this CPU: ``choice`` (``"fp32"`` or
    ``"bf16"``), ``why``, ``rates`` (the probe's GFLOP/s per precision), ``machine``
    (:func:`machine_fields`), ``measured`` and ``source`` (``"probe"``, or ``"stored"`` with the
    file). Measured once per machine and user (``probe``: :func:`probe_precisions` by default),
    kept in this process and in :func:`choice_file` (not when the 1-minute load average exceeded
    the core count while it ran: other work may have decided it, so the next process measures
    again); a stored file that :func:`read_choice` refuses is named in one
    :class:`~compsem.errors.CacheWarning` and measured again."""
    key = machine_key()
    if key in _MEMO:
        return _MEMO[key]
    try:
        path = choice_file(key)
    except (UnsafeFolderError, OSError) as exc:
        path = None
        warnings.warn(f"the precision choice is measured for this process only: {exc}", CacheWarning, stacklevel=2)
    if path is not None:
        try:
            _MEMO[key] = {**read_choice(path, key), "source": "stored", "file": str(path)}
            return _MEMO[key]
        except FileNotFoundError:
            pass
        except (ChoiceError, OSError) as exc:
            warnings.warn(f"{exc}: ignored, measured again", CacheWarning, stacklevel=2)
    got = (probe or probe_precisions)()
    choice, why = choose_precision(got["rates"])
    rec = {
        "version": _PROBE_VERSION,
        "machine_key": key,
        "machine": machine_fields(),
        "choice": choice,
        "rates": got["rates"],
        "steps": got.get("steps"),
        "shape": got.get("shape"),
        "probe_seconds": got.get("seconds"),
        "min_gain": MIN_GAIN,
        "load_average": _load(),
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    busy = rec["load_average"] is not None and rec["load_average"][0] > (os.cpu_count() or 1)
    if path is not None and not busy:  # a probe on a busy machine holds for this process only
        from .store import write_atomic, json_writer

        try:
            if path.exists() or path.is_symlink():
                path.unlink()  # a refused file is replaced, never written through
            write_atomic(path, json_writer(rec, indent=1), private=True)
        except OSError as exc:
            warnings.warn(
                f"could not keep the precision choice in {path} ({exc}); measured again next time",
                CacheWarning,
                stacklevel=2,
            )
    _MEMO[key] = {**rec, "why": why, "source": "probe"}
    return _MEMO[key]


def autocast_dtype(device: str, precision: str = "auto"):
    """The dtype for ``torch.autocast`` when training in ``precision`` on ``device``, or None
    (full fp32).

    ``auto``: fp32 on a GPU (measured faster there for the book's model, see the module's
    notes); on a CPU what :func:`cpu_precision` measured — unless ``$COMPSEM_PRECISION`` forces it
    (:func:`forced_precision`). ``bf16`` is honoured on any device (on a CPU that computes it
    slowly it is slow, but it is what was asked). ``fp16`` on a CPU is refused (its scores
    against fp32 are not measured, :data:`FP16_SCORES_MEASURED`): a ``ValueError`` says so.
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
    if on_gpu or str(device) != "cpu":
        return None
    return torch.bfloat16 if cpu_precision()["choice"] == "bf16" else None


def precision_note(device: str, precision: str = "auto") -> str:
    """In words, what :func:`autocast_dtype` chose and why, e.g. ``"bf16 autocast (bf16 measured
    1.90× fp32 here)"`` or ``"fp32 (bf16 measured 0.55× fp32 here)"``."""
    dt = autocast_dtype(device, precision)
    name = {None: "fp32"}.get(dt) or str(dt).removeprefix("torch.").replace("bfloat16", "bf16").replace(
        "float16", "fp16"
    )
    on_gpu = str(device).startswith("cuda")
    forced = forced_precision() if precision == "auto" else None
    if forced:
        how = f"forced by {PRECISION_ENV}={forced}"
    elif precision != "auto":
        how = "asked for"
    elif on_gpu:
        how = "the default on a GPU: bf16 autocast fine-tuned more slowly on the one GPU measured, benchmarks/gpu.json"
    elif str(device) != "cpu":
        how = f"the default on {device}"
    else:
        how = cpu_precision()["why"]
    return f"{name} ({how})" if dt is None else f"{name} autocast ({how})"


def _load() -> list | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):  # pragma: no cover - not on Unix
        return None


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "none"
