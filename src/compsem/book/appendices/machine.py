"""Which machine a number was measured on: the benchmark's (``benchmarks/results.json``) and
this build's, side by side (the appendix, chapter 99, and chapter 98).

``make bench`` records :func:`this_machine` under ``machine`` in the benchmark file: the CPU
model and kind (:func:`compsem.cpu.cpu_kind`: its generation, which one model name such as "AMD
EPYC" does not tell; a file written before the kind was recorded gives it by the CPU family its
study benchmarks recorded at their start), the instruction sets that decide the speed of the numbers (:data:`FLAGS`), the cores and
the load while it ran. A benchmark file written before these fields existed shows them as
:data:`NOT_RECORDED`. :func:`run_records` gathers this build's own training records (each study
of the registry that keeps them offers ``study.run_records()``), so that a page can show this
machine's rates beside a benchmark measured elsewhere.
"""

from __future__ import annotations


import pandas as pd

from compsem.cpu import FLAG_NAMES, FLAGS, cpu_kind, cpu_kind_words, this_machine
from compsem.fmt import plural
from compsem.results import Prose
from compsem.studies import STUDIES

__all__ = [
    "NOT_RECORDED",
    "LOAD_ROW",
    "bench_machine",
    "same_machine",
    "machines_table",
    "section_families",
    "sections_table",
    "machine_summary",
    "machine_note",
    "machine_values",
    "run_records",
]

NOT_RECORDED = "not recorded"
#: The load row of :func:`machines_table`.
LOAD_ROW = "load average (benchmark: while it ran; this build: when this page ran)"


def _vendor(model: str) -> str | None:
    return "AuthenticAMD" if model.startswith("AMD") else "GenuineIntel" if "Intel" in model else None


def _family_kind(bench: dict, family: str) -> str:
    """The CPU kind of ``family`` on the benchmark's vendor (read from its model name) and flags."""
    m = bench.get("machine", {})
    vendor = _vendor(str(m.get("cpu_model", "")))
    if vendor is None:
        return NOT_RECORDED
    flags = m.get("cpu_flags") if isinstance(m.get("cpu_flags"), dict) else {}
    info = (
        f"vendor_id : {vendor}\ncpu family : {family}\nmodel : x\n"
        f"flags : {' '.join(f for f, on in flags.items() if on)}\n"
    )
    kind = cpu_kind(info)
    return NOT_RECORDED if kind == "unknown" else kind


def section_families(bench: dict) -> list[dict]:
    """Each section of the benchmark's study records that names its CPU family, and each study
    that names none: ``{"study", "section", "measured", "cpu_family"}`` (section
    ``"machine_at_start"`` for the study's start, else the name of the nested record, such as
    ``"profile"``, with its ``measured`` date; ``cpu_family`` None for a study that records none)."""
    out = []
    for study, numbers in (bench.get("studies") or {}).items():
        if not isinstance(numbers, dict):
            continue
        found = False
        for name, rec in numbers.items():
            if isinstance(rec, dict) and rec.get("cpu_family") not in (None, ""):
                when = rec.get("measured") or (numbers.get("wall_start") if name == "machine_at_start" else None)
                out.append({"study": study, "section": name, "measured": when, "cpu_family": str(rec["cpu_family"])})
                found = True
        if not found:
            out.append({"study": study, "section": "", "measured": None, "cpu_family": None})
    return out


def _recorded_kind(bench: dict) -> str:
    """The benchmark's CPU kind: recorded under ``machine`` (``cpu_kind``), else from the CPU
    family its study records name (:func:`section_families`: the start of a study's run, or a
    nested record such as its profile), when every study of the file names one and they all
    agree (the vendor read from the model name); :data:`NOT_RECORDED` otherwise: a file whose
    sections ran on two kinds, or some of whose studies name none, is not one machine's record."""
    m = bench.get("machine", {})
    if m.get("cpu_kind") not in (None, "", "unknown"):
        return str(m["cpu_kind"])
    secs = section_families(bench)
    families = {s["cpu_family"] for s in secs}
    if len(families) != 1 or None in families:
        return NOT_RECORDED
    return _family_kind(bench, families.pop())


