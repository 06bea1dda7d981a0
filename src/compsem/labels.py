"""What a table's column headers and cells say to a reader: words with units, not the code's names.

* :data:`LABELS` — the one dictionary from a column name in the code (``test_spearman``,
  ``n_seeds``) to the header a page shows ("test Spearman (×100)", "seeds"); a table adds
  its own names with ``extra=`` (which win over :data:`LABELS`);
* :func:`label` — one name as a header; a name that is not in the dictionaries and looks like
  an identifier (``lower_case_with_underscores``) is refused (:class:`LabelError`), so a new
  column is given words where it is first shown;
* :func:`labelled` — a DataFrame with its column headers (every level) and index names
  labelled; :func:`style` the same as a ``Styler`` with formats keyed by the code's names;
* :func:`cell` — a dict, list, tuple or set as words (``"avx2, avx512f"``, ``"steps 64, blocks
  4"``), for a table that has to show one in a cell;
* :func:`is_identifier` / :func:`is_container` — the two tests ``compsem.book.checks.rendercheck``
  runs on every rendered table.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

import pandas as pd

from .errors import CompsemError

__all__ = ["LABELS", "LabelError", "label", "labelled", "style", "cell", "is_identifier", "is_container"]


class LabelError(CompsemError, KeyError):
    """A column name that is an identifier and has no label (in :data:`LABELS` or ``extra``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


#: Column names of the code -> the header a page shows. Units in parentheses; "×100" for a
#: correlation printed in points, "%" for a share printed in per cent.
LABELS: dict[str, str] = {
    # counts and runs
    "n": "count",
    "n_seeds": "seeds",
    "seeds": "seeds",
    "n_case": "samples in the case",
    "n_samples": "samples",
    "n_pairs": "pairs",
    "n_train_pairs": "training pairs",
    "train_pairs": "training pairs",
    "n_train_rows": "training rows",
    "n_quad_pairs": "quadruplet pairs",
    "models_without_estimate": "models without an estimate",
    "paper_models_not_planned": "paper models not planned",
    "units": "units",
    "per_unit": "per unit (texts, ordered pairs or runs)",
    "cells": "cells",
    "decimals": "decimals",
    # fine-tuning and evaluation
    "test_spearman": "test Spearman (×100)",
    "validation_spearman": "validation Spearman (×100)",
    "test_spearman_mean": "test Spearman, mean (×100)",
    "test_spearman_std": "test Spearman, s.d. (×100)",
    "validation_spearman_mean": "validation Spearman, mean (×100)",
    "validation_spearman_std": "validation Spearman, s.d. (×100)",
    "weight_decay": "weight decay",
    "learning_rate": "learning rate",
    "batch_size": "batch size (rows)",
    "warmup_ratio": "warm-up (share of steps)",
    "max_len": "maximum length (tokens)",
    "epochs": "epochs",
    "examples_per_s": "examples per second",
    "train_seconds": "training time (s)",
    "fill_seconds": "filling time (s)",
    "test_pair_accuracy": "test pair accuracy (%)",
    # Part I (set operators)
    "norm_case": "case of the norms",
    "a_larger": "A larger",
    "b_larger": "B larger",
    "comparable": "comparable",
    # Part III (Montague)
    "match_rounded": "cells that match rounded",
    "match_truncated": "cells that match truncated",
    "only_truncated": "cells that match only truncated",
    "only_rounded": "cells that match only rounded",
    # chapter 98, the appendix
    "size_mb": "size (MB)",
    "size_gb": "size (GB)",
    "gpu_gb_per_unit": "GPU memory per unit (GB, estimate)",
    "gpu_hours": "GPU hours (estimate)",
    "hours_on_1_gpus": "hours on 1 GPU (estimate)",
    "hours_on_4_gpus": "hours on 4 GPUs (estimate)",
    "hours_on_16_gpus": "hours on 16 GPUs (estimate)",
    "published": "published (sentences/s)",
    "predicted": "predicted (sentences/s)",
    "ratio": "predicted / published",
}

# an identifier a reader should not see as a header: lower-case words joined by underscores
_IDENTIFIER = re.compile(r"(?<![\w])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w])")
# a container's text inside a cell: a bracket opening on a quoted string or a key
_QUOTED_ITEM = re.compile(r"[\[{(]\s*(['\"])[^'\"]*\1\s*[:,\]})]")
_CODE_REPR = re.compile(r"\b(?:np|numpy|pd)\.\w+\(|\b(?:array|Timestamp|Decimal)\(")


def is_identifier(header: str) -> bool:
    """Whether a header shows a name of the code (``n_case``, ``test_spearman``) rather than words.
    A model spec or a path the reader gave (``nli:/data/my_model``, ``st:org/all_MiniLM``: a ``:``
    or ``/`` and no space) is a name the page must show as it is, not a code identifier."""
    header = str(header)
    if re.search(r"[:/]", header) and not re.search(r"\s", header):
        return False
    return bool(_IDENTIFIER.search(header))


def _interval(value) -> bool:
    return (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        and value[0] <= value[1]
    )


def is_container(text: str) -> bool:
    """Whether a table cell's text is a Python dict, list, tuple or set as ``repr`` prints it (or
    holds one, or a NumPy/pandas ``repr``). Two ordered numbers in brackets, ``[2.2, 5.9]``, are an
    interval and pass."""
    text = str(text).strip()
    if text[:1] in "[{(" and text[-1:] in "]})":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = None
        if isinstance(value, (dict, list, tuple, set)) and not _interval(value):
            return True
    return bool(_QUOTED_ITEM.search(text) or _CODE_REPR.search(text))


def label(name, extra: Mapping[str, str] | None = None) -> str:
    """The header of column ``name``: ``extra``'s word, else :data:`LABELS`'s, else ``name``
    itself when it already reads as words; an identifier without a label raises :class:`LabelError`."""
    key = str(name)
    if extra and key in extra:
        return extra[key]
    if key in LABELS:
        return LABELS[key]
    if is_identifier(key):
        raise LabelError(
            f"the column {key!r} has no label: add one to compsem.labels.LABELS or pass it in extra= (words with units)"
        )
    return key


def labelled(df: pd.DataFrame, extra: Mapping[str, str] | None = None, *, rows: bool = False) -> pd.DataFrame:
    """``df`` with every column header (each level) and the index and column names labelled
    (:func:`label`); with ``rows=True`` the row labels too (a table of quantities, one per row).
    The values are not touched."""
    out = df.copy()
    if rows:
        out.index = pd.Index([label(v, extra) if isinstance(v, str) else v for v in out.index], name=out.index.name)
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = pd.MultiIndex.from_tuples(
            [tuple(label(v, extra) for v in t) for t in out.columns],
            names=[None if n is None else label(n, extra) for n in out.columns.names],
        )
    else:
        out.columns = pd.Index(
            [label(c, extra) for c in out.columns],
            name=None if out.columns.name is None else label(out.columns.name, extra),
        )
    out.index = out.index.set_names([None if n is None else label(n, extra) for n in out.index.names])
    return out


def cell(value) -> str:
    """A container as words for one table cell: a list or tuple as its items joined by ", ", a
    dict as "key value" pairs joined by ", " (keys labelled where :data:`LABELS` knows them), a
    set sorted; anything else as ``str``."""
    if isinstance(value, Mapping):
        return ", ".join(f"{LABELS.get(str(k), str(k).replace('_', ' '))} {cell(v)}" for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=str)
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value)
    return str(value)


def style(
    df: pd.DataFrame, formats: Mapping[str, object] | None = None, extra: Mapping[str, str] | None = None, **format_kw
):
    """``labelled(df).style.format(...)``, with ``formats`` keyed by the code's column names
    (``{"gpu_hours": "{:.3f}"}``); ``format_kw`` (``precision``, ``na_rep``) go to ``Styler.format``."""
    out = labelled(df, extra)
    fmts = {label(k, extra): v for k, v in (formats or {}).items()}
    return out.style.format(fmts or None, **format_kw)
