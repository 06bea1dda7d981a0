"""What the Part I chapters show: the chapter views and the values they glue, the paper's
tables, the synthesis' headlines and try-it.

* :func:`paper_table` — a table of the paper's numbers (``data/reference/setcomp_<name>.csv``);
* the chapter views :class:`DataChapter`, :class:`OverlapChapter`, :class:`DifferenceChapter`,
  :class:`UnionChapter` (:mod:`.chapters`): a chapter builds one from its :func:`.study.run` and
  shows its tables and figures cell by cell; :func:`values` gives what the prose glues
  (``compsem.results.glue_all(report.values(view))``);
* the synthesis' :data:`HEADLINES` / :func:`headlines` and :func:`try_it`.

The pieces the views are built from sit beside this face: :mod:`.beside` (ours beside the
paper) and :mod:`.plots` (figures).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import measures as M
from .. import reference
from ..cache import embed
from ..encoders import validate_texts
from ..results import Headline, bootstrap_headline
from .chapters import DifferenceChapter, OverlapChapter, UnionChapter
from .datachapter import DataChapter
from .data import build_operator_tables, load_quintuples, shuffled_targets
from .metrics import criterion_deltas, geometry
from .study import STUDY, difference_filter, embed_tables
from .lesson import LESSON  # the study's session of the course guide
from .tryit import TRY_IT  # the study's section of the try-it page
from .finding import FINDING  # the study's part of the synthesis (chapter 90)
from .paperclaims import CLAIMS  # noqa: F401  (the paper's claims and our verdicts: the Part page's table)

__all__ = [
    "TRY_IT",
    "LESSON",
    "paper_table",
    "values",
    "DataChapter",
    "OverlapChapter",
    "DifferenceChapter",
    "UnionChapter",
    "FINDING",
    "HEADLINES",
    "SHUFFLED",
    "headlines",
    "try_it",
]


def paper_table(name: str) -> pd.DataFrame:
    """A table of the paper's numbers, ``data/reference/setcomp_<name>.csv``
    (:func:`compsem.reference.paper_table`)."""
    return reference.paper_table(STUDY, name)


def values(view: DataChapter | OverlapChapter | DifferenceChapter | UnionChapter) -> dict[str, object]:
    """``{glue name: value}``: what a chapter view recorded as its cells ran (call it last)."""
    return dict(view.values)


# ----------------------------------------------------------------------------- the synthesis' headlines

#: Part I's headline criteria in the cross-study profile (cosine, ε = 0). Each direction is the
#: chapter's own (``direction`` says where it is argued, or why none is).
HEADLINES: tuple[Headline, ...] = (
    Headline(
        "C1",
        "I",
        "C1 overlap: both margins ≥ 0",
        "%",
        float("nan"),
        "quintuples (their overlap samples together)",
        "the overlap sentence is closer to each input than the inputs are to each other",
        direction="chapter 11: a set-like encoder puts many samples in the cell where both C1 conditions hold",
    ),
    Headline(
        "C2",
        "I",
        "C2 overlap projects between A and B",
        "%",
        float("nan"),
        "quintuples (their overlap samples together)",
        "the overlap's shadow in plane(A, B) lies between the inputs",
        direction="chapter 11: the projection of a set-like encoder's overlap should lie between the inputs",
    ),
    Headline(
        "C3",
        "I",
        "C3 difference: both margins ≥ 0",
        "%",
        float("nan"),
        "quintuples (their difference samples together)",
        "the difference sentence is closer to A than to B, and A–B closer than B–D",
        direction="chapter 12: the difference should be closer to A than to B, and B closer to A than to it",
    ),
    Headline(
        "C5",
        "I",
        "C5 difference projects near A",
        "%",
        float("nan"),
        "quintuples (their difference samples together)",
        "the difference's shadow lies within a quarter of angle(A, B) of A",
        higher=None,
        direction="chapter 12 reads a shadow beyond A (a negative position) as set-like too, and the worked example's "
        "exact set difference lies beyond A and outside the quarter-angle region, so one share near A has no better "
        "side",
    ),
    Headline(
        "C6",
        "I",
        "C6 union projects between A and B",
        "%",
        float("nan"),
        "quintuples (their union samples together)",
        "the union's shadow lies between the inputs",
        higher=None,
        direction="chapter 13 expects the union between A and B only where the two norms are comparable, and "
        "near the longer input otherwise, so one share between A and B has no better side",
    ),
)
_H = {h.key: h for h in HEADLINES}

#: the name of a model's shuffled-target control in the synthesis' rows
SHUFFLED = "{model} (shuffled targets)"


def _criterion_rows(
    m: str, e: dict, *, n_boot: int, seed: int, control_of: str = "", groups: dict | None = None
) -> list[dict]:
    """The five headline rows of one model's embeddings ``e`` (``{operator: {"a", "b", "t"}}``);
    with ``groups`` (``{operator: each sample's quintuple}``) every row resamples quintuples."""
    groups = groups or {}
    rows = []
    for key, op in (("C1", "overlap"), ("C3", "difference")):
        d = criterion_deltas(e[op]["a"], e[op]["b"], e[op]["t"], op, measure="cos")
        both = np.where(np.isnan(d["d1"]) | np.isnan(d["d2"]), np.nan, (d["d1"] >= 0) & (d["d2"] >= 0))
        rows.append(
            bootstrap_headline(
                _H[key], m, both, n_boot=n_boot, seed=seed, scale=100, control_of=control_of, groups=groups.get(op)
            )
        )
    for key, op, region in (("C2", "overlap", "between"), ("C5", "difference", "near_a"), ("C6", "union", "between")):
        g = geometry({m: e}, op)[m]
        t = np.where(g.degenerate, np.nan, g.t)
        with np.errstate(invalid="ignore"):
            hit = (t >= 0) & (t <= 1) if region == "between" else np.abs(t) <= 0.25
        rows.append(
            bootstrap_headline(
                _H[key],
                m,
                np.where(np.isnan(t), np.nan, hit),
                n_boot=n_boot,
                seed=seed,
                scale=100,
                control_of=control_of,
                groups=groups.get(op),
            )
        )
    return rows


def headlines(
    models: Sequence[str],
    *,
    trust_remote_code: bool = False,
    n_boot: int = 1000,
    seed: int = 0,
    filter_encoder: str = "sbert-mini",
    limit: int | None = None,
) -> list[dict]:
    """C1, C2, C3, C5, C6 on the shipped quintuples (the first ``limit`` of them when given; cosine,
    ε = 0; difference filter fixed), and
    after them each model's own control: the same criteria with every target taken from another
    quintuple (:func:`~compsem.setcomp.data.shuffled_targets`, ``seed``), as chapters 11–13 show
    it, in rows named :data:`SHUFFLED` whose ``control_of`` is the model. Every row's
    ``replicates`` resample the operator's quintuples whole, alike for every model and its control
    (the samples of one quintuple share sentences); the value is the mean over the samples, as in
    the chapters."""
    q = load_quintuples(limit=limit).reset_index(drop=True)
    flt = difference_filter(q, encoders=filter_encoder)
    tables = build_operator_tables(q, difference_mask=flt.mask)
    shuffled = {op: shuffled_targets(t, op, seed=seed) for op, t in tables.items()}
    emb = embed_tables(tables, list(models), trust_remote_code=trust_remote_code)
    shuf = embed_tables(shuffled, list(models), trust_remote_code=trust_remote_code)
    groups = {op: t["qid"].to_numpy() for op, t in tables.items()}
    rows = [r for m, e in emb.items() for r in _criterion_rows(m, e, n_boot=n_boot, seed=seed, groups=groups)]
    return rows + [
        r
        for m, e in shuf.items()
        for r in _criterion_rows(SHUFFLED.format(model=m), e, n_boot=n_boot, seed=seed, control_of=m, groups=groups)
    ]


def _verdict(x: float) -> str:
    return "undefined" if not np.isfinite(x) else ("holds" if x else "fails")


def _difference_place(t: float, *, near: float = 0.25) -> str:
    """Where a difference's shadow falls, in words, without a pass or a fail: chapter 12 reads a
    shadow near A (``|t| ≤ near``) and one beyond A (``t < -near``) as set-like, so C5 has no side
    that fails; "toward B" is ``t > near``."""
    if not np.isfinite(t):
        return "undefined"
    return "near A" if abs(t) <= near else ("beyond A" if t < 0 else "toward B")


def _union_case(ratio: float, t: float, *, comparable: float = 0.1, near: float = 0.25) -> tuple[str, str, bool]:
    """(norm case, expected region, whether ``t`` lies in it) for one union, with the union
    chapter's thresholds: comparable norms → between A and B; otherwise near the longer input."""
    if not np.isfinite(ratio):
        return "undefined", "between A and B", False
    if abs(ratio - 1) <= comparable:
        return "comparable norms", "between A and B: 0 ≤ t ≤ 1", bool(0 <= t <= 1)
    if ratio > 1:
        return "A longer", f"near A: |t| ≤ {near:g}", bool(abs(t) <= near)
    return "B longer", f"near B: |t − 1| ≤ {near:g}", bool(abs(t - 1) <= near)


def try_it(
    a: str, b: str, overlap: str, difference: str, union: str, models: Sequence[str], *, trust_remote_code: bool = False
) -> pd.DataFrame:
    """Part I criteria at ε = 0 (cosine) for one A, B and a candidate O, D and U.

    Columns: model, criterion, value (the margin or position), verdict.
    """
    texts = validate_texts([a, b, overlap, difference, union])
    rows = []
    for m in models:
        A, B, O, D, U = (
            x[None] for x in np.asarray(embed(texts, m, trust_remote_code=trust_remote_code), dtype=np.float64)
        )
        dO = criterion_deltas(A, B, O, "overlap", measure="cos")
        dD = criterion_deltas(A, B, D, "difference", measure="cos")
        gO, gD, gU = (M.plane_geometry(A, B, X, warn=False) for X in (O, D, U))
        ratio = float(M.norm_ratio(A, B, warn=False)[0])
        # C6's expected region follows the norm case, as in the union chapter (tables.union_table)
        case, region, in_region = _union_case(ratio, float(gU.t[0]))
        checks = [
            ("C1 Δ1 = cos(A,O) − cos(A,B)", dO["d1"][0], dO["d1"][0] >= 0),
            ("C1 Δ2 = cos(B,O) − cos(A,B)", dO["d2"][0], dO["d2"][0] >= 0),
            ("C2 position t of O (0 = A, 1 = B)", gO.t[0], 0 <= gO.t[0] <= 1),
            ("C3 Δ1 = cos(A,D) − cos(B,D)", dD["d1"][0], dD["d1"][0] >= 0),
            ("C3 Δ2 = cos(A,B) − cos(B,D)", dD["d2"][0], dD["d2"][0] >= 0),
            ("C4 Δ3 = cos(A−B, D) − cos(A−B, B)", dD["d3"][0], dD["d3"][0] >= 0),
            ("C5 position t of D (near A: |t| ≤ 0.25)", gD.t[0], _difference_place(float(gD.t[0]))),
            ("C6 norm ratio |A|/|B| (comparable: within 0.1 of 1)", ratio, case),
            (f"C6 position t of U (expected {region})", gU.t[0], in_region),
        ]
        for name, value, ok in checks:
            if isinstance(ok, str):  # the norm case and C5's place are descriptions, not a pass or a fail
                verdict = ok
            else:
                verdict = _verdict(float(ok) if np.isfinite(value) else np.nan)
            rows.append({"model": m, "criterion": name, "value": float(value), "verdict": verdict})
    return pd.DataFrame(rows)
