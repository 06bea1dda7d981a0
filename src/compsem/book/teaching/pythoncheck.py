"""The interpreter check of ``make venv`` (run as a script by the interpreter it checks; standard
library only, since nothing is installed yet).

``python pythoncheck.py [--shared]`` exits 1 with one line saying what to do when the Python is
older than :data:`MINIMUM` (``requirements-lock.txt`` needs it: its ``soupsieve`` does, and pip
says only ``ResolutionImpossible``), and with ``--shared`` (a class on one hub, ``make venv
SHARED=1``) also when another user could not run it: the interpreter or its standard library
lies under a folder others may not enter (a pyenv Python in a ``0700`` home).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

#: The oldest Python the lock installs on.
MINIMUM = (3, 11, 5)


def too_old(version: tuple[int, ...], executable: str) -> str | None:
    """Why ``version`` cannot build the environment, or ``None``."""
    if tuple(version[:3]) >= MINIMUM:
        return None
    have = ".".join(map(str, version[:3]))
    return (
        f"make venv needs Python {'.'.join(map(str, MINIMUM))} or later (requirements-lock.txt does), and "
        f"{executable} is {have}: install a newer 3.11 and run make venv PYTHON=/path/to/python3.11"
    )


def closed_to_others(paths: list[Path]) -> Path | None:
    """The first of ``paths`` (or of the folders above them) that a user who is neither its owner
    nor in its group cannot use: a folder without ``o+x``, a file without ``o+r`` (a program also
    ``o+x``)."""
    for path in paths:
        path = path.resolve()
        for p in [*reversed(path.parents), path]:
            mode = p.stat().st_mode
            if stat.S_ISDIR(mode):
                if not mode & stat.S_IXOTH:
                    return p
            elif not mode & stat.S_IROTH or (p == path and p.name.startswith("python") and not mode & stat.S_IXOTH):
                return p
    return None


def main(argv: list[str]) -> int:
    why = too_old(sys.version_info, sys.executable)
    if why is None and "--shared" in argv:
        closed = closed_to_others([Path(sys.executable), Path(os.__file__)])
        if closed is not None:
            why = (
                f"the class's students could not run {sys.executable}: {closed} is closed to other users; "
                "install a Python every user can run (e.g. under /opt or /usr/local) and run "
                "make venv SHARED=1 PYTHON=/path/to/python3.11"
            )
    if why:
        print(why, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
