"""Part I report (and the paper beside ours it is built from): rows, labels, NED check, the transcribed
tables, headlines, values, try-it."""

import numpy as np
import pytest

from compsem import embed, measures
from compsem.errors import DataError
from compsem.setcomp import report
from compsem.setcomp.data import build_operator_tables, load_source
from compsem.setcomp.report import headlines


def test_c2_headline_matches_a_direct_count():
    rows = {r["criterion"]: r for r in headlines(["bow"], n_boot=50) if not r["control_of"]}
    ov = build_operator_tables(load_source("embedded"))["overlap"]
    A, B, O = (embed(ov[c].tolist(), "bow") for c in ("a", "b", "o"))
    g = measures.plane_geometry(A, B, O, warn=False)
    ok = ~g.degenerate
    direct = 100 * np.mean((g.t[ok] >= 0) & (g.t[ok] <= 1))
    assert rows["C2"]["value"] == pytest.approx(direct)
    assert rows["C2"]["n"] == int(ok.sum())
    assert rows["C2"]["low"] <= rows["C2"]["value"] <= rows["C2"]["high"]


def test_values_is_what_the_view_recorded_and_try_it_takes_trust_remote_code():
    class View:
        values = {"n": 3, "name": "bow"}

    got = report.values(View())
    assert got == {"n": 3, "name": "bow"} and got is not View.values  # a copy: gluing cannot change the view
    t = report.try_it(
        "apples oranges", "oranges pears", "oranges", "apples", "apples oranges pears", ["bow"], trust_remote_code=False
    )
    assert list(t.columns) == ["model", "criterion", "value", "verdict"] and len(t) == 9


# ------------------------------------------------------------------ the transcribed paper tables
PAPER_MODELS = {
    "SBERT-mini",
    "LASER",
    "USE",
    "RoBERTa",
    "SBERT-L",
    "SimCSE",
    "InferSent",
    "GPT3",
    "LLaMA2",
    "Mistral",
    "LLaMA3",
    "OLMo",
    "OpenELM",
    "LLaMA3.2",
    "Qwen",
    "Gemma",
}


@pytest.mark.parametrize("name,tables", [("c1_cells", {"Table 1", "Table 13"}), ("c3_cells", {"Table 2", "Table 15"})])
def test_cell_tables_are_complete_and_rows_sum_to_100(name, tables):
    ref = report.paper_table(name)
    assert set(ref["source"]) == tables
    for _, g in ref.groupby("measure"):
        assert set(g["model"]) == PAPER_MODELS
    sums = ref[["TT", "TF", "FT", "FF"]].sum(axis=1)
    assert np.allclose(sums, 100, atol=0.02)  # the paper rounds each cell to 2 decimals


def test_score_tables_cover_every_measure_and_model():
    for name in ("overlap_deltas", "difference_scores"):
        ref = report.paper_table(name)
        assert set(ref["measure"]) == {"cos", "dot", "ned", "l1", "l2"}
        assert len(ref) == 5 * 16 and ref["source"].str.startswith("Table").all()
    t14 = report.paper_table("difference_scores").set_index(["model", "measure"])
    # the spec's check: for unit vectors NED ≈ (1 − cos)/2; SBERT-mini cos(B,D)=0.1759 -> NED 0.412
    assert (1 - t14.loc[("SBERT-mini", "cos"), "m_bd"]) / 2 == pytest.approx(
        t14.loc[("SBERT-mini", "ned"), "m_bd"], abs=0.001
    )
    # cosine and dot coincide for models with unit-norm output (SBERT-mini, USE, GPT3)
    t12 = report.paper_table("overlap_deltas").set_index(["model", "measure"])
    for m in ("SBERT-mini", "USE", "GPT3"):
        assert t12.loc[(m, "cos"), "d1_mean"] == t12.loc[(m, "dot"), "d1_mean"]


def test_table3_and_dataset_counts():
    c4 = report.paper_table("c4")
    assert set(c4["model"]) == PAPER_MODELS and c4["pct_CD3"].between(0, 100).all()
    ds = report.paper_table("dataset").set_index("quantity")["value"]
    assert ds["difference_samples"] % 6 == 0  # all-or-nothing filter: six samples per quintuple


