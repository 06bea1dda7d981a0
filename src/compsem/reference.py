"""Numbers transcribed from the papers, and the papers' model panels.

Every paper table the book shows beside its own numbers lives in
``data/reference/<study>_<name>.csv`` and is read with one function::

    paper_table("setcomp", "c1_cells")        # Part I, Table 1
    paper_table("montague", "table6")         # Part III, Table 6

A file may open with ``#`` comment lines (the citation); they are kept in
``df.attrs["comment"]``. A missing table raises one error, :class:`~compsem.errors.DataError`,
that lists what the study has.

``data/reference/paper_models/<study>.csv`` maps each model a study's paper reports to a hub id
(or says why it cannot be loaded), to our spec, and to the row name the paper's tables use; a
study without such a file has no paper panel (``models="paper"`` runs nothing). One file per
study, so that a change to one panel re-executes only that study's chapters.
:func:`paper_models` reads it, :func:`paper_panel` gives the specs of a study's panel
(``models="paper"`` in a chapter), and :func:`paper_row` says which paper row, if any, a spec
stands beside.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .errors import DataError, check_trust_remote_code
from .paths import data_dir
from .studies import NAMES
from .fmt import noun

__all__ = [
    "STUDIES",
    "paper_table",
    "paper_tables",
    "published_table",
    "paper_models",
    "paper_panel",
    "paper_row",
    "paper_match",
    "model_key",
    "PAPER_MODEL_COLUMNS",
    "MODEL_KINDS",
]

#: The studies' names, in the book's order (from the registry, :data:`compsem.studies.NAMES`).
STUDIES: tuple[str, ...] = NAMES

#: Columns of ``data/reference/paper_models/<study>.csv``.
PAPER_MODEL_COLUMNS: tuple[str, ...] = (
    "study",
    "paper_name",
    "paper_variant",
    "kind",
    "hub_id",
    "spec",
    "same_model",
    "dim",
    "size_gb",
    "licence",
    "trust_remote_code",
    "note",
)

#: The kinds of model a paper panel holds.
MODEL_KINDS: tuple[str, ...] = ("encoder", "generator", "nli")

#: Hub organisations that took over older un-prefixed names (``roberta-base`` is
#: ``FacebookAI/roberta-base``); a spec with or without them names the same weights.
_LEGACY_ORGS: tuple[str, ...] = ("facebookai/", "google-bert/", "openai-community/", "distilbert/", "google-t5/")

#: Spec prefixes that say how a model is run, not which weights it has.
_RUN_PREFIXES: tuple[str, ...] = ("gen:hf:", "hf:", "st:", "nli:", "emb:", "llm:")


def _check_study(study: str) -> None:
    if study not in STUDIES:
        raise DataError(f"unknown study {study!r}; the studies are {', '.join(STUDIES)}")


def _read_commented_csv(path: Path, **kw) -> pd.DataFrame:
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    n = 0
    while n < len(lines) and lines[n].startswith("#"):
        n += 1
    df = pd.read_csv(path, skiprows=n, **kw)
    df.attrs["comment"] = " ".join(line.lstrip("# ").strip() for line in lines[:n])
    df.attrs["file"] = str(path)
    return df


def paper_tables(study: str) -> list[str]:
    """The names of a study's transcribed tables (``paper_table(study, name)`` reads each)."""
    _check_study(study)
    return sorted(p.stem.removeprefix(f"{study}_") for p in data_dir("reference").glob(f"{study}_*.csv"))


def paper_table(study: str, name: str, **read_csv_kw) -> pd.DataFrame:
    """A table of a paper's numbers, ``data/reference/<study>_<name>.csv``.

    Parameters
    ----------
    study : {"setcomp", "csts", "montague", "ssm"}
    name : str
        The table's name within the study, e.g. ``"c1_cells"`` or ``"table6"``.
    **read_csv_kw
        Passed to :func:`pandas.read_csv` (e.g. ``dtype``).

    Raises
    ------
    DataError
        No such study, or no such table (the message lists the study's tables).
    """
    _check_study(study)
    path = data_dir("reference", f"{study}_{name}.csv")
    if not path.is_file():
        raise DataError(
            f"no transcribed table {name!r} for {study}; available: {', '.join(paper_tables(study))}", file=str(path)
        )
    return _read_commented_csv(path, **read_csv_kw)


