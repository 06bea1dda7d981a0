"""compsem.book.appendices.machine and the appendix's machine tables: which machine a benchmark ran on,
beside this build's; an old benchmark file without the fields reads "not recorded"."""

import json

import pandas as pd
import pytest

from compsem import cpu
from compsem.book.appendices import appendix, bench, machine
from compsem.csts import runcache

AVX512_BF16 = """processor\t: 0
model name\t: Fast Server CPU 9000
flags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw avx512_bf16 amx_tile amx_bf16
processor\t: 1
model name\t: Fast Server CPU 9000
flags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw avx512_bf16 amx_tile amx_bf16
"""
AVX2_ONLY = "model name\t: Plain CPU 3\nflags\t\t: fpu sse2 avx avx2 fma avx512fx\n"
OLD_FILE = {"machine": {"python": "3.11.7", "cpu_count": 2, "platform": "Linux-x", "torch": "2.13.0+cpu"}}


def test_flags_and_model_are_read_from_cpuinfo():
    assert cpu.cpu_model(AVX512_BF16) == "Fast Server CPU 9000"
    assert cpu.cpu_flags(AVX512_BF16) == {"avx2": True, "avx512f": True, "avx512_bf16": True, "amx": True}
    # whole words only: "avx512fx" is not avx512f
    assert cpu.cpu_flags(AVX2_ONLY) == {"avx2": True, "avx512f": False, "avx512_bf16": False, "amx": False}
    assert cpu.cpu_flags("") == dict.fromkeys(cpu.FLAGS, False)


def _here(text=AVX2_ONLY, cores=2):
    return {**cpu.this_machine(text), "cores": cores, "load": [3.5, 2.25, 1.0]}


def _bench(text=AVX512_BF16, cores=2, **extra):
    rec = {**cpu.this_machine(text), "cores": cores, "load": [1.5, 1.0, 0.5], "load_at_end": [1.75, 1.0, 0.5]}
    return {"machine": {**rec, "python": "3.11.7"}, **extra}


def test_cpu_family_is_the_first_family_line_or_none():
    info = "processor\t: 0\ncpu family\t: 26\nmodel\t\t: 2\nprocessor\t: 1\ncpu family\t: 25\n"
    assert cpu.cpu_family(info) == "26"
    assert cpu.cpu_family("model name\t: Some CPU\n") is None


@pytest.mark.parametrize(
    "vendor, family, model, flags, kind, words",
    [
        ("AuthenticAMD", "25", "1", "avx2", "amd-zen3", "AMD Zen 3"),
        ("AuthenticAMD", "25", "17", "avx2 avx512f avx512_bf16", "amd-zen4", "AMD Zen 4"),
        ("AuthenticAMD", "26", "2", "avx2 avx512f", "amd-zen5", "AMD Zen 5"),
        ("AuthenticAMD", "23", "49", "avx2", "amd-zen2", "AMD Zen 2 (or the first Zen)"),
        ("GenuineIntel", "6", "207", "avx512f avx512_bf16 avx512_fp16", "intel-f6-m207", "Intel (family 6, model 207)"),
        ("Some Vendor!", "7", "3", "", "somevendor-f7-m3", "somevendor (family 7, model 3)"),
    ],
)
def test_cpu_kind_names_the_generation_by_hand(vendor, family, model, flags, kind, words):
    info = f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\nflags\t\t: {flags}\n"
    assert cpu.cpu_kind(info) == kind and cpu.cpu_kind_words(kind) == words
    assert cpu.cpu_kind("processor : 0\n") == "unknown"


def test_an_old_benchmark_file_shows_not_recorded():
    got = machine.bench_machine(OLD_FILE)
    assert got["cpu_model"] == got["cpu_flags"] == got["load"] == "not recorded" and got["cores"] == 2
    table = appendix.machines(OLD_FILE)
    assert list(table.columns) == ["benchmark run", "this build"]
    assert (table.loc[["CPU", *machine.FLAG_NAMES.values(), machine.LOAD_ROW], "benchmark run"] == "not recorded").all()
    assert machine.same_machine(OLD_FILE, _here()) is None
    note = machine.machine_note(OLD_FILE, _here())
    assert "does not record its CPU" in note and "Plain CPU 3 with 2 cores and avx2" in note


