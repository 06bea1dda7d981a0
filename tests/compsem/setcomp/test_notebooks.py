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


SMALL = {"10_setcomp_data": {"filter_encoders": ["bow"]},
         "11_setcomp_overlap": {"n_boot": 20, "grid_size": 11},
         "12_setcomp_difference": {"n_boot": 20, "grid_size": 11, "filter_encoders": ["bow"], "filter_rule": "pair"},
         "13_setcomp_union": {"n_boot": 20}}
OUTPUTS = {"10_setcomp_data": ["dataset_sizes", "filter_by_encoder", "filter_rules"],
           "11_setcomp_overlap": ["c1_cells", "c2_geometry", "overlap_margins", "c2_samples"],
           "12_setcomp_difference": ["c3_cells", "c4", "c5_geometry", "difference_scores", "c5_samples"],
           "13_setcomp_union": ["c6_geometry", "c6_norm_cases", "union_norm_ratios", "c6_samples"]}


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_runs_on_a_small_sample(path, tmp_path):
    pytest.importorskip("papermill")
    from compsem.book.runner import run_notebook

    params = {"models": ["bow"], "sample_cap": 12, **SMALL[path.stem]}
    run_notebook(path, params, out=tmp_path, progress=False)
    for name in OUTPUTS[path.stem]:
        assert (tmp_path / "results" / "setcomp" / f"{name}.csv").is_file(), name