def published_table(name: str) -> pd.DataFrame:
    """Numbers transcribed from a public source other than the four papers,
    ``data/reference/published_<name>.csv`` (its ``#`` lines cite the source; they are in
    ``attrs["comment"]``), e.g. ``"sbert_speed"``: the GPU encoding speeds the
    sentence-transformers documentation publishes.

    Raises
    ------
    DataError
        No such table (the message lists those there are).
    """
    path = data_dir("reference", f"published_{name}.csv")
    if not path.is_file():
        have = sorted(p.stem.removeprefix("published_") for p in data_dir("reference").glob("published_*.csv"))
        raise DataError(f"no published table {name!r}; available: {', '.join(have) or 'none'}", file=str(path))
    return _read_commented_csv(path)


def paper_models(study: str | None = None) -> pd.DataFrame:
    """The papers' models (``data/reference/paper_models/<study>.csv``, in the registry's order),
    optionally one study's (empty for a study without a paper panel).

    Columns: see :data:`PAPER_MODEL_COLUMNS`. ``spec`` is empty when the model cannot be run
    through this project (the ``note`` says why); ``same_model`` is true only when our spec
    loads the very weights the paper used. Several rows may share a ``paper_name``: they are
    alternative ways of running that model (e.g. a converted checkpoint that needs no remote
    code beside the original that does).

    Raises
    ------
    DataError
        The file is missing, lacks a column, or holds an unknown study, kind or boolean
        (the message names the row and column).
    """
    names = STUDIES if study is None else (study,)
    if study is not None:
        _check_study(study)
    frames = [_study_models(name) for name in names]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _study_models(study: str) -> pd.DataFrame:
    """One study's file ``data/reference/paper_models/<study>.csv``; a study without one has
    no paper panel (an empty table with the columns)."""
    path = data_dir("reference", "paper_models", f"{study}.csv")
    if not path.is_file():
        return pd.DataFrame(
            {
                c: pd.Series(dtype=bool if c in ("same_model", "trust_remote_code") else object)
                for c in PAPER_MODEL_COLUMNS
            }
        )
    st = path.stat()
    df = _mapping(str(path), st.st_mtime_ns, st.st_size).copy()
    bad = df.index[df["study"] != study]
    if len(bad):
        raise DataError(
            f"{df.loc[bad[0], 'study']!r} is not the study of this file ({study})",
            file=str(path),
            row=int(bad[0]),
            column="study",
        )
    return df


@functools.lru_cache(maxsize=16)
def _mapping(path_str: str, mtime_ns: int, size: int) -> pd.DataFrame:
    """The checked mapping file, read once per version of the file."""
    path = Path(path_str)
    df = _read_commented_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in PAPER_MODEL_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(
            f"missing {noun(len(missing), 'column')} {missing}; found {list(df.columns)}",
            file=str(path),
            column=missing[0],
        )
    for col, allowed in (("study", STUDIES), ("kind", MODEL_KINDS)):
        bad = df.index[~df[col].isin(allowed)]
        if len(bad):
            raise DataError(
                f"{df.loc[bad[0], col]!r} is not one of {', '.join(allowed)}",
                file=str(path),
                row=int(bad[0]),
                column=col,
            )
    for col in ("same_model", "trust_remote_code"):
        mapped = df[col].str.strip().str.lower().map({"true": True, "false": False, "": False})
        if mapped.isna().any():
            i = int(mapped.index[mapped.isna()][0])
            raise DataError(f"{df.loc[i, col]!r} is not true/false", file=str(path), row=i, column=col)
        df[col] = mapped.astype(bool)
    return df


