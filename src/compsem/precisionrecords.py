"""What each machine measured of training precision: this build's probe and the committed records.

A CPU's flags do not say which precision trains faster on it (:mod:`compsem.device`), so a page
that speaks of precision and speed names the machine and shows what was measured there. This
module gathers it into one table, one row per machine and measurement (:func:`machines_table`):

* this build's machine: the probe's GFLOP/s per precision and the choice
  (:func:`compsem.device.cpu_precision`), or what ``COMPSEM_PRECISION`` forced;
* ``benchmarks/precision_abba_<cpu kind>.json`` (``benchmarks/csts_precision_abba.py``: chapter 22
  forced to fp32, to bf16 and left to ``auto``, ABBA): the ``auto`` runs' probe and the ratio of
  the forced arms' training seconds;
* ``benchmarks/precision_reported_<cpu kind>.json``: numbers reported elsewhere (the record's
  ``provenance`` says where), shown with that provenance and never as this project's measurement;
* rows a study adds (``precision_rows()`` of its report face, e.g. Part II's ``make bench`` record).

:func:`here_sentence` says in words what this build's machine measured and chose. Torch-free at
import (the probe imports torch when it runs).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pandas as pd

from .errors import DataError
from .paths import repo_root
from .results import Prose

__all__ = [
    "COLUMNS",
    "NOT_TIMED",
    "cpu_words",
    "probe_row",
    "bench_row",
    "study_rows",
    "record_rows",
    "record_paths",
    "machines_table",
    "named",
    "record_words",
    "here_sentence",
    "ratio_text",
    "range_text",
]

#: the table's columns, in order
COLUMNS = (
    "CPU",
    "record",
    "measured by",
    "timed",
    "fp32 GFLOP/s",
    "bf16 GFLOP/s",
    "fp16 GFLOP/s",
    "bf16 / fp32",
    "training bf16 / fp32",
    "auto trains in",
)
NOT_TIMED = "not timed"

#: a record's kind in words, by the start of its file name (the table's row label; the file
#: itself is named in the "measured by" column)
_RECORD_KINDS = (
    ("precision_reported_", "reported elsewhere"),
    ("precision_abba_", "ABBA run of chapter 22"),
    ("results", "make bench"),
)


def record_words(name: str) -> str:
    """The row label of a committed record ``name`` (a file name) in words, e.g.
    ``"precision_reported_intel-xeon-m207.json"`` -> ``"reported elsewhere"``; an unknown name
    is "a committed record"."""
    return next((words for start, words in _RECORD_KINDS if name.startswith(start)), "a committed record")


def named(measured_by: str, name: str) -> str:
    """``measured_by`` with the record's file under ``benchmarks/`` named after it."""
    return f"{measured_by} (benchmarks/{name})"


def cpu_words(model_name: str | None, family=None, flags=(), vendor: str | None = None, number=None) -> str:
    """A CPU in words from what a record holds: its kind
    (:func:`compsem.cpu.cpu_kind_words`, where the vendor and family are known)
    and model name, e.g. ``"AMD Zen 4 (AMD EPYC)"``; ``"AMD EPYC (family not recorded)"``."""
    from .cpu import cpu_kind, cpu_kind_words

    name = model_name or "a CPU whose model is not recorded"
    vendor = vendor or ("AuthenticAMD" if name.startswith("AMD") else "GenuineIntel" if "Intel" in name else None)
    if family in (None, "") or vendor is None:
        return f"{name} ({'' if number in (None, '') else f'model {number}, '}family not recorded)"
    info = (
        f"vendor_id : {vendor}\ncpu family : {family}\nmodel : {number if number not in (None, '') else 'x'}\n"
        f"flags : {' '.join(flags)}\n"
    )
    kind = cpu_kind_words(cpu_kind(info))
    return f"{kind} ({name})" if name not in kind else kind


