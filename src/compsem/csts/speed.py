"""How fast Part II's chapters run against an older commit, and what each machine measured of
precision (torch-free; ``csts.report`` re-exports it).

* :func:`ab_values`: the records of ``benchmarks/csts_ab.py`` (chapters 22 and 23 timed one after
  the other, each side from an empty cache), one per precision the chapters trained in —
  ``benchmarks/csts_ab_fp32.json`` and ``benchmarks/csts_ab_bf16.json`` — in words and as one
  table, for chapter 22;
* :func:`precision_rows`: Part II's rows of the machines table
  (:func:`compsem.precisionrecords.machines_table`): ``make bench``'s matrix-product limits and
  training rates per precision (``benchmarks/csts_precision.json``) and the precision each A/B
  record's chapters trained in;
* :func:`precision_values`: chapter 22's glue values and tables of both.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from compsem import device as D
from compsem.errors import DataError
from compsem.paths import repo_root
from compsem.precisionrecords import (
    NOT_TIMED,
    cpu_words,
    here_sentence,
    machines_table,
    named,
    range_text,
    ratio_text,
)
from compsem.results import Prose

from .authors import SETTINGS, load_record
from .config import TrainConfig

__all__ = [
    "AB_KINDS",
    "ab_path",
    "ab_paths",
    "ab_values",
    "precision_rows",
    "precision_values",
    "profile_values",
    "PRECISION_FILE",
]

#: ``make bench``'s fp32-against-bf16 record of chapter 22's configurations (``benchmarks/bench_csts.py``)
PRECISION_FILE = "csts_precision.json"

#: the kinds of CPU an A/B record is kept for: the precision chapter 22 trains in there
AB_KINDS = ("fp32", "bf16")


def ab_path(kind: str) -> Path:
    """``benchmarks/csts_ab_<kind>.json``: chapters 22 and 23 timed against an older commit
    (``benchmarks/csts_ab.py``) on a CPU where they train in ``kind`` (:data:`AB_KINDS`)."""
    if kind not in AB_KINDS:
        raise ValueError(f"kind must be one of {AB_KINDS}, got {kind!r}")
    return repo_root() / "benchmarks" / f"csts_ab_{kind}.json"


def ab_paths() -> list[Path]:
    """The A/B records this checkout has, in the order of :data:`AB_KINDS`."""
    return [p for p in map(ab_path, AB_KINDS) if p.is_file()]


def _kind(rec: dict) -> str:
    """The precision the chapters trained in for a record: its ``precision`` (what ``auto``
    resolved to, recorded since the probe); for an older record, which trained under the flag
    rule, bf16 where the CPU's flags claimed it."""
    if isinstance(rec.get("precision"), str):
        return "bf16" if rec["precision"].startswith("bf16") else "fp32"
    flags = rec["machine"].get("cpu_flags", {})
    return "bf16" if flags.get("avx512_bf16") or flags.get("amx") else "fp32"


def _one(path: Path) -> tuple[str, list[dict]]:
    """One record: its sentence, and one table row per configuration of chapter 22."""
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        c, m = rec["comparison"], rec["machine"]
        flags = [f for f, on in m["cpu_flags"].items() if on]
        kind = _kind(rec)
        trains = "under bf16 autocast" if kind == "bf16" else "in fp32"
        text = (
            f"On {m['cpu_model']} ({m['cores']} cores, flags {', '.join(flags) or 'none of those recorded'}; "
            f"the chapters train {trains} there), chapters 22 and 23 together took {c['total']['head']:.0f} s at "
            f"the newer commit {_commit(rec['head_commit'])} against {c['total']['base']:.0f} s at the older "
            f"commit {_commit(rec['base_commit'])}, {c['total']['speedup']:.2f}× as fast "
            f"(chapter 22 {c['22_csts_finetune']['speedup']:.2f}×, chapter 23 "
            f"{c['23_csts_ablation_scaling']['speedup']:.2f}×), each side from an empty cache, run one after "
            f"the other, {rec['started']}; one run per side"
        )
        sp = rec["spearman_22"]

        def cell(v):
            return f"{v[0]:.2f} [{v[1]:.1f}, {v[2]:.1f}]"

        rows = [
            {
                "CPU": f"{kind} ({m['cpu_model']})",
                "config": k,
                "older commit": rec["base_commit"][:7],
                "Spearman (older)": cell(b),
                "newer commit": rec["head_commit"][:7],
                "Spearman (newer)": cell(sp["head"][k]) if k in sp["head"] else "not run",
            }
            for k, b in sp["base"].items()
        ]
        if "seeds" in rec:
            text += ". " + _seed_text(rec["seeds"], rec["base_commit"])
            agree = rec["seeds"]["agreement"]
            trees = _seed_trees(rec["seeds"], rec["base_commit"], rec["head_commit"])
            for r in rows:
                a = agree.get(r["config"])
                r[SEED_COLUMN] = (
                    (
                        f"{a['difference']:+.2f} ({trees}; limit {a['k'] * a['pooled_std']:.2f}: "
                        f"{'within' if a['agree'] else 'outside'})"
                    )
                    if a
                    else "not run"
                )
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise DataError(f"{path}: not an A/B record ({exc!r})") from None
    return text, rows


