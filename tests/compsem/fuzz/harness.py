"""The property every parser of outside input keeps, and the two ways it is run.

:func:`holds` states the property: an input is either accepted (the caller then checks that it
round-trips or gives a valid result) or refused with the project's own error class
(:class:`compsem.errors.CompsemError`) whose message names the input; anything else escaping is
a failure, and so is a file written under ``watch`` before the input was accepted.

:func:`fuzz` turns a property into two pytest tests: the fast one (``make test``) runs
:data:`FAST` examples per target with a fixed seed (``derandomize``) and no example database
(nothing written into the repository); its ``slow`` twin (``make test-slow``) runs ten times as
many. Every crash the fuzz ever found is an explicit ``@example`` of its target (``examples=``),
so it is tried first, in both suites.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings

from compsem.errors import CompsemError

#: Generated examples per target and run: the fast suite, and the slow profile (10x).
FAST, SLOW = 60, 600

_COMMON = dict(
    derandomize=True, database=None, deadline=None, print_blob=False, suppress_health_check=list(HealthCheck)
)
settings.register_profile("compsem-fast", max_examples=FAST, **_COMMON)
settings.register_profile("compsem-slow", max_examples=SLOW, **_COMMON)


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folder`` with its size and mtime (what "nothing written" compares)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            try:
                st = p.lstat()
            except OSError:
                continue
            out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns)
    return out


def holds(call: Callable[[], object], *, names: Iterable[str] = (), watch: Path | None = None):
    """``(True, result)`` when ``call()`` accepts its input, ``(False, error)`` when it refuses it
    with a :class:`CompsemError` whose message holds one of ``names`` (the input, shortened as
    the project shows it, or the name of the variable, file or parameter that held it). Any other
    exception propagates (the property fails). With ``watch``, a refusal must leave that folder
    as it was."""
    before = tree(watch) if watch is not None else None
    try:
        return True, call()
    except CompsemError as exc:
        text = str(exc)
        wanted = [n for n in names if n]
        assert not wanted or any(n in text for n in wanted), f"{type(exc).__name__} names none of {wanted!r}: {text}"
        if watch is not None:
            assert tree(watch) == before, f"refused ({text}) but {watch} changed"
        return False, exc


def fuzz(*strategies, examples: Iterable[tuple] = ()):
    """Decorate ``prop(*values)`` into a fast and a slow pytest test (see the module docstring)."""

    def wrap(prop):
        def build(profile: str):
            f = prop
            for ex in reversed(list(examples)):
                f = example(*ex)(f)
            return settings(settings.get_profile(profile))(given(*strategies)(f))

        fast, slow = build("compsem-fast"), build("compsem-slow")

        @pytest.mark.parametrize("profile", ["fast", pytest.param("slow", marks=pytest.mark.slow)])
        def test(profile):
            (fast if profile == "fast" else slow)()

        test.__name__ = prop.__name__
        test.__doc__ = prop.__doc__
        test.prop = prop
        return test

    return wrap


def shown(text: str, n: int = 12) -> list[str]:
    """Ways a message may show ``text``: a prefix as written, as ``repr`` writes it, or as ascii."""
    return [text[:n], repr(text)[1 : n + 1], ascii(text)[1 : n + 1], text.strip()[:n]]
