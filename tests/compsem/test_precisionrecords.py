"""compsem/precisionrecords.py: what each machine measured of precision, as one table and in words."""

import json

import pytest

from compsem import precisionrecords as P
from compsem.errors import DataError


def _probe(choice="fp32", why="bf16 measured 0.55× fp32 here", rates=None):
    return {
        "machine": {
            "cpu_model": "AMD EPYC",
            "cpu_family": "25",
            "cpu_model_number": "17",
            "cpu_flags": "avx2 avx512f avx512_bf16",
            "cores": 2,
            "torch_threads": 2,
        },
        "rates": rates or {"fp32": 100.0, "bf16": 55.0},
        "choice": choice,
        "why": why,
        "steps": 20,
        "shape": [384, 384, 1536],
    }


def test_this_builds_row_and_sentence():
    row = P.probe_row(_probe())
    assert row["CPU"] == "AMD Zen 4 (AMD EPYC)" and row["bf16 / fp32"] == "0.55×"
    assert (row["fp32 GFLOP/s"], row["bf16 GFLOP/s"], row["fp16 GFLOP/s"]) == ("100", "55", "not timed")
    assert row["auto trains in"] == "fp32 (bf16 measured 0.55× fp32 here)"
    forced = P.probe_row(_probe(), forced="bf16")
    assert forced["auto trains in"] == "bf16 (forced by COMPSEM_PRECISION; the probe chose fp32)"
    text = P.here_sentence(_probe())
    assert text == (
        "This build ran on AMD Zen 4 (AMD EPYC), 2 cores, 2 torch threads. Its probe (20 interleaved "
        "rounds) measured 100 GFLOP/s in fp32 and 55 in bf16 (bf16 measured 0.55× fp32 here), so "
        '`precision="auto"` trained in fp32 here'
    )
    assert "forced bf16 for this build" in P.here_sentence(_probe(), forced="bf16")
    # a probe taken on a busy machine says so (load 3.1 on 2 cores); one at load 1.5 does not
    busy = P.here_sentence({**_probe(), "load_average": [3.1, 2.0, 2.0]})
    assert "(20 interleaved rounds, load average 3.1, above the 2 cores: other work shared them" in busy
    assert "above the" not in P.here_sentence({**_probe(), "load_average": [1.5, 2.0, 2.0]})


def test_a_reported_record_says_where_it_comes_from(tmp_path):
    path = tmp_path / "precision_reported_x.json"
    path.write_text(
        json.dumps(
            {
                "provenance": "reported in issue 46",
                "cpu": {
                    "model_name": "Intel Xeon",
                    "model": "207",
                    "vendor": "GenuineIntel",
                    "family": None,
                    "flags": ["avx512_bf16"],
                },
                "gemm": [{"operation": "a GEMM", "fp32": 266, "bf16": 158, "fp16": [275, 290]}],
                "chapter22_pairs": [
                    {"fp32_train_s": 172, "bf16_train_s": 306},
                    {"fp32_train_s": 139, "bf16_train_s": 138},
                ],
                "auto_trained_in": "bf16 autocast",
            }
        )
    )
    (row,) = P.record_rows(path)
    # by hand: 158 / 266 = 0.594; 172 / 306 = 0.562 and 139 / 138 = 1.007
    assert (
        row["CPU"] == "Intel Xeon (model 207, family not recorded)"
        and row["measured by"] == "reported in issue 46 (benchmarks/precision_reported_x.json)"
    )
    assert row["record"] == "reported elsewhere"
    assert (row["bf16 / fp32"], row["fp16 GFLOP/s"]) == ("0.59×", "275–290")
    assert row["training bf16 / fp32"] == "0.56–1.01× (chapter 22 training seconds, 2 lab-size pairs)"
    path.write_text("{}")
    with pytest.raises(DataError, match="not a precision record"):
        P.record_rows(path)


def test_an_abba_record_shows_the_probe_median_and_the_training_ratio(tmp_path):
    probe = {"rates": {"fp32": 100.0, "bf16": 200.0}, "shape": [384, 384, 1536]}
    runs = [
        {"arm": "auto", "probe": probe},
        {"arm": "auto", "probe": {**probe, "rates": {"fp32": 110.0, "bf16": 240.0}}},
        {"arm": "fp32", "probe": None},
    ]
    rec = {
        "cpu": {"model_name": "AMD EPYC", "vendor": "AuthenticAMD", "family": "26", "model": "2", "flags": ["avx512f"]},
        "source": "python benchmarks/csts_precision_abba.py --lab",
        "started": "2026-12-07 10:00 UTC",
        "runs": runs,
        "summary": {
            "arms": {
                "fp32": {"train_seconds_median": 90.0},
                "bf16": {"train_seconds_median": 60.0},
                "auto": {"precision_used": ["bf16 autocast (bf16 measured 2.00× fp32 here)"]},
            }
        },
    }
    path = tmp_path / "precision_abba_amd-zen5.json"
    path.write_text(json.dumps(rec))
    (row,) = P.record_rows(path)
    # medians by hand: fp32 (100 + 110) / 2 = 105, bf16 (200 + 240) / 2 = 220; 220 / 105 = 2.095; 90 / 60 = 1.5
    assert row["CPU"] == "AMD Zen 5 (AMD EPYC)" and (row["fp32 GFLOP/s"], row["bf16 GFLOP/s"]) == ("105", "220")
    assert row["bf16 / fp32"] == "2.10×" and row["training bf16 / fp32"].startswith("1.50×")
    assert row["auto trains in"] == "bf16 autocast (bf16 measured 2.00× fp32 here)"
    table = P.machines_table(_probe(), paths=[path])
    assert list(table.index.get_level_values("record")) == ["this build (probe)", "ABBA run of chapter 22"]
    assert list(table.columns) == [c for c in P.COLUMNS if c not in ("CPU", "record", "timed")]


def test_the_committed_records_read():
    for path in P.record_paths():
        assert P.record_rows(path), path


def test_a_record_is_labelled_by_its_kind_in_words_and_its_file_named_beside():
    assert P.record_words("precision_reported_intel-xeon-m207.json") == "reported elsewhere"
    assert P.record_words("precision_abba_amd-zen4.json") == "ABBA run of chapter 22"
    assert P.record_words("something_else.json") == "a committed record"
    assert P.named("make bench's probe", "results.json") == "make bench's probe (benchmarks/results.json)"