def test_unknown_reference_lists_available():
    with pytest.raises(DataError, match="c1_cells"):
        report.paper_table("table99")


@pytest.mark.slow
def test_the_headlines_equal_the_chapters_result_files(tmp_path):
    """One source per number: each Part I headline of the synthesis is the cell of chapters
    11-13 that shows the same quantity, run with the same model (C1/C3 are the (T, T) cell at
    ε = 0, the chapters' ``eps_range "fixed"``; C2/C6 the share 'between', C5 'near A' on the
    filtered difference set)."""
    import subprocess
    import sys

    import pandas as pd

    from compsem.paths import repo_root

    def chapter(name, *params):
        out = tmp_path / name
        subprocess.run(
            [
                sys.executable,
                "-m",
                "compsem",
                "run",
                f"notebooks/{name}.ipynb",
                "--out",
                str(out),
                "--quiet",
                "-p",
                "models",
                '["bow"]',
                *params,
            ],
            check=True,
            cwd=repo_root(),
            timeout=900,
        )
        return lambda table: pd.read_csv(out / "results" / "setcomp" / f"{table}.csv")

    ch11 = chapter("11_setcomp_overlap", "-p", "eps_range", '"fixed"', "-p", "measures", '["cos"]')
    ch12 = chapter("12_setcomp_difference", "-p", "eps_range", '"fixed"', "-p", "measures", '["cos"]')
    ch13 = chapter("13_setcomp_union")
    got = {r["criterion"]: r for r in headlines(["bow"]) if not r["control_of"]}
    c1, c3 = ch11("c1_cells"), ch12("c3_cells")
    want = {
        "C1": c1[(c1.cell == "TT") & (c1.measure == "cos")],
        "C3": c3[(c3.cell == "TT") & (c3.measure == "cos") & (c3.subset == "filtered")],
        "C2": ch11("c2_geometry").query("region == 'between'"),
        "C5": ch12("c5_geometry").query("region == 'near_a' and subset == 'filtered'"),
        "C6": ch13("c6_geometry").query("region == 'between'"),
    }
    # the headline's n counts what its bootstrap resamples, the quintuples behind the samples: every
    # shipped quintuple gives one overlap and two union samples, and one that passes the difference
    # filter gives six difference samples (the data's construction; C3 counts all six)
    (c3,) = want["C3"][want["C3"].model == "bow"].itertuples()
    assert c3.n % 6 == 0
    quintuples = {"C1": 125, "C2": 125, "C6": 125, "C3": c3.n // 6, "C5": c3.n // 6}
    for key, rows in want.items():
        (row,) = rows[rows.model == "bow"].itertuples()  # the chapters add controls (random, shuffled)
        assert got[key]["value"] == pytest.approx(row.pct), key
        assert got[key]["n"] == quintuples[key], key


def test_the_shuffled_target_control_is_a_direct_count_and_pairs_with_its_model():
    from compsem.setcomp.data import shuffled_targets
    from compsem.stats import shared_resamples

    rows = headlines(["bow"], n_boot=50)
    shuf = {r["criterion"]: r for r in rows if r["control_of"] == "bow"}
    mine = {r["criterion"]: r for r in rows if not r["control_of"]}
    assert set(shuf) == set(mine) == {"C1", "C2", "C3", "C5", "C6"}
    assert shuf["C2"]["model"] == "bow (shuffled targets)"
    ov = shuffled_targets(build_operator_tables(load_source("embedded"))["overlap"], "overlap", seed=0)
    A, B, O = (embed(ov[c].tolist(), "bow") for c in ("a", "b", "o"))
    g = measures.plane_geometry(A, B, O, warn=False)
    hit = np.where(g.degenerate, np.nan, (g.t >= 0) & (g.t <= 1))
    assert shuf["C2"]["value"] == pytest.approx(100 * np.nanmean(hit))
    # the replicates: the mean of the same resamples of the samples, for the model and for its control
    draws = shared_resamples(len(ov), n_boot=50, seed=0)
    want = 100 * np.array([np.nanmean(hit[d]) for d in draws])
    np.testing.assert_allclose(shuf["C2"]["replicates"], want)
    assert mine["C2"]["replicates"].shape == (50,)
