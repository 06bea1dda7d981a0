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
    from compsem.book.running.runner import parameters_of

    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    names = re.findall(r"^(\w+) = ", "".join(cell["source"]), flags=re.M)
    assert list(parameters_of(path)) == names
    for required in ("models", "trust_remote_code", "dataset_source", "sample_cap", "seed"):
        assert required in names


SMALL = {
    "10_setcomp_data": {"filter_encoders": ["bow"]},
    "11_setcomp_overlap": {"n_boot": 20, "grid_size": 11},
    "12_setcomp_difference": {"n_boot": 20, "grid_size": 11, "filter_encoders": ["bow"], "filter_rule": "pair"},
    "13_setcomp_union": {"n_boot": 20},
}
OUTPUTS = {
    "10_setcomp_data": ["dataset_sizes", "filter_by_encoder", "filter_rules"],
    "11_setcomp_overlap": ["c1_cells", "c2_geometry", "overlap_margins", "c2_samples"],
    "12_setcomp_difference": ["c3_cells", "c4", "c5_geometry", "difference_scores", "c5_samples"],
    "13_setcomp_union": ["c6_geometry", "c6_norm_cases", "union_norm_ratios", "c6_samples"],
}


def _glued(executed) -> set[str]:
    nb = json.loads(executed.read_text())
    return {
        o["metadata"]["scrapbook"]["name"]
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if "scrapbook" in o.get("metadata", {})
    }


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_runs_on_a_small_sample(path, tmp_path):
    """Twelve quintuples under bow: the tables have the sizes worked out from the sample counts
    per quintuple, every cell table's four cells add up to 100 %, and every value the prose
    cites is glued."""
    pytest.importorskip("papermill")
    import pandas as pd

    from compsem.book.running.runner import run_notebook
    from compsem.setcomp.data import SAMPLES_PER_QUINTUPLE as K

    params = {"models": ["bow"], "sample_cap": 12, **SMALL[path.stem]}
    executed = run_notebook(path, params, out=tmp_path, progress=False)
    res = {name: pd.read_csv(tmp_path / "results" / "setcomp" / f"{name}.csv") for name in OUTPUTS[path.stem]}
    if path.stem == "10_setcomp_data":
        sizes = res["dataset_sizes"].set_index("operator")
        assert sizes.loc["overlap", "samples (ours)"] == 12 * K["overlap"]
        assert sizes.loc["union", "samples (ours)"] == 12 * K["union"]
        assert (sizes["n_quintuples"] == 12).all()
    for name in ("c1_cells", "c3_cells"):
        if name in res:
            sums = res[name].groupby([c for c in ("model", "measure", "mode", "subset") if c in res[name]])["pct"].sum()
            assert ((sums - 100).abs() < 1e-9).all(), sums
    if path.stem == "13_setcomp_union":
        cases = res["c6_norm_cases"]
        assert cases[cases["model"] == "bow"]["n_case"].sum() == 12 * K["union"]
    markdown = "".join(
        "".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"
    )
    cited = set(re.findall(r"\{glue:(?:text|figure|)\}`?\s*([A-Za-z0-9_]+)", markdown))
    assert cited and cited <= _glued(executed), cited - _glued(executed)
