"""compsem/csts/speed.py and benchmarks/csts_ab.py: Part II's chapters timed against an older commit;
compsem.csts.metrics.seed_agreement."""

import json

import pytest

from compsem.csts import metrics as M
from compsem.csts import speed as SP
from compsem.errors import DataError


def test_seed_agreement_by_hand():
    c = M.seed_agreement([16.0, 17.0], [16.2, 16.8])   # pooled sqrt((0.5 + 0.18) / 2)
    assert c["pooled_std"] == pytest.approx(0.34 ** 0.5) and c["difference"] == pytest.approx(0.0) and c["agree"]
    with pytest.raises(ValueError, match="two seeds"):
        M.seed_agreement([1.0], [1.0, 2.0])


def _ab_module():
    import importlib.util

    from compsem.paths import repo_root

    spec = importlib.util.spec_from_file_location("csts_ab", repo_root() / "benchmarks" / "csts_ab.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_ab_comparison_and_words(tmp_path):
    ab = _ab_module()
    runs = [{"side": "base", "chapter": "22_csts_finetune", "seconds": 500.0},
            {"side": "head", "chapter": "22_csts_finetune", "seconds": 400.0},
            {"side": "head", "chapter": "23_csts_ablation_scaling", "seconds": 150.0},
            {"side": "base", "chapter": "23_csts_ablation_scaling", "seconds": 200.0}]
    c = ab.compare(runs)   # 500/400 = 1.25, 200/150 = 1.333, 700/550 = 1.273
    assert (c["22_csts_finetune"]["speedup"], c["23_csts_ablation_scaling"]["speedup"]) == (1.25, 1.333)
    assert c["total"] == {"base": 700.0, "head": 550.0, "speedup": 1.273}
    rec = {"base_commit": "467c50a" + "0" * 33, "head_commit": "abcdef1" + "0" * 33, "comparison": c,
           "started": "2026-11-27 23:00 UTC", "machine": {"cpu_model": "AMD EPYC", "cores": 2,
                                                          "cpu_flags": {"avx2": True, "avx512f": False}},
           "spearman_22": {"base": {"bi/mse": [61.3, 58.7, 63.6]}, "head": {"bi/mse": [60.9, 58.2, 63.3]}}}
    path = tmp_path / "ab.json"
    path.write_text(json.dumps(rec))
    v = SP.ab_values(path)
    assert v["ab_text"].startswith("Chapters 22 and 23 together ran 1.27× as fast as at commit `467c50a`: 700 s against 550 s")
    assert "(chapter 22 1.25×, chapter 23 1.33×)" in v["ab_text"] and "flags avx2)" in v["ab_text"]
    assert v["ab_table"].loc["bi/mse"].to_list() == ["61.30 [58.7, 63.6]", "60.90 [58.2, 63.3]"]
    assert "not measured" in SP.ab_values(tmp_path / "absent.json")["ab_text"]
    path.write_text("{}")
    with pytest.raises(DataError, match="not an A/B record"):
        SP.ab_values(path)


def test_ab_script_without_a_checkout_prints_its_usage(capsys):
    # a real run takes two builds of chapters 22 and 23 (about 20 minutes): CONTRIBUTING.md shows the
    # command, and the record it writes is read by the test above
    assert _ab_module().main([]) == 2
    assert "python benchmarks/csts_ab.py /tmp/csts-base" in capsys.readouterr().err
