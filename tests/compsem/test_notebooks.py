"""compsem/book/notebooks.py: the one reader and writer of notebook files (nbformat), and a scan
that fails when another module of src/compsem reads or writes notebook JSON by hand."""

import ast
import json

import nbformat
import pytest

from compsem import notebooks
from compsem.errors import CompsemError
from tests.helpers import ROOT

SRC = ROOT / "src" / "compsem"
#: The one module that may read notebook JSON and import nbformat.
READER = SRC / "notebooks.py"
#: The grading sandbox's runner (a script run inside bubblewrap, never imported): it reads the
#: submission as the reader does (``nbformat.read(..., as_version=4)``) without importing the
#: project, so that a sandbox starts no more than a kernel (compsem's imports take seconds).
SANDBOX_RUNNER = SRC / "book" / "teaching" / "sandbox_runner.py"


def _nb(*cells, minor=5):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": minor}


def _code(src, tags=()):
    return {
        "cell_type": "code",
        "id": f"c{len(src)}",
        "metadata": {"tags": list(tags)},
        "source": src,
        "outputs": [],
        "execution_count": None,
    }


def test_read_gives_cells_with_one_string_source(tmp_path):
    path = tmp_path / "a.ipynb"
    path.write_text(json.dumps(_nb(_code(["x = 1\n", "y = 2"]))))
    cells = notebooks.cells(path)
    assert len(cells) == 1 and cells[0].source == "x = 1\ny = 2" and cells[0].cell_type == "code"


@pytest.mark.parametrize(
    "text,why",
    [
        ("not json", "not notebook JSON"),
        ("[1, 2]", "not notebook JSON"),
        ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "not notebook JSON"),
        ('{"nbformat": "x", "cells": []}', "not notebook JSON"),
    ],
)
def test_a_file_that_is_not_a_notebook_is_named_so(tmp_path, text, why):
    path = tmp_path / "x.ipynb"
    path.write_text(text)
    with pytest.raises(notebooks.NotANotebookError, match=why) as exc:
        notebooks.read(path)
    assert isinstance(exc.value, CompsemError)


def test_strict_reading_applies_nbformats_schema(tmp_path):
    path = tmp_path / "x.ipynb"
    cell = _code("x = 1")
    del cell["outputs"]  # a code cell must have outputs
    path.write_text(json.dumps(_nb(cell)))
    assert notebooks.read(path).cells[0].source == "x = 1"  # read as nbformat reads it
    with pytest.raises(notebooks.NotANotebookError, match="'outputs' is a required property"):
        notebooks.read(path, strict=True)


def test_write_is_nbformats_text_and_leaves_an_unchanged_file_alone(tmp_path):
    path = tmp_path / "a.ipynb"
    nb = _nb(_code("x = 1\ny = 2", ["parameters"]))
    assert notebooks.write(nb, path) is True
    assert path.read_text() == nbformat.writes(nbformat.from_dict(nb)) + "\n"
    assert json.loads(path.read_text())["cells"][0]["source"] == ["x = 1\n", "y = 2"]  # Jupyter's line lists
    assert notebooks.write(notebooks.read(path), path) is False
    assert notebooks.parameters_cell(notebooks.read(path)).source == "x = 1\ny = 2"


def _json_calls(fn: ast.AST) -> list[str]:
    return [
        f"json.{n.func.attr}"
        for n in ast.walk(fn)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "json"
        and n.func.attr in ("load", "loads", "dump", "dumps")
    ]


