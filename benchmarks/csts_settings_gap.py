"""Which of the ``official`` preset's settings keeps its test Spearman near 17 (chapter 22).

    python benchmarks/csts_settings_gap.py [--out FILE] [--train-pairs N] [--eval-pairs N] [--arm NAME ...]

The authors' settings (the book's ``official`` preset with one epoch in fp32,
``compsem.csts.authors.SETTINGS``: bi-encoder, MSE) score about 17 on the book's default split,
the ``cpu`` preset's bi/mse about 62. This runs the ``official`` setting once (seed 0) and with one
or two of its settings set to the ``cpu`` preset's value (:data:`ARMS`: mean pooling instead of
[CLS]; learning rate 3e-4 instead of 1e-5; both), each trained from the same pretrained weights
on the same rows, and writes each arm's test Spearman with its pair-bootstrap interval and the
paired difference from ``official`` (``benchmarks/csts_settings_gap.json`` unless ``--out``).
One seed: a difference smaller than the seed spread of ``benchmarks/csts_authors.json`` (about
0.4 points) says nothing.

Each arm's test predictions go beside the record (``<out>_predictions.csv``: the test row's
``row``, ``pair_id``, ``role`` and ``label``, one column per arm), so that a chapter can pair an arm
with its own runs on the same test pairs (chapter 22 pairs the ``cpu`` preset with the arm of
most changes). ``--arm NAME`` (repeatable) trains only the arms named and adds their predictions
to an existing record and its predictions file, keeping the record's other numbers; the arm's
entry then says under ``predictions`` when, at which commit and with which test Spearman its
predictions were made.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: arm name -> the changes to the official setting
ARMS = {
    "official": {},
    "mean pooling": {"pooling": "mean"},
    "lr 3e-4": {"lr": 3e-4},
    "mean pooling, lr 3e-4": {"pooling": "mean", "lr": 3e-4},
}


def main(argv=None) -> int:
    import numpy as np

    from compsem.cpu import cpu_kind, this_machine
    from compsem.git import commit_of
    from compsem.csts import study as S
    from compsem.csts import training as T
    from compsem.csts.authors import SETTINGS
    from compsem.csts.metrics import pair_bootstrap_replicates

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "csts_settings_gap.json")
    ap.add_argument("--train-pairs", type=int)
    ap.add_argument("--eval-pairs", type=int)
    ap.add_argument("--arm", action="append", choices=list(ARMS), help="train only this arm (repeatable)")
    args = ap.parse_args(argv)
    pred_path = args.out.with_name(args.out.stem + "_predictions.csv")
    parts, _ = S.book_data(
        SETTINGS["data"],
        split=SETTINGS["split"],
        split_seed=SETTINGS["split_seed"],
        train_pairs=args.train_pairs,
        eval_pairs=args.eval_pairs,
    )
    enc, obj = SETTINGS["config"].split("/")
    test = parts["test"]
    old = json.loads(args.out.read_text(encoding="utf-8")) if args.arm and args.out.is_file() else None
    if args.arm and old is None:
        ap.error(f"--arm adds predictions to an existing record, and {args.out} does not exist")
    rec = {
        "what": "the official setting (compsem.csts.authors.SETTINGS) with one or two settings of the cpu preset",
        "commit": commit_of(ROOT),
        "machine": {**this_machine(), "kind": cpu_kind()},
        "seed": 0,
        "train_rows": len(parts["train"]),
        "test_rows": len(test),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "arms": {},
    }
    import pandas as pd

    keys = test[["row", "pair_id", "role", "label"]].reset_index(drop=True)
    table = pd.read_csv(pred_path) if args.arm and pred_path.is_file() else keys.copy()
    if not table[["row", "pair_id"]].astype(str).equals(keys[["row", "pair_id"]].astype(str)):
        raise SystemExit(f"{pred_path} holds other test rows than this split's; run without --arm to rewrite it")
    preds, reps = {}, {}
    for name, changes in ARMS.items():
        if args.arm and name not in args.arm:
            continue
        cfg = T.TrainConfig.preset("official", encoding=enc, objective=obj, **{**SETTINGS["overrides"], **changes})
        model = T.new_model(SETTINGS["encoder"], cfg, seed=0, disk=False)
        t0 = time.perf_counter()
        T.fit(model, parts["train"], cfg, seed=0, progress=False)
        preds[name] = T.predict(model, test)
        row = S.score_row(preds[name], test, ci=True)
        table[name] = np.asarray(preds[name], dtype=float)
        made = {
            "column": name,
            "commit": rec["commit"],
            "started": rec["started"],
            "test_spearman": round(float(row["spearman"]), 2),
            "machine": rec["machine"],
        }
        if old is not None:  # only the predictions are added; the record's numbers stay
            old["arms"][name]["predictions"] = made
            args.out.write_text(json.dumps(old, indent=1) + "\n", encoding="utf-8")
            table.to_csv(pred_path, index=False, float_format="%.9g")
            print(name, made, flush=True)
            continue
        rec["arms"][name] = {
            "changes": changes,
            "test_spearman": round(float(row["spearman"]), 2),
            "ci": [round(float(row["spearman_ci_low"]), 1), round(float(row["spearman_ci_high"]), 1)],
            "seconds": round(time.perf_counter() - t0, 1),
            "predictions": made,
        }
        # the same pair draws for every arm (same seed): the paired difference per replicate
        reps[name] = np.asarray(pair_bootstrap_replicates(preds[name], test["label"], test["pair_id"]))
        if name != "official":
            d = reps[name] - reps["official"]
            rec["arms"][name]["minus_official"] = {
                "mean": round(float(np.mean(d)), 2),
                "ci": [round(float(np.quantile(d, 0.025)), 1), round(float(np.quantile(d, 0.975)), 1)],
            }
        print(name, rec["arms"][name], flush=True)
        args.out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")  # each arm as soon as it is done
        table.to_csv(pred_path, index=False, float_format="%.9g")
    if old is not None:
        return 0
    rec["load_at_end"] = this_machine()["load"]
    args.out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
