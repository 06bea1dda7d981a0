"""The Part I chapters: committed without outputs, and every parameter visible to the runner."""

import json
import re

import pytest
from tests.helpers import ROOT


NOTEBOOKS = sorted((ROOT / "notebooks").glob("1?_setcomp_*.ipynb"))


def test_there_are_four_chapters():
    assert [p.name[:2] for p in NOTEBOOKS] == ["10", "11", "12", "13"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_outputs_and_parameters_cell_first(path):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert "parameters" in code[0]["metadata"].get("tags", [])
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runner_sees_every_parameter(path):
    pytest.importorskip("papermill")
    from compsem.book.runner import parameters_of

    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    names = re.findall(r"^(\w+) = ", "".join(cell["source"]), flags=re.M)
    assert list(parameters_of(path)) == names
    for required in ("models", "trust_remote_code", "dataset_source", "sample_cap", "seed"):
        assert required in names
