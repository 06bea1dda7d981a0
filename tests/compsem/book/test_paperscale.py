"""The paper-scale estimates of chapter 98 (compsem.book.paperscale)."""

import json

import numpy as np
import pandas as pd
import pytest

from compsem.book import paperscale
from compsem.studies import STUDIES
from compsem.book.paperscale import _makespan, gpu_speedup, page_values, paper_scale_summary, size_rule_check
from compsem.errors import DataError
from compsem.reference import published_table


def test_units_are_dealt_longest_first_to_the_least_loaded_gpu():
    # 3 -> A, 3 -> B, 2 -> A (5), 2 -> B (5), 2 -> A (7)
    assert _makespan([2, 3, 2, 3, 2], 2) == 7
    assert _makespan([2, 3, 2, 3, 2], 1) == 12 and _makespan([2, 3, 2, 3, 2], 16) == 3


def test_the_summary_spreads_each_study_over_the_gpus():
    table = pd.DataFrame({"study": ["s", "s", "s"], "model": ["a", "b", "c"], "kind": ["embed"] * 3,
                          "units": pd.array([2, 1, None], dtype="Int64"), "gpu_hours": [1.0, 0.25, None]})
    (row,) = paper_scale_summary(table, gpus=(1, 4)).to_dict("records")
    # a: two units of 0.5 h, b: one of 0.25 h; c has no estimate
    assert row == {"study": "s", "models": 3, "units": 3, "models_without_estimate": 1,
                   "hours_on_1_gpus": 1.25, "hours_on_4_gpus": 0.5}


def test_the_published_table_cites_its_source_and_names_the_reference_weights():
    pub = published_table("sbert_speed")
    assert "UKPLab/sentence-transformers" in pub.attrs["comment"] and "V100" in pub.attrs["comment"]
    assert paperscale.GPU_REFERENCE in set(pub.model)
    with pytest.raises(DataError, match="sbert_speed"):
        published_table("no-such-table")


def test_the_speedup_is_the_published_gpu_rate_over_the_benchmarked_cpu_rate(tmp_path):
    bench = tmp_path / "results.json"
    bench.write_text(json.dumps({"encode": {"sbert-mini": {"encoded_per_s_cold": 200.0}}}))
    got = gpu_speedup(bench)
    assert got["gpu_rate"] == 14200.0 and got["cpu_rate"] == 200.0 and got["speedup"] == pytest.approx(71.0)
    assert gpu_speedup(tmp_path / "none.json")["speedup"] is None   # no benchmark: no estimate


def test_the_size_rule_is_checked_against_the_published_rates():
    rule = size_rule_check().set_index("model")
    # all-MiniLM-L12-v2: 14200 * 80 / 120 = 9466.67 predicted, 7500 published
    assert rule.loc["all-MiniLM-L12-v2", "predicted"] == pytest.approx(9466.6667, abs=1e-3)
    assert rule.loc["all-MiniLM-L12-v2", "ratio"] == pytest.approx(9466.6667 / 7500, abs=1e-6)
    assert rule.loc[paperscale.GPU_REFERENCE, "ratio"] == 1.0


def test_the_page_values_name_the_model_the_size_rule_misses_most():
    rule = pd.DataFrame({"model": ["a", "b", "c"], "ratio": [1.0, 0.5, 1.25]})
    summary = pd.DataFrame({"study": ["s"], "hours_on_1_gpus": [2.0], "hours_on_16_gpus": [0.25]})
    v = page_values({"speedup": 30.0, "gpu_rate": 300.0, "cpu_rate": 10.0}, summary, rule)
    assert v["rule_worst_model"] == "b" and v["rule_low"] == 0.5 and v["rule_off"] == 2.0
    assert v["rule_worst"] == 1.25           # among a and c: max(1.25, 1 / 1.0)
    assert v["s_hours_1"] == 2.0 and v["s_hours_16"] == 0.25


def test_every_study_of_the_committed_benchmark_gets_finite_hours():
    """The committed benchmark carries every rate the table needs (a renamed benchmark field
    once left Part II's fine-tuning without an estimate and the page printed "nan")."""
    table = paperscale.paper_scale_table()
    summary = paper_scale_summary(table)
    assert set(summary.study) == {s.name for s in STUDIES
                                  if getattr(s.module("study"), "PAPER_RUN", None) or "paper" in s.absent}
    with_panel = summary[summary.study.isin(set(table[table.model.notna()].study))]   # a study with models to run
    assert len(with_panel) and np.isfinite(with_panel.hours_on_1_gpus.astype(float)).all()
    assert (with_panel.hours_on_16_gpus <= with_panel.hours_on_1_gpus).all()


def test_a_study_without_a_paper_panel_is_shown_as_such(monkeypatch):
    from compsem.faces import PaperRun

    monkeypatch.setattr(paperscale, "paper_runs", lambda: {"nopanel": PaperRun("50_nopanel_x.ipynb")})
    monkeypatch.setattr(paperscale, "planned_work", lambda *a, **kw: ("nopanel", []))
    table = paperscale.paper_scale_table()
    assert table.to_dict("records")[0]["kind"] == "no paper panel" and len(table) == 1
    row = paper_scale_summary(table).iloc[0]
    assert (row.study, row.models, row.units, row.models_without_estimate) == ("nopanel", 0, 0, 0)
    assert row.hours_on_1_gpus is None


def test_a_study_declared_without_a_paper_is_shown_as_such(monkeypatch):
    from compsem.studies import Study

    own = Study("ownstudy", 8, "VIII", "Our own", "own2030", absent=("paper", "paper_tables", "paper_models"))
    monkeypatch.setattr(paperscale, "STUDIES", (own,))
    monkeypatch.setattr(paperscale, "paper_runs", lambda: {})
    table = paperscale.paper_scale_table()
    assert table.to_dict("records")[0]["kind"] == "no paper" and list(table.study) == ["ownstudy"]