#: The A/B table's column of the seed comparison: its cells name the two trees the seeds ran on,
#: which need not be the commits of the columns "older commit" and "newer commit".
SEED_COLUMN = "seeds: difference of seed means (trees compared)"


def _tree(sha: str) -> str:
    """A tree in a table cell: ``1ca5959``, or ``uncommitted tree on 6d18c86`` for ``+dirty``."""
    sha = str(sha)
    return f"uncommitted tree on {sha[:7]}" if sha.endswith("+dirty") else sha[:7]


def _seed_trees(seeds: dict, base_commit: str, head_commit: str) -> str:
    """The trees a record's seed runs compared, older − newer: the seeds' own ``base_commit`` /
    ``head_commit`` where they recorded one, else the record's."""
    return f"{_tree(seeds.get('base_commit') or base_commit)} − {_tree(seeds.get('head_commit') or head_commit)}"


def _commit(sha: str) -> str:
    r"""A record's commit in words: ``\`1ca5959\```; a tree with uncommitted changes (``+dirty``,
    :func:`compsem.git.commit_of`) is no commit: ``"an uncommitted tree based
    on \`6d18c86\`"``."""
    sha = str(sha)
    if sha.endswith("+dirty"):
        return f"an uncommitted tree based on `{sha[:7]}`"
    return f"`{sha[:7]}`"


def _seed_text(seeds: dict, base_commit: str) -> str:
    """The seed comparison of a record (``benchmarks/csts_ab.py --seeds``) in words."""
    agree = seeds["agreement"]
    n_in = sum(a["agree"] for a in agree.values())
    worst = max(agree, key=lambda c: abs(agree[c]["difference"]) / (agree[c]["k"] * agree[c]["pooled_std"]))
    w = agree[worst]
    listed = ", ".join(map(str, seeds["seeds"][:-1])) + f" and {seeds['seeds'][-1]}"
    head = seeds.get("head_commit") or ""
    return (
        f"With seeds {listed} on both sides (chapter 22 at {_commit(base_commit)} and at "
        f"{_commit(head) if head else 'the newer commit'}), the difference of the two sides' mean test Spearman "
        f"lies within {w['k']:g} pooled seed standard deviations in {n_in} of {len(agree)} configurations (a "
        f"tolerance on the difference of {len(seeds['seeds'])} seed means a side, not an equivalence test); the "
        f"closest to its limit is {worst}, {w['difference']:+.2f} against {w['k'] * w['pooled_std']:.2f}"
    )


def ab_values(paths=None) -> dict:
    """The A/B records (``paths``, by default :func:`ab_paths`) in words (``ab_text``, a sentence
    per record) and chapter 22's test Spearman of both sides of each (``ab_table``); without a
    record, the sentence says it was not measured."""
    paths = ab_paths() if paths is None else [Path(p) for p in paths]
    paths = [p for p in paths if p.is_file()]
    if not paths:
        return {
            "ab_text": Prose(
                "The speed of chapters 22 and 23 against an older commit was not measured for this "
                "build (`benchmarks/csts_ab.py` measures it)"
            ),
            "ab_table": None,
        }
    texts, rows = zip(*map(_one, paths))
    # a record without seeds has no cell in that column: "not run", never a blank
    table = pd.DataFrame([r for rs in rows for r in rs]).set_index(["CPU", "config"]).fillna("not run")
    return {"ab_text": Prose(". ".join(texts)), "ab_table": table}


