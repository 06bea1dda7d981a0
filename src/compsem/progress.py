"""Progress bars: shown in interactive runs, never in the rendered book.

tqdm reads ``TQDM_DISABLE`` only as the *default* of its ``disable`` argument (and only when
tqdm is imported), so a call that passes ``disable=False`` explicitly, as every "show a bar
when asked" switch does, and sentence-transformers' own ``show_progress_bar=True``, prints a
bar even in a build that set ``TQDM_DISABLE=1``. Worse, ``tqdm.auto`` picks the notebook
widget wherever ipywidgets is installed (the teaching extras bring it), and that class turns a
missing ``disable`` into ``False``: a bar created with no ``disable`` at all then shows too.
Every bar in the library is therefore made by :func:`bar`, which always passes ``disable``, and
every switch goes through :func:`wanted`, which reads the variable at call time and lets it win.
"""

from __future__ import annotations

import os

__all__ = ["bar", "disabled", "wanted"]

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


def bar(iterable=None, *, show: bool | None = True, n: int = 0, **kwargs):
    """A ``tqdm.auto`` progress bar (text, or a widget in Jupyter) whose ``disable`` is always
    set explicitly, from :func:`wanted` (``show``, ``n``): the only way the library makes one."""
    from tqdm.auto import tqdm

    if "disable" in kwargs:
        raise TypeError("bar() takes show=, not disable= (TQDM_DISABLE must win)")
    if n == 0 and iterable is not None and hasattr(iterable, "__len__"):
        n = len(iterable)
    return tqdm(iterable, disable=not wanted(show, n), **kwargs)
