"""``python -m compsem new-study`` (compsem/book/scaffold.py) on a copy of the files it edits.
The whole path (scaffold, fill in, contract, plan, run, synthesis, try-it, chapter 98) is
``test_new_study_end_to_end.py``."""

import json
import shutil

import pytest

from compsem.book import launch
from compsem.book.cli import main
from compsem.book.scaffold import new_study
from compsem.errors import CompsemError
from compsem.studies import FACES, STUDIES
from tests.helpers import ROOT


@pytest.fixture
def repo(tmp_path):
    for rel in ("src/compsem/studies.py", "_toc.yml", "references.bib", "studies.mk"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


def test_the_skeleton_holds_every_face_a_chapter_a_part_and_the_registry_line(repo, capsys):
    part = max(s.part for s in STUDIES) + 1
    assert main(["new-study", "nova", "--part", str(part), "--title", "A new question", "--citation", "nova2030",
                 "--root", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "src/compsem/nova/study.py" in out and "test_contract.py" in out
    for face in (*FACES, "tryit"):
        assert (repo / f"src/compsem/nova/{face}.py").is_file(), face
        if face != "tryit":
            assert "pytest.fail(" in (repo / f"tests/compsem/nova/test_{face}.py").read_text()
    assert (repo / "data/nova/DATASHEET.md").is_file() and (repo / f"book/part{part}_nova.md").is_file()
    nb = json.loads((repo / f"notebooks/{part}1_nova_main.ipynb").read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code[0]["metadata"]["tags"] == ["parameters"] and "models = " in "".join(code[0]["source"])
    assert code[1] == launch.setup_cell()                        # make launch-cell's cell, current
    assert "from compsem.nova import report, study, tables" in "".join(code[2]["source"])
    registry = (repo / "src/compsem/studies.py").read_text()
    line = f'    Study("nova", {part}, "V", "A new question", "nova2030", absent=("worked", "exercises", "paper_tables")),\n'
    assert line in registry and registry.index(line) > registry.index(f'Study("{STUDIES[-1].name}"')
    toc = (repo / "_toc.yml").read_text()
    assert f"      - file: book/part{part}_nova\n        sections:\n          - file: notebooks/{part}1_nova_main\n" in toc
    assert toc.index("part5_nova") < toc.index("caption: Synthesis")
    mk = (repo / "studies.mk").read_text()
    assert f"STUDIES := {' '.join(s.name for s in STUDIES)} nova\n" in mk and f"STUDY_PART_nova := {part}\n" in mk
    assert "@misc{nova2030," in (repo / "references.bib").read_text()
    # a stub says it is not written, and what
    stub = (repo / "src/compsem/nova/study.py").read_text()
    assert 'raise NotWrittenYet("compsem.nova.study.run is not written yet")' in stub


def test_it_refuses_what_exists_and_names_what_it_accepts(repo):
    first = STUDIES[0]
    with pytest.raises(CompsemError, match=f"has '{first.name}' as Part {first.part} already"):
        new_study(repo, first.name, part=7, title="x", citation="k")
    with pytest.raises(CompsemError, match=f"as Part {first.part} already"):
        new_study(repo, "nova", part=first.part, title="x", citation="k")
    with pytest.raises(CompsemError, match="lower-case letters"):
        new_study(repo, "Nova-2", part=7, title="x", citation="k")
    with pytest.raises(CompsemError, match="from 1 to 8"):
        new_study(repo, "nova", part=9, title="x", citation="k")
    with pytest.raises(CompsemError, match="not a BibTeX key"):
        new_study(repo, "nova", part=7, title="x", citation="a key")
    (repo / "data/nova").mkdir(parents=True)
    (repo / "data/nova/DATASHEET.md").write_text("mine")
    before = (repo / "_toc.yml").read_text()
    with pytest.raises(CompsemError, match="1 file of the new study exists already, nothing written: data/nova/DATASHEET.md"):
        new_study(repo, "nova", part=7, title="x", citation="k")
    assert (repo / "_toc.yml").read_text() == before and (repo / "data/nova/DATASHEET.md").read_text() == "mine"
    assert not (repo / "src/compsem/nova").exists()
