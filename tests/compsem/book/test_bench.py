"""compsem.book.appendices.bench: the runner reads the registry; benchmarks import only compsem."""

import ast

from compsem.book.appendices import bench
from tests.helpers import ROOT


def test_benchmarks_import_only_compsem_and_never_patch_the_path():
    problems = []
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            problems += [f"{path.name} imports {n}" for n in names if n.split(".")[0] == "tests"]
            if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", "") == "sys":
                problems.append(f"{path.name} touches sys.path")
    assert not problems, "benchmarks import only compsem (a tiny model comes from a compsem helper):\n" + "\n".join(
        problems
    )


def test_the_runner_collects_the_benchmark_of_each_registered_study(tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_ssm.py").write_text("def run(quick):\n    return {'quick': quick, 'n': 3}\n")
    (tmp_path / "benchmarks" / "bench_scratch.py").write_text("raise SystemExit('not a study: never run')\n")
    monkeypatch.setattr(bench, "repo_root", lambda: tmp_path)
    out = bench._study_benchmarks(quick=True)
    assert list(out) == ["ssm"]  # setcomp, csts, montague have no file here
    assert out["ssm"]["quick"] is True and out["ssm"]["n"] == 3 and out["ssm"]["wall_s"] >= 0


def test_benchmark_sentences_are_distinct_and_deterministic():
    a, b = bench._sentences(50, seed=1), bench._sentences(50, seed=1)
    assert a == b and len(set(a)) == 50 and a == sorted(a)


def test_vector_gap_by_hand():
    a = [[1.0, 0.0], [0.0, 2.0]]
    b = [[1.0, 0.5], [0.0, 2.0]]  # row 0 turned by atan(0.5): cos = 1 / sqrt(1.25)
    gap = bench.vector_gap(a, b)
    assert gap["max_abs_diff"] == 0.5
    assert abs(gap["max_one_minus_cos"] - (1 - 1 / 1.25**0.5)) < 1e-12


def test_encode_rate_counts_texts_and_returns_the_last_vectors():
    calls = []

    def encode(texts):
        calls.append(len(texts))
        return [[float(len(t))] for t in texts]

    rate, X = bench.encode_rate(encode, ["ab", "c", "def"], repeats=3)
    assert calls == [3, 3, 3, 3]  # one warm-up batch (the first 64 texts) and three passes
    assert X.tolist() == [[2.0], [1.0], [3.0]] and rate > 0


def test_study_gpu_checks_loop_over_the_registry_and_keep_a_failure(tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_csts.py").write_text(
        "def run(quick):\n    return {}\n\ndef gpu(device, quick):\n    return {'device': device, 'quick': quick}\n"
    )
    (tmp_path / "benchmarks" / "bench_ssm.py").write_text("def run(quick):\n    return {}\n")  # no gpu(): left out
    (tmp_path / "benchmarks" / "bench_montague.py").write_text(
        "def gpu(device, quick):\n    raise RuntimeError('no')\n"
    )
    monkeypatch.setattr(bench, "repo_root", lambda: tmp_path)
    out = bench.study_gpu_checks("cuda:1", quick=True)
    assert list(out) == ["csts", "montague"]
    assert out["csts"]["device"] == "cuda:1" and out["csts"]["quick"] is True
    assert out["montague"]["error"] == "RuntimeError: no" and out["montague"]["wall_s"] >= 0


def test_gpu_check_without_a_gpu_says_so_and_writes_nothing(tmp_path, capsys, monkeypatch):
    import importlib.util

    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" / "gpu_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main([f"--out={tmp_path / 'gpu.json'}"]) == 2
    assert "no CUDA device" in capsys.readouterr().err and not (tmp_path / "gpu.json").exists()