def test_another_machine_is_named_as_such():
    b, h = _bench(), _here()
    assert machine.same_machine(b, h) is False
    note = machine.machine_note(b, h)
    assert note == (
        "The benchmark ran on another machine (Fast Server CPU 9000 with 2 cores and avx2, avx512f, "
        "avx512_bf16, amx) than this build (Plain CPU 3 with 2 cores and avx2): its rates are that "
        "machine's, not this one's."
    )
    table = machine.machines_table(b, h)
    assert table.loc["AVX-512 BF16"].tolist() == ["yes", "no"]  # the instruction set, not the flag's identifier
    assert table.loc[machine.LOAD_ROW, "benchmark run"] == (
        "1.50 / 1.00 / 0.50 at the start, 1.75 / 1.00 / 0.50 at the end (1, 5, 15 min)"
    )
    assert table.loc[machine.LOAD_ROW, "this build"] == "3.50 / 2.25 / 1.00 (1, 5, 15 min)"
    values = machine.machine_values(b, h)
    assert values["bench_machine_note"] == note and values["build_machine"] == "Plain CPU 3 with 2 cores and avx2"


def _epyc(family: str) -> str:
    flags = "fpu avx2 avx512f avx512_bf16"
    return (
        f"vendor_id\t: AuthenticAMD\ncpu family\t: {family}\nmodel\t\t: 2\nmodel name\t: AMD EPYC\nflags\t\t: {flags}\n"
    )


def test_the_same_machine_is_said_to_be_the_same_and_cores_count():
    assert machine.same_machine(_bench(_epyc("25")), _here(_epyc("25"))) is True
    note = machine.machine_note(_bench(_epyc("25")), _here(_epyc("25")))
    assert note.startswith("The benchmark ran on a machine like this build's: AMD Zen 4 (AMD EPYC) with 2 cores")
    assert machine.same_machine(_bench(_epyc("25"), cores=16), _here(_epyc("25"))) is False
    assert machine.machine_summary(_here(cores=1)) == "Plain CPU 3 with 1 core and avx2"


def test_one_model_name_and_flags_of_two_cpu_kinds_are_two_machines():
    # contradicting data: the same "AMD EPYC" with the same flags and cores, Zen 5 (family 26) against Zen 4
    b, h = _bench(_epyc("26")), _here(_epyc("25"))
    assert machine.same_machine(b, h) is False
    assert machine.machine_note(b, h).startswith(
        "The benchmark ran on another machine (AMD Zen 5 (AMD EPYC) with 2 cores and avx2, avx512f, avx512_bf16) "
        "than this build (AMD Zen 4 (AMD EPYC) with 2 cores"
    )
    assert machine.machines_table(b, h).loc["CPU kind"].tolist() == ["AMD Zen 5", "AMD Zen 4"]
    # no kind recorded (no vendor or family lines): whether the two are alike is not known, and said so
    assert machine.same_machine(_bench(AVX2_ONLY), _here()) is None
    assert "whether that is this build's kind of CPU" in machine.machine_note(_bench(AVX2_ONLY), _here())


