"""compsem/book/makedeps.py and the Makefile: a chapter's prerequisites are the modules it imports,
transitively, so that editing a module one of its glued numbers comes from marks it stale."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from compsem.book import makedeps
from tests.helpers import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
APPENDIX = "_build/executed/notebooks/98_cluster_scale.ipynb"


def test_imports_are_resolved_to_modules_relative_ones_too():
    code = "import os\nimport compsem.cache\nfrom compsem import labels, results\nfrom . import metrics\nfrom ..progress import bar\n"
    got = makedeps.imported(code, "compsem.csts.study")
    assert {
        "compsem.cache",
        "compsem",
        "compsem.labels",
        "compsem.results",
        "compsem.csts",
        "compsem.csts.metrics",
        "compsem.progress",
        "compsem.progress.bar",
    } == got


def test_module_files_follow_imports_and_packages(tmp_path):
    src = tmp_path / "compsem"
    (src / "sub").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "a.py").write_text("from compsem.sub import b\n")
    (src / "sub" / "__init__.py").write_text("from . import c\n")
    (src / "sub" / "b.py").write_text("x = 1\n")
    (src / "sub" / "c.py").write_text("")
    (src / "unused.py").write_text("")
    got = {p.relative_to(src).as_posix() for p in makedeps.module_files({"compsem.a"}, src)}
    assert got == {"__init__.py", "a.py", "sub/__init__.py", "sub/b.py", "sub/c.py"}


def _prerequisites() -> dict[str, set[str]]:
    """Every executed chapter's prerequisites, from make's own database (``make -pn``)."""
    out = subprocess.run(
        ["make", "-pn", f"VENV={sys.prefix}", "help"], cwd=ROOT, capture_output=True, text=True, timeout=300
    ).stdout
    found: dict[str, set[str]] = {}
    for line in out.splitlines():
        m = re.match(r"^(_build/executed/notebooks/[^:\s]+\.ipynb):(?!=)(.*)$", line)
        if m:
            found.setdefault(m.group(1), set()).update(m.group(2).split("|")[0].split())
    return found


def test_every_module_a_chapter_imports_is_its_prerequisite():
    pre = _prerequisites()
    assert {
        "src/compsem/book/appendices/paperscale.py",
        "src/compsem/book/appendices/machine.py",
        "src/compsem/book/running/prefetch.py",
    } <= pre[APPENDIX]  # what chapter 98's numbers come from
    for nb in NOTEBOOKS:  # the oracle: the modules each chapter names in its imports, found by a regex
        text = nb.read_text()
        named = {m.group(1).replace(".", "/") for m in re.finditer(r"from (compsem(?:\.\w+)+) import", text)}
        files = {f"src/{n}.py" if (ROOT / f"src/{n}.py").is_file() else f"src/{n}/__init__.py" for n in named}
        assert files <= pre[f"_build/executed/notebooks/{nb.name}"], nb.name


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_editing_a_module_of_chapter_98_marks_it_stale(tmp_path):
    """In a copy: chapter 98 built, then up to date; a module its numbers come from edited, stale;
    a module it does not import edited, still up to date."""
    for part in ("src", "notebooks"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("Makefile", "studies.mk", "pyproject.toml", "requirements-lock.txt"):
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "results.json").write_text("{}")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    python = tmp_path / ".venv" / "bin" / "python"  # this interpreter, as the copy's venv
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + (ROOT / "requirements-lock.txt").read_bytes())
    (tmp_path / ".venv" / f".installed-{digest.hexdigest()[:12]}").touch()  # the Makefile's STAMP

    def make_q():
        return subprocess.run(
            ["make", "-q", APPENDIX], cwd=tmp_path, capture_output=True, text=True, timeout=300
        ).returncode

    built = tmp_path / APPENDIX
    built.parent.mkdir(parents=True)
    built.write_text("{}")
    past = time.time() - 1000  # every source older than the built chapter, the built one an hour old
    for path in tmp_path.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)
    os.utime(built, (past + 500, past + 500))
    assert make_q() == 0  # (writes _build/chapters.mk first)
    for module, stale in (
        ("src/compsem/book/checks/gluecheck.py", 0),
        ("src/compsem/book/appendices/paperscale.py", 1),
    ):
        os.utime(tmp_path / module)  # edited now
        assert make_q() == stale, module
