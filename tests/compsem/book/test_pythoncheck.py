"""make venv's interpreter check (issue 48: Debian 12's 3.11.2 failed with ResolutionImpossible
only; a pyenv Python under a 0700 home gave the students Permission denied)."""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from compsem.book.teaching import pythoncheck as pc
from tests.helpers import ROOT

SCRIPT = ROOT / "src" / "compsem" / "book" / "teaching" / "pythoncheck.py"


def test_a_python_older_than_3_11_5_is_refused_with_what_to_do():
    assert pc.too_old((3, 11, 5, "final", 0), "py") is None and pc.too_old((3, 12, 0), "py") is None
    why = pc.too_old((3, 11, 2, "final", 0), "/usr/bin/python3.11")
    assert why.startswith("make venv needs Python 3.11.5 or later") and "/usr/bin/python3.11 is 3.11.2" in why
    assert "make venv PYTHON=" in why


def test_a_folder_closed_to_others_is_named():
    top = Path(tempfile.mkdtemp(dir="/tmp"))  # /tmp is open to all; pytest's own folder is 0700
    try:
        top.chmod(0o755)
        home = top / "admin"
        (home / "bin").mkdir(parents=True)
        python = home / "bin" / "python3.11"
        python.write_text("")
        python.chmod(0o755)
        assert pc.closed_to_others([python]) is None
        home.chmod(0o700)  # a home others cannot enter
        assert pc.closed_to_others([python]) == home
        home.chmod(0o755)
        python.chmod(0o750)  # a program others cannot run
        assert pc.closed_to_others([python]) == python
    finally:
        shutil.rmtree(top)


def test_the_script_passes_this_interpreter_and_make_venv_runs_it():
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == int(sys.version_info[:3] < pc.MINIMUM)
    assert (r.stderr == "") == (r.returncode == 0)
    makefile = (ROOT / "Makefile").read_text()
    rule = makefile[makefile.index("$(STAMP): pyproject.toml") :]
    assert rule.index("pythoncheck.py $(if $(SHARED),--shared)") < rule.index("$(PYTHON) -m venv $(VENV)")
