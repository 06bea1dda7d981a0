"""Imports sit at the top of a module (CONTRIBUTING.md, "The layers"); the one exception is an
import of torch, papermill or Ray (heavy, or an optional extra) inside the function that needs
it, with a comment on its line that says so. Checked on the modules issue 38 found with local
imports that had no such reason."""

import ast

import pytest

from tests.helpers import ROOT

MODULES = [
    "src/compsem/book/checks/shown.py",
    "src/compsem/book/appendices/appendix.py",
    "src/compsem/book/cli.py",
    "src/compsem/book/appendices/bench.py",
    "src/compsem/book/running/prefetch.py",
    "src/compsem/csts/config.py",
    "src/compsem/csts/views.py",
]
HEAVY = {"torch", "papermill", "ray"}


def local_imports(source: str) -> list[tuple[int, str]]:
    """(line, text) of every import inside a function of ``source`` without a torch, papermill
    or Ray reason in a comment on its line."""
    lines = source.splitlines()
    found = []
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                    line = lines[node.lineno - 1]
                    if not ("#" in line and all(n.split(".")[0] in HEAVY for n in names)):
                        found.append((node.lineno, line.strip()))
    return found


@pytest.mark.parametrize("module", MODULES)
def test_a_local_import_is_heavy_and_says_why(module):
    found = local_imports((ROOT / module).read_text())
    assert not found, f"{module}: move these imports to the top, or say why they wait (torch, papermill, Ray): {found}"


def test_the_check_finds_a_bare_local_import():
    source = (
        "import os\n\ndef f():\n    import json\n    import torch  # heavy: torch only here\n"
        "    from papermill.cli import x   # papermill: only when reading values\n    import ray\n"
        "    import yaml  # torch is not what this is\n    return json\n"
    )
    assert local_imports(source) == [
        (4, "import json"),
        (7, "import ray"),
        (8, "import yaml  # torch is not what this is"),
    ]