def sections_table(bench: dict | None) -> pd.DataFrame:
    """One row per study section of the benchmark file (:func:`section_families`): the study,
    the section, when it was measured and the CPU kind its family names ("not recorded" where a
    study names none), so that a page does not call the whole file one machine's."""
    rows = [
        {
            "study": s["study"],
            "section": s["section"] or "all its records (none names a CPU family)",
            "measured": s["measured"] or NOT_RECORDED,
            "CPU kind": cpu_kind_words(k)
            if s["cpu_family"] and (k := _family_kind(bench or {}, s["cpu_family"])) != NOT_RECORDED
            else NOT_RECORDED,
        }
        for s in section_families(bench or {})
    ]
    return pd.DataFrame(rows, columns=["study", "section", "measured", "CPU kind"])


def _mixed_note(bench: dict | None) -> str | None:
    """Why the file is not one machine's record, when its sections say so (two kinds, or some
    studies naming none and the file's machine no kind); None otherwise."""
    if _kind(bench_machine(bench)) is not None or _kind((bench or {}).get("machine", {})) is not None:
        return None
    secs = section_families(bench or {})
    kinds = list(dict.fromkeys(sections_table(bench)["CPU kind"]))
    named = [k for k in kinds if k != NOT_RECORDED]
    silent = sorted({s["study"] for s in secs if s["cpu_family"] is None})
    if len(named) < 2 and not (named and silent):
        return None
    text = "The benchmark file is not one machine's record: its sections name " + (
        f"{len(named)} kinds of CPU ({', '.join(named)})" if len(named) > 1 else f"one kind of CPU ({named[0]})"
    )
    if silent:
        text += f", and {len(silent)} {'study' if len(silent) == 1 else 'studies'} ({', '.join(silent)}) name none"
    return text + "; the reproducibility appendix lists which section ran where."


def bench_machine(bench: dict | None) -> dict:
    """The benchmark file's machine fields, :data:`NOT_RECORDED` where the file has none (a file
    written before ``make bench`` recorded them, or no file)."""
    m = (bench or {}).get("machine", {})
    flags = m.get("cpu_flags")
    return {
        "cpu_model": m.get("cpu_model", NOT_RECORDED),
        "cpu_kind": _recorded_kind(bench or {}),
        "cpu_flags": flags if isinstance(flags, dict) else NOT_RECORDED,
        "cores": m.get("cores", m.get("cpu_count", NOT_RECORDED)),
        "load": m.get("load", NOT_RECORDED),
        "load_at_end": m.get("load_at_end"),
    }


def _kind(m: dict) -> str | None:
    k = m.get("cpu_kind")
    return None if k in (None, "", "unknown", NOT_RECORDED) else str(k)


def same_machine(bench: dict | None, here: dict | None = None) -> bool | None:
    """Whether the benchmark ran on a machine like this one: the same CPU model, flags, cores and
    kind (:func:`compsem.cpu.cpu_kind`, its generation). None when the benchmark file does not
    record its CPU, or when model, flags and cores agree but either machine's kind is not known
    (one model name and one set of flags can be two generations of different speed)."""
    b, h = bench_machine(bench), here or this_machine()
    if NOT_RECORDED in (b["cpu_model"], b["cpu_flags"]):
        return None
    if (b["cpu_model"], dict(b["cpu_flags"]), b["cores"]) != (h["cpu_model"], dict(h["cpu_flags"]), h["cores"]):
        return False
    if _kind(b) is None or _kind(h) is None:
        return None
    return _kind(b) == _kind(h)


def _flags_text(flags) -> str:
    if not isinstance(flags, dict):
        return str(flags)
    on = [f for f in FLAGS if flags.get(f)]
    return ", ".join(on) if on else "none of " + ", ".join(FLAGS)


def _load_text(load, at_end=None) -> str:
    if not isinstance(load, (list, tuple)):
        return str(load)
    text = " / ".join(f"{x:.2f}" for x in load)
    if isinstance(at_end, (list, tuple)):
        text = f"{text} at the start, {' / '.join(f'{x:.2f}' for x in at_end)} at the end"
    return text + " (1, 5, 15 min)"


