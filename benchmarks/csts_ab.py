"""Part II's chapters 22 and 23 timed against an older commit, one after the other, from empty caches.

    git worktree add /tmp/csts-base 467c50a
    python benchmarks/csts_ab.py /tmp/csts-base [--out FILE] [--seeds 0 1 2]
    python benchmarks/csts_ab.py /tmp/csts-base --add-seeds 0 1 2 [--out FILE]

Both sides run with this repository's Python environment, each from its own checkout
(``PYTHONPATH=<checkout>/src``, ``COMPSEM_ROOT=<checkout>``) and its own new, empty cache
(``COMPSEM_CACHE`` and ``COMPSEM_CACHE_OVERLAY`` in a temporary folder, removed at the end), as
``python -m compsem run NOTEBOOK --out FOLDER --quiet`` with the chapter's defaults. The order is
base 22, this 22, this 23, base 23, so that a drift in the machine's load reaches both sides.
Chapter 23 reads chapter 22's runs back from its side's cache, as in a build.

The record (:func:`compare` of the runs) holds both commits, each chapter's seconds and the load
around it, the CPU model, family and flags, and each side's chapter-22 test Spearman per
configuration with its pair-bootstrap interval, and the precision ``auto`` resolves to here
(``precision``: :func:`compsem.device.precision_note`). It goes to ``benchmarks/csts_ab_bf16.json``
where that is bf16 (measured by :func:`compsem.device.cpu_precision`, or forced by
``COMPSEM_PRECISION``) and to ``benchmarks/csts_ab_fp32.json`` elsewhere, unless ``--out`` names a file; chapter 22 shows both
(``compsem.csts.report.ab_values``, from ``csts/speed.py``). Compare speeds only within one
record: one machine, one session.

``--seeds S S ...`` then runs chapter 22 once more per side with those seeds (``-p seeds``, from
the same side's cache, so the timed seed is read back) and adds ``seeds`` to the record: each
side's test Spearman per configuration and seed, and per configuration whether the two sides
agree within two pooled seed standard deviations (:func:`compsem.csts.metrics.seed_agreement`).
``--add-seeds S S ...`` does only that, from new empty caches, into the existing record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ("22_csts_finetune", "23_csts_ablation_scaling")
ORDER = (("base", 0), ("head", 0), ("head", 1), ("base", 1))
ENV = {
    "OMP_NUM_THREADS": "2",
    "TOKENIZERS_PARALLELISM": "false",
    "PYTHONHASHSEED": "0",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TQDM_DISABLE": "1",
}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run_side(checkout: Path, chapter: str, out: Path, cache: Path, params: tuple = (), env: dict | None = None) -> dict:
    """One chapter of one side (``params``: papermill's ``-p NAME VALUE`` arguments; ``env``: more
    environment variables): seconds and the load before and after; a failed run is an error with
    its stderr."""
    env = {
        **os.environ,
        **ENV,
        "PYTHONPATH": str(checkout / "src"),
        "COMPSEM_ROOT": str(checkout),
        "COMPSEM_CACHE": str(cache / "cache"),
        "COMPSEM_CACHE_OVERLAY": str(cache / "overlay"),
        **(env or {}),
    }
    before = _load()
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "compsem",
            "run",
            str(checkout / "notebooks" / f"{chapter}.ipynb"),
            "--out",
            str(out),
            "--quiet",
            *params,
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode:
        raise RuntimeError(f"{chapter} at {checkout} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return {"seconds": round(seconds, 1), "load_before": before, "load_after": _load()}


def spearman(folder: Path) -> dict:
    """Chapter 22's test Spearman per configuration (and interval) from a run folder's results."""
    import pandas as pd

    runs = pd.read_csv(folder / "results" / "csts" / "finetune_runs.csv")
    return {
        r.config: [round(r.test_spearman, 2), round(r.test_spearman_ci_low, 1), round(r.test_spearman_ci_high, 1)]
        for r in runs.itertuples()
    }


def seed_spearman(folder: Path) -> dict:
    """Chapter 22's test Spearman per configuration, one per seed in seed order, from a run folder."""
    import pandas as pd

    runs = pd.read_csv(folder / "results" / "csts" / "finetune_runs.csv").sort_values("seed", kind="stable")
    return {c: [round(float(x), 2) for x in g.test_spearman] for c, g in runs.groupby("config", sort=False)}


