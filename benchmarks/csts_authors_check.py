"""The standing check of Part II: the authors' ``run_sts.py`` beside the book's ``official`` preset.

``make authors-check`` runs it (``python benchmarks/csts_authors_check.py``). It needs the
authors' code (``princeton-nlp/c-sts`` at ``3bacafa``, fetched by the reader outside this
repository; its folder in ``CSTS_AUTHORS_CODE``) and a Python that runs it (``CSTS_AUTHORS_PYTHON``,
default this one; it needs ``transformers``, ``datasets`` and ``accelerate``). It copies the code
to a temporary folder, applies the three edits of :data:`compsem.csts.authors.EDITS` there,
writes the book's split in the authors' CSV format, trains both sides for each seed
(``CSTS_AUTHORS_SEEDS``, default ``42,43``) with the settings of
:data:`compsem.csts.authors.SETTINGS`, and compares the test Spearman means against the pooled
seed spread (:func:`compsem.csts.authors.compare`). It writes the record chapter 22 and Part
II's table of differences state (``benchmarks/csts_authors.json``, or ``--out PATH``) and exits
1 when the sides disagree. Each run takes minutes (about 200 s a seed and side on two Zen 4 cores).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compsem.csts import authors as A
from compsem.csts.metrics import correlations

#: the modules the authors' side imports beyond the book's environment
NEEDS = ("transformers", "datasets", "accelerate")


def missing_reason(code: str | None, python: str) -> str | None:
    """Why the check cannot run here (no code folder, or a Python without what it needs), or None."""
    if not code:
        return "CSTS_AUTHORS_CODE is not set (the folder of princeton-nlp/c-sts at 3bacafa, fetched outside this repository)"
    if not (Path(code) / "run_sts.py").is_file():
        return f"CSTS_AUTHORS_CODE={code} has no run_sts.py (not a checkout of princeton-nlp/c-sts)"
    probe = "import importlib.util as u, sys; sys.exit(','.join(m for m in sys.argv[1:] if u.find_spec(m) is None))"
    out = subprocess.run([python, "-c", probe, *NEEDS], capture_output=True, text=True)
    if out.returncode:
        return f"{python} lacks {out.stderr.strip() or 'a module'} that the authors' code imports (set CSTS_AUTHORS_PYTHON)"
    return None


def _machine() -> str:
    flags, model = set(), platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags.update(line.split(":", 1)[1].split())
    except OSError:  # not Linux
        pass
    shown = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} cores, flags {', '.join(shown) or 'none of avx2/avx512'}, load {load}, fp32"


def run_check(code: str, *, seeds=(42, 43), python: str = sys.executable, log=print) -> dict:
    """Run both sides for every seed and return the record (see ``benchmarks/csts_authors.json``)."""
    from compsem.csts import study as S
    from compsem.csts.config import resolve_backbone

    st = A.SETTINGS
    parts, _ = S.book_data(st["data"], split=st["split"], split_seed=st["split_seed"])
    test = parts["test"]
    gold = test["label"].to_numpy(dtype=float)
    model_path = resolve_backbone(st["encoder"])
    with tempfile.TemporaryDirectory(prefix="csts-authors-") as tmp:
        tmp = Path(tmp)
        edits = A.patched_copy(code, tmp / "code")
        files = A.write_split(parts, tmp / "data")
        sides = {"authors": [], "book": []}
        seconds = {"authors": [], "book": []}
        for seed in seeds:
            log(f"authors' run_sts.py, seed {seed} ...")
            t0 = time.perf_counter()
            out = tmp / f"out-{seed}"
            proc = subprocess.run([python, "run_sts.py", *A.authors_args(files, model_path, out, seed=seed)],
                                  cwd=tmp / "code", capture_output=True, text=True,
                                  env={**os.environ, "HF_HUB_OFFLINE": "1", "WANDB_DISABLED": "true"})
            if proc.returncode:
                raise RuntimeError(f"the authors' run_sts.py failed (seed {seed}):\n{proc.stderr[-3000:]}")
            seconds["authors"].append(time.perf_counter() - t0)
            sides["authors"].append(A.read_predictions(out / "test_predictions.json", len(test)))
        log("the book's official preset ...")
        res = S.run([st["encoder"]], configs=[st["config"]], preset=st["preset"], overrides=st["overrides"],
                    seeds=list(seeds), data=st["data"], split=st["split"], split_seed=st["split_seed"])
        model = res.models[0]
        for seed in seeds:
            sides["book"].append(res.predictions[(model, res.configs[0].label, int(seed), "test")])
            seconds["book"].append(float(res.runs.set_index("seed").loc[seed, "train_seconds"]))
    scores = {k: [correlations(p, gold) for p in v] for k, v in sides.items()}
    cmp = A.compare([s["spearman"] for s in scores["authors"]], [s["spearman"] for s in scores["book"]])
    rec = {"what": "the authors' run_sts.py beside the book's official preset on the same rows and settings (test split)",
           "source": "make authors-check (benchmarks/csts_authors_check.py)",
           "when": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": _machine(),
           "authors_commit": A.AUTHORS_COMMIT,
           "setting": (f"book_data({st['data']!r}, split={st['split']!r}, split_seed={st['split_seed']}): "
                       f"{len(parts['train']):,} training, {len(parts['validation']):,} validation and {len(test):,} test "
                       "rows; sbert-mini's transformer, bi-encoder, MSE, [CLS] pooling, the full network trained, lr 1e-5, "
                       "weight decay 0.1, 8 rows x 4 accumulation steps, 10 % warm-up, length 512 with dynamic padding, "
                       "1 epoch, fp32"),
           "seeds": [int(s) for s in seeds], "edits": edits, "comparison": cmp,
           "sides": {k: {"spearman_mean": cmp[f"{k}_mean"], "spearman_std": cmp[f"{k}_std"],
                         "spearman_per_seed": [s["spearman"] for s in scores[k]],
                         "pearson_per_seed": [s["pearson"] for s in scores[k]],
                         "train_seconds": float(sum(seconds[k]) / len(seconds[k]))} for k in sides},
           "paired_difference": A.paired_difference(sides["authors"], sides["book"], gold, test["pair_id"])}
    return rec


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else A.record_path()
    code, python = os.environ.get("CSTS_AUTHORS_CODE"), os.environ.get("CSTS_AUTHORS_PYTHON", sys.executable)
    reason = missing_reason(code, python)
    if reason:
        print(f"authors-check not run: {reason}", file=sys.stderr)
        return 2
    seeds = [int(s) for s in os.environ.get("CSTS_AUTHORS_SEEDS", "42,43").split(",")]
    rec = run_check(code, seeds=seeds, python=python)
    out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    c = rec["comparison"]
    print(f"authors {c['authors_mean']:.2f} ± {c['authors_std']:.2f}, book {c['book_mean']:.2f} ± {c['book_std']:.2f}; "
          f"difference {c['difference']:+.2f} against {c['k']:g} x pooled std {c['pooled_std']:.2f}: "
          f"{'agree' if c['agree'] else 'DISAGREE'} (written to {out})")
    return 0 if c["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
