"""The paper-scale estimates of chapter 98 (compsem.book.appendices.paperscale)."""

import json

import numpy as np
import pandas as pd
import pytest

from compsem.book.appendices import paperscale
from compsem.studies import STUDIES
from compsem.book.appendices.paperscale import (
    _makespan,
    gpu_speedup,
    page_values,
    paper_scale_summary,
    rate_notes,
    size_rule_check,
    train_speedup,
)
from compsem.errors import DataError
from compsem.reference import published_table


def test_units_are_dealt_longest_first_to_the_least_loaded_gpu():
    # 3 -> A, 3 -> B, 2 -> A (5), 2 -> B (5), 2 -> A (7)
    assert _makespan([2, 3, 2, 3, 2], 2) == 7
    assert _makespan([2, 3, 2, 3, 2], 1) == 12 and _makespan([2, 3, 2, 3, 2], 16) == 3


def test_the_summary_spreads_each_study_over_the_gpus():
    table = pd.DataFrame(
        {
            "study": ["s", "s", "s"],
            "model": ["a", "b", "c"],
            "kind": ["embed"] * 3,
            "units": pd.array([2, 1, None], dtype="Int64"),
            "gpu_hours": [1.0, 0.25, None],
        }
    )
    (row,) = paper_scale_summary(table, gpus=(1, 4)).to_dict("records")
    # a: two units of 0.5 h, b: one of 0.25 h; c has no estimate
    assert row == {
        "study": "s",
        "models": 3,
        "units": 3,
        "models_without_estimate": 1,
        "paper_models_not_planned": 0,
        "hours_on_1_gpus": 1.25,
        "hours_on_4_gpus": 0.5,
    }


def test_the_published_table_cites_its_source_and_names_the_reference_weights():
    pub = published_table("sbert_speed")
    assert "UKPLab/sentence-transformers" in pub.attrs["comment"] and "V100" in pub.attrs["comment"]
    assert paperscale.GPU_REFERENCE in set(pub.model)
    with pytest.raises(DataError, match="sbert_speed"):
        published_table("no-such-table")


def test_without_a_gpu_record_the_speedup_is_the_published_gpu_rate_over_the_benchmarked_cpu_rate(tmp_path):
    bench = tmp_path / "results.json"
    bench.write_text(json.dumps({"encode": {"sbert-mini": {"encoded_per_s_cold": 200.0}}}))
    got = gpu_speedup(bench, gpu=tmp_path / "no-gpu.json")
    assert got["gpu_rate"] == 14200.0 and got["cpu_rate"] == 200.0 and got["speedup"] == pytest.approx(71.0)
    assert (got["source"], got["gpu"]) == ("published", "V100")
    assert gpu_speedup(tmp_path / "none.json")["speedup"] is None  # no benchmark: no estimate


def _records(tmp_path, gpu_runs=True):
    bench, gpu = tmp_path / "results.json", tmp_path / "gpu.json"
    bench.write_text(
        json.dumps(
            {
                "encode": {"sbert-mini": {"encoded_per_s_cold": 200.0}},
                "studies": {
                    "x": {
                        "results": [
                            {"config": "a", "path": "fp32", "examples_per_s": 100.0},
                            {"config": "a", "path": "fast", "examples_per_s": 900.0},  # not fp32
                            {"config": "b", "path": "fp32", "examples_per_s": 300.0},
                            {"config": "c", "path": "fp32", "examples_per_s": 50.0},
                        ]
                    }
                },
            }
        )
    )  # no GPU run
    runs = (
        {"a fp32": {"examples_per_s": 1000.0}, "a bf16": {"examples_per_s": 5.0}, "b fp32": {"examples_per_s": 2000.0}}
        if gpu_runs
        else {}
    )
    gpu.write_text(
        json.dumps(
            {
                "machine": {"gpu": "Card X"},
                "encode": {"gpu_default": {"texts_per_s": 8000.0}},
                "studies": {"x": {"runs": runs}},
            }
        )
    )
    return bench, gpu


def test_a_gpu_record_gives_the_measured_encoding_rate_and_names_the_gpu(tmp_path):
    bench, gpu = _records(tmp_path)
    got = gpu_speedup(bench, gpu=gpu)
    assert (got["gpu_rate"], got["speedup"], got["gpu"], got["source"]) == (8000.0, 40.0, "Card X", "measured")
    assert got["published_speedup"] == pytest.approx(14200 / 200)


