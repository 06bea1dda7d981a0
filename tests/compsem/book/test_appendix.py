"""The reproducibility appendix's tables, on small made-up inputs worked out by hand."""

import json
import os

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from compsem.book.appendices import appendix  # noqa: E402
from tests.helpers import ROOT  # noqa: E402

ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # SHA-256 of b"abc" (FIPS 180-2)


def test_run_times_are_dated_and_rounded(tmp_path):
    p = tmp_path / "30_x.runtime.json"
    p.write_text(json.dumps({"notebook": "30_x.ipynb", "seconds": 125.4, "parameters": {}}))
    os.utime(p, (0, 86400 + 3600))  # 1970-01-02 01:00 UTC
    t = appendix.run_times(tmp_path)
    assert t.to_dict("records") == [
        {"chapter": "30_x.ipynb", "seconds": "125", "minutes": "2.1", "finished (UTC)": "1970-01-02 01:00"}
    ]
    assert appendix.run_times(tmp_path / "none").empty


def test_dependencies_read_every_pin(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nrequires-python = ">=3.11"\n'
        'dependencies = ["pandas==9.9.9", "no-such-package-xyz==1.0", "numpy"]\n'
    )
    d = appendix.dependencies(tmp_path)
    assert list(d.index) == ["python", "pandas", "no-such-package-xyz", "numpy"]
    assert d.loc["pandas", "pinned"] == "9.9.9" and d.loc["pandas", "installed"] == pd.__version__
    assert d.loc["no-such-package-xyz", "installed"] == "not installed"


