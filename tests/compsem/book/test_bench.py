"""compsem.book.bench: the runner reads the registry; benchmarks import only compsem."""

import ast

from compsem.book import bench
from tests.helpers import ROOT


def test_benchmarks_import_only_compsem_and_never_patch_the_path():
    problems = []
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            problems += [f"{path.name} imports {n}" for n in names if n.split(".")[0] == "tests"]
            if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", "") == "sys":
                problems.append(f"{path.name} touches sys.path")
    assert not problems, "benchmarks import only compsem (a tiny model comes from a compsem helper):\n" + "\n".join(problems)


def test_the_runner_collects_the_benchmark_of_each_registered_study(tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_ssm.py").write_text("def run(quick):\n    return {'quick': quick, 'n': 3}\n")
    (tmp_path / "benchmarks" / "bench_scratch.py").write_text("raise SystemExit('not a study: never run')\n")
    monkeypatch.setattr(bench, "repo_root", lambda: tmp_path)
    out = bench._study_benchmarks(quick=True)
    assert list(out) == ["ssm"]                                # setcomp, csts, montague have no file here
    assert out["ssm"]["quick"] is True and out["ssm"]["n"] == 3 and out["ssm"]["wall_s"] >= 0


def test_benchmark_sentences_are_distinct_and_deterministic():
    a, b = bench._sentences(50, seed=1), bench._sentences(50, seed=1)
    assert a == b and len(set(a)) == 50 and a == sorted(a)