def test_an_older_file_gives_its_kind_by_the_family_its_study_benchmarks_recorded():
    rec = {**cpu.this_machine(_epyc("26")), "cores": 2}
    del rec["cpu_kind"]  # written before make bench recorded the kind
    start = {"cpu_model": "AMD EPYC", "cpu_family": "26"}
    assert machine.bench_machine({"machine": rec, "studies": {"x": {"machine_at_start": start}}})["cpu_kind"] == (
        "amd-zen5"
    )
    two = {"x": {"machine_at_start": start}, "y": {"machine_at_start": {**start, "cpu_family": "25"}}}
    assert machine.bench_machine({"machine": rec, "studies": two})["cpu_kind"] == "not recorded"  # they disagree
    assert machine.bench_machine({"machine": rec})["cpu_kind"] == "not recorded"
    # contradicting data: one study's start on Zen 5 and its profile, measured later, on Zen 4 (family 25)
    later = {"x": {"machine_at_start": start, "profile": {"cpu_family": "25", "measured": "2026-12-07T17:53:26Z"}}}
    mixed = {"machine": rec, "studies": later}
    assert machine.bench_machine(mixed)["cpu_kind"] == "not recorded"
    table = machine.sections_table(mixed)
    assert table[["section", "measured", "CPU kind"]].values.tolist() == [
        ["machine_at_start", "not recorded", "AMD Zen 5"],
        ["profile", "2026-12-07T17:53:26Z", "AMD Zen 4"],
    ]
    assert machine.machine_note(mixed, _here(_epyc("25"))).startswith(
        "The benchmark file is not one machine's record: its sections name 2 kinds of CPU (AMD Zen 5, AMD Zen 4);"
    )
    # one kind named, but another study names none: not the whole file's kind either
    silent = {"machine": rec, "studies": {"x": {"machine_at_start": start}, "y": {"wall_s": 3}}}
    assert machine.bench_machine(silent)["cpu_kind"] == "not recorded"
    assert machine.sections_table(silent).loc[1, "CPU kind"] == "not recorded"
    assert "1 study (y) name none" in machine.machine_note(silent, _here(_epyc("25")))


def test_run_records_come_from_the_run_cache(tmp_path):
    folder = tmp_path / "csts_runs"
    folder.mkdir()
    (folder / "a.json").write_text(
        json.dumps(
            {
                "encoder": "sbert-mini",
                "config": "bi/mse",
                "seed": 0,
                "precision_used": "fp32",
                "examples_per_s": 41.5,
                "train_seconds": 164,
                "n_train_rows": 6806,
                "input_mode": "sentences_only",
                "lr": 3e-4,
                "epochs": 1,
            }
        )
    )
    (folder / "b.json").write_text(json.dumps({"encoder": "sbert-mini", "config": "tri/mse", "seed": 1}))  # no rate
    (folder / "c.json").write_text("{broken")

    with pytest.warns(UserWarning, match="c.json is broken"):
        recs = runcache.run_records(folder)
    assert recs[["config", "examples_per_s", "precision"]].values.tolist() == [["bi/mse", 41.5, "fp32"]]
    assert recs[["n_train_rows", "input_mode", "lr", "epochs"]].values.tolist() == [[6806, "sentences_only", 3e-4, 1]]
    assert runcache.run_records(tmp_path / "nothing").empty


def test_rates_beside_shows_the_benchmark_runs_and_this_builds():
    b = _bench(
        studies={
            "csts": {
                "config": "bi/quad+mse, cpu preset",
                "results": [
                    {"path": "fp32", "examples_per_s": 79.65, "precision": "fp32 (asked for)"},
                    {"path": "fast", "examples_per_s": 217.25, "precision": "bf16 autocast"},
                ],
            }
        }
    )
    recs = pd.DataFrame(
        [
            {
                "study": "csts",
                "encoder": "sbert-mini",
                "config": "bi/mse",
                "seed": 0,
                "precision": "fp32",
                "examples_per_s": 41.54,
            }
        ]
    )
    got = appendix.rates_beside(b, recs)
    assert got["source"].tolist() == ["benchmark run", "benchmark run", "this build"]
    assert got["examples per second"].tolist() == ["79.7", "217.2", "41.5"]
    assert got["run"].tolist() == [
        "bi/quad+mse, cpu preset · fp32",
        "bi/quad+mse, cpu preset · fast",
        "sbert-mini · bi/mse · seed 0",
    ]
    assert got.loc[0, "machine"].startswith("Fast Server CPU 9000") and got.loc[2, "machine"] != got.loc[0, "machine"]
    assert appendix.rates_beside(OLD_FILE, recs.iloc[:0])["source"].tolist() == []
    assert got["training rows"].tolist() == ["not recorded"] * 3 and got["settings"].tolist() == ["", "", ""]