def machines_table(bench: dict | None, here: dict | None = None) -> pd.DataFrame:
    """One row per fact (CPU model, each of :data:`FLAGS`, cores, load), one column for the
    benchmark's machine and one for this build's."""
    b, h = bench_machine(bench), here or this_machine()

    def flag(m, f):
        return NOT_RECORDED if not isinstance(m["cpu_flags"], dict) else ("yes" if m["cpu_flags"].get(f) else "no")

    def kind(m):
        return cpu_kind_words(_kind(m)) if _kind(m) else NOT_RECORDED

    rows = {
        "CPU": (b["cpu_model"], h["cpu_model"]),
        "CPU kind": (kind(b), kind(h)),
        **{FLAG_NAMES[f]: (flag(b, f), flag(h, f)) for f in FLAGS},
        "cores": (str(b["cores"]), str(h["cores"])),
        LOAD_ROW: (_load_text(b["load"], b["load_at_end"]), _load_text(h["load"])),
    }
    return pd.DataFrame(rows, index=["benchmark run", "this build"]).T.rename_axis("")


def machine_summary(m: dict) -> str:
    """``"<CPU> with <n> cores and <flags>"`` for a :func:`this_machine` or :func:`bench_machine` record."""
    cores = plural(m["cores"], "core") if isinstance(m["cores"], int) else f"cores {m['cores']}"
    if m["cpu_model"] == NOT_RECORDED:
        return f"a machine with {cores} whose CPU the benchmark file does not record"
    words = cpu_kind_words(_kind(m)) if _kind(m) else None
    name = m["cpu_model"] if words is None else f"{words} ({m['cpu_model']})"
    return f"{name} with {cores} and {_flags_text(m['cpu_flags'])}"


def machine_note(bench: dict | None, here: dict | None = None) -> str:
    """One sentence: whether the benchmark's machine is this build's, naming both."""
    h = here or this_machine()
    same = same_machine(bench, h)
    b = machine_summary(bench_machine(bench))
    if same is None and NOT_RECORDED in (bench_machine(bench)["cpu_model"], bench_machine(bench)["cpu_flags"]):
        return (
            f"The benchmark file does not record its CPU (it was written before `make bench` recorded "
            f"one), so whether it ran on this build's machine ({machine_summary(h)}) is not known."
        )
    mixed = _mixed_note(bench)
    if same is None and mixed:
        return f"{mixed} Its CPU model and flags are {b}; this build's: {machine_summary(h)}."
    if same is None:
        return (
            f"The benchmark ran on {b}; whether that is this build's kind of CPU ({machine_summary(h)}) is not "
            "known, since the kind (the CPU's generation) of "
            + ("neither" if _kind(bench_machine(bench)) is None and _kind(h) is None else "one of them")
            + " is recorded, and one model name and set of flags can be CPUs of different speed."
        )
    if same:
        return f"The benchmark ran on a machine like this build's: {b}."
    return (
        f"The benchmark ran on another machine ({b}) than this build ({machine_summary(h)}): its rates are "
        "that machine's, not this one's."
    )


def machine_values(bench: dict | None, here: dict | None = None) -> dict:
    """What a page glues (``{glue:md}``) about the benchmark's machine: ``bench_machine`` (its
    summary), ``build_machine`` (this build's) and ``bench_machine_note`` (:func:`machine_note`)."""
    h = here or this_machine()
    return {
        "bench_machine": Prose(machine_summary(bench_machine(bench))),
        "build_machine": Prose(machine_summary(h)),
        "bench_machine_note": Prose(machine_note(bench, h)),
    }


def run_records() -> pd.DataFrame:
    """This build's own training records, one row per run, from every study of the registry
    whose ``study`` module offers ``run_records()`` (columns ``study`` and that function's:
    at least ``examples_per_s``); empty where no study kept any."""
    frames = []
    for s in STUDIES:
        fn = getattr(s.module("study"), "run_records", None)
        got = fn() if fn is not None else None
        if got is not None and len(got):
            frames.append(got.assign(study=s.name)[["study", *got.columns]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["study", "examples_per_s"])
