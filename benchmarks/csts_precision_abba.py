"""Chapter 22 with its precision forced to fp32, to bf16, and left to ``auto``, run ABBA-style.

    python benchmarks/csts_precision_abba.py [--lab] [--out FILE]

Six runs of ``notebooks/22_csts_finetune.ipynb``, one after the other, in the order of
:data:`ORDER` (fp32, bf16, auto, auto, bf16, fp32), so that a drift of the machine's load reaches
every arm alike. Each run starts from new, empty caches (``COMPSEM_CACHE`` and the private
``COMPSEM_CACHE_OVERLAY`` in a fresh temporary folder, removed at the end), so every ``auto`` run
probes the machine afresh (:func:`compsem.device.cpu_precision`). A forced arm sets
``COMPSEM_PRECISION``; ``auto`` sets it empty. The runs use this checkout and this Python, with
the environment of ``benchmarks/csts_ab.py`` (two threads, offline, no progress bars).

``--lab``: the lab size (:data:`LAB`: bi/mse only, 1,000 training pairs, 300 test pairs), a
couple of minutes a run. Without it, the chapter's defaults (the book's build).

The record goes to ``benchmarks/precision_abba_<cpu kind>.json``
(:func:`compsem.cpu.cpu_kind`, e.g. ``amd-zen4``) unless ``--out`` names a
file: the CPU (``/proc/cpuinfo`` model name, vendor, family, model, all flags), the commit, each
run's arm, seconds (the whole chapter, and training without the frozen-layer fill per
configuration), load before and after, ``precision_used``, test Spearman and, for ``auto``, the
probe's rates and choice; then :func:`summary`. Compare speeds only within one record.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _beside(name: str):
    """The benchmark module ``name`` beside this file, loaded from its path."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


csts_ab = _beside("csts_ab")  # the A/B runner: its environment and run_side

ROOT = csts_ab.ROOT
CHAPTER = "22_csts_finetune"
#: the arms in run order: each forced precision before and after the two ``auto`` runs
ORDER = ("fp32", "bf16", "auto", "auto", "bf16", "fp32")
ARMS = ("fp32", "bf16", "auto")
#: the lab size (``--lab``)
LAB = {"configs": ["bi/mse"], "train_pairs": 1000, "eval_pairs": 300}


def chapter_params(lab: bool) -> tuple[str, ...]:
    """papermill's ``-p NAME VALUE`` arguments of a run (none at the chapter's defaults)."""
    if not lab:
        return ()
    return tuple(x for k, v in LAB.items() for x in ("-p", k, json.dumps(v)))


def arm_env(arm: str) -> dict:
    """The environment that puts a run in ``arm``: ``COMPSEM_PRECISION`` forced, or empty (auto)."""
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    return {"COMPSEM_PRECISION": "" if arm == "auto" else arm}


def cpu_record(cpuinfo: str) -> dict:
    """The first processor's ``model name``, ``vendor_id``, ``cpu family``, ``model`` and every
    flag of ``cpuinfo`` (the text of ``/proc/cpuinfo``), and its :func:`cpu_kind`."""
    from compsem.cpu import cpu_kind

    first = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep:
            if first:
                break  # the end of the first processor's block
            continue
        first.setdefault(key, value.strip())
    return {
        "model_name": first.get("model name"),
        "vendor": first.get("vendor_id"),
        "family": first.get("cpu family"),
        "model": first.get("model"),
        "flags": sorted(first.get("flags", "").split()),
        "kind": cpu_kind(cpuinfo),
    }


