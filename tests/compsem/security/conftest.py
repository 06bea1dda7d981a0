"""Fixtures shared by the security tests."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def base():
    """A fresh folder every user may enter (mode 755), removed afterwards: the parent of the users'
    homes, caches and run folders in the tests that run as several users."""
    folder = Path(tempfile.mkdtemp(prefix="compsem-users-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
