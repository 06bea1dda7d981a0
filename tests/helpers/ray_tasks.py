"""A unit runner for the prefetch tests that kills its own worker process once (importable by
Ray workers, which start in the test session's working directory)."""

from __future__ import annotations

import os
from pathlib import Path

from compsem.book.running.prefetch import run_unit


def die_once(unit):
    """:func:`compsem.book.running.prefetch.run_unit`, except that a unit whose payload names a
    ``die_marker`` file that exists removes it and ends the process (a worker lost mid-sweep)."""
    marker = unit.payload.get("die_marker")
    if marker and Path(marker).exists():
        Path(marker).unlink()
        os._exit(1)
    return run_unit(unit)
