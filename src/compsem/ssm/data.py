"""The sentence pool and the project's reference judgements (Part IV).

A *pool* is a list of sentences grouped into clusters. Each cluster has one premise, a few
synonymous rewrites of it and a few inferential hypotheses (sentences the premise entails but
which do not entail the premise). Every ordered pair of pool sentences falls into one pair
category (:data:`CATEGORIES`).

Files (``data/ssm/``):

``pool.csv``
    ``sentence_id, cluster, role, text`` with ``role`` in ``premise | synonymous | inferential``.
``judgements.csv``
    ``premise_id, hypothesis_id, category, score``: the project's graded judgement R(i, j) of
    "can sentence j be inferred from sentence i?" on the four-option scale
    0 (cannot) / 0.3 (low probability) / 0.7 (high probability) / 1 (can be inferred).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..data import read_table
from ..errors import DataError
from ..paths import data_dir
from ..fmt import noun

ROLES = ("premise", "synonymous", "inferential")
#: pair categories, in the order of the paper's Table 2, plus the diagonal and a split of
#: the paper's single "irrelevant" category into pairs of one cluster and pairs across clusters.
CATEGORIES = (
    "synonymous",
    "synonymous_reversed",
    "inferential",
    "inferential_reversed",
    "irrelevant",  # sentences of different clusters
    "within_cluster",  # two hypotheses of the same premise (unlabelled; reference 0)
    "identical",  # the diagonal
)
#: the four answer options and their scores (paper, Section 2.2)
SCALE = (0.0, 0.3, 0.7, 1.0)


@dataclass(frozen=True)
class Pool:
    """A sentence pool: parallel arrays over the N sentences, in file order."""

    ids: tuple[str, ...]
    clusters: np.ndarray  # (N,) int cluster label
    roles: tuple[str, ...]
    texts: tuple[str, ...]
    source: str = "embedded"
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self._index.update({s: k for k, s in enumerate(self.ids)})

    def __len__(self) -> int:
        return len(self.ids)

    def index(self, sentence_id: str) -> int:
        return self._index[sentence_id]

    @property
    def n_clusters(self) -> int:
        return int(np.unique(self.clusters).size)

    @property
    def checksum(self) -> str:
        """SHA-256 (first 16 hex digits) of the texts in pool order; keys the score cache."""
        h = hashlib.sha256("\n".join(self.texts).encode("utf-8"))
        return h.hexdigest()[:16]

    def premise_of(self) -> np.ndarray:
        """(N,) index of each sentence's cluster premise."""
        prem = {c: k for k, (c, r) in enumerate(zip(self.clusters, self.roles)) if r == "premise"}
        return np.array([prem[c] for c in self.clusters])

    def cluster_order(self) -> np.ndarray:
        """Permutation that sorts sentences by cluster (premise first), stable otherwise."""
        rank = np.array([ROLES.index(r) for r in self.roles])
        return np.lexsort((np.arange(len(self)), rank, self.clusters))

    def subset(self, clusters) -> "Pool":
        """The pool restricted to the given cluster labels (order kept)."""
        keep = np.isin(self.clusters, np.asarray(list(clusters)))
        idx = np.flatnonzero(keep)
        return Pool(
            tuple(self.ids[i] for i in idx),
            self.clusters[idx],
            tuple(self.roles[i] for i in idx),
            tuple(self.texts[i] for i in idx),
            source=f"{self.source}[{len(np.unique(self.clusters[idx]))} clusters]",
        )


def _cell(value) -> str:
    """A table cell as text ('' for an empty cell)."""
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


def _read_rows(path: Path, required: tuple[str, ...]) -> list[dict]:
    """The rows of a CSV as dicts of text cells, read with :func:`compsem.data.read_table`.
    Rows are numbered as in a spreadsheet: the header is row 1, the first data row row 2."""
    df = read_table(path, as_text=True)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataError(
            f"missing {noun(len(missing), 'column')} {missing}; found {list(df.columns)}",
            file=str(path),
            row=1,
            column=missing[0],
        )
    if df.empty:
        raise DataError("no data rows", file=str(path), row=2)
    return [{c: _cell(v) for c, v in zip(df.columns, row)} for row in df.itertuples(index=False)]