def test_the_fine_tuning_factor_is_measured_on_the_configurations_both_records_ran(tmp_path):
    bench, gpu = _records(tmp_path)
    got = train_speedup(bench, gpu=gpu)
    # a and b on both: GPU mean (1000 + 2000) / 2 = 1500, CPU mean (100 + 300) / 2 = 200
    assert got["configs"] == ["a", "b"] and got["speedup"] == pytest.approx(7.5)
    note = rate_notes(gpu_speedup(bench, gpu=gpu), got)["train_note"]
    assert "1,000–2,000 examples per second" in note and "100–300" in note and "7.5×" in note
    assert "assumed" not in note


def test_without_a_measured_fine_tuning_rate_the_encoding_factor_is_labelled_assumed(tmp_path):
    bench, gpu = _records(tmp_path, gpu_runs=False)
    assert train_speedup(bench, gpu=gpu)["speedup"] is None
    notes = rate_notes(gpu_speedup(bench, gpu=gpu), train_speedup(bench, gpu=gpu))
    assert "*assumed* to gain the encoding factor (40×)" in notes["train_note"]
    assert "Card X" in notes["gpu_note"] and "8,000 texts per second" in notes["gpu_note"]


def test_fine_tuning_hours_use_the_fine_tuning_factor_not_the_encoding_one(tmp_path, monkeypatch):
    from compsem.faces import PaperRun
    from compsem.work import WorkUnit

    bench, gpu = _records(tmp_path)
    unit = WorkUnit(kind="train", spec="m", key="k", study="x", count=1, cost_s=3600.0 * 15, size_gb=0.09)
    monkeypatch.setattr(paperscale, "paper_runs", lambda: {"x": PaperRun("50_x_y.ipynb")})
    monkeypatch.setattr(paperscale, "planned_work", lambda *a, **kw: ("x", [unit]))
    (row,) = paperscale.paper_scale_table(bench=bench, gpu=gpu).to_dict("records")
    assert row["gpu_hours"] == pytest.approx(15 / 7.5)  # not 15 / 40, the encoding factor


def test_the_size_rule_is_checked_against_the_published_rates():
    rule = size_rule_check().set_index("model")
    # all-MiniLM-L12-v2: 14200 * 80 / 120 = 9466.67 predicted, 7500 published
    assert rule.loc["all-MiniLM-L12-v2", "predicted"] == pytest.approx(9466.6667, abs=1e-3)
    assert rule.loc["all-MiniLM-L12-v2", "ratio"] == pytest.approx(9466.6667 / 7500, abs=1e-6)
    assert rule.loc[paperscale.GPU_REFERENCE, "ratio"] == 1.0


def test_the_page_values_name_the_model_the_size_rule_misses_most():
    rule = pd.DataFrame({"model": ["a", "b", "c"], "ratio": [1.0, 0.5, 1.25]})
    summary = pd.DataFrame({"study": ["s"], "models": [3], "hours_on_1_gpus": [2.0], "hours_on_16_gpus": [0.25]})
    v = page_values({"speedup": 30.0, "gpu_rate": 300.0, "cpu_rate": 10.0}, summary, rule)
    assert v["s_n_models"] == 3
    assert (v["memory_infer"], v["memory_train"]) == (1.2, 4.0)
    assert v["rule_worst_model"] == "b" and v["rule_low"] == 0.5 and v["rule_off"] == 2.0
    assert v["rule_worst"] == 1.25  # among a and c: max(1.25, 1 / 1.0)
    assert v["s_hours_1"] == 2.0 and v["s_hours_16"] == 0.25
    assert v["gpu_name"] == "GPU"  # a speed record that names no GPU


