"""compsem.studies: the registry agrees with the repository."""

import ast
import json
import re
from pathlib import Path

import pytest

from compsem import paths, studies
from compsem.errors import CompsemError


def test_every_study_has_package_data_chapters_and_citation():
    bib = (paths.repo_root() / "references.bib").read_text()
    for s in studies.STUDIES:
        assert s.module().__name__ == f"compsem.{s.name}"
        assert paths.data_dir(s.data_folder).is_dir()
        assert s.chapters(paths.notebooks_dir()), s.name
        assert f"{{{s.citation}," in bib
        tables = list(paths.data_dir("reference").glob(f"{s.reference_prefix}*.csv"))
        assert bool(tables) != ("paper_tables" in s.absent), s.name  # tables, or their declared absence


def test_lookups():
    for s in studies.STUDIES:
        assert studies.get(s.name) is s
        assert studies.by_part(str(s.part)) is s and studies.by_part(s.part) is s
        for chapter in s.chapters(paths.notebooks_dir()):
            assert studies.of_notebook(f"notebooks/{chapter.name}") is s
    assert studies.by_part(9) is None
    assert studies.of_notebook("90_synthesis.ipynb") is None
    with pytest.raises(CompsemError, match=", ".join(studies.NAMES)):
        studies.get("nope")


def test_the_makefile_include_is_generated_from_the_registry():
    """studies.mk (read by make before anything is installed) says what the registry says."""
    text = (paths.repo_root() / "studies.mk").read_text()
    assert text == studies.makefile_include(), (
        "studies.mk is out of date: python -W ignore -m compsem.studies > studies.mk"
    )
    assert f"STUDIES := {' '.join(studies.NAMES)}\n" in text
    assert all(f"STUDY_PART_{s.name} := {s.part}\n" in text for s in studies.STUDIES)
    assert "include studies.mk" in (paths.repo_root() / "Makefile").read_text()


# ------------------------------------------------------------------------ nobody else names a study

#: Code that may name a study: its own package, chapters and benchmark, and this registry; any
#: other exception would be listed here with its reason (none is left).
ALLOWED: dict[tuple[str, str], str] = {}


def _names_in_code(source: str, names: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line, study) for every import, attribute or string constant (docstrings left out) of
    ``source`` that names one of ``names`` as a word (``compsem.csts``, ``"11_setcomp_x"``)."""
    tree = ast.parse(source)
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            words = (node.module or "").split(".") + [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            words = [w for a in node.names for w in a.name.split(".")]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            words = re.findall(r"[A-Za-z]+", node.value)
        else:
            continue
        found += [(node.lineno, n) for n in names if n in words]
    return found


def _owner(rel: str) -> str | None:
    """The study a file belongs to, or None."""
    for s in studies.STUDIES:
        if (
            rel.startswith(f"src/compsem/{s.name}/")
            or rel == f"benchmarks/bench_{s.name}.py"
            or re.fullmatch(rf"benchmarks/{s.name}_\w+\.py", rel)
        ):
            return s.name
    m = re.match(r"notebooks/(\d)\d_", rel)
    return studies.by_part(m.group(1)).name if m and studies.by_part(m.group(1)) else None


def name_scan(root: Path) -> list[str]:
    """Every place in src/, benchmarks/ and the chapters' code that names a study it does not
    belong to, as ``file:line study``."""
    root = Path(root)
    places = []
    sources = [
        (p, p.read_text(encoding="utf-8"))
        for p in [*sorted(root.glob("src/compsem/**/*.py")), *sorted(root.glob("benchmarks/*.py"))]
    ]
    for nb in sorted(root.glob("notebooks/*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        code = [
            "".join(c["source"])
            if c["cell_type"] == "code" and "compsem-setup" not in c["metadata"].get("tags", [])
            else ""
            for c in cells
        ]
        sources.append(
            (
                nb,
                "\n".join(
                    line if not line.lstrip().startswith(("%", "!")) else ""
                    for cell in code
                    for line in cell.split("\n")
                ),
            )
        )
    for path, text in sources:
        rel = path.relative_to(root).as_posix()
        if rel == "src/compsem/studies.py":
            continue
        own = _owner(rel)
        others = tuple(n for n in studies.NAMES if n != own)
        places += [f"{rel}:{line} {name}" for line, name in _names_in_code(text, others) if (rel, name) not in ALLOWED]
    return places


def test_no_code_outside_a_study_names_it():
    places = name_scan(paths.repo_root())
    assert not places, (
        "code outside a study's package, chapters and benchmark names the study; loop over "
        "compsem.studies.STUDIES and read what the study declares instead:\n  " + "\n  ".join(places)
    )


def test_the_name_scan_sees_imports_attributes_and_strings(tmp_path):
    name = studies.NAMES[0]
    (tmp_path / "src" / "compsem" / "book").mkdir(parents=True)
    (tmp_path / "src" / "compsem" / "book" / "x.py").write_text(
        f'"""Docstrings may say {name}."""\nfrom ..{name} import report\nimport compsem.{name}\n'
        f'y = compsem.{name}.study\nz = "11_{name}_overlap.ipynb"\nw = "{name}x"\n'
    )
    assert sorted(name_scan(tmp_path)) == sorted(f"src/compsem/book/x.py:{n} {name}" for n in (2, 3, 4, 5))