def load_pool(path: str | Path | None = None) -> Pool:
    """Read a sentence pool CSV (default ``data/ssm/pool.csv``) and validate it.

    Raises
    ------
    DataError
        naming file, row (1-based, header = row 1) and column for a missing column, an empty
        text, an unknown role, a non-integer cluster, a duplicate id or text, or a cluster
        without exactly one premise.
    """
    path = Path(path) if path is not None else data_dir("ssm") / "pool.csv"
    rows = _read_rows(path, ("sentence_id", "cluster", "role", "text"))
    ids, clusters, roles, texts = [], [], [], []
    seen_id, seen_text = {}, {}
    for r, row in enumerate(rows, start=2):
        sid = (row["sentence_id"] or "").strip()
        text = " ".join((row["text"] or "").split())
        role = (row["role"] or "").strip().lower()
        if not sid:
            raise DataError("empty id", file=str(path), row=r, column="sentence_id")
        if sid in seen_id:
            raise DataError(
                f"duplicate id {sid!r} (first at row {seen_id[sid]})", file=str(path), row=r, column="sentence_id"
            )
        try:
            cl = int((row["cluster"] or "").strip())
        except ValueError:
            raise DataError(
                f"expected an integer, got {row['cluster']!r}", file=str(path), row=r, column="cluster"
            ) from None
        if role not in ROLES:
            raise DataError(f"{row['role']!r} is not one of {ROLES}", file=str(path), row=r, column="role")
        if not text:
            raise DataError("empty text", file=str(path), row=r, column="text")
        if text.lower() in seen_text:
            raise DataError(
                f"duplicate of the sentence at row {seen_text[text.lower()]}", file=str(path), row=r, column="text"
            )
        seen_id[sid] = r
        seen_text[text.lower()] = r
        ids.append(sid)
        clusters.append(cl)
        roles.append(role)
        texts.append(text)
    clusters = np.asarray(clusters, dtype=int)
    for c in np.unique(clusters):
        n_prem = sum(1 for cc, ro in zip(clusters, roles) if cc == c and ro == "premise")
        if n_prem != 1:
            first = 2 + int(np.flatnonzero(clusters == c)[0])
            raise DataError(
                f"cluster {c} has {n_prem} premises (need exactly 1)", file=str(path), row=first, column="role"
            )
    return Pool(tuple(ids), clusters, tuple(roles), tuple(texts), source=str(path.name))


def pair_categories(pool: Pool) -> np.ndarray:
    """(N, N) array of category names: entry (i, j) is the category of premise i, hypothesis j."""
    n = len(pool)
    cl = pool.clusters
    roles = np.asarray(pool.roles)
    same = cl[:, None] == cl[None, :]
    is_prem = roles == "premise"
    cat = np.full((n, n), "irrelevant", dtype=object)
    cat[same] = "within_cluster"
    for role in ("synonymous", "inferential"):
        hyp = roles == role
        cat[same & is_prem[:, None] & hyp[None, :]] = role
        cat[same & hyp[:, None] & is_prem[None, :]] = role + "_reversed"
    np.fill_diagonal(cat, "identical")
    return cat


def load_reference(pool: Pool, path: str | Path | None = None) -> np.ndarray:
    """The project's reference matrix R_ref (N, N) for ``pool``.

    Labelled pairs take their graded judgement; unlabelled pairs follow the paper: identical
    pairs 1, all other pairs 0. Every judgement must name pool sentences, use the four-option
    scale and carry the category :func:`pair_categories` gives that pair.
    """
    path = Path(path) if path is not None else data_dir("ssm") / "judgements.csv"
    rows = _read_rows(path, ("premise_id", "hypothesis_id", "category", "score"))
    cats = pair_categories(pool)
    R = np.zeros((len(pool), len(pool)))
    labelled = np.zeros_like(R, dtype=bool)
    for r, row in enumerate(rows, start=2):
        ij = []
        for col in ("premise_id", "hypothesis_id"):
            sid = (row[col] or "").strip()
            if sid not in pool._index:
                raise DataError(f"unknown sentence id {sid!r}", file=str(path), row=r, column=col)
            ij.append(pool.index(sid))
        i, j = ij
        try:
            s = float(row["score"])
        except (TypeError, ValueError):
            raise DataError(f"not a number: {row['score']!r}", file=str(path), row=r, column="score") from None
        if not any(abs(s - v) < 1e-9 for v in SCALE):
            raise DataError(f"{s} is not on the scale {SCALE}", file=str(path), row=r, column="score")
        cat = (row["category"] or "").strip()
        if cat != cats[i, j]:
            raise DataError(
                f"{cat!r} but the pool makes this pair {cats[i, j]!r}", file=str(path), row=r, column="category"
            )
        if labelled[i, j]:
            raise DataError(
                f"pair ({row['premise_id']}, {row['hypothesis_id']}) judged twice",
                file=str(path),
                row=r,
                column="premise_id",
            )
        R[i, j] = s
        labelled[i, j] = True
    np.fill_diagonal(R, 1.0)
    return R


def load_study(pool_source: str | Path | None = None) -> tuple[Pool, np.ndarray, np.ndarray]:
    """(pool, R_ref, categories) for the shipped pool (``pool_source=None``) or for a pool CSV
    whose judgements sit beside it as ``judgements.csv``.

    Returns
    -------
    pool : Pool
    R_ref : ndarray (N, N)
        the reference matrix (:func:`load_reference`);
    categories : ndarray (N, N) of str
        the pair categories (:func:`pair_categories`).
    """
    if pool_source is None:
        pool = load_pool()
        R_ref = load_reference(pool)
    else:
        pool = load_pool(pool_source)
        R_ref = load_reference(pool, Path(pool_source).with_name("judgements.csv"))
    return pool, R_ref, pair_categories(pool)


def unique_texts(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Unique texts in first-seen order and the inverse index (``texts[k] == uniq[inv[k]]``), so
    that a scorer scores each distinct pair once and expands the result with ``R[np.ix_(inv, inv)]``."""
    if len(texts) == 0:
        raise ValueError("no texts to score")
    pos: dict[str, int] = {}
    inv = np.array([pos.setdefault(t, len(pos)) for t in texts], dtype=int)
    return list(pos), inv