def seed_record(seeds: list[int], spearman: dict) -> dict:
    """The ``seeds`` part of the record from each side's :func:`seed_spearman`: per configuration
    the two sides' seed agreement (base − head)."""
    from compsem.csts.metrics import seed_agreement

    agreement = {}
    for config, base in spearman["base"].items():
        if config in spearman["head"]:
            a = seed_agreement(base, spearman["head"][config])
            agreement[config] = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in a.items()}
    return {"seeds": list(seeds), "spearman": spearman, "agreement": agreement}


def run_seeds(sides: dict, seeds: list[int], tmp: Path) -> dict:
    """Chapter 22 per side with ``seeds``, each in its side's cache under ``tmp`` (base first)."""
    spearman = {}
    for side in ("base", "head"):
        out = tmp / side / "seeds"
        r = run_side(sides[side], CHAPTERS[0], out, tmp / side, ("-p", "seeds", json.dumps(list(seeds))))
        print(f"{side} {CHAPTERS[0]} seeds {seeds}: {r['seconds']} s", flush=True)
        spearman[side] = seed_spearman(out)
    return seed_record(seeds, spearman)


def _ints_after(argv: list[str], flag: str) -> list[int] | None:
    if flag not in argv:
        return None
    vals = []
    for a in argv[argv.index(flag) + 1 :]:
        if a.startswith("--"):
            break
        vals.append(int(a))
    if len(vals) < 2:
        raise SystemExit(f"{flag} needs at least two seeds (a spread), got {vals}")
    return vals


def compare(runs: list[dict]) -> dict:
    """Per chapter and in total: each side's seconds and the speed-up (base / head)."""
    sec = {(r["side"], r["chapter"]): r["seconds"] for r in runs}
    out = {}
    for ch in CHAPTERS:
        out[ch] = {
            "base": sec[("base", ch)],
            "head": sec[("head", ch)],
            "speedup": round(sec[("base", ch)] / sec[("head", ch)], 3),
        }
    base, head = sum(v["base"] for v in out.values()), sum(v["head"] for v in out.values())
    out["total"] = {"base": round(base, 1), "head": round(head, 1), "speedup": round(base / head, 3)}
    return out


def main(argv=None) -> int:
    from compsem.cpu import cpu_family, this_machine
    from compsem.git import commit_of
    from compsem.csts.speed import ab_path
    from compsem.device import autocast_dtype, precision_note

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    base = Path(argv[0]).resolve()
    kind = "fp32" if autocast_dtype("cpu", "auto") is None else "bf16"
    dest = Path(argv[argv.index("--out") + 1]) if "--out" in argv else ab_path(kind)
    sides = {"base": base, "head": ROOT}
    seeds, add = _ints_after(argv, "--seeds"), _ints_after(argv, "--add-seeds")
    if add is not None:
        rec = json.loads(dest.read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory(prefix="csts-ab-") as tmp:
            rec["seeds"] = {
                **run_seeds(sides, add, Path(tmp)),
                "head_commit": commit_of(ROOT),
                "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            }
        dest.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
        print(f"seeds {add} added to {dest}")
        return 0
    rec = {
        "base_commit": commit_of(base),
        "head_commit": commit_of(ROOT),
        "machine": {**this_machine(), "cpu_family": cpu_family()},
        "precision": precision_note("cpu", "auto"),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "order": [f"{s} {CHAPTERS[c]}" for s, c in ORDER],
        "runs": [],
        "spearman_22": {},
    }
    with tempfile.TemporaryDirectory(prefix="csts-ab-") as tmp:
        tmp = Path(tmp)
        for side, c in ORDER:
            out = tmp / side / CHAPTERS[c]
            r = run_side(sides[side], CHAPTERS[c], out, tmp / side)
            rec["runs"].append({"side": side, "chapter": CHAPTERS[c], **r})
            print(f"{side} {CHAPTERS[c]}: {r['seconds']} s, load {r['load_before']} -> {r['load_after']}", flush=True)
            if c == 0:
                rec["spearman_22"][side] = spearman(out)
        if seeds is not None:
            rec["seeds"] = run_seeds(sides, seeds, tmp)
    rec["comparison"] = compare(rec["runs"])
    dest.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    t = rec["comparison"]["total"]
    print(f"chapters 22 + 23: base {t['base']} s, head {t['head']} s, speed-up {t['speedup']}x (written to {dest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
