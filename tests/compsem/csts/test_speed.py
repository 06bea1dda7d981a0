"""compsem/csts/speed.py and benchmarks/csts_ab.py: Part II's chapters timed against an older commit;
compsem.csts.metrics.seed_agreement."""

import json

import pytest

from compsem.csts import metrics as M
from compsem.csts import speed as SP
from compsem.errors import DataError


def test_seed_agreement_by_hand():
    c = M.seed_agreement([16.0, 17.0], [16.2, 16.8])  # pooled sqrt((0.5 + 0.18) / 2)
    assert c["pooled_std"] == pytest.approx(0.34**0.5) and c["difference"] == pytest.approx(0.0) and c["agree"]
    with pytest.raises(ValueError, match="two seeds"):
        M.seed_agreement([1.0], [1.0, 2.0])


def _ab_module():
    import importlib.util

    from compsem.paths import repo_root

    spec = importlib.util.spec_from_file_location("csts_ab", repo_root() / "benchmarks" / "csts_ab.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _record(c, flags, head="abcdef1"):
    return {
        "base_commit": "467c50a" + "0" * 33,
        "head_commit": head + "0" * 33,
        "comparison": c,
        "started": "2026-11-27 23:00 UTC",
        "machine": {"cpu_model": "AMD EPYC", "cores": 2, "cpu_flags": flags},
        "spearman_22": {"base": {"bi/mse": [61.3, 58.7, 63.6]}, "head": {"bi/mse": [60.9, 58.2, 63.3]}},
    }


def test_ab_comparison_and_words(tmp_path):
    ab = _ab_module()
    runs = [
        {"side": "base", "chapter": "22_csts_finetune", "seconds": 500.0},
        {"side": "head", "chapter": "22_csts_finetune", "seconds": 400.0},
        {"side": "head", "chapter": "23_csts_ablation_scaling", "seconds": 150.0},
        {"side": "base", "chapter": "23_csts_ablation_scaling", "seconds": 200.0},
    ]
    c = ab.compare(runs)  # 500/400 = 1.25, 200/150 = 1.333, 700/550 = 1.273
    assert (c["22_csts_finetune"]["speedup"], c["23_csts_ablation_scaling"]["speedup"]) == (1.25, 1.333)
    assert c["total"] == {"base": 700.0, "head": 550.0, "speedup": 1.273}
    path = tmp_path / "ab.json"
    path.write_text(json.dumps(_record(c, {"avx2": True, "avx512f": False, "avx512_bf16": False})))
    v = SP.ab_values([path])
    assert v["ab_text"].startswith(
        "On AMD EPYC (2 cores, flags avx2; the chapters train in fp32 there), chapters 22 "
        "and 23 together ran 1.27× as fast at commit `abcdef1` as at `467c50a`: 700 s "
        "against 550 s (chapter 22 1.25×, chapter 23 1.33×)"
    )
    assert v["ab_table"].loc[("fp32 (AMD EPYC)", "bi/mse")].to_list() == [
        "467c50a",
        "61.30 [58.7, 63.6]",
        "abcdef1",
        "60.90 [58.2, 63.3]",
    ]
    assert "not measured" in SP.ab_values([tmp_path / "absent.json"])["ab_text"]
    path.write_text("{}")
    with pytest.raises(DataError, match="not an A/B record"):
        SP.ab_values([path])


def test_two_records_one_sentence_each_and_one_table(tmp_path):
    ab = _ab_module()
    # 300/200 = 1.5 and 100/80 = 1.25 on the bf16 CPU: 400/280 = 1.429 in all
    c = ab.compare(
        [
            {"side": "base", "chapter": "22_csts_finetune", "seconds": 300.0},
            {"side": "head", "chapter": "22_csts_finetune", "seconds": 200.0},
            {"side": "head", "chapter": "23_csts_ablation_scaling", "seconds": 80.0},
            {"side": "base", "chapter": "23_csts_ablation_scaling", "seconds": 100.0},
        ]
    )
    assert c["total"] == {"base": 400.0, "head": 280.0, "speedup": 1.429}
    a, b = tmp_path / "fp32.json", tmp_path / "bf16.json"
    a.write_text(json.dumps(_record(c, {"avx2": True})))
    b.write_text(json.dumps(_record(c, {"avx2": True, "avx512f": True, "avx512_bf16": True}, head="1234567")))
    v = SP.ab_values([a, b])
    assert v["ab_text"].count("1.43× as fast") == 2 and "train under bf16 autocast there" in v["ab_text"]
    assert list(v["ab_table"].index) == [("fp32 (AMD EPYC)", "bi/mse"), ("bf16 (AMD EPYC)", "bi/mse")]
    assert v["ab_table"]["newer commit"].to_list() == ["abcdef1", "1234567"]


def test_the_records_the_book_ships_are_named_by_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        SP.ab_path("fp16")
    for p in SP.ab_paths():
        rec = json.loads(p.read_text())
        assert p.name == f"csts_ab_{SP._kind(rec['machine'])}.json"
        assert rec["comparison"]["total"]["speedup"] == pytest.approx(
            rec["comparison"]["total"]["base"] / rec["comparison"]["total"]["head"], abs=1e-3
        )


def test_ab_script_without_a_checkout_prints_its_usage(capsys):
    # a real run takes two builds of chapters 22 and 23 (about 20 minutes): CONTRIBUTING.md shows the
    # command, and the record it writes is read by the test above
    assert _ab_module().main([]) == 2
    assert "python benchmarks/csts_ab.py /tmp/csts-base" in capsys.readouterr().err


def test_seed_part_of_the_record_by_hand(tmp_path):
    ab = _ab_module()
    folder = tmp_path / "results" / "csts"
    folder.mkdir(parents=True)
    # a run folder's rows out of seed order: seed_spearman sorts them
    folder.joinpath("finetune_runs.csv").write_text(
        "config,seed,test_spearman\nbi/mse,1,60.0\nbi/mse,0,61.0\ntri/quad+mse,0,53.0\ntri/quad+mse,1,52.0\n"
    )
    assert ab.seed_spearman(tmp_path) == {"bi/mse": [61.0, 60.0], "tri/quad+mse": [53.0, 52.0]}
    rec = ab.seed_record(
        [0, 1],
        {
            "base": {"bi/mse": [61.0, 60.0], "tri/quad+mse": [53.0, 52.0]},
            "head": {"bi/mse": [61.5, 60.5], "tri/quad+mse": [51.0, 50.0]},
        },
    )
    # both sides' std is sqrt(0.5) = 0.707 (ddof 1), so the pooled std is 0.707 and the limit 1.414:
    # bi/mse differs by -0.5 (agrees), tri/quad+mse by +2.0 (does not)
    assert rec["agreement"]["bi/mse"]["difference"] == -0.5 and rec["agreement"]["bi/mse"]["agree"]
    assert rec["agreement"]["tri/quad+mse"]["pooled_std"] == 0.707 and not rec["agreement"]["tri/quad+mse"]["agree"]
    with pytest.raises(SystemExit, match="at least two seeds"):
        ab._ints_after(["x", "--seeds", "0", "--out", "f"], "--seeds")
    assert ab._ints_after(["x", "--seeds", "0", "1", "--out", "f"], "--seeds") == [0, 1]


def test_the_seed_comparison_in_words_and_in_the_table(tmp_path):
    ab = _ab_module()
    c = ab.compare(
        [
            {"side": s, "chapter": ch, "seconds": 100.0}
            for s in ("base", "head")
            for ch in ("22_csts_finetune", "23_csts_ablation_scaling")
        ]
    )
    rec = _record(c, {"avx2": True})
    # bi/mse: std 0.5 on each side (ddof 1), pooled 0.5, so -0.5 against a limit of 2 x 0.5 = 1.00 (within)
    rec["seeds"] = {
        **ab.seed_record([0, 1, 2], {"base": {"bi/mse": [61.0, 60.0, 60.5]}, "head": {"bi/mse": [61.5, 60.5, 61.0]}}),
        "head_commit": "fedcba9" + "0" * 33,
    }
    path = tmp_path / "ab.json"
    path.write_text(json.dumps(rec))
    v = SP.ab_values([path])
    assert (
        "With seeds 0, 1 and 2 at both commits (chapter 22 at `467c50a` and at `fedcba9`), the mean test Spearman "
        "of 1 of 1 configurations agrees within 2 pooled seed standard deviations; the closest to its limit is "
        "bi/mse, -0.50 against 1.00"
    ) in v["ab_text"]
    assert v["ab_table"].loc[("fp32 (AMD EPYC)", "bi/mse"), "seeds: older − newer"] == "-0.50 (limit 1.00: within)"


def test_a_record_without_seeds_beside_one_with_them_says_not_run(tmp_path):
    ab = _ab_module()
    c = ab.compare(
        [
            {"side": s, "chapter": ch, "seconds": 100.0}
            for s in ("base", "head")
            for ch in ("22_csts_finetune", "23_csts_ablation_scaling")
        ]
    )
    a, b = _record(c, {"avx2": True}), _record(c, {"avx2": True, "avx512_bf16": True})
    b["seeds"] = ab.seed_record([0, 1], {"base": {"bi/mse": [61.0, 60.0]}, "head": {"bi/mse": [61.0, 60.0]}})
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    col = SP.ab_values([tmp_path / "a.json", tmp_path / "b.json"])["ab_table"]["seeds: older − newer"]
    assert col.to_list() == ["not run", "+0.00 (limit 1.41: within)"]  # std sqrt(0.5) each: 2 x 0.707