def test_the_hours_headers_name_the_gpu_whose_rate_made_them():
    got = paperscale.hours_headers({"gpu": "NVIDIA H200"}, gpus=(1, 16))
    assert got == {
        "hours_on_1_gpus": "hours on 1 × NVIDIA H200 (estimate)",
        "hours_on_16_gpus": "hours on 16 × NVIDIA H200 (estimate)",
    }
    # contradicting data: the published V100 rate instead of a measured GPU; the words change
    assert paperscale.hours_headers({"gpu": "V100"}, gpus=(4,)) == {"hours_on_4_gpus": "hours on 4 × V100 (estimate)"}
    rule = pd.DataFrame({"model": ["a", "b"], "ratio": [1.0, 0.5]})
    summary = pd.DataFrame({"study": ["s"], "models": [1], "hours_on_1_gpus": [2.0], "hours_on_16_gpus": [0.25]})
    v = page_values({"speedup": 30.0, "gpu_rate": 300.0, "cpu_rate": 10.0, "gpu": "NVIDIA H200"}, summary, rule)
    assert v["gpu_name"] == "NVIDIA H200"


def test_every_study_of_the_committed_benchmark_gets_finite_hours():
    """The committed benchmark carries every rate the table needs (a renamed benchmark field
    once left Part II's fine-tuning without an estimate and the page printed "nan")."""
    table = paperscale.paper_scale_table()
    summary = paper_scale_summary(table)
    assert set(summary.study) == {
        s.name for s in STUDIES if getattr(s.module("study"), "PAPER_RUN", None) or "paper" in s.absent
    }
    with_panel = summary[summary.study.isin(set(table[table.model.notna()].study))]  # a study with models to run
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


def test_a_paper_model_the_run_does_not_plan_is_listed_with_its_reason_and_counted_apart(monkeypatch):
    from compsem.faces import PaperRun
    from compsem.work import WorkUnit

    unit = WorkUnit(kind="embed", spec="m", key="k", study="x", count=10, cost_s=None, size_gb=None)
    monkeypatch.setattr(paperscale, "paper_runs", lambda: {"x": PaperRun("50_x_y.ipynb")})
    monkeypatch.setattr(paperscale, "planned_work", lambda *a, **kw: ("x", [unit]))
    monkeypatch.setattr(paperscale, "_paper_specs", lambda study: ["m", "vec:w.txt", "gen:openai:g", "hf:z"])
    table = paperscale.paper_scale_table()
    assert list(table.model) == ["m", "vec:w.txt", "gen:openai:g", "hf:z"]
    assert list(table.kind) == [
        "embed",
        "not planned: word vectors, a table lookup with no GPU work",
        "not planned: a generator, which this chapter's run does not prompt",
        "not planned: not in this chapter's run",
    ]
    (row,) = paper_scale_summary(table, gpus=(1,)).to_dict("records")
    # m is planned but has no estimate (no cost); the three others are not planned at all
    assert (row["models"], row["models_without_estimate"], row["paper_models_not_planned"]) == (1, 1, 3)


def test_the_scale_notes_are_each_studys_own_sentences(monkeypatch):
    from compsem.faces import PaperRun

    runs = {"setcomp": PaperRun("a.ipynb", note=lambda: "texts by the quintuples"), "csts": PaperRun("b.ipynb")}
    monkeypatch.setattr(paperscale, "paper_runs", lambda: runs)
    assert paperscale.scale_notes() == "Part I: texts by the quintuples."
    monkeypatch.setattr(paperscale, "paper_runs", lambda: {"csts": PaperRun("b.ipynb")})
    assert paperscale.scale_notes() == "Every study is costed at the data it ships, which is the paper's."


def test_the_page_names_the_stand_ins_among_the_planned_paper_models():
    # Part I's use is the multilingual USE v3, not the paper's USE v4 (same_model false); sbert-l is the paper's
    table = pd.DataFrame(
        {
            "study": ["setcomp"] * 3,
            "model": ["use", "sbert-l", "gen:openai:gpt-3.5-turbo"],
            "kind": ["embed", "embed", "not planned: a generator"],
        }
    )
    got = paperscale._sameness(table)
    assert got == {"setcomp_n_same": 1, "setcomp_standins": "use"}
    rule = pd.DataFrame({"model": ["a", "b"], "ratio": [1.0, 0.5], "size_mb": [80, 1360]})
    summary = pd.DataFrame({"study": ["s"], "models": [1], "hours_on_1_gpus": [2.0], "hours_on_16_gpus": [0.25]})
    v = page_values({"speedup": 30.0, "gpu_rate": 300.0, "cpu_rate": 10.0}, summary, rule, table=table)
    assert (v["rule_min_mb"], v["rule_max_mb"]) == (80.0, 1360.0) and v["setcomp_standins"] == "use"
