"""benchmarks/csts_precision_abba.py's helpers (the timing itself runs on a quiet machine, not here)."""

import importlib.util
import json

import pandas as pd
import pytest

from compsem.paths import repo_root


@pytest.fixture(scope="module")
def abba():
    spec = importlib.util.spec_from_file_location(
        "precision_abba", repo_root() / "benchmarks" / "csts_precision_abba.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_order_is_abba_and_each_arm_runs_twice(abba):
    assert abba.ORDER == abba.ORDER[::-1]
    assert {a: abba.ORDER.count(a) for a in abba.ARMS} == {"fp32": 2, "bf16": 2, "auto": 2}
    assert abba.arm_env("fp32") == {"COMPSEM_PRECISION": "fp32"} and abba.arm_env("auto") == {"COMPSEM_PRECISION": ""}
    with pytest.raises(ValueError, match="arm"):
        abba.arm_env("fp16")


def test_lab_size_parameters(abba):
    assert abba.chapter_params(False) == ()
    assert abba.chapter_params(True) == (
        "-p",
        "configs",
        '["bi/mse"]',
        "-p",
        "train_pairs",
        "1000",
        "-p",
        "eval_pairs",
        "300",
    )


def test_cpu_record_reads_the_first_processor(abba):
    info = (
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
        "model name\t: AMD EPYC 9R14\nflags\t\t: sse avx2 avx512f avx512_bf16\n\n"
        "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\nflags\t\t: sse\n"
    )
    assert abba.cpu_record(info) == {
        "model_name": "AMD EPYC 9R14",
        "vendor": "AuthenticAMD",
        "family": "25",
        "model": "17",
        "flags": ["avx2", "avx512_bf16", "avx512f", "sse"],
        "kind": "amd-zen4",
    }
    assert abba.default_out("amd-zen4") == repo_root() / "benchmarks" / "precision_abba_amd-zen4.json"


def test_run_result_reads_the_runs_and_the_probe(abba, tmp_path):
    folder = tmp_path / "run" / "results" / "csts"
    folder.mkdir(parents=True)
    pd.DataFrame(
        {
            "config": ["bi/mse", "cross/mse"],
            "train_seconds": [70.0, 50.5],
            "fill_seconds": [10.0, 0.25],
            "precision_used": ["fp32 (bf16 measured 0.55× fp32 here)"] * 2,
            "test_spearman": [40.084, 30.0],
        }
    ).to_csv(folder / "finetune_runs.csv", index=False)
    got = abba.run_result(tmp_path / "run", tmp_path / "overlay")
    assert got["probe"] is None
    assert got["configs"]["bi/mse"] == {
        "train_seconds": 60.0,
        "fill_seconds": 10.0,
        "precision_used": "fp32 (bf16 measured 0.55× fp32 here)",
        "test_spearman": 40.08,
    }
    assert got["configs"]["cross/mse"]["train_seconds"] == 50.2  # 50.25, rounded half to even
    (tmp_path / "overlay" / "precision").mkdir(parents=True)
    (tmp_path / "overlay" / "precision" / "choice-abc.json").write_text(
        json.dumps({"choice": "fp32", "rates": {"fp32": 266.0, "bf16": 158.0}, "steps": 20, "other": 1})
    )
    probe = abba.run_result(tmp_path / "run", tmp_path / "overlay")["probe"]
    assert probe["choice"] == "fp32" and probe["rates"] == {"fp32": 266.0, "bf16": 158.0} and "other" not in probe


def _run(arm, seconds, train):
    return {"arm": arm, "seconds": seconds, "configs": {"bi/mse": {"train_seconds": train, "precision_used": arm}}}


def test_summary_by_hand(abba):
    runs = [
        _run("fp32", 100, 70),
        _run("bf16", 90, 60),
        _run("auto", 95, 62),
        _run("auto", 93, 66),
        _run("bf16", 88, 58),
        _run("fp32", 104, 74),
    ]
    s = abba.summary(runs)
    assert s["arms"]["bf16"] == {
        "runs": 2,
        "seconds_median": 89.0,
        "train_seconds_median": 59.0,
        "train_seconds_range": 2.0,
        "precision_used": ["bf16"],
    }
    assert s["arms"]["auto"]["train_seconds_median"] == 64.0 and s["arms"]["auto"]["train_seconds_range"] == 4.0
    # faster forced arm: bf16 (59 s); auto 64 / 59 = 1.085; noise = max(4, 2) = 4; 64 > 59 + 4: not within noise
    assert (s["faster_forced"], s["auto_over_faster"], s["noise_seconds"], s["auto_within_noise"]) == (
        "bf16",
        1.085,
        4.0,
        False,
    )
    runs[3] = _run("auto", 93, 63)  # auto 62.5, range 1; noise max(1, 2) = 2; 62.5 > 59 + 2
    s = abba.summary(runs)
    assert (
        s["auto_over_faster"] == round(62.5 / 59, 3) and s["noise_seconds"] == 2.0 and s["auto_within_noise"] is False
    )
    runs[2], runs[3] = _run("auto", 95, 60), _run("auto", 93, 61)  # 60.5 <= 59 + 2
    assert abba.summary(runs)["auto_within_noise"] is True
    assert "faster_forced" not in abba.summary([_run("fp32", 1, 1)])


def test_main_runs_the_order_each_from_fresh_caches_and_writes_the_record(abba, tmp_path, monkeypatch):
    """main() with the chapter run replaced by a stand-in that writes what a run leaves (a
    finetune_runs.csv and, for auto, a probe choice in its own overlay)."""
    seen = []

    def fake_run_side(checkout, chapter, out, cache, params=(), env=None):
        seen.append((chapter, cache, params, env["COMPSEM_PRECISION"]))
        (out / "results" / "csts").mkdir(parents=True)
        arm = env["COMPSEM_PRECISION"] or "auto"
        train = {"fp32": 100.0, "bf16": 80.0, "auto": 81.0}[arm]
        pd.DataFrame(
            {
                "config": ["bi/mse"],
                "train_seconds": [train + 5],
                "fill_seconds": [5.0],
                "precision_used": [arm],
                "test_spearman": [40.0],
            }
        ).to_csv(out / "results" / "csts" / "finetune_runs.csv")
        if arm == "auto":
            (cache / "overlay" / "precision").mkdir(parents=True)
            (cache / "overlay" / "precision" / "choice-k.json").write_text(
                json.dumps({"choice": "bf16", "rates": {"fp32": 100.0, "bf16": 200.0}, "shape": [1, 2, 3]})
            )
        return {"seconds": train + 20, "load_before": [0.1], "load_after": [0.2]}

    monkeypatch.setattr(abba.csts_ab, "run_side", fake_run_side)
    out = tmp_path / "rec.json"
    assert abba.main(["--lab", "--out", str(out)]) == 0
    assert [s[3] or "auto" for s in seen] == list(abba.ORDER)
    assert len({s[1] for s in seen}) == 6 and all(s[2] == abba.chapter_params(True) for s in seen)  # fresh caches
    rec = json.loads(out.read_text())
    assert [r["arm"] for r in rec["runs"]] == list(abba.ORDER) and rec["size"] == abba.LAB
    assert rec["runs"][2]["probe"]["choice"] == "bf16" and rec["runs"][0]["probe"] is None
    # by hand: bf16 80 s and auto 81 s each run, no spread: 81 > 80 + 0, not within noise
    assert (
        rec["summary"]["faster_forced"],
        rec["summary"]["auto_over_faster"],
        rec["summary"]["auto_within_noise"],
    ) == ("bf16", 1.012, False)
    assert set(rec["cpu"]) == {"model_name", "vendor", "family", "model", "flags", "kind"}