def run_result(folder: Path, overlay: Path) -> dict:
    """What one run left: per configuration (from ``results/csts/finetune_runs.csv``) training
    seconds without the fill, the fill's seconds, ``precision_used`` and test Spearman; and the
    probe's stored choice in the run's own ``overlay``, when it made one."""
    import pandas as pd

    runs = pd.read_csv(folder / "results" / "csts" / "finetune_runs.csv")
    configs = {
        r.config: {
            "train_seconds": round(float(r.train_seconds - r.fill_seconds), 1),
            "fill_seconds": round(float(r.fill_seconds), 1),
            "precision_used": r.precision_used,
            "test_spearman": round(float(r.test_spearman), 2),
        }
        for r in runs.itertuples()
    }
    probe = None
    for path in sorted((overlay / "precision").glob("choice-*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        probe = {k: rec.get(k) for k in ("choice", "rates", "steps", "shape", "probe_seconds", "load_average")}
    return {"configs": configs, "probe": probe}


def summary(runs: list[dict]) -> dict:
    """Per arm the median whole-chapter and training seconds (training: summed over
    configurations) and their range over the arm's runs; the faster forced arm (smaller median
    training seconds); ``auto_over_faster`` (auto's median training seconds over the faster
    forced arm's: at most 1 means auto was not slower) and ``auto_within_noise``: auto's median is
    at most the faster arm's plus the larger of the two arms' ranges (the spread of repeated runs
    of one arm on this machine, the noise this record can see)."""
    per = {}
    for arm in ARMS:
        mine = [r for r in runs if r["arm"] == arm]
        if not mine:
            continue
        train = [sum(c["train_seconds"] for c in r["configs"].values()) for r in mine]
        wall = [r["seconds"] for r in mine]
        per[arm] = {
            "runs": len(mine),
            "seconds_median": round(statistics.median(wall), 1),
            "train_seconds_median": round(statistics.median(train), 1),
            "train_seconds_range": round(max(train) - min(train), 1),
            "precision_used": sorted({c["precision_used"] for r in mine for c in r["configs"].values()}),
        }
    out = {"arms": per}
    forced = [a for a in ("fp32", "bf16") if a in per]
    if forced and "auto" in per:
        fast = min(forced, key=lambda a: per[a]["train_seconds_median"])
        a, f = per["auto"], per[fast]
        noise = max(a["train_seconds_range"], f["train_seconds_range"])
        out.update(
            {
                "faster_forced": fast,
                "auto_over_faster": round(a["train_seconds_median"] / f["train_seconds_median"], 3),
                "noise_seconds": noise,
                "auto_within_noise": a["train_seconds_median"] <= f["train_seconds_median"] + noise,
            }
        )
    return out


def default_out(kind: str) -> Path:
    """``benchmarks/precision_abba_<kind>.json``."""
    return ROOT / "benchmarks" / f"precision_abba_{kind}.json"


def main(argv=None) -> int:
    from compsem.git import commit_of

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lab", action="store_true", help="bi/mse, 1,000 training pairs, 300 test pairs")
    ap.add_argument("--out", type=Path, help="the record's file (default benchmarks/precision_abba_<cpu kind>.json)")
    args = ap.parse_args(argv)
    cpu = cpu_record(Path("/proc/cpuinfo").read_text(errors="replace") if Path("/proc/cpuinfo").is_file() else "")
    dest = args.out or default_out(cpu["kind"])
    params = chapter_params(args.lab)
    rec = {
        "what": "chapter 22 with precision forced fp32, bf16 and auto, one run after the other (ABBA), "
        "each from empty caches",
        "source": "python benchmarks/csts_precision_abba.py" + (" --lab" if args.lab else ""),
        "commit": commit_of(ROOT),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "env": csts_ab.ENV,
        "size": LAB if args.lab else "the chapter's defaults",
        "order": list(ORDER),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="precision-abba-") as tmp:
        for i, arm in enumerate(ORDER):
            cache = Path(tmp) / f"{i}-{arm}"
            out = cache / "run"
            r = csts_ab.run_side(ROOT, CHAPTER, out, cache, params, env=arm_env(arm))
            rec["runs"].append({"arm": arm, **r, **run_result(out, cache / "overlay")})
            print(
                f"{i + 1}/{len(ORDER)} {arm}: {r['seconds']} s, load {r['load_before']} -> {r['load_after']}",
                flush=True,
            )
    rec["summary"] = summary(rec["runs"])
    dest.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(rec["summary"], indent=1))
    print(f"written to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