def test_rates_beside_names_each_runs_configuration_rows_and_settings():
    # the benchmark's rows carry their config per row and the file its encoder and row count; two
    # records of one encoder, config and seed differ by their rows and settings, which the table shows
    b = _bench(
        studies={
            "csts": {
                "encoder": "sbert-mini",
                "train_rows": 6806,
                "preset": "cpu",
                "results": [{"config": "cross/mse", "path": "fp32", "examples_per_s": 175.09}],
            }
        }
    )
    rec = {"study": "csts", "encoder": "sbert-mini", "config": "cross/mse", "seed": 0, "examples_per_s": 134.7}
    recs = pd.DataFrame(
        [
            {**rec, "n_train_rows": 6806, "input_mode": "sentences_only", "lr": 3e-4, "epochs": 1},
            {**rec, "n_train_rows": 500, "input_mode": "both", "lr": 1e-5, "epochs": 3},
        ]
    )
    got = appendix.rates_beside(b, recs)
    assert got["run"].tolist()[0] == "sbert-mini · cross/mse · fp32"
    assert got["training rows"].tolist() == ["6,806", "6,806", "500"]
    assert got["settings"].tolist() == ["cpu", "sentences only · lr 0.0003 · 1 epoch", "both · lr 1e-05 · 3 epochs"]


def _pair(ratio_runs):
    return {
        "texts": 10,
        "rounds": 2,
        "batch_size": 32,
        "torch_texts_per_s": 100.0,
        "onnx_texts_per_s": 150.0,
        "ratio_min": ratio_runs[0],
        "ratio_median": ratio_runs[1],
        "max_abs_diff": 2.4e-7,
        "load_before": [1.0, 1.0, 1.0],
        "load_after": [2.0, 1.0, 1.0],
    }


def test_backend_table_collects_the_foundation_and_study_comparisons():
    b = {
        "encode_backends": {"sentences": _pair((1.1, 1.2))},
        "studies": {"montague": {"n_phrases": 5, "encode_backends": {"phrases (chapter 30)": _pair((1.4, 1.5))}}},
    }
    got = appendix.backend_table(b)
    assert got["texts"].tolist() == ["sentences", "phrases (chapter 30)"]
    assert got["ONNX / torch, median"].tolist() == ["1.20", "1.50"] and got["max abs difference"].iloc[0] == "2.4e-07"
    assert appendix.backend_table(OLD_FILE).empty
    # shown once: not again among the study's own tables
    assert not any("encode backends" in t for t in appendix.bench_tables(b))


def test_bench_records_the_machine(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "encode_throughput", lambda n: {})
    monkeypatch.setattr(bench, "cache_overhead", lambda n: {})
    monkeypatch.setattr(bench, "encode_backends", lambda n, rounds: {})
    monkeypatch.setattr(bench, "_study_benchmarks", lambda quick: {})
    res = json.loads(bench.run_all(quick=True, out=tmp_path / "r.json").read_text())
    m = res["machine"]
    assert m["cpu_model"] == cpu.cpu_model() and set(m["cpu_flags"]) == set(cpu.FLAGS)
    assert len(m["load"]) == 3 and len(m["load_at_end"]) == 3 and m["cores"] >= 1
    assert machine.bench_machine(res)["cpu_model"] != "not recorded"


def test_chapters_98_and_99_name_the_benchmarks_machine_from_the_file():
    from tests.helpers import ROOT

    for name in ("98_cluster_scale.ipynb", "99_reproducibility.ipynb"):
        text = "".join("".join(c["source"]) for c in json.loads((ROOT / "notebooks" / name).read_text())["cells"])
        assert "book's CPU" not in text and "{glue:md}`bench_machine_note`" in text, name
        assert "machine_values(" in text, name