def _kinds(kind: str | Iterable[str] | None) -> tuple[str, ...]:
    kinds = MODEL_KINDS if kind is None else ((kind,) if isinstance(kind, str) else tuple(kind))
    unknown = [k for k in kinds if k not in MODEL_KINDS]
    if unknown:
        raise ValueError(
            f"unknown model {noun(len(unknown), 'kind')} {unknown}; the kinds are {', '.join(MODEL_KINDS)}"
        )
    return kinds


def paper_panel(
    study: str,
    *,
    kind: str | Iterable[str] | None = "encoder",
    trust_remote_code: bool = False,
    runnable_only: bool = True,
) -> list[str]:
    """The specs of a study's paper panel, in the paper's order (``models="paper"``).

    Parameters
    ----------
    study : {"setcomp", "csts", "montague", "ssm"}
    kind : {"encoder", "generator", "nli"}, a list of them, or None (all)
        Which of the paper's models.
    trust_remote_code : bool
        For a paper model with several rows, the first row that loads without remote code is
        taken unless this is true, in which case the first row is. A model that only loads
        with remote code stays in the panel either way, so that
        :func:`compsem.encoders.check_available` can say so.
    runnable_only : bool
        Leave out the models with no spec (not on the hub, no loader).
    """
    check_trust_remote_code(trust_remote_code, where="paper_panel")
    df = paper_models(study)
    df = df[df["kind"].isin(_kinds(kind))]
    specs: list[str] = []
    for _, group in df.groupby(["paper_name", "paper_variant"], sort=False):
        runnable = group[group["spec"] != ""]
        if runnable.empty:
            if not runnable_only:
                specs.append("")
            continue
        plain = runnable[~runnable["trust_remote_code"]]
        pick = runnable if (trust_remote_code or plain.empty) else plain
        specs.append(str(pick["spec"].iloc[0]))
    return list(dict.fromkeys(specs)) if runnable_only else specs


def model_key(spec: str) -> str:
    """What a spec loads, with how it is run left out: the key :func:`paper_row` matches on.

    ``hf:``, ``st:``, ``gen:hf:``, ``nli:`` prefixes and ``#options`` are dropped, legacy hub
    organisations folded (``FacebookAI/roberta-base`` is ``roberta-base``), a ``vec:`` path
    reduced to its file name, and case ignored.

    >>> model_key("hf:FacebookAI/roberta-base#pool=cls")
    'roberta-base'
    >>> model_key("vec:/data/glove.6B.300d.txt")
    'vec:glove.6b.300d.txt'
    """
    key = str(spec).strip().split("#", 1)[0].strip()
    low = key.lower()
    for prefix in _RUN_PREFIXES:
        if low.startswith(prefix):
            low = low[len(prefix) :]
            break
    if low.startswith("vec:"):
        return "vec:" + low[4:].replace("\\", "/").rsplit("/", 1)[-1]
    for org in _LEGACY_ORGS:
        if low.startswith(org):
            low = low[len(org) :]
            break
    return low


def paper_match(study: str, spec: str) -> dict | None:
    """The row of the paper-model mapping that ``spec`` stands beside, as a dict, or ``None``.

    A spec matches a row when it loads the same weights as the row's ``spec`` or ``hub_id``
    (see :func:`model_key`): ``hf:roberta-base``, ``st:FacebookAI/roberta-base`` and
    ``FacebookAI/roberta-base`` all match the row whose spec is
    ``hf:FacebookAI/roberta-base#pool=cls``. The row's ``same_model`` says whether that
    row's spec is the paper's very model; pooling options are not compared.
    """
    key = model_key(spec)
    if not key:
        return None
    for _, row in paper_models(study).iterrows():
        if key in {model_key(row["spec"]), model_key(row["hub_id"])} - {""}:
            return row.to_dict()
    return None


def paper_row(study: str, spec: str) -> str | None:
    """The paper's row name that ``spec`` stands beside in ``study``'s tables, or ``None``.

    Any spec form matches (named panel spec, ``hf:ID``, ``st:ID``, a plain hub id, with or
    without ``#options``); see :func:`paper_match` for the whole row (``paper_variant``,
    ``same_model``).
    """
    hit = paper_match(study, spec)
    return str(hit["paper_name"]) if hit else None