def ratio_text(a, b) -> str:
    """``a / b`` as ``"0.59×"``; ``"not timed"`` where either is missing."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or b <= 0:
        return NOT_TIMED
    return f"{a / b:.2f}×"


def range_text(values, unit: str = "×") -> str:
    """``"1.56–1.77×"`` (one value: ``"1.56×"``)."""
    vals = sorted(float(v) for v in values)
    if not vals:
        return "not measured"
    return f"{vals[0]:.2f}{unit}" if vals[0] == vals[-1] else f"{vals[0]:.2f}–{vals[-1]:.2f}{unit}"


def _rate(v) -> str:
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return f"{v[0]:.0f}–{v[1]:.0f}"
    return f"{v:.0f}" if isinstance(v, (int, float)) else NOT_TIMED


def _probe_timed(shape) -> str:
    t, h, i = shape
    return f"probe: Linear {h}→{i}, GELU, Linear {i}→{h} on {t} tokens, forward and backward under autocast"


def probe_row(
    rec: dict,
    *,
    forced: str | None = None,
    record: str = "this build (probe)",
    measured_by: str = "the probe, when this page ran",
) -> dict:
    """This build's row from :func:`compsem.device.cpu_precision`'s record ``rec`` (``forced``:
    what ``COMPSEM_PRECISION`` forced, which then decides what ``auto`` trains in)."""
    m, r = rec["machine"], rec["rates"]
    flags = m.get("cpu_flags", "").split() if isinstance(m.get("cpu_flags"), str) else m.get("cpu_flags", [])
    trains = (
        f"{forced} (forced by COMPSEM_PRECISION; the probe chose {rec['choice']})"
        if forced
        else f"{rec['choice']} ({rec['why']})"
    )
    return {
        "CPU": cpu_words(m.get("cpu_model"), m.get("cpu_family"), flags, number=m.get("cpu_model_number")),
        "record": record,
        "measured by": measured_by,
        "timed": _probe_timed(rec["shape"]),
        "fp32 GFLOP/s": _rate(r.get("fp32")),
        "bf16 GFLOP/s": _rate(r.get("bf16")),
        "fp16 GFLOP/s": _rate(r.get("fp16")),
        "bf16 / fp32": ratio_text(r.get("bf16"), r.get("fp32")),
        "training bf16 / fp32": "not measured",
        "auto trains in": trains,
    }


def record_rows(path: Path) -> list[dict]:
    """The rows of one committed record (an ABBA record or a reported one); a file that is
    neither is a :class:`DataError` naming it."""
    path = Path(path)
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        cpu = rec["cpu"]
        where = cpu_words(
            cpu.get("model_name"), cpu.get("family"), cpu.get("flags", ()), cpu.get("vendor"), cpu.get("model")
        )
        if "provenance" in rec:  # reported elsewhere: shown as such
            train = range_text(p["fp32_train_s"] / p["bf16_train_s"] for p in rec.get("chapter22_pairs", []))
            n = len(rec.get("chapter22_pairs", []))
            return [
                {
                    "CPU": where,
                    "record": record_words(path.name),
                    "measured by": named(rec["provenance"], path.name),
                    "timed": g["operation"],
                    "fp32 GFLOP/s": _rate(g.get("fp32")),
                    "bf16 GFLOP/s": _rate(g.get("bf16")),
                    "fp16 GFLOP/s": _rate(g.get("fp16")),
                    "bf16 / fp32": ratio_text(g.get("bf16"), g.get("fp32")),
                    "training bf16 / fp32": f"{train} (chapter 22 training seconds, {n} lab-size pairs)"
                    if n
                    else "not measured",
                    "auto trains in": rec.get("auto_trained_in", "not recorded"),
                }
                for g in rec["gemm"]
            ]
        probes = [r["probe"] for r in rec["runs"] if r["arm"] == "auto" and r.get("probe")]
        arms = rec["summary"]["arms"]
        train = ratio_text(arms["fp32"]["train_seconds_median"], arms["bf16"]["train_seconds_median"])
        used = "; ".join(arms["auto"]["precision_used"]) if "auto" in arms else "not run"
        rows = []
        for p in probes[:1] or [None]:
            med = {k: statistics.median(q["rates"][k] for q in probes) for k in probes[0]["rates"]} if probes else {}
            rows.append(
                {
                    "CPU": where,
                    "record": record_words(path.name),
                    "measured by": named(
                        f"{rec['source']}, {rec['started']}, probe: median of {len(probes)} runs", path.name
                    ),
                    "timed": _probe_timed(p["shape"]) if p else NOT_TIMED,
                    "fp32 GFLOP/s": _rate(med.get("fp32")),
                    "bf16 GFLOP/s": _rate(med.get("bf16")),
                    "fp16 GFLOP/s": _rate(med.get("fp16")),
                    "bf16 / fp32": ratio_text(med.get("bf16"), med.get("fp32")),
                    "training bf16 / fp32": f"{train} (chapter 22 training seconds, median of each arm)",
                    "auto trains in": used,
                }
            )
        return rows
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, ZeroDivisionError) as exc:
        raise DataError(f"{path}: not a precision record ({exc!r})") from None


def bench_row(bench: dict | None) -> list[dict]:
    """The row of ``make bench``'s own probe (``precision_probe`` of ``benchmarks/results.json``,
    :func:`compsem.book.appendices.bench.precision_probe`); none where the file has no probe."""
    probe = (bench or {}).get("precision_probe")
    if not probe:
        return []
    return [
        probe_row(probe, record=record_words("results.json"), measured_by=named("make bench's probe", "results.json"))
    ]


def study_rows() -> list[dict]:
    """The rows each study of the registry adds (``precision_rows()`` of its report face)."""
    from .studies import STUDIES

    rows = []
    for s in STUDIES:
        try:
            fn = getattr(s.module("report"), "precision_rows", None)
        except ImportError:
            fn = None
        rows += fn() if fn is not None else []
    return rows


def record_paths(root: Path | None = None) -> list[Path]:
    """The committed records: ``benchmarks/precision_abba_*.json`` and
    ``benchmarks/precision_reported_*.json``, by name."""
    bench = Path(root or repo_root()) / "benchmarks"
    return sorted([*bench.glob("precision_abba_*.json"), *bench.glob("precision_reported_*.json")])


def machines_table(here: dict | None = None, *, forced: str | None = None, paths=None, extra_rows=()) -> pd.DataFrame:
    """One row per machine and measurement: this build's probe (``here``, a
    :func:`compsem.device.cpu_precision` record; none without it), the committed records
    (``paths``, by default :func:`record_paths`) and ``extra_rows`` (a study's), in :data:`COLUMNS`."""
    rows = [probe_row(here, forced=forced)] if here else []
    for p in record_paths() if paths is None else paths:
        rows += record_rows(p)
    rows += list(extra_rows)
    return pd.DataFrame(rows, columns=list(COLUMNS)).set_index(["CPU", "record", "timed"])


def here_sentence(rec: dict, *, forced: str | None = None) -> Prose:
    """This build's machine and what its probe measured and chose, in words."""
    m, r = rec["machine"], rec["rates"]
    flags = m.get("cpu_flags", "").split() if isinstance(m.get("cpu_flags"), str) else m.get("cpu_flags", [])
    where = cpu_words(m.get("cpu_model"), m.get("cpu_family"), flags, number=m.get("cpu_model_number"))
    fp16 = f", fp16 {r['fp16']:.0f}" if "fp16" in r else ""
    then = (
        f"`COMPSEM_PRECISION` forced {forced} for this build, so the chapters trained in {forced}"
        if forced
        else f'so `precision="auto"` trained in {rec["choice"]} here'
    )
    load = rec.get("load_average")
    when = f", load average {load[0]:.1f}" if isinstance(load, (list, tuple)) and load else ""
    cores = m.get("cores")
    if when and isinstance(cores, int) and load[0] > cores:
        when += f", above the {cores} cores: other work shared them, so the rates may be off and are not kept"
    return Prose(
        f"This build ran on {where}, {m.get('cores')} cores, {m.get('torch_threads')} torch threads. Its probe "
        f"({rec.get('steps')} interleaved rounds{when}) measured {r['fp32']:.0f} GFLOP/s in fp32 and {r['bf16']:.0f} "
        f"in bf16{fp16} ({rec['why']}), {then}"
    )