def test_digests_are_full(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_bytes(b"abc")
    (tmp_path / "requirements-lock.txt").write_bytes(b"abc")
    t = appendix.data_digests(tmp_path / "sub")
    assert t.to_dict("records") == [{"file": "a.txt", "bytes": 3, "SHA-256": ABC_SHA256}]
    assert appendix.lock_digest(tmp_path) == ABC_SHA256


BENCH = {
    "machine": {"cpu_count": 2, "torch": "2.13.0"},
    "encode": {
        "m": {
            "texts": 2000,
            "cold_texts_per_s": 687.37,
            "warm_texts_per_s": 246863.9,
            "dedup_ratio": 0.5,
            "cached": True,
        }
    },
    "studies": {
        "ssm": {"n_pairs": 2304, "measured_pairs_per_second": 15.53, "lexical_seconds_full_pool": 0.0123},
        "csts": {"encoder": "sbert-mini", "results": [{"encoding": "bi", "seconds": 4.848}]},
        "montague": {"models": {"bow": {"dim": 2048, "embed_seconds": 1.931}}},
    },
}


def test_bench_tables_have_readable_headers_and_one_format():
    t = appendix.bench_tables(BENCH)
    enc = t["encode throughput per model"]
    assert list(enc.columns) == ["texts", "cold texts per second", "warm texts per second", "dedup ratio", "cached"]
    # whole numbers from 100 up (thousands separated), 2 decimals from 0.1, 4 below
    assert enc.loc["m"].tolist() == ["2,000", "687", "246,864", "0.50", "yes"]  # a flag in words
    ssm = t["ssm: measurements"]["value"]
    assert ssm.tolist() == ["2,304", "15.53", "1.2e-02"]  # one fixed-point format in the column; tiny values scientific
    assert list(t["ssm: measurements"].index) == ["n pairs", "measured pairs per second", "lexical seconds full pool"]
    assert t["csts: results"].to_dict("records") == [{"encoding": "bi", "seconds": "4.85"}]
    mont = t["montague: models"]
    assert mont.index.name == "model" and mont.loc["bow"].tolist() == ["2,048", "1.93"]
    # one format per column: 0.12 beside 0.0925 prints as 0.1200; a 1e-12 difference is not "0.0000"
    col = appendix.bench_tables({"studies": {"x": {"models": {"a": {"t": 0.0925}, "b": {"t": 0.12}}}}})["x: models"]
    assert col["t"].tolist() == ["0.0925", "0.1200"]
    tiny = appendix.bench_tables({"studies": {"x": {"diff": 1.08e-12}}})["x: measurements"]["value"]
    assert tiny.tolist() == ["1.1e-12"]
    assert "dim 384.000000" not in str(t)  # no raw JSON dumps


def test_a_mapping_of_records_below_the_top_is_a_table_of_its_own():
    # a benchmark's utilisation: its scalars stay measurements, its per-configuration rows a table
    bench = {
        "studies": {
            "x": {
                "utilisation": {
                    "limit": 828.0,
                    "configs": {
                        "bi/mse": {"gflop": 250.8, "share": 0.303},
                        "tri/quad+mse": {"gflop": 185.8, "share": 0.224},
                    },
                }
            }
        }
    }
    t = appendix.bench_tables(bench)
    assert t["x: measurements"]["value"].tolist() == ["828"]
    assert list(t["x: measurements"].index) == ["utilisation · limit"]
    assert t["x: utilisation · configs"].to_dict("records") == [
        {"configs": "bi/mse", "gflop": "251", "share": "0.30"},
        {"configs": "tri/quad+mse", "gflop": "186", "share": "0.22"},
    ]
    # at the top, a mapping of records keeps its own table (index named by the key), as before
    assert appendix.bench_tables({"studies": {"x": {"models": {"a": {"t": 1.0}}}}})["x: models"].index.name == "model"


def test_throughput_figure_has_two_points_per_model():
    fig = appendix.throughput_figure(BENCH)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and [t.get_text() for t in ax.get_yticklabels()] == ["m"]


def test_gpu_tables_from_a_made_up_record():
    assert appendix.gpu_tables(None) == {}
    rec = {
        "machine": {"device": "cuda", "gpu": "X1", "bf16": True},
        "encode": {
            "sentences": 1000,
            "cpu_identity": "m",
            "cpu_fp32_texts_per_s": 1250.0,
            "gpu_default": {
                "identity": "m",
                "weights": "float32",
                "texts_per_s": 14553.6,
                "max_abs_diff": 2.7e-07,
                "max_one_minus_cos": 1.2e-07,
            },
            "gpu_bf16": {
                "identity": "m|dtype=bfloat16",
                "weights": "bfloat16",
                "texts_per_s": 17218.9,
                "max_abs_diff": 0.0055,
                "max_one_minus_cos": 1.1e-04,
            },
            "wall_s": 3.0,
        },
        "studies": {
            "x": {
                "train_rows": 200,
                "runs": {
                    "a fp32": {"examples_per_s": 2115.1, "test_spearman": 45.534, "gap": 0.0},
                    "a bf16": {"examples_per_s": 382.5, "test_spearman": 45.353},
                },
            }
        },
    }
    t = appendix.gpu_tables(rec)
    assert list(t) == [
        "GPU check: the machine",
        "GPU check: sbert-mini on 1,000 benchmark sentences",
        "GPU check, x: measurements",
        "GPU check, x: runs",
    ]
    assert t["GPU check: the machine"]["value"].tolist() == ["cuda", "X1", "yes"]
    enc = t["GPU check: sbert-mini on 1,000 benchmark sentences"]
    assert list(enc.index) == ["CPU, fp32 (torch)", "GPU, default", "GPU, bf16 asked for"]
    assert enc["texts per second"].tolist() == ["1,250", "14,554", "17,219"]
    assert enc.loc["GPU, default", "weights"] == "float32" and enc.loc["CPU, fp32 (torch)", "max abs diff"] == "–"
    assert "identity" not in enc.columns  # the long cache keys stay in the JSON
    runs = t["GPU check, x: runs"]
    assert runs.loc["a bf16", "examples per second"] == "382"  # none from 100 up
    assert runs.loc["a bf16", "gap"] == "not measured" and runs.loc["a fp32", "gap"] == "0"  # never "nan"
    assert runs.loc["a fp32", "test spearman"] == "45.53"
    # the section's sentences name the GPU of the record, and only it; bf16 17,218.9 against 14,553.6 texts/s
    g = appendix.gpu_glue(rec)
    assert g["gpu_name"] == "X1" and "faster" in g["gpu_bf16_speed"]
    assert appendix.gpu_glue(None)["gpu_name"] == "no GPU"
    assert appendix.gpu_glue({**rec, "machine": {"device": "cuda"}})["gpu_name"] == "no GPU"


def test_the_gpus_fp32_vectors_are_stated_by_their_measured_difference_never_as_the_same():
    """The intro's and the usage page's GPU sentence: the GPU's fp32 vectors against the CPU's, as
    the record's largest absolute difference of a coordinate says; "equal" only at a difference of 0."""
    rec = {
        "machine": {"gpu": "X1"},
        "encode": {
            "sentences": 10000,
            "gpu_default": {"max_abs_diff": 2.7194619178771973e-07, "texts_per_s": 100.0},
            "gpu_bf16": {"texts_per_s": 70.0},
        },
    }
    rec["encode"]["gpu_default"]["identity"] = "m1|st|x==1"
    assert appendix.gpu_glue(rec)["gpu_fp32_vs_cpu_text"] == (
        "`m1`'s vectors, on the one GPU measured (X1), lay within 2.7e-07 of the CPU's in every coordinate (the "
        "largest absolute difference over 10,000 sentences), not equal to them"
    )
    # a study's own fp32 record with a larger difference is part of "every coordinate": the largest of
    # the two (3.0e-07 > 2.7e-07), over all texts measured (10,000 + 20,000 = 30,000)
    rec["studies"] = {"s3": {"phrases": 20000, "encoding": {"gpu_default": {"max_abs_diff": 3.045e-07}}}}
    assert appendix.gpu_fp32_vs_cpu_text(rec) == (
        "`m1`'s vectors, on the one GPU measured (X1), lay within 3.0e-07 of the CPU's in every coordinate (the "
        "largest absolute difference over the 30,000 texts measured: 10,000 sentences, 20,000 s3 phrases), not "
        "equal to them"
    )
    del rec["studies"]
    # contradicting records: a larger difference changes the number; a zero one is equality; none is unmeasured
    rec["encode"]["gpu_default"]["max_abs_diff"] = 0.0031
    assert "within 3.1e-03 of the CPU's" in appendix.gpu_fp32_vs_cpu_text(rec)
    rec["encode"]["gpu_default"]["max_abs_diff"] = 0.0
    assert appendix.gpu_fp32_vs_cpu_text(rec) == (
        "`m1`'s vectors, on the one GPU measured (X1), equal the CPU's in every coordinate over 10,000 sentences"
    )
    assert appendix.gpu_fp32_vs_cpu_text(None).startswith("not compared with the CPU's on any GPU")
    text = " ".join((ROOT / "book" / "intro.md").read_text(encoding="utf-8").split())
    assert "gives the CPU's vectors" not in text and "99_reproducibility.ipynb::gpu_fp32_vs_cpu_text" in text


def test_a_missing_quantity_reads_not_measured_but_a_nan_stays_visible():
    """A key one record lacks is "not measured" in its row; a measured NaN is printed as nan, so
    that check-book flags it rather than the page hiding it."""
    t = appendix._frame({"a": {"x": 1.5, "y": 2.25}, "b": {"x": float("nan")}}, "run")
    assert t.loc["b", "y"] == "not measured" and t.loc["b", "x"] == "nan" and t.loc["a", "y"] == "2.25"
    t = appendix._frame([{"x": 1.5}, {"x": 3.0, "z": True}])
    assert t["z"].tolist() == ["not measured", "yes"]


def test_nested_benchmark_records_become_columns_and_tables_never_python_containers():
    from compsem.labels import is_container

    bench = {
        "studies": {
            "x": {
                "machine_at_start": {"cpu_flags": ["avx2", "avx512f"], "cores": 2},
                "fill": {"arms": "a against b", "runs": [{"path": "unsorted", "repeat": 0}]},
                "packing": {
                    "cross": {
                        "config": "c/mse",
                        "steps": {"steps": 64, "blocks": 4},
                        "rates": [121.35, 116.86],
                        "runs": [{"path": "padded", "examples_per_s": 122.16}],
                    }
                },
            }
        }
    }
    t = appendix.bench_tables(bench)
    assert list(t) == [
        "software and platform of the benchmark run",
        "x: measurements",
        "x: packing",
        "x: fill · runs",
        "x: packing · cross · runs",
    ]
    m = t["x: measurements"]["value"]
    assert m["machine at start · cpu flags"] == "avx2, avx512f" and m["fill · arms"] == "a against b"
    p = t["x: packing"]
    assert (
        p.index.name == "packing"
        and p.loc["cross", "steps · steps"] == "64"
        and p.loc["cross", "steps · blocks"] == "4"
    )
    assert p.loc["cross", "rates"] == "121, 117"  # a list of rates as words, none from 100 up
    assert t["x: fill · runs"].to_dict("records") == [{"path": "unsorted", "repeat": "0"}]
    assert t["x: packing · cross · runs"].to_dict("records") == [{"path": "padded", "examples per second": "122"}]
    cells = [v for df in t.values() for v in df.astype(str).to_numpy().ravel()]
    assert not [v for v in cells if is_container(v)]


def test_a_record_key_that_is_an_identifier_is_shown_in_words():
    t = appendix._frame({"gpu_default": {"x": 1.0}, "GPU, bf16": {"x": 2.0}}, "path")
    assert list(t.index) == ["gpu default", "GPU, bf16"]


def test_the_gpu_sections_words_follow_the_record():
    # bf16 slower in both configurations (409 < 2222, 300 < 1662); default weights: 5 of 5 cells within
    # 1e-4; bf16 weights: 2 of 5 of Table 8 within, so some cell moved further
    rec = {
        "studies": {
            "csts": {
                "runs": {
                    "cross/mse fp32": {"examples_per_s": 2221.9},
                    "cross/mse bf16": {"examples_per_s": 409.0},
                    "bi/quad fp32": {"examples_per_s": 1661.7},
                    "bi/quad bf16": {"examples_per_s": 300.0},
                }
            },
            "montague": {
                "reproduction": {
                    "gpu_default, Table 8": {"cells": 5, "within_1e-4": 5},
                    "gpu_bf16, Table 8": {"cells": 5, "within_1e-4": 2},
                }
            },
        }
    }
    w = appendix.gpu_words(rec)
    assert w == {
        "gpu_bf16_training": "more slowly than",
        "gpu_reproduces": "reproduces",
        "gpu_bf16_cells": "moved Part III's reproduced cells by more than",
    }
    runs, rep = rec["studies"]["csts"]["runs"], rec["studies"]["montague"]["reproduction"]
    runs["bi/quad bf16"]["examples_per_s"] = 2000.0  # now faster than fp32's 1661.7 in one configuration
    rep["gpu_default, Table 8"]["within_1e-4"] = 4
    rep["gpu_bf16, Table 8"]["within_1e-4"] = 5
    assert appendix.gpu_words(rec) == {
        "gpu_bf16_training": "more slowly in 1 of 2 configurations than",
        "gpu_reproduces": "does not reproduce every one of",
        "gpu_bf16_cells": "kept every one of Part III's reproduced cells within",
    }
    runs["cross/mse bf16"]["examples_per_s"] = 3000.0  # bf16 now faster in both configurations
    assert appendix.gpu_words(rec)["gpu_bf16_training"] == "faster than"
    assert appendix.gpu_words(None)["gpu_bf16_training"] == "(not measured) against"


def test_the_gpu_stack_is_compared_with_this_builds_versions():
    rec = {
        "machine": {
            "gpu": "G",
            "torch": "2.11.0+cu130",
            "python": "3.12.3",
            "transformers": "5.23.0",
            "sentence_transformers": "6.2.0",
            "numpy": "2.4.6",
        }
    }
    here = {
        "Python": "3.11.7",
        "torch": "2.13.0+cpu",
        "transformers": "5.23.0",
        "sentence-transformers": "6.2.0",
        "numpy": "2.4.6",
    }
    assert appendix.gpu_stack_text(rec, here) == (
        "under other versions than this build's (Python 3.12.3 against 3.11.7; torch 2.11.0+cu130 against 2.13.0+cpu), "
        "so the defaults set from it were set under other versions than those they now govern"
    )
    # contradicting data: the same versions (a local build tag alone is no difference)
    same = {**here, "Python": "3.12.3", "torch": "2.11.0+cpu"}
    assert appendix.gpu_stack_text(rec, same) == "under this build's versions"
    assert appendix.gpu_stack_text({"machine": {"gpu": "G"}}, same).endswith(
        "(Python, torch, transformers, sentence-transformers, numpy not recorded)"
    )
    assert appendix.gpu_stack_text(None) == "not recorded (no GPU check)"