def _flag_rule(flags_on) -> str:
    """What ``precision="auto"`` trained in before the probe: the flag rule of those builds."""
    return (
        "bf16 autocast (the flag rule of that build: avx512_bf16 present)"
        if "avx512_bf16" in flags_on or "amx" in flags_on
        else "fp32 (the flag rule of that build: no avx512_bf16)"
    )


def precision_rows(root: Path | None = None) -> list[dict]:
    """Part II's rows of :func:`compsem.precisionrecords.machines_table`: the matrix-product limits
    and the training rate ratio of ``make bench`` (``benchmarks/csts_precision.json``) and, for each
    A/B record, the CPU and what the chapters trained in there (nothing timed per precision)."""
    bench = Path(root or repo_root()) / "benchmarks"
    rows = []
    path = bench / PRECISION_FILE
    if path.is_file():
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
            m, u = rec["machine"], rec["utilisation"]
            mm, k, n = u["gemm_shape"]
            ratios = [c["bf16_over_fp32"] for c in u["configs"].values() if "bf16_over_fp32" in c]
            rows.append(
                {
                    "CPU": cpu_words(m["cpu_model"], m.get("cpu_family"), m["cpu_flags"]),
                    "record": "Part II benchmark (make bench)",
                    "measured by": named(f"make bench (benchmarks/bench_csts.py), {u['measured']}", path.name),
                    "timed": f"matrix product {mm}×{k} @ {k}×{n}, {u['torch_threads']} threads",
                    "fp32 GFLOP/s": f"{u['fp32_gemm_gflop_per_s']:.0f}",
                    "bf16 GFLOP/s": f"{u['bf16_gemm_gflop_per_s']:.0f}",
                    "fp16 GFLOP/s": NOT_TIMED,
                    "bf16 / fp32": ratio_text(u["bf16_gemm_gflop_per_s"], u["fp32_gemm_gflop_per_s"]),
                    "training bf16 / fp32": f"{range_text(ratios)} (examples/s, {len(ratios)} configurations, "
                    f"{rec['train_rows']:,} training rows)",
                    "auto trains in": _flag_rule(m["cpu_flags"]),
                }
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{path}: not a precision record ({exc!r})") from None
    for p in (
        ab_paths() if root is None else [q for q in map(lambda k: bench / f"csts_ab_{k}.json", AB_KINDS) if q.is_file()]
    ):
        try:
            rec = json.loads(p.read_text(encoding="utf-8"))
            m = rec["machine"]
            on = [f for f, v in m["cpu_flags"].items() if v]
            trains = rec["precision"] if isinstance(rec.get("precision"), str) else _flag_rule(on)
            rows.append(
                {
                    "CPU": cpu_words(m["cpu_model"], m.get("cpu_family"), on),
                    "record": f"A/B run of chapter 22, {p.stem.removeprefix('csts_ab_')} record",
                    "measured by": named(
                        f"benchmarks/csts_ab.py, {rec['started']}, flags {', '.join(on) or 'none recorded'}", p.name
                    ),
                    "timed": NOT_TIMED,
                    "fp32 GFLOP/s": NOT_TIMED,
                    "bf16 GFLOP/s": NOT_TIMED,
                    "fp16 GFLOP/s": NOT_TIMED,
                    "bf16 / fp32": NOT_TIMED,
                    "training bf16 / fp32": "not measured",
                    "auto trains in": trains,
                }
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DataError(f"{p}: not an A/B record ({exc!r})") from None
    return rows


def precision_values(here: dict | None = None, *, forced: str | None = None, root: Path | None = None) -> dict:
    """Chapter 22's glue values and tables of precision: ``prec_here_text`` (this build's machine
    and what its probe measured and chose, :func:`compsem.precisionrecords.here_sentence`),
    ``prec_machines`` (the machines table with Part II's rows, :func:`precision_rows`), and
    :func:`compsem.csts.views.precision_comparison`'s ``ft_prec_text`` and ``ft_prec_table``, and
    ``prec_min_gain`` (:data:`compsem.device.MIN_GAIN`: the bf16 / fp32 rate below which the probe
    keeps fp32, a rule of the code, quoted by the pages that state it). ``here`` defaults to :func:`compsem.device.cpu_precision` (which runs the probe once per
    machine and user) and ``forced`` to what ``COMPSEM_PRECISION`` forces."""
    if here is None:
        here, forced = D.cpu_precision(), D.forced_precision()
    paths = (
        None
        if root is None
        else sorted(
            [
                *(Path(root) / "benchmarks").glob("precision_abba_*.json"),
                *(Path(root) / "benchmarks").glob("precision_reported_*.json"),
            ]
        )
    )
    from .views import precision_comparison  # here, not at the top: views imports ab_paths from this module

    comp = precision_comparison(None if root is None else Path(root) / "benchmarks" / PRECISION_FILE)
    return {
        "prec_here_text": here_sentence(here, forced=forced),
        "prec_machines": machines_table(here, forced=forced, paths=paths, extra_rows=precision_rows(root)),
        "ft_prec_text": comp["ft_prec_text"],
        "ft_prec_table": comp["ft_prec_table"],
        "prec_min_gain": D.MIN_GAIN,
    }


def profile_values(path: Path | None = None) -> dict:
    """Where a training step's own CPU time went, as ``make bench`` profiled it
    (``benchmarks/results.json``'s C-STS ``profile``, :func:`compsem.csts.utilisation.profile_steps`):
    ``prof_text`` names the machine, the configuration and the steps, and per precision the share
    of the matrix products and the largest other kind of work; ``prof_table`` is milliseconds per
    step and share per kind of work and precision (None, and a sentence saying so, where the
    record has no profile). A profile that cannot be read raises :class:`~compsem.errors.DataError`."""
    path = Path(path) if path is not None else repo_root() / "benchmarks" / "results.json"
    prof = None
    if path.is_file():
        prof = json.loads(path.read_text(encoding="utf-8")).get("studies", {}).get("csts", {}).get("profile")
    if not prof:
        return {
            "prof_text": Prose(
                f"No training step has been profiled in `{path.name}` yet (`make bench` profiles one in fp32 and bf16)"
            ),
            "prof_table": None,
        }
    try:
        precs = [p for p in ("fp32", "bf16") if p in prof]
        kinds = list(dict.fromkeys(k for p in precs for k in prof[p]["kinds"]))
        table = pd.DataFrame(
            {
                **{
                    f"{p} ms per step": [
                        f"{prof[p]['kinds'][k]['ms_per_step']:.1f}" if k in prof[p]["kinds"] else "0" for k in kinds
                    ]
                    for p in precs
                },
                **{
                    f"{p} share": [
                        f"{100 * prof[p]['kinds'][k]['share']:.0f} %" if k in prof[p]["kinds"] else "0 %" for k in kinds
                    ]
                    for p in precs
                },
            },
            index=pd.Index(kinds, name="kind of work"),
        )
        where = cpu_words(prof.get("cpu_model"), prof.get("cpu_family"), prof.get("cpu_flags") or [])
        load = prof.get("load_average")
        load = f", load average {load[0]:.1f}" if isinstance(load, list) and load else ""
        parts = []
        for p in precs:
            k = prof[p]["kinds"]
            mm = k.get("matrix products", {}).get("share", 0.0)
            other = max((x for x in k if x != "matrix products"), key=lambda x: k[x]["share"], default=None)
            parts.append(
                f"in {p} the matrix products took {100 * mm:.0f} % of a step's own CPU time"
                + (f" and {other}, the largest other kind, {100 * k[other]['share']:.0f} %" if other else "")
            )
        text = (
            f"Profiled by `make bench` on {where} ({prof.get('measured', 'time not recorded')}{load}), "
            f"{prof[precs[0]]['steps']} training steps of {prof.get('config')}: " + "; ".join(parts)
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise DataError(f"{path}: its C-STS profile cannot be read ({exc!r})") from None
    return {"prof_text": Prose(text), "prof_table": table}


#: the settings a bi-encoder trained with MSE reads, in words (the presets' other differences,
#: the quadruplet margin or the cross-encoder's head, do not reach it)
_SETTING_WORDS = {
    "pooling": "pooling",
    "lr": "learning rate",
    "train_layers": "layers trained",
    "weight_decay": "weight decay",
    "grad_clip": "gradient clipping",
    "max_length": "maximum length",
    "batch_size": "rows per step",
    "grad_accum": "accumulation steps",
    "paired_mse": "both rows of a pair in an MSE batch",
    "bucket": "batches of similar length",
    "dropout_draw": "dropout masks drawn",
}


def _setting(key: str, value) -> str:
    if key == "train_layers":
        return "all" if value is None else f"the top {value}"
    if key == "grad_clip":
        return "off" if not value else f"{value:g}"
    if key == "dropout_draw":
        return {"one": "once per call", "torch": "per site by torch"}.get(value, str(value))
    if key in ("paired_mse", "bucket"):
        return "yes" if value else "no"
    if key == "pooling":
        return {"cls": "[CLS]", "mean": "mean"}.get(value, str(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _moved(name: str, diff: dict) -> str:
    """One arm's paired difference from the authors' setting in words: raised or lowered where
    its 95 % interval excludes 0, else no evidence of a change."""
    lo, hi = diff["ci"]
    ci = f"[{lo:.1f}, {hi:.1f}]"
    if lo > 0:
        return f"{name} raised it by {diff['mean']:.1f} points {ci}"
    if hi < 0:
        return f"{name} lowered it by {-diff['mean']:.1f} points {ci}"
    return f"{name} changed it by {diff['mean']:+.1f} points {ci}, no evidence of a change"


def _gap_arm(arms: dict) -> tuple[str, dict]:
    """The arm of the settings-gap record with the most settings changed (the highest paired
    difference from the authors' setting among equals): the one chapter 22 sets beside the `cpu` preset."""
    moved = [(name, a) for name, a in arms.items() if "minus_official" in a]
    return max(moved, key=lambda na: (len(na[1].get("changes", {})), na[1]["minus_official"]["mean"]))


def cpu_against_arm(path: Path, arm: str, rows: pd.DataFrame, cpu_replicates, cpu_score: float) -> dict | None:
    """The `cpu` preset of this run minus one arm of the settings-gap record, on the same test
    pairs: the arm's test predictions (``path``, the record's ``_predictions.csv``, matched to
    ``rows`` by their ``row`` and ``pair_id``) give its Spearman and its pair-bootstrap replicates
    (:func:`compsem.csts.metrics.pair_bootstrap_replicates`, seed 0: the resamples of
    :func:`compsem.csts.views.paired_replicates`, which gave ``cpu_replicates``), and
    :func:`compsem.stats.paired_interval` the 95 % interval of the difference. ``{"difference",
    "low", "high", "arm_spearman"}``; None where the file, the arm's column or one of ``rows`` is
    missing (no paired difference can be formed)."""
    from compsem.stats import paired_interval

    from .metrics import correlations, pair_bootstrap_replicates

    if cpu_replicates is None or not Path(path).is_file():
        return None
    pred = pd.read_csv(path, dtype={"pair_id": str})
    if arm not in pred or not {"row", "pair_id"} <= set(pred) or not {"row", "pair_id"} <= set(rows):
        return None
    key = pd.MultiIndex.from_arrays([rows["row"].astype(int), rows["pair_id"].astype(str)])
    got = pred.set_index(["row", "pair_id"])[arm].reindex(key).to_numpy(float)
    if not np.isfinite(got).all():
        return None
    gold = rows["label"].to_numpy(float)
    arm_reps = pair_bootstrap_replicates(got, gold, rows["pair_id"], seed=0, n_boot=len(cpu_replicates))
    lo, hi = paired_interval(cpu_replicates, arm_reps)
    arm_score = float(correlations(got, gold)["spearman"])
    return {"difference": cpu_score - arm_score, "low": lo, "high": hi, "arm_spearman": arm_score}


def _gap_findings(arms: dict, n_differ: int, cpu_score: float | None, paired: dict | None = None) -> str:
    """What the settings-gap record measured, in words: each arm's paired difference
    (:func:`_moved`), then how the arm with the most settings changed (:func:`_gap_arm`) stands
    against the `cpu` preset's score of this run (``cpu_score``; None where this run trained on
    other rows): by their paired difference on the same test pairs (``paired``,
    :func:`cpu_against_arm`): above or below where its 95 % interval excludes 0, else no evidence
    of a difference; where a difference is found, how many settings were never varied. Without
    ``paired`` (the record keeps no predictions of that arm) the two are not compared."""
    moved = [(name, a) for name, a in arms.items() if "minus_official" in a]
    if not moved:
        return "The record holds no arm beside the authors' setting"
    parts = [_moved(" and ".join(name.split(", ")), a["minus_official"]) for name, a in moved]
    text = "On the same test pairs, " + "; ".join(parts).replace(" it ", " the score ", 1)
    name, best = _gap_arm(arms)
    name = " and ".join(name.split(", ")) + (" together" if ", " in name else "")
    left = n_differ - len(best.get("changes", {}))
    if cpu_score is None:
        return text
    lo, hi = best["ci"]
    text += f". With {name} the authors' settings score {best['test_spearman']:.1f} [{lo:.1f}, {hi:.1f}]"
    if paired is None:
        return text + (
            f"; the record keeps no test predictions of that arm, so the `cpu` preset's {cpu_score:.1f} in this run "
            "is not compared with it (two runs scored on the same pairs are compared by their paired difference, "
            "which needs the predictions of both)"
        )
    d, plo, phi = paired["difference"], paired["low"], paired["high"]
    ci = f"[{plo:.1f}, {phi:.1f}] (paired 95 % interval)"
    head = f"; on the same test pairs the `cpu` preset's {cpu_score:.1f} in this run"
    if plo > 0 or phi < 0:
        text += f"{head} lies {abs(d):.1f} points {'above' if plo > 0 else 'below'} that arm {ci}"
        if left:
            text += (
                f", and the other {left} settings in which the presets differ were not varied one at a time, so "
                "which of them accounts for the difference is not measured"
            )
        return text
    return text + f"{head} differs from that arm by {d:+.1f} points {ci}: no evidence of a difference"


def _paired_with_arm(path: Path, arms: dict, replicates, rows, config: str, cpu_score: float) -> dict | None:
    """:func:`cpu_against_arm` for the arm of :func:`_gap_arm`, from the run's replicates of ``config``."""
    if not replicates or rows is None or not any("minus_official" in a for a in arms.values()):
        return None
    reps = replicates.get(config, replicates.get(f"{SETTINGS['encoder']} {config}"))
    name, _ = _gap_arm(arms)
    return cpu_against_arm(path.with_name(path.stem + "_predictions.csv"), name, rows, reps, cpu_score)


def settings_gap_values(
    summary: pd.DataFrame,
    *,
    runs: pd.DataFrame | None = None,
    split: str = "test",
    root: Path | None = None,
    replicates: dict | None = None,
    rows: pd.DataFrame | None = None,
) -> dict:
    """Why the authors' settings (``compsem.csts.authors.SETTINGS``) score lower than the ``cpu``
    preset here: ``gap_text`` lists the settings in which the two presets differ for the
    bi-encoder with MSE (:data:`compsem.csts.config.PRESETS`), the optimiser updates one epoch
    makes under each, and, where ``benchmarks/csts_settings_gap.json`` exists
    (``benchmarks/csts_settings_gap.py``), what changing one setting at a time measured, else the
    two likeliest causes worded as hypotheses; ``gap_table`` is that record's arms (or None).
    ``runs`` (the chapter's run records, with ``n_train_rows``): where this run trained on other
    rows than the authors' record, the text says that the two scores are not comparable.
    ``replicates`` (:func:`compsem.csts.views.paired_replicates` of the run) and ``rows`` (the run's
    ``split`` rows): the `cpu` preset is set beside the record's arm of most changes by their
    paired difference on the same test pairs (:func:`cpu_against_arm`); without them, or without
    the arm's predictions beside the record, the two are not compared."""
    enc, obj = SETTINGS["config"].split("/")
    off = asdict(TrainConfig.preset("official", encoding=enc, objective=obj, **SETTINGS["overrides"]))
    cpu = asdict(TrainConfig.preset("cpu", encoding=enc, objective=obj))
    rec = load_record()
    config = SETTINGS["config"]
    row = summary[summary["config"] == config]
    if rec is None or not len(row):
        return {
            "gap_text": Prose(
                f"The authors' settings were not run beside {config} in this build, so the gap "
                "between them is not stated"
            ),
            "gap_table": None,
        }
    cpu_score = float(row[f"{split}_spearman_mean"].iloc[0])
    authors = float(rec["comparison"]["authors_mean"])
    n_rows = int(re.search(r"([\d,]+) training", rec["setting"]).group(1).replace(",", ""))
    per = {"official": off["batch_size"] * off["grad_accum"], "cpu": cpu["batch_size"] * cpu["grad_accum"]}
    updates = {k: -(-n_rows // v) for k, v in per.items()}
    keys = [k for k in _SETTING_WORDS if k in off and off[k] != cpu.get(k)]
    diff = "; ".join(f"{_SETTING_WORDS[k]} {_setting(k, off[k])} against {_setting(k, cpu[k])}" for k in keys)
    mine = None if runs is None or "n_train_rows" not in runs else runs.loc[runs["config"] == config, "n_train_rows"]
    here = "in this run"
    if mine is not None and len(mine) and int(mine.iloc[0]) != n_rows:
        here = (
            f"in this run, trained on {int(mine.iloc[0]):,} rows, not the {n_rows:,} the authors' settings were run "
            f"on, so these two scores are not comparable"
        )
    text = (
        f"The authors' settings score {authors:.1f} on the book's default split (their code, "
        f"{len(rec['seeds'])} seeds) and the `cpu` preset's {config} {cpu_score:.1f} {here}. The two presets differ in "
        f"{len(keys)} settings ({diff}). One epoch of {n_rows:,} training rows makes {updates['official']} optimiser "
        f"updates of {per['official']} rows at the authors' settings and {updates['cpu']} of {per['cpu']} at the "
        f"`cpu` preset's"
    )
    path = Path(root or repo_root()) / "benchmarks" / "csts_settings_gap.json"
    table = None
    if path.is_file():
        gap = json.loads(path.read_text(encoding="utf-8"))
        arms = gap["arms"]
        table = pd.DataFrame(
            [
                {
                    "arm": name,
                    "test Spearman [95 %]": f"{a['test_spearman']:.2f} [{a['ci'][0]:.1f}, {a['ci'][1]:.1f}]",
                    "minus official [95 %]": (
                        f"{a['minus_official']['mean']:+.2f} [{a['minus_official']['ci'][0]:.1f}, "
                        f"{a['minus_official']['ci'][1]:.1f}]"
                    )
                    if "minus_official" in a
                    else "—",
                }
                for name, a in arms.items()
            ]
        ).set_index("arm")
        text += (
            f". Setting one or two of them to the `cpu` preset's value, the rest as the authors' "
            f"(`benchmarks/csts_settings_gap.py`, seed 0, {gap['train_rows']:,} training rows, {gap['started']}), "
            f"gives the table below, with each arm's paired difference from the authors' setting on the same "
            f"test pairs (95 % pair-bootstrap interval); one seed, so a "
            f"difference smaller than the authors' seed spread ({rec['comparison']['pooled_std']:.1f} points) says nothing. "
            + _gap_findings(
                arms,
                len(keys),
                cpu_score if here == "in this run" else None,
                _paired_with_arm(path, arms, replicates, rows, config, cpu_score) if here == "in this run" else None,
            )
        )
    else:
        text += (
            f". We have not measured which of these differences makes the gap; we suspect two (hypotheses, untested): "
            f"`sbert-mini` was trained to be read through mean pooling, so its [CLS] state may be a poor sentence "
            f"vector; and {updates['official']} updates at learning rate {off['lr']:g} may move a pretrained encoder "
            f"too little to learn to read the condition. `benchmarks/csts_settings_gap.py` tests both, one setting "
            f"at a time; its record is not in this build"
        )
    return {"gap_text": Prose(text), "gap_table": table}
