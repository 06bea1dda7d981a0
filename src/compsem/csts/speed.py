"""How fast Part II's chapters run against an older commit (torch-free; ``csts.report``
re-exports it): the records of ``benchmarks/csts_ab.py`` (chapters 22 and 23 timed one after the
other, each side from an empty cache), one per kind of CPU — ``benchmarks/csts_ab_fp32.json``
from a CPU without native bf16 (the chapters train in fp32 there), ``benchmarks/csts_ab_bf16.json``
from one with it (they train under bf16 autocast) — in words and as one table, for chapter 22.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from compsem.errors import DataError
from compsem.paths import repo_root
from compsem.results import Prose

__all__ = ["AB_KINDS", "ab_path", "ab_paths", "ab_values"]

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


def _kind(machine: dict) -> str:
    flags = machine.get("cpu_flags", {})
    return "bf16" if flags.get("avx512_bf16") or flags.get("amx") else "fp32"


def _one(path: Path) -> tuple[str, list[dict]]:
    """One record: its sentence, and one table row per configuration of chapter 22."""
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        c, m = rec["comparison"], rec["machine"]
        flags = [f for f, on in m["cpu_flags"].items() if on]
        kind = _kind(m)
        trains = "under bf16 autocast" if kind == "bf16" else "in fp32"
        text = (
            f"On {m['cpu_model']} ({m['cores']} cores, flags {', '.join(flags) or 'none of those recorded'}; "
            f"the chapters train {trains} there), chapters 22 and 23 together ran "
            f"{c['total']['speedup']:.2f}× as fast at commit `{rec['head_commit'][:7]}` as at "
            f"`{rec['base_commit'][:7]}`: {c['total']['base']:.0f} s against {c['total']['head']:.0f} s "
            f"(chapter 22 {c['22_csts_finetune']['speedup']:.2f}×, chapter 23 "
            f"{c['23_csts_ablation_scaling']['speedup']:.2f}×), each side from an empty cache, run one after "
            f"the other, {rec['started']}; one run per side"
        )
        sp = rec["spearman_22"]
        cell = lambda v: f"{v[0]:.2f} [{v[1]:.1f}, {v[2]:.1f}]"
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
            for r in rows:
                a = agree.get(r["config"])
                r["seeds: older − newer"] = (
                    (
                        f"{a['difference']:+.2f} (limit {a['k'] * a['pooled_std']:.2f}: "
                        f"{'within' if a['agree'] else 'outside'})"
                    )
                    if a
                    else "not run"
                )
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise DataError(f"{path}: not an A/B record ({exc!r})") from None
    return text, rows


def _seed_text(seeds: dict, base_commit: str) -> str:
    """The seed comparison of a record (``benchmarks/csts_ab.py --seeds``) in words."""
    agree = seeds["agreement"]
    n_in = sum(a["agree"] for a in agree.values())
    worst = max(agree, key=lambda c: abs(agree[c]["difference"]) / (agree[c]["k"] * agree[c]["pooled_std"]))
    w = agree[worst]
    listed = ", ".join(map(str, seeds["seeds"][:-1])) + f" and {seeds['seeds'][-1]}"
    return (
        f"With seeds {listed} at both commits (chapter 22 at `{base_commit[:7]}` and at "
        f"`{seeds.get('head_commit', '')[:7] or 'the newer commit'}`), the mean test Spearman of "
        f"{n_in} of {len(agree)} configurations agrees within {w['k']:g} pooled seed standard deviations; the "
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
