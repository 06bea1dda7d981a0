"""Benchmark of Part II (C-STS): the book's training paths side by side, in one process.

``run(quick)`` fine-tunes ``sbert-mini`` at the book's ``cpu`` preset on the re-annotated data's
pair split (all training pairs, scored on all test pairs; the first 150 training pairs and 100
test pairs when ``quick``) and measures, each as an interleaved A/B in this one process (runs
alternate A, B, B, A, … so that a change of machine load hits both paths):

* ``packing``: padded against padding-free (packed) top layers, per encoding (cross/mse,
  bi/quad+mse, tri/quad+mse), both in fp32: the speed ratio from training steps on the same
  batches alternating between the two models (:func:`step_ratio`: per block min and median,
  and per step), then one whole training run per path (two when ``quick``) with its training
  examples per second (frozen-layer fill excluded) and test Spearman;
* ``fill``: the frozen-layer fill of the tri-encoder's inputs, unsorted (inputs in first-seen
  order) and sorted by token count, into fresh in-memory stores: inputs per second, ratios
  (min and median), and the largest difference between the stored states;
* ``fill_budget``: the sorted fill of the cross- and bi-encoders' inputs in batches of 256 rows
  against the book's budget of padded tokens per batch (``compsem.csts.frozen.FILL_TOKENS``),
  measured the same way (at least two rounds);
* ``dropout``: the packed layers' dropout masks drawn per site by torch against one draw per
  call for all sites (the default), step-interleaved on the same batches (:func:`dropout`);
* ``fast``: fp32 with batches in random order (the path before the fast one) against the
  book's default (``precision="auto"``, length-bucketed batches): examples per second and test
  Spearman;
* ``utilisation``: the training loop's GFLOP/s per configuration beside the fp32 and bf16
  GEMM limits measured in the same run, and the bf16/fp32 ratio of the loop (:func:`utilisation`;
  written into ``csts_precision.json`` too, which chapter 22 reads);
* ``profile``: where a training step's own CPU time goes (:func:`compsem.csts.utilisation.profile_steps`:
  ``torch.profiler`` over steps of :data:`PROFILE_CONFIG`, summed per kind of work), in fp32 and
  under bf16 autocast, on this machine (its CPU and load beside);
* ``precision`` (only where the CPU computes bf16 natively, and not when ``quick``): every
  configuration of chapter 22 trained in fp32 and in bf16 autocast, test Spearman of each and
  their difference. ``make bench`` also writes it to ``benchmarks/csts_precision.json``, with
  the machine, which chapter 22 reads (:func:`compsem.csts.report.precision_comparison`).

The machine (CPU model, flags, cores, load before and after) is recorded with the results.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time

ENCODER = "sbert-mini"
#: the configuration benchmarked per encoding
PACKING_CONFIGS = {"cross": "cross/mse", "bi": "bi/quad+mse", "tri": "tri/quad+mse"}
#: chapter 22's configurations (its ``configs`` parameter)
CHAPTER_CONFIGS = ("cross/mse", "bi/mse", "bi/quad+mse", "tri/quad+mse")
FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile")


def machine() -> dict:
    """CPU model, the flags that matter for training speed, cores, torch threads and load."""
    import torch

    from compsem import device as D

    from compsem.cpu import cpu_family

    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name") and model in (platform.processor(), platform.machine()):
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    flags.update(line.split(":", 1)[1].split())
    except OSError:  # not Linux
        pass
    return {
        "cpu_model": model,
        "cpu_family": cpu_family(),
        "cpu_flags": [f for f in FLAGS if f in flags],
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "cpu_bf16_native": D.cpu_bf16_native(),
        "cpu_capability": str(torch.backends.cpu.get_cpu_capability()),
        "load_average": _load(),
    }


def _load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())  # 1, 5, 15 minutes
    except OSError:  # pragma: no cover - not on Unix
        return "unknown"


def _cfg(label: str, **changes):
    from compsem.csts.training import TrainConfig

    encoding, objective = label.split("/")
    return TrainConfig.preset("cpu", encoding=encoding, objective=objective, **changes)


def _one(parts, cfg) -> dict:
    """One training run (seed 0; the in-process frozen cache is kept between runs)."""
    from compsem.csts import study as S
    from compsem.csts import training as T

    model = T.new_model(ENCODER, cfg, seed=0, disk=False)
    hist = T.fit(model, parts["train"], cfg, seed=0)
    row = S.score_row(T.predict(model, parts["test"]), parts["test"])
    train_s = hist["seconds"] - hist["fill_seconds"]
    return {
        "examples_per_s": round(len(parts["train"]) / train_s, 2),
        "train_seconds": round(train_s, 2),
        "fill_seconds": round(hist["fill_seconds"], 2),
        "precision": hist["precision"],
        "test_spearman": round(row["spearman"], 3),
        "test_pair_accuracy": round(row["pair_accuracy"], 2),
    }


def _ab(paths: dict, repeats: int, measure) -> tuple[list, dict]:
    """Interleaved runs of the two ``paths`` (A B, B A, A B, …); the ratio B/A of
    ``examples_per_s`` (or ``per_s``) per repeat, min and median."""
    (a, ca), (b, cb) = paths.items()
    runs = []
    for r in range(repeats):
        for name in (a, b) if r % 2 == 0 else (b, a):
            runs.append({"path": name, "repeat": r, **measure(paths[name])})
    key = "examples_per_s" if "examples_per_s" in runs[0] else "per_s"
    rate = {(x["path"], x["repeat"]): x[key] for x in runs}
    ratios = [rate[b, r] / rate[a, r] for r in range(repeats)]
    return runs, {
        f"{b}_over_{a}_min": round(min(ratios), 3),
        f"{b}_over_{a}_median": round(statistics.median(ratios), 3),
        f"{a}_{key}_median": round(statistics.median(rate[a, r] for r in range(repeats)), 2),
        f"{b}_{key}_median": round(statistics.median(rate[b, r] for r in range(repeats)), 2),
    }


def step_ratio(parts, label: str, *, n_batches: int = 40, blocks: int = 4) -> dict:
    """Training steps of the padded and the packed model on the same batches (:func:`_steps`)."""
    return _steps(
        parts, label, {"padded": ({"packed": False}, {}), "packed": ({}, {})}, n_batches=n_batches, blocks=blocks
    )


def _steps(parts, label: str, arms: dict, *, n_batches: int = 40, blocks: int = 4) -> dict:
    """Training steps of two models (``arms``: name → (config changes, model attributes); the
    first is the baseline A, the second B) on the same batches, alternating step by step (A first
    on even steps, B first on odd ones), so that load changes hit both alike: examples per second
    of each per block of ``n_batches // blocks`` steps, the B/A speed ratio per block (min and
    median), and the median over steps of the ratio of the two timings of the same batch
    (adjacent in time: the estimate least moved by load)."""
    import numpy as np
    import torch

    from compsem.csts import training as T

    df = parts["train"]
    s1, s2, cc = df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist()
    models, opts = {}, {}
    for name, (changes, attrs) in arms.items():
        cfg = _cfg(label, precision="fp32", **changes)
        m = T.new_model(ENCODER, cfg, seed=0, disk=False).train()
        for k, v in attrs.items():
            setattr(m, k, v)
        m.fill_frozen_cache(s1, s2, cc)
        models[name], opts[name] = m, torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-5)
    a, b = list(arms)
    y = torch.tensor(T.LabelScaler.fit(df["label"]).transform(df["label"]), dtype=torch.float32)
    plan = T._batches(df, cfg, np.random.default_rng(0))[:n_batches]
    per_block = max(1, len(plan) // blocks)
    secs = {name: [0.0] * blocks for name in models}
    rows = [0] * blocks
    step_ratios = []
    for j, (idx, n_pairs, qmask) in enumerate(plan[: per_block * blocks]):
        took = {}
        mask = None if qmask is None else torch.as_tensor(qmask)
        for name in (a, b) if j % 2 == 0 else (b, a):
            t0 = time.perf_counter()
            scores = models[name]([s1[i] for i in idx], [s2[i] for i in idx], [cc[i] for i in idx])
            T.objective_loss(cfg.objective, scores.float(), y[idx], n_pairs, cfg.margin, mask).backward()
            opts[name].step()
            opts[name].zero_grad(set_to_none=True)
            took[name] = time.perf_counter() - t0
            secs[name][j // per_block] += took[name]
        rows[j // per_block] += len(idx)
        step_ratios.append(took[a] / took[b])
    ratios = [secs[a][k] / secs[b][k] for k in range(blocks)]
    return {
        "steps": per_block * blocks,
        "blocks": blocks,
        f"{a}_examples_per_s": [round(r / t, 2) for r, t in zip(rows, secs[a])],
        f"{b}_examples_per_s": [round(r / t, 2) for r, t in zip(rows, secs[b])],
        f"{b}_over_{a}_min": round(min(ratios), 3),
        f"{b}_over_{a}_median": round(statistics.median(ratios), 3),
        f"{b}_over_{a}_step_median": round(statistics.median(step_ratios), 3),
        f"{b}_over_{a}_total": round(sum(secs[a]) / sum(secs[b]), 3),
    }


def dropout(parts, *, configs=("bi/quad+mse", "tri/quad+mse"), n_batches: int = 64) -> dict:
    """torch's dropout per site (``torch``) against one draw per call for all sites of the packed
    layers (``one``, the default: :func:`compsem.csts.packed.keep_masks`), fp32, step-interleaved
    (:func:`_steps`) per configuration, with when, the CPU flags and the load beside."""
    out = {}
    for label in configs:
        where, started = machine(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        arms = {"torch": ({}, {"dropout_draw": "torch"}), "one": ({}, {"dropout_draw": "one"})}
        out[label] = {
            **_steps(parts, label, arms, n_batches=n_batches),
            "measured": started,
            "load_after": _load(),
            **{k: where[k] for k in ("cpu_flags", "torch_threads", "load_average")},
        }
    return out


def packing(parts, repeats: int, *, spearman: bool = True) -> dict:
    """Padded against packed top layers per encoding, fp32: the step-interleaved speed ratio
    (:func:`step_ratio`) and, with ``spearman``, one whole training run per path (whole runs
    alternate too) with its examples per second and test Spearman."""
    out = {}
    for enc, label in PACKING_CONFIGS.items():
        out[enc] = {
            "config": label,
            "steps": step_ratio(parts, label, n_batches=24 if len(parts["train"]) < 1000 else 64),
        }
        if not spearman:
            continue
        paths = {"padded": _cfg(label, precision="fp32", packed=False), "packed": _cfg(label, precision="fp32")}
        runs, summary = _ab(paths, repeats, lambda cfg: _one(parts, cfg))
        sp = {p: statistics.median(x["test_spearman"] for x in runs if x["path"] == p) for p in paths}
        out[enc].update(
            {
                "runs": runs,
                **summary,
                "padded_test_spearman": sp["padded"],
                "packed_test_spearman": sp["packed"],
                "spearman_difference": round(sp["packed"] - sp["padded"], 3),
            }
        )
    return out


#: the two arms of ``fill``: the order of the inputs (both under the book's batch budget)
FILL_ORDER_ARMS = {"unsorted": {"order": "none"}, "sorted": {"order": "tokens"}}
#: what each arm's batches are, in words (the appendix shows these)
ARM_WORDS = {
    "unsorted": "inputs in first-seen order",
    "sorted": "inputs sorted by token count",
    "rows256": "256 rows a batch",
    "budget": "at most FILL_TOKENS padded tokens a batch",
}
#: the two arms of ``fill_budget``: 256 rows a batch (the fill before the budget) against the
#: book's default, at most ``compsem.csts.frozen.FILL_TOKENS`` padded tokens a batch (both sorted)
FILL_BUDGET_ARMS = {"rows256": {"batch_size": 256, "max_tokens": None}, "budget": {}}


def fill(parts, repeats: int, *, label: str = "tri/quad+mse", arms: dict = FILL_ORDER_ARMS) -> dict:
    """The frozen-layer fill of ``label``'s training inputs, once per arm of ``arms`` (name →
    keyword arguments of ``fill_frozen_cache``) into fresh in-memory stores, interleaved."""
    import torch

    from compsem.csts import training as T
    from compsem.csts.frozen import FILL_TOKENS

    df = parts["train"]
    rows = (df["sentence1"].tolist(), df["sentence2"].tolist(), df["condition"].tolist())
    cfg = _cfg(label, precision="fp32")
    states = []

    def measure(kwargs):
        T._FROZEN.clear()
        model = T.new_model(ENCODER, cfg, seed=0, disk=False)
        t0 = time.perf_counter()
        n = model.fill_frozen_cache(*rows, **kwargs)
        sec = time.perf_counter() - t0
        states.append(model._cache)
        return {"inputs": n, "seconds": round(sec, 3), "per_s": round(n / sec, 2)}

    where, started = machine(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    runs, summary = _ab(arms, repeats, measure)
    T._FROZEN.clear()
    a, b = states[0], states[1]  # the first round's two arms
    keys = list(a._mem)
    diff = max(float((a.get(k) - b.get(k)).abs().max()) for k in keys)
    same = all(torch.equal(a.get(k), b.get(k)) for k in keys)
    words = " against ".join(ARM_WORDS[k].replace("FILL_TOKENS", f"{FILL_TOKENS:,}") for k in arms)
    return {
        "config": f"{label.split('/')[0]} encoder inputs, fp32",
        "arms": words,
        "runs": runs,
        **summary,
        "max_abs_state_difference": diff,
        "states_identical": same,
        "measured": started,
        "cpu_flags": " ".join(where["cpu_flags"]),
        "load_before": where["load_average"],
        "load_after": _load(),
    }


def fast(parts, repeats: int) -> dict:
    paths = {"fp32": _cfg("bi/quad+mse", precision="fp32", bucket=False), "fast": _cfg("bi/quad+mse")}
    runs, summary = _ab(paths, repeats, lambda cfg: _one(parts, cfg))
    sp = {p: statistics.median(x["test_spearman"] for x in runs if x["path"] == p) for p in paths}
    return {
        "config": "bi/quad+mse",
        "runs": runs,
        **summary,
        "fp32_test_spearman": sp["fp32"],
        "fast_test_spearman": sp["fast"],
        "spearman_difference": round(sp["fast"] - sp["fp32"], 3),
        "fast_precision": next(x["precision"] for x in runs if x["path"] == "fast"),
    }


def precision(parts, configs=CHAPTER_CONFIGS) -> dict:
    """Every configuration in fp32 and in bf16 autocast (one run each), test Spearman of each."""
    out = {}
    for label in configs:
        runs = {p: _one(parts, _cfg(label, precision=p)) for p in ("fp32", "bf16")}
        out[label] = {
            "fp32_test_spearman": runs["fp32"]["test_spearman"],
            "bf16_test_spearman": runs["bf16"]["test_spearman"],
            "bf16_minus_fp32": round(runs["bf16"]["test_spearman"] - runs["fp32"]["test_spearman"], 3),
            "fp32_examples_per_s": runs["fp32"]["examples_per_s"],
            "bf16_examples_per_s": runs["bf16"]["examples_per_s"],
        }
    return out


def utilisation(parts, out: dict, configs=None) -> dict:
    """The training loop's GFLOP/s per configuration (:func:`compsem.csts.utilisation.flops_per_row`
    × the run's examples per second) beside the fp32 and bf16 GEMM limits measured in this same run
    (:func:`compsem.csts.utilisation.gemm_limit`),
    its share of each, and the bf16/fp32 ratio of the loop where both precisions ran (``precision``);
    the rates come from this run's ``precision`` runs, else its fp32 ``packing`` runs."""
    from compsem.csts.utilisation import GEMM_SHAPE, flops_per_row, gemm_limit

    where, started = machine(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    limits = {p: round(gemm_limit(p), 1) for p in ("fp32", "bf16")}
    rates = {
        label: {"fp32": r["fp32_examples_per_s"], "bf16": r["bf16_examples_per_s"]}
        for label, r in out.get("precision", {}).items()
    }
    for r in out.get("results", []) or results_rows(out):
        rates.setdefault(r["config"], {"fp32": r["examples_per_s"]})
    res = {}
    for label, rate in rates.items():
        if configs and label not in configs:
            continue
        f = flops_per_row(ENCODER, parts["train"], _cfg(label, precision="fp32"))
        row = {"gflop_per_row": round(f / 1e9, 4)}
        for p, eps in rate.items():
            row[f"{p}_examples_per_s"] = eps
            row[f"{p}_loop_gflop_per_s"] = round(f * eps / 1e9, 1)
            row[f"{p}_share_of_{p}_limit"] = round(f * eps / 1e9 / limits[p], 3)
        if "bf16" in rate:
            row["bf16_over_fp32"] = round(rate["bf16"] / rate["fp32"], 3)
        res[label] = row
    return {
        "gemm_shape": list(GEMM_SHAPE),
        "fp32_gemm_gflop_per_s": limits["fp32"],
        "bf16_gemm_gflop_per_s": limits["bf16"],
        "bf16_gemm_native": where["cpu_bf16_native"],
        "configs": res,
        "measured": started,
        "load_after": _load(),
        **{k: where[k] for k in ("cpu_flags", "torch_threads", "load_average")},
    }


#: the configuration whose training steps ``profile`` times
PROFILE_CONFIG = "bi/quad+mse"


def profile(parts, *, n_batches: int = 24) -> dict:
    """A training step's own CPU time per kind of work, in fp32 and under bf16 autocast, with the
    machine and load beside (:func:`compsem.csts.utilisation.profile_steps`)."""
    from compsem.csts.utilisation import profile_steps

    where, started = machine(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out = {
        p: profile_steps(ENCODER, parts["train"], _cfg(PROFILE_CONFIG, precision=p), n_batches=n_batches)
        for p in ("fp32", "bf16")
    }
    return {
        "config": PROFILE_CONFIG,
        **out,
        "measured": started,
        "load_after": _load(),
        **{k: where[k] for k in ("cpu_model", "cpu_family", "cpu_flags", "torch_threads", "load_average")},
    }


def run(
    quick: bool = True,
    repeats: int | None = None,
    train_pairs=None,
    eval_pairs=None,
    parts_run=("packing", "fill", "fill_budget", "fast", "dropout", "profile", "precision", "utilisation"),
    precision_file: str | None = None,
) -> dict:
    from compsem.csts import study as S
    from compsem.paths import repo_root

    parts, _ = S.book_data(
        "reannotated",
        train_pairs=train_pairs or (150 if quick else None),
        eval_pairs=eval_pairs or (100 if quick else None),
    )
    repeats = repeats or (2 if quick else 1)  # whole runs: the speed ratio comes from the interleaved steps
    t0 = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out = {
        "encoder": ENCODER,
        "preset": "cpu",
        "device": "cpu",
        "machine_at_start": machine(),
        "train_rows": len(parts["train"]),
        "test_rows": len(parts["test"]),
        "repeats": repeats,
        "wall_start": t0,
    }
    if "packing" in parts_run or "packing_speed" in parts_run:
        out["packing"] = packing(parts, repeats, spearman="packing" in parts_run)
    if "fill" in parts_run:
        out["fill"] = fill(parts, repeats)
    if "fill_budget" in parts_run:
        out["fill_budget"] = {
            enc: fill(parts, max(repeats, 2), label=label, arms=FILL_BUDGET_ARMS)
            for enc, label in (("cross", "cross/mse"), ("bi", "bi/mse"))
        }
    if "fast" in parts_run:
        out["fast"] = fast(parts, repeats)
    if "dropout" in parts_run:
        out["dropout"] = dropout(parts, n_batches=24 if quick else 64)
    if "profile" in parts_run:
        out["profile"] = profile(parts, n_batches=8 if quick else 24)
    if "precision" in parts_run and not quick and out["machine_at_start"]["cpu_bf16_native"]:
        out["precision"] = precision(parts)
    if "utilisation" in parts_run:
        out["utilisation"] = utilisation(parts, out)
    if "precision" in out:
        path = precision_file or (repo_root() / "benchmarks" / "csts_precision.json")
        rec = {
            "encoder": ENCODER,
            "preset": "cpu",
            "train_rows": len(parts["train"]),
            "test_rows": len(parts["test"]),
            "seed": 0,
            "machine": out["machine_at_start"],
            "measured": t0,
            "configs": out["precision"],
            "utilisation": out.get("utilisation"),
            "profile": out.get("profile"),
        }
        with open(path, "w", encoding="utf-8") as f:
            json.dump(rec, f, indent=1)
    out["results"] = results_rows(out)
    out["load_average_at_end"] = _load()
    return out


def results_rows(out: dict) -> list[dict]:
    """The benchmark's training rates in the rows every study benchmark shares (``results``:
    ``config``, ``path``, ``precision``, ``examples_per_s``, ``test_spearman``), which the
    planner's fine-tuning rate (``compsem.book.running.prefetch``) and the appendix read: the book's
    default path in fp32 (packed top layers, length-bucketed batches) from each encoding's
    whole packing run, as ``path="fp32"``."""
    rows = []
    for enc in out.get("packing", {}).values():
        for r in enc.get("runs", []):
            if r["path"] == "packed":
                rows.append(
                    {
                        "config": enc["config"],
                        "path": "fp32",
                        "precision": r["precision"],
                        "examples_per_s": r["examples_per_s"],
                        "test_spearman": r["test_spearman"],
                    }
                )
    return rows


def gpu(device: str = "cuda", quick: bool = False, configs=tuple(PACKING_CONFIGS.values())) -> dict:  # noqa: B008 (an immutable tuple, built once)
    """The GPU check of Part II (``benchmarks/gpu_check.py``): each encoding fine-tuned on
    ``device`` at the book's ``cpu`` preset in fp32, in bf16 autocast and in the default
    (``precision="auto"``): training examples per second and test Spearman; and, after the fp32
    run, the same weights through the padded layers, whose test scores must equal the packed
    model's (largest difference)."""
    import numpy as np

    from compsem.csts import study as S
    from compsem.csts import training as T

    parts, _ = S.book_data("reannotated", train_pairs=200 if quick else None, eval_pairs=100 if quick else None)
    out = {"train_rows": len(parts["train"]), "test_rows": len(parts["test"]), "runs": {}}
    for label in configs:
        for prec in ("fp32", "bf16", "auto"):
            cfg = _cfg(label, precision=prec, device=device)
            model = T.new_model(ENCODER, cfg, seed=0, disk=False)
            hist = T.fit(model, parts["train"], cfg, seed=0)
            pred = T.predict(model, parts["test"])
            train_s = hist["seconds"] - hist["fill_seconds"]
            rec = {
                "precision": hist["precision"],
                "examples_per_s": round(len(parts["train"]) / train_s, 1),
                "train_seconds": round(train_s, 2),
                "fill_seconds": round(hist["fill_seconds"], 2),
                "test_spearman": round(float(S.score_row(pred, parts["test"])["spearman"]), 3),
            }
            if prec == "fp32":
                padded = T.new_model(
                    ENCODER, _cfg(label, precision="fp32", device=device, packed=False), seed=0, disk=False
                )
                padded.load_state_dict(model.state_dict())
                padded.to(model.device)
                rec["packed_vs_padded_max_abs_diff"] = float(np.abs(pred - T.predict(padded, parts["test"])).max())
            out["runs"][f"{label} {prec}"] = rec
    return out


def gpu_words(section: dict | None) -> dict[str, str]:
    """What chapter 99 (and Part II's table of differences) says of this check's section of
    ``benchmarks/gpu.json``: how bf16 autocast fine-tuned against fp32 (``gpu_bf16_training``:
    "more slowly than" where bf16 was slower in every configuration, "more slowly in 1 of 2
    configurations than" where in some, "faster than" where in none)."""
    runs = (section or {}).get("runs", {})
    configs = sorted({k.rsplit(" ", 1)[0] for k in runs})
    slower = [c for c in configs if runs[f"{c} bf16"]["examples_per_s"] < runs[f"{c} fp32"]["examples_per_s"]]
    if not configs:
        return {"gpu_bf16_training": "(not measured) against"}
    if len(slower) == len(configs):
        return {"gpu_bf16_training": "more slowly than"}
    if not slower:
        return {"gpu_bf16_training": "faster than"}
    return {"gpu_bf16_training": f"more slowly in {len(slower)} of {len(configs)} configurations than"}


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    which = tuple(a.removeprefix("--only=") for a in args if a.startswith("--only=")) or None
    kw = {"parts_run": which} if which else {}
    for a in args:
        if a.startswith("--train-pairs="):
            kw["train_pairs"] = int(a.split("=", 1)[1])
        if a.startswith("--repeats="):
            kw["repeats"] = int(a.split("=", 1)[1])
    print(json.dumps(run(quick="--full" not in args, **kw), indent=1))
