"""The machine a number is measured on, read from ``/proc/cpuinfo``: the CPU's model, family,
kind (its Zen generation on AMD) and the instruction sets that decide the speed of the numbers
(:data:`FLAGS`). The foundation reads it here, so that records, benchmarks and the book's
appendix (:mod:`compsem.book.appendices.machine`) name a machine the same way."""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

__all__ = [
    "FLAGS",
    "FLAG_NAMES",
    "cpu_model",
    "cpu_family",
    "cpu_kind",
    "cpu_kind_words",
    "cpu_flags",
    "this_machine",
]

#: The CPU features recorded with a benchmark (``amx``: any of AMX's tile, bf16 or int8 flags).
FLAGS: tuple[str, ...] = ("avx2", "avx512f", "avx512_bf16", "amx")
#: Each of :data:`FLAGS` as :func:`machines_table` names its row (the instruction set, not the
#: /proc/cpuinfo identifier).
FLAG_NAMES: dict[str, str] = {"avx2": "AVX2", "avx512f": "AVX-512", "avx512_bf16": "AVX-512 BF16", "amx": "AMX"}


def _cpuinfo() -> str:
    info = Path("/proc/cpuinfo")
    return info.read_text(errors="replace") if info.is_file() else ""


def cpu_model(cpuinfo: str | None = None) -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else :func:`platform.processor`)."""
    m = re.search(r"^model name\s*:\s*(.+)$", _cpuinfo() if cpuinfo is None else cpuinfo, re.M)
    if m:
        return m.group(1).strip()
    return platform.processor() or platform.machine() or "unknown"


def cpu_family(cpuinfo: str | None = None) -> str | None:
    """The CPU family number of the first ``cpu family`` line of ``/proc/cpuinfo`` (AMD: 25 for
    Zen 3 and Zen 4, 26 for Zen 5), None where there is none."""
    m = re.search(r"^cpu family\s*:\s*(\S+)", _cpuinfo() if cpuinfo is None else cpuinfo, re.M)
    return m.group(1) if m else None


def _field(cpuinfo: str, name: str) -> str | None:
    m = re.search(rf"^{name}\s*:\s*(.*?)\s*$", cpuinfo, re.M)
    return m.group(1) if m else None


def cpu_kind(cpuinfo: str | None = None) -> str:
    """A short name of the CPU's kind for a file name, from ``/proc/cpuinfo``: AMD's family and
    AVX-512 give its Zen generation (family 23: ``amd-zen2``, the first Zen included; 25 without
    AVX-512: ``amd-zen3``, with it: ``amd-zen4``; 26: ``amd-zen5``), any other CPU is
    ``<vendor>-f<family>-m<model>`` (``intel-f6-m207``); ``unknown`` without the fields."""
    info = _cpuinfo() if cpuinfo is None else cpuinfo
    vendor, family, model = (_field(info, k) for k in ("vendor_id", "cpu family", "model"))
    if vendor is None or family is None:
        return "unknown"
    if vendor == "AuthenticAMD":
        if family == "25":
            return "amd-zen4" if cpu_flags(info)["avx512f"] else "amd-zen3"
        if family in ("23", "26"):
            return {"23": "amd-zen2", "26": "amd-zen5"}[family]
    name = {"AuthenticAMD": "amd", "GenuineIntel": "intel"}.get(
        vendor, re.sub(r"[^a-z0-9]+", "", vendor.lower()) or "cpu"
    )
    return f"{name}-f{family}-m{model or 'x'}"


def cpu_kind_words(kind: str) -> str:
    """:func:`cpu_kind` in words: ``"AMD Zen 4"``, ``"Intel (family 6, model 207)"``."""
    m = re.fullmatch(r"amd-zen(\d)", kind)
    if m:
        return f"AMD Zen {m.group(1)}" + (" (or the first Zen)" if m.group(1) == "2" else "")
    m = re.fullmatch(r"([a-z0-9]+)-f(\w+)-m(\w+)", kind)
    if m:
        vendor = {"amd": "AMD", "intel": "Intel"}.get(m.group(1), m.group(1))
        return f"{vendor} (family {m.group(2)}, model {m.group(3)})"
    return kind


def cpu_flags(cpuinfo: str | None = None) -> dict[str, bool]:
    """``{flag: present}`` for each of :data:`FLAGS`, from the first ``flags`` line of
    ``/proc/cpuinfo`` (all False where there is none)."""
    m = re.search(r"^flags\s*:\s*(.*)$", _cpuinfo() if cpuinfo is None else cpuinfo, re.M)
    have = set(m.group(1).split()) if m else set()
    return {f: (any(h.startswith("amx_") for h in have) if f == "amx" else f in have) for f in FLAGS}


def this_machine(cpuinfo: str | None = None) -> dict:
    """The fields ``make bench`` records: ``cpu_model``, ``cpu_kind`` (:func:`cpu_kind`: machines
    with one model name, such as "AMD EPYC", can be different generations), ``cpu_flags``,
    ``cores`` and ``load`` (the 1-, 5- and 15-minute load averages now, :func:`os.getloadavg`;
    the benchmark adds ``load_at_end``)."""
    info = _cpuinfo() if cpuinfo is None else cpuinfo
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return {
        "cpu_model": cpu_model(info),
        "cpu_kind": cpu_kind(info),
        "cpu_flags": cpu_flags(info),
        "cores": os.cpu_count(),
        "load": load,
    }