def notebook_json_by_hand(source: str) -> list[str]:
    """The functions of a module's ``source`` that read or write notebook JSON by hand: a call of
    ``json.load(s)``/``json.dump(s)`` in a function that also handles a notebook's own keys (the
    string ``"cells"`` or ``"nbformat"`` in its code), and any import of nbformat."""
    tree = ast.parse(source)
    found = [
        f"import of nbformat (line {n.lineno})"
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        and any(a.name.split(".")[0] == "nbformat" for a in n.names)
        or isinstance(n, ast.ImportFrom)
        and (n.module or "").split(".")[0] == "nbformat"
    ]
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            keys = {n.value for n in ast.walk(fn) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            if _json_calls(fn) and keys & {"cells", "nbformat", "nbformat_minor"}:
                found.append(f"{fn.name} (line {fn.lineno}): {', '.join(_json_calls(fn))}")
    return found


def test_the_scan_finds_a_hand_reader_and_passes_the_one_reader():
    planted = 'import json\n\ndef f(p):\n    return json.loads(p.read_text())["cells"]\n'
    assert notebook_json_by_hand(planted) == ["f (line 3): json.loads"]
    assert notebook_json_by_hand(
        'import json\n\ndef w(p, c):\n    p.write_text(json.dumps({"nbformat": 4, "cells": c}))\n'
    ) == ["w (line 3): json.dumps"]
    assert notebook_json_by_hand("import nbformat\n") == ["import of nbformat (line 1)"]
    assert notebook_json_by_hand('import json\n\ndef g(p):\n    return json.loads(p.read_text())["rows"]\n') == []
    assert notebook_json_by_hand(READER.read_text()) != []  # the reader itself would be flagged: it is exempt


def test_no_module_but_the_reader_handles_notebook_json():
    found = {
        str(p.relative_to(SRC)): hits
        for p in sorted(SRC.rglob("*.py"))
        if p not in (READER, SANDBOX_RUNNER)
        for hits in [notebook_json_by_hand(p.read_text(encoding="utf-8"))]
        if hits
    }
    assert found == {}, f"read and write notebooks through compsem.notebooks: {found}"
    assert "nbformat.read(nb_path, as_version=4)" in SANDBOX_RUNNER.read_text(encoding="utf-8")


def test_parameters_are_papermills_reading_of_the_cell(tmp_path):
    path = tmp_path / "p.ipynb"
    source = (
        '# Parameters: a comment line\nmodels = "panel"   # the panel\nn: int = 3\n'
        'pool = None  # type: str|None -- a file\nlabel = "x".upper()\n'
    )
    notebooks.write(
        _nb({"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# t"}, _code(source, ["parameters"])), path
    )
    got = notebooks.parameters(path)
    assert list(got) == ["models", "n", "pool", "label"]
    assert got["models"] == {"name": "models", "inferred_type_name": "None", "default": '"panel"', "help": "the panel"}
    assert got["n"]["inferred_type_name"] == "int" and got["n"]["default"] == "3"
    assert got["pool"]["inferred_type_name"] == "str|None" and got["pool"]["help"] == "-- a file"
    assert got["label"]["default"] == '"x".upper()'
    empty = tmp_path / "e.ipynb"
    notebooks.write(_nb(_code("x = 1")), empty)
    assert notebooks.parameters(empty) == {}  # no cell tagged parameters


def test_parameters_of_an_invalid_notebook_name_it(tmp_path):
    path = tmp_path / "bad.ipynb"
    cell = _code("x = 1", ["parameters"])
    cell["metadata"]["tags"] = 3
    path.write_text(json.dumps(_nb(cell)))
    with pytest.raises(notebooks.NotANotebookError, match=r"bad.ipynb is not a Jupyter notebook \(it is not a valid"):
        notebooks.parameters(path)


def second_parameters_readers(source: str) -> list[str]:
    """What in a module's ``source`` reads a parameters cell itself: a lookup of the
    ``parameters`` tag (``"parameters" in tags``), papermill's inspection called directly, or a
    tokenizer of cell source."""
    tree = ast.parse(source)
    found = []
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.Compare)
            and isinstance(n.left, ast.Constant)
            and n.left.value == "parameters"
            and any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops)
        ):
            found.append(f"line {n.lineno}: looks up the 'parameters' tag")
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in n.names] + [getattr(n, "module", None) or ""]
            if any(
                x
                in ("tokenize", "inspect_notebook", "PythonTranslator", "papermill.translators", "papermill.inspection")
                for x in names
            ):
                found.append(f"line {n.lineno}: imports {', '.join(filter(None, names))}")
        elif isinstance(n, ast.Attribute) and n.attr in ("inspect_notebook", "PythonTranslator"):
            found.append(f"line {n.lineno}: calls papermill's {n.attr}")
    return found


def test_the_parameters_scan_finds_a_second_reader():
    assert second_parameters_readers('def f(c):\n    return "parameters" in c["metadata"]["tags"]\n') == [
        "line 2: looks up the 'parameters' tag"
    ]
    assert second_parameters_readers("import papermill as pm\n\npm.inspect_notebook('x.ipynb')\n") == [
        "line 3: calls papermill's inspect_notebook"
    ]
    assert second_parameters_readers("import io, tokenize\n") == ["line 1: imports io, tokenize"]
    assert second_parameters_readers(READER.read_text()) != []


def test_there_is_one_parameters_cell_reader():
    found = {
        str(p.relative_to(SRC)): hits
        for p in sorted(SRC.rglob("*.py"))
        if p not in (READER, SANDBOX_RUNNER)
        for hits in [second_parameters_readers(p.read_text(encoding="utf-8"))]
        if hits
    }
    assert found == {}, f"read the parameters cell through compsem.notebooks.parameters: {found}"


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_papermill_reads_every_assignment_of_each_chapter(path):
    """Papermill's reading is line-based (a line with two ``=`` or a ``#`` inside a string would
    be misread): every chapter's cell must read as Python reads it (the oracle: ``ast``)."""
    cell = notebooks.parameters_cell(notebooks.read(path))
    by_ast = {
        t.id: ast.literal_eval(node.value)
        for node in ast.parse(cell.source).body
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
    }
    got = notebooks.parameters(path)
    assert list(got) == list(by_ast)
    assert {k: ast.literal_eval(v["default"]) for k, v in got.items()} == by_ast
