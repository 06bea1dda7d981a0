"""The layers hold: nothing a chapter computes with depends on the book's tooling. No module of
src/compsem outside compsem.book imports compsem.book (at the top or inside a function, absolute
or relative); the one exception is ``compsem/__main__.py``, the two lines handing ``python -m
compsem`` over to ``compsem.book.cli``."""

import ast

from tests.helpers import ROOT

SRC = ROOT / "src" / "compsem"
EXEMPT = {SRC / "__main__.py"}


def book_imports(source: str, module: str) -> list[str]:
    """The imports of ``compsem.book`` in ``source``, the code of the dotted ``module``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            package = module.split(".")[: len(module.split(".")) - node.level] if node.level else []
            base = ".".join(package + ([node.module] if node.module else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        if any(n == "compsem.book" or n.startswith("compsem.book.") for n in names):
            found.append(f"line {node.lineno}")
    return found


def test_the_scan_catches_absolute_relative_and_local_imports():
    assert book_imports("from compsem.book.running.runfolder import commit_of\n", "compsem.csts.authors") == ["line 1"]
    assert book_imports("def f():\n    from ..book import cli\n", "compsem.csts.authors") == ["line 2"]
    assert book_imports("from compsem import book\n", "compsem.x") == ["line 1"]
    assert book_imports("from compsem import books, record\nimport compsem.bookish\n", "compsem.x") == []


def test_no_module_outside_the_books_tooling_imports_it():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent)
        if rel.parts[1] == "book" or path in EXEMPT:
            continue
        parts = rel.with_suffix("").parts
        # a package's __init__ resolves ``from . import x`` inside the package itself
        module = ".".join(parts[:-1] + ("x",)) if path.name == "__init__.py" else ".".join(parts)
        hits = book_imports(path.read_text(encoding="utf-8"), module)
        if hits:
            found[str(rel)] = hits
    assert found == {}, f"move what these need out of compsem.book into the foundation: {found}"
