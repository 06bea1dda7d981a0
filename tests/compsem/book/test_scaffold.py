"""``python -m compsem new-study`` (compsem/book/authoring/scaffold.py) on a copy of the files it edits.
The whole path (scaffold, fill in, contract, plan, run, synthesis, try-it, chapter 98) is
``test_new_study_end_to_end.py``; the registry-dependent tests against a scaffolded study are
``test_new_study_fast.py``. Every Part number and numeral below comes from the registry."""

import ast
import json
import os
import re
import shutil

import pytest

from compsem.book.teaching import launch

from compsem.book.authoring import scaffold
from compsem.book.cli import main
from compsem.book.authoring.scaffold import ROMAN, check_arguments, new_study, registered
from compsem.errors import CompsemError
from compsem.studies import FACES, OPTIONAL, STUDIES
from tests.helpers import ROOT

PART = max(s.part for s in STUDIES) + 1
FREE = next(p for p in range(1, 9) if p not in {s.part for s in STUDIES} and p != PART)


@pytest.fixture
def repo(tmp_path):
    for rel in ("src/compsem/studies.py", "_toc.yml", "references.bib", "studies.mk"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


def _tree(root) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (what a refused call must leave as it was)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_skeleton_holds_every_face_a_chapter_a_part_and_the_registry_line(repo, capsys):
    assert (
        main(
            [
                "new-study",
                "nova",
                "--part",
                str(PART),
                "--title",
                "A new question",
                "--citation",
                "nova2030",
                "--root",
                str(repo),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "src/compsem/nova/study.py" in out and "test_contract.py" in out
    for face in (*FACES, "tryit", "finding"):
        assert (repo / f"src/compsem/nova/{face}.py").is_file(), face
        if face != "tryit":
            assert "pytest.fail(" in (repo / f"tests/compsem/nova/test_{face}.py").read_text()
    assert (repo / "data/nova/DATASHEET.md").is_file() and (repo / f"book/part{PART}_nova.md").is_file()
    nb = json.loads((repo / f"notebooks/{PART}1_nova_main.ipynb").read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code[0]["metadata"]["tags"] == ["parameters"] and "models = " in "".join(code[0]["source"])
    assert code[1] == launch.setup_cell()  # make launch-cell's cell, current
    run = "".join(code[2]["source"])
    assert "from compsem.nova import data, report, study, tables" in run and "study.run(specs" in run
    assert "results.glue_all(report.values(" in run and "results.save_table(" in run
    assert any(
        "report.figure(table)" in "".join(c["source"]) and c["metadata"]["mystnb"]["figure"]["caption"] for c in code
    )
    prose = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "{glue:md}`leader_sentence`" in prose and "## A worked example" in prose
    new = registered(repo)[-1]
    assert (new.name, new.part, new.roman, new.title, new.citation) == (
        "nova",
        PART,
        ROMAN[PART],
        "A new question",
        "nova2030",
    )
    assert set(new.absent) == set(OPTIONAL) - {"paper"}
    assert [s.name for s in registered(repo)] == [s.name for s in STUDIES] + ["nova"]
    toc = (repo / "_toc.yml").read_text()
    assert (
        f"      - file: book/part{PART}_nova\n        sections:\n          - file: notebooks/{PART}1_nova_main\n" in toc
    )
    assert toc.index(f"part{PART}_nova") < toc.index("caption: Synthesis")
    mk = (repo / "studies.mk").read_text()
    assert f"STUDIES := {' '.join(s.name for s in STUDIES)} nova\n" in mk and f"STUDY_PART_nova := {PART}\n" in mk
    assert "@misc{nova2030," in (repo / "references.bib").read_text()
    stub = (repo / "src/compsem/nova/study.py").read_text()
    assert "raise NotWrittenYet('compsem.nova.study.run is not written yet')" in stub
    assert "PAPER_RUN: PaperRun | None = PaperRun(" in stub
    assert not [p for p in repo.iterdir() if p.name.startswith(".new-study-")]  # the staging folder is gone


def test_no_paper_writes_none_and_declares_the_absence(repo):
    new_study(repo, "nova", part=PART, title="Our own question", citation="nova2030", paper=False)
    assert "PAPER_RUN: PaperRun | None = None" in (repo / "src/compsem/nova/study.py").read_text()
    assert set(registered(repo)[-1].absent) == set(OPTIONAL)
    assert "study of the project's own" in (repo / f"book/part{PART}_nova.md").read_text()


@pytest.mark.parametrize("title", ["Kim's study", 'A "quoted" title', 'Three """ quotes', "x'''y", "Ünïcode *md* `x`"])
def test_values_are_written_as_data_not_code(repo, title):
    """Issue 37: a title with quotes once broke studies.py; every value now round-trips."""
    new_study(repo, "nova", part=PART, title=title, citation="kim2024")
    for path in (repo / "src/compsem/nova").glob("*.py"):
        ast.parse(path.read_text(), filename=str(path))  # every generated module parses
    ast.parse((repo / "src/compsem/studies.py").read_text())
    assert registered(repo)[-1].title == title  # read back as it was given
    report = (repo / "src/compsem/nova/report.py").read_text()
    assert repr(title) in report
    nb = json.loads((repo / f"notebooks/{PART}1_nova_main.ipynb").read_text())
    yaml = pytest.importorskip("yaml")
    captions = [p.get("caption") for p in yaml.safe_load((repo / "_toc.yml").read_text())["parts"]]
    assert f"Part {ROMAN[PART]}: {title}" in captions
    assert nb["cells"][0]["source"][0].startswith("# ")


@pytest.mark.parametrize(
    "name",
    [
        "data",
        "cache",
        "store",
        "settings",
        "paths",
        "errors",
        "results",
        "book",
        "studies",
        "faces",
        "crossstudy",
        "encoders",
    ],
)
def test_a_name_that_would_shadow_a_compsem_module_is_refused(repo, name):
    before = _tree(repo)
    with pytest.raises(CompsemError, match=f"'{name}' is a module or package of compsem"):
        new_study(repo, name, part=PART, title="x", citation="k")
    assert _tree(repo) == before


@pytest.mark.parametrize("name", ["import", "class", "if", "match", "case"])
def test_a_keyword_is_refused(repo, name):
    with pytest.raises(CompsemError, match="is a Python keyword"):
        new_study(repo, name, part=PART, title="x", citation="k")


def test_it_refuses_what_exists_and_names_what_it_accepts(repo):
    first = STUDIES[0]
    with pytest.raises(CompsemError, match=f"has '{first.name}' as Part {first.part} already"):
        new_study(repo, first.name, part=FREE, title="x", citation="k")
    with pytest.raises(CompsemError, match=f"as Part {first.part} already"):
        new_study(repo, "nova", part=first.part, title="x", citation="k")
    for bad in ("Nova-2", "nova_x", "n", "x" * 17, 5, None):
        with pytest.raises(CompsemError, match="lower-case letters"):
            new_study(repo, bad, part=FREE, title="x", citation="k")
    for part in (9, 0, True, "5"):
        with pytest.raises(CompsemError, match="from 1 to 8"):
            new_study(repo, "nova", part=part, title="x", citation="k")
    for citation in ("a key", "ü2024", "x{y}", ""):
        with pytest.raises(CompsemError, match="not a BibTeX key"):
            new_study(repo, "nova", part=FREE, title="x", citation=citation)
    for title in ("", "two\nlines", "tab\there", "x" * 81, "brace{", "back\\slash", "\ud800", "sep\u2028x"):
        with pytest.raises(CompsemError, match="--title"):
            new_study(repo, "nova", part=FREE, title=title, citation="k")
    assert not (repo / "src/compsem/nova").exists()


@pytest.mark.parametrize(
    "existing",
    [
        "data/nova/DATASHEET.md",
        "data/nova",
        "data/nova as a file",
        "tests/compsem/nova",
        "src/compsem/nova",
        "book/partN_nova.md",
    ],
)
def test_an_existing_path_is_refused_before_anything_is_written(repo, existing):
    """Issue 37: an existing data/<name> once raised FileExistsError after the package was written."""
    rel = existing.replace("partN", f"part{PART}").replace(" as a file", "")
    if existing.endswith("as a file"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("mine")
    elif rel.endswith(".md"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("mine")
    else:
        (repo / rel).mkdir(parents=True)
    before = _tree(repo)
    dirs = sorted(p for p in repo.rglob("*") if p.is_dir())
    with pytest.raises(CompsemError, match=r"of the new study exists already, nothing written: .*" + rel.split("/")[0]):
        new_study(repo, "nova", part=PART, title="x", citation="k")
    assert _tree(repo) == before and sorted(p for p in repo.rglob("*") if p.is_dir()) == dirs


def test_root_is_checked_against_its_own_registry(repo):
    """Issue 37: with --root, the Part taken is read from the target's registry, not the running one's."""
    text = (repo / "src/compsem/studies.py").read_text()
    opening = "STUDIES: tuple[Study, ...] = (\n"
    taken = text.replace(
        opening, opening + f'    Study("elsewhere", {FREE}, "{ROMAN[FREE]}", "Taken there", "e2030"),\n'
    )
    (repo / "src/compsem/studies.py").write_text(taken)
    with pytest.raises(CompsemError, match=f"has 'elsewhere' as Part {FREE} already"):
        check_arguments(repo, "nova", FREE, "x", "k")
    # a study the running checkout has, missing from the target's registry, is free there
    gone = STUDIES[-1]
    (repo / "src/compsem/studies.py").write_text(
        "".join(
            line for line in text.splitlines(keepends=True) if not re.match(rf"\s+Study\(['\"]{gone.name}['\"]", line)
        )
    )
    assert check_arguments(repo, "nova", gone.part, "x", "k").part == gone.part
    (repo / "src/compsem/studies.py").write_text("STUDIES = (print('never run'),)\n")
    with pytest.raises(CompsemError, match="not a Study"):
        check_arguments(repo, "nova", PART, "x", "k")


def test_a_failure_while_moving_into_place_leaves_the_tree_as_it_was(repo, monkeypatch):
    before = _tree(repo)
    real, calls = os.replace, []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 3:  # the third shared file fails
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(scaffold.os, "replace", flaky)
    with pytest.raises(CompsemError, match="nothing was changed"):
        new_study(repo, "nova", part=PART, title="x", citation="k")
    assert _tree(repo) == before
    assert not (repo / "src/compsem/nova").exists() and not (repo / "data/nova").exists()


def test_every_stub_carries_a_worked_example_in_its_docstring(repo):
    """Issue 38: each face's stub shows, by example, what to write (the ranking sentence's
    needs are in ``report.values``' docstring)."""
    new_study(repo, "nova", part=PART, title="x", citation="k")
    stubs = 0
    for path in sorted((repo / "src/compsem/nova").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and "NotWrittenYet" in ast.unparse(node.body[-1]):
                doc = ast.get_docstring(node) or ""
                assert "Example" in doc and "::" in doc, f"{path.name}: {node.name} has no example"
                block = []
                for line in doc.split("::", 1)[1].strip("\n").splitlines():
                    if line and not line.startswith("    "):
                        break
                    block.append(line[4:])
                ast.parse("def f():\n" + "".join(f"    {line}\n" for line in block))  # the example parses
                stubs += 1
    assert stubs == 5
    values = ast.get_docstring(
        next(
            n
            for n in ast.walk(ast.parse((repo / "src/compsem/nova/report.py").read_text()))
            if isinstance(n, ast.FunctionDef) and n.name == "values"
        )
    )
    assert "per-item scores of every model on the same items" in values
