"""Progress bars: shown in interactive runs, never in the rendered book.

tqdm reads ``TQDM_DISABLE`` only as the *default* of its ``disable`` argument (and only when
tqdm is imported), so a call that passes ``disable=False`` explicitly, as every "show a bar
when asked" switch does, and sentence-transformers' own ``show_progress_bar=True``, prints a
bar even in a build that set ``TQDM_DISABLE=1``. Every switch in the library goes through
:func:`wanted`, which reads the variable at call time and lets it win.
"""

from __future__ import annotations

import os

__all__ = ["disabled", "wanted"]

_FALSE = ("", "0", "false", "no", "off")


def disabled() -> bool:
    """True when the environment turns progress bars off (``TQDM_DISABLE`` set and not false)."""
    return os.environ.get("TQDM_DISABLE", "").strip().lower() not in _FALSE


def wanted(show: bool | None, n: int = 0, *, threshold: int = 1000) -> bool:
    """Whether to draw a progress bar: never when :func:`disabled`; else ``show``, or, when
    ``show`` is None, whether there are more than ``threshold`` items (``n``)."""
    if disabled():
        return False
    return n > threshold if show is None else bool(show)
