"""Part I beside the paper: our rows, then the paper's matching rows, labelled honestly."""

import re

import numpy as np
import pytest

from compsem.setcomp import beside, report
from compsem.setcomp import tables as st


def test_report_tables_put_paper_rows_beside_ours():
    rng = np.random.default_rng(0)
    emb = {m: {"overlap": {k: rng.normal(size=(30, 6)) for k in ("a", "b", "t")}} for m in ("sbert-mini", "bow")}
    cells = st.cells_table(emb, "overlap", ["cos"], size=9, n_boot=50)
    tab = beside.cells_beside_paper(cells, report.paper_table("c1_cells"), "cos")
    paper = tab[tab["model"] == "sbert-mini"]
    assert len(paper) == 2 and paper.iloc[1]["TT"] == "28.96"  # Table 1, SBERT-mini, (T,T)
    # one format per column: our estimate and interval with the paper's two decimals
    assert re.fullmatch(r"\d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\]", paper.iloc[0]["TT"])
    assert tab.iloc[-1]["model"] == "(16 encoders)"
    raw = st.raw_scores_table(emb, "overlap", ["ned"])
    rt = beside.raw_beside_paper(
        raw, report.paper_table("overlap_deltas"), {"d1": ("m_ao_minus_m_ab", "d1_mean", "d1_std")}
    )
    assert rt[rt["source"].str.startswith("paper")]["d1"].tolist() == ["-0.0239 ± 0.0635"]  # Table 12(c)
    assert all(re.fullmatch(r"-?\d\.\d{4} ± \d\.\d{4}", v) for v in rt["d1"])  # ours: four decimals too
    # a value that rounds to zero prints without its sign
    assert beside.fmt_ci(-0.01, -0.04, 0.02) == "0.0 [0.0, 0.0]"
    assert beside.fmt_ci(1.234, 1.0, 1.5) == "1.2 [1.0, 1.5]" and beside.fmt_ci(np.nan, 0, 1) == "n/a"


def test_use_is_never_presented_as_the_papers_model():
    assert beside.paper_name("use") == "USE" and beside.paper_name("bow") is None
    assert "a different model from our use" in beside.paper_label("use", "Table 1")
    assert beside.paper_label("sbert-mini", "Table 1") == "paper, Table 1 (SBERT-mini)"
    rng = np.random.default_rng(1)
    emb = {"use": {"overlap": {k: rng.normal(size=(20, 4)) for k in ("a", "b", "t")}}}
    tab = beside.cells_beside_paper(
        st.cells_table(emb, "overlap", ["cos"], size=5, n_boot=0), report.paper_table("c1_cells"), "cos"
    )
    assert tab["source"].tolist()[1] == "paper, Table 1 (USE: a different model from our use)"


def test_ned_paper_check_by_hand():
    t = beside.ned_paper_check()
    # Table 14: LASER cos M(B,D) = 0.5787, NED 0.3587 -> 0.3587 − (1 − 0.5787)/2 = 0.14805
    assert t.loc["LASER", "NED − (1 − cos)/2"] == pytest.approx(0.14805)
    assert t.loc["SBERT-mini", "fits"] and not t.loc["InferSent", "fits"]
    assert t["fits"].sum() == 6 and len(t) == 16
