"""Each chapter's module prerequisites for the Makefile, derived from what it imports.

A chapter is re-executed when a module its numbers come from changes. Rather than a list kept by
hand, the Makefile includes ``_build/chapters.mk``, which it writes with ``python -m
compsem.book.makedeps`` whenever a chapter or a module changes: for each chapter, the source file
of every ``compsem`` module its code cells import, and of every module those import in turn
(their packages' ``__init__.py`` included), read with :mod:`ast` (nothing is imported). Imports
made by name at run time (a study's modules found through the registry) are not seen here: the
Makefile's rules by study and for the cross-study chapters cover them.
"""

from __future__ import annotations

import ast
import sys
from functools import lru_cache
from pathlib import Path

from compsem import notebooks

__all__ = ["imported", "module_files", "chapter_modules", "makefile_text"]


def _file(src: Path, module: str) -> Path | None:
    """The source file of ``compsem.x.y`` under ``src`` (a module or a package), or None."""
    base = src.joinpath(*module.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def imported(code: str, module: str = "") -> set[str]:
    """The ``compsem`` modules ``code`` imports (``from compsem import labels`` gives
    ``compsem.labels`` as well as ``compsem``); relative imports are resolved against ``module``
    (the dotted name of the module or package ``__init__`` the code is)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "compsem"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - node.level]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] == "compsem":
                out.add(base)
                out |= {f"{base}.{a.name}" for a in node.names}  # kept only where it is a module
    return out


@lru_cache(maxsize=None)
def _imports_of(path: Path, dotted: str) -> frozenset[str]:
    return frozenset(imported(path.read_text(encoding="utf-8"), dotted))


def module_files(modules: set[str], src: Path) -> set[Path]:
    """The source files of ``modules`` and of everything they import, transitively, with the
    ``__init__.py`` of every package on the way."""
    seen: set[Path] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            path = _file(src.parent, ".".join(parts[:i]))
            if path is None or path in seen:
                continue
            seen.add(path)
            dotted = ".".join(parts[:i])
            todo.extend(_imports_of(path, dotted if path.name != "__init__.py" else dotted + ".x"))
    return seen


def chapter_modules(notebook: Path, src: Path) -> list[Path]:
    """The module files a chapter's code cells (the set-up cell aside) depend on, sorted."""
    code = [
        c.source
        for c in notebooks.cells(notebook)
        if c.cell_type == "code" and "compsem-setup" not in c.metadata.get("tags", [])
    ]
    found: set[str] = set()
    for source in code:
        try:
            found |= imported(
                "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
            )
        except SyntaxError:
            continue  # a cell that is not plain Python: papermill's business, not a prerequisite
    return sorted(module_files(found, src))


def makefile_text(root: Path) -> str:
    """``_build/chapters.mk``: one prerequisite line per chapter of ``root/notebooks``."""
    src = root / "src" / "compsem"
    lines = [
        "# Each chapter's module prerequisites, derived from its imports by compsem.book.makedeps;",
        "# written by make (see the Makefile), never by hand.",
    ]
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        files = " ".join(p.relative_to(root).as_posix() for p in chapter_modules(nb, src))
        lines.append(f"_build/executed/notebooks/{nb.name}: {files}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(makefile_text(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()), end="")
