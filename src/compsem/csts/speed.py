"""How fast Part II's chapters run against an older commit (torch-free; ``csts.report``
re-exports it): the record of ``benchmarks/csts_ab.py`` (chapters 22 and 23 timed one after the
other, each side from an empty cache) in words and as a table, for chapter 22.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from compsem.errors import DataError
from compsem.paths import repo_root
from compsem.results import Prose

__all__ = ["ab_path", "ab_values"]


def ab_path() -> Path:
    """``benchmarks/csts_ab.json``: chapters 22 and 23 timed against an older commit
    (``benchmarks/csts_ab.py``)."""
    return repo_root() / "benchmarks" / "csts_ab.json"


def ab_values(path=None) -> dict:
    """The A/B record in words (``ab_text``) and chapter 22's test Spearman of both sides
    (``ab_table``); without a record, the sentence says it was not measured."""
    path = Path(path) if path else ab_path()
    if not path.is_file():
        return {"ab_text": Prose("The speed of chapters 22 and 23 against an older commit was not measured for this "
                                 "build (`benchmarks/csts_ab.py` measures it)"), "ab_table": None}
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        c, m = rec["comparison"], rec["machine"]
        flags = [f for f, on in m["cpu_flags"].items() if on]
        text = (f"Chapters 22 and 23 together ran {c['total']['speedup']:.2f}× as fast as at commit "
                f"`{rec['base_commit'][:7]}`: {c['total']['base']:.0f} s against "
                f"{c['total']['head']:.0f} s (chapter 22 {c['22_csts_finetune']['speedup']:.2f}×, chapter 23 "
                f"{c['23_csts_ablation_scaling']['speedup']:.2f}×), each side from an empty cache, run one after "
                f"the other on {m['cpu_model']} ({m['cores']} cores, flags {', '.join(flags) or 'none of those recorded'}), "
                f"{rec['started']}, commit `{rec['head_commit'][:7]}`; one run per side")
        sp = rec["spearman_22"]
        rows = [{"config": k, f"test Spearman at {rec['base_commit'][:7]}": f"{b[0]:.2f} [{b[1]:.1f}, {b[2]:.1f}]",
                 f"test Spearman at {rec['head_commit'][:7]}": (lambda h: f"{h[0]:.2f} [{h[1]:.1f}, {h[2]:.1f}]")(
                     sp["head"][k]) if k in sp["head"] else "not run"} for k, b in sp["base"].items()]
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise DataError(f"{path}: not an A/B record ({exc!r})") from None
    return {"ab_text": Prose(text), "ab_table": pd.DataFrame(rows).set_index("config")}
