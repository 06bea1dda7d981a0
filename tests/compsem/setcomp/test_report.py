"""Part I report (and the paper beside ours it is built from): rows, labels, NED check, the transcribed
tables, headlines, values, try-it."""

import numpy as np
import pytest

from compsem import embed, measures
from compsem.errors import DataError
from compsem.setcomp import beside, report
from compsem.setcomp import tables as st
from compsem.setcomp.data import build_operator_tables, load_source
from compsem.setcomp.report import headlines


def test_c2_headline_matches_a_direct_count():
    rows = {r["criterion"]: r for r in headlines(["bow"], n_boot=50)}
    ov = build_operator_tables(load_source("embedded"))["overlap"]
    A, B, O = (embed(ov[c].tolist(), "bow") for c in ("a", "b", "o"))
    g = measures.plane_geometry(A, B, O, warn=False)
    ok = ~g.degenerate
    direct = 100 * np.mean((g.t[ok] >= 0) & (g.t[ok] <= 1))
    assert rows["C2"]["value"] == pytest.approx(direct)
    assert rows["C2"]["n"] == int(ok.sum())
    assert rows["C2"]["low"] <= rows["C2"]["value"] <= rows["C2"]["high"]


def test_report_tables_put_paper_rows_beside_ours():
    rng = np.random.default_rng(0)
    emb = {m: {"overlap": {k: rng.normal(size=(30, 6)) for k in ("a", "b", "t")}} for m in ("sbert-mini", "bow")}
    cells = st.cells_table(emb, "overlap", ["cos"], size=9, n_boot=50)
    tab = beside.cells_beside_paper(cells, report.paper_table("c1_cells"), "cos")
    paper = tab[tab["model"] == "sbert-mini"]
    assert len(paper) == 2 and paper.iloc[1]["TT"] == 28.96          # Table 1, SBERT-mini, (T,T)
    assert tab.iloc[-1]["model"] == "(16 encoders)"
    raw = st.raw_scores_table(emb, "overlap", ["ned"])
    rt = beside.raw_beside_paper(raw, report.paper_table("overlap_deltas"), {"d1": ("m_ao_minus_m_ab", "d1_mean", "d1_std")})
    assert rt[rt["source"].str.startswith("paper")]["d1"].tolist() == ["-0.0239 ± 0.0635"]   # Table 12(c)
    assert beside.fmt_ci(1.234, 1.0, 1.5) == "1.2 [1.0, 1.5]" and beside.fmt_ci(np.nan, 0, 1) == "n/a"


def test_use_is_never_presented_as_the_papers_model():
    assert beside.paper_name("use") == "USE" and beside.paper_name("bow") is None
    assert "a different model from our use" in beside.paper_label("use", "Table 1")
    assert beside.paper_label("sbert-mini", "Table 1") == "paper, Table 1 (SBERT-mini)"
    rng = np.random.default_rng(1)
    emb = {"use": {"overlap": {k: rng.normal(size=(20, 4)) for k in ("a", "b", "t")}}}
    tab = beside.cells_beside_paper(st.cells_table(emb, "overlap", ["cos"], size=5, n_boot=0), report.paper_table("c1_cells"),
                                    "cos")
    assert tab["source"].tolist()[1] == "paper, Table 1 (USE: a different model from our use)"


def test_ned_paper_check_by_hand():
    t = beside.ned_paper_check()
    # Table 14: LASER cos M(B,D) = 0.5787, NED 0.3587 -> 0.3587 − (1 − 0.5787)/2 = 0.14805
    assert t.loc["LASER", "NED − (1 − cos)/2"] == pytest.approx(0.14805)
    assert t.loc["SBERT-mini", "fits"] and not t.loc["InferSent", "fits"]
    assert t["fits"].sum() == 6 and len(t) == 16


# ------------------------------------------------------------------ the transcribed paper tables
PAPER_MODELS = {"SBERT-mini", "LASER", "USE", "RoBERTa", "SBERT-L", "SimCSE", "InferSent", "GPT3", "LLaMA2",
                "Mistral", "LLaMA3", "OLMo", "OpenELM", "LLaMA3.2", "Qwen", "Gemma"}


@pytest.mark.parametrize("name,tables", [("c1_cells", {"Table 1", "Table 13"}), ("c3_cells", {"Table 2", "Table 15"})])
def test_cell_tables_are_complete_and_rows_sum_to_100(name, tables):
    ref = report.paper_table(name)
    assert set(ref["source"]) == tables
    for _, g in ref.groupby("measure"):
        assert set(g["model"]) == PAPER_MODELS
    sums = ref[["TT", "TF", "FT", "FF"]].sum(axis=1)
    assert np.allclose(sums, 100, atol=0.02)          # the paper rounds each cell to 2 decimals


def test_score_tables_cover_every_measure_and_model():
    for name in ("overlap_deltas", "difference_scores"):
        ref = report.paper_table(name)
        assert set(ref["measure"]) == {"cos", "dot", "ned", "l1", "l2"}
        assert len(ref) == 5 * 16 and ref["source"].str.startswith("Table").all()
    t14 = report.paper_table("difference_scores").set_index(["model", "measure"])
    # the spec's check: for unit vectors NED ≈ (1 − cos)/2; SBERT-mini cos(B,D)=0.1759 -> NED 0.412
    assert (1 - t14.loc[("SBERT-mini", "cos"), "m_bd"]) / 2 == pytest.approx(t14.loc[("SBERT-mini", "ned"), "m_bd"], abs=0.001)
    # cosine and dot coincide for models with unit-norm output (SBERT-mini, USE, GPT3)
    t12 = report.paper_table("overlap_deltas").set_index(["model", "measure"])
    for m in ("SBERT-mini", "USE", "GPT3"):
        assert t12.loc[(m, "cos"), "d1_mean"] == t12.loc[(m, "dot"), "d1_mean"]


def test_table3_and_dataset_counts():
    c4 = report.paper_table("c4")
    assert set(c4["model"]) == PAPER_MODELS and c4["pct_CD3"].between(0, 100).all()
    ds = report.paper_table("dataset").set_index("quantity")["value"]
    assert ds["difference_samples"] % 6 == 0      # all-or-nothing filter: six samples per quintuple


def test_unknown_reference_lists_available():
    with pytest.raises(DataError, match="c1_cells"):
        report.paper_table("table99")
