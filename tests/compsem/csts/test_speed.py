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
    # the newer commit's time first, beside its own commit (550 s at abcdef1, 700 s at 467c50a)
    assert v["ab_text"].startswith(
        "On AMD EPYC (2 cores, flags avx2; the chapters train in fp32 there), chapters 22 "
        "and 23 together took 550 s at the newer commit `abcdef1` against 700 s at the older "
        "commit `467c50a`, 1.27× as fast (chapter 22 1.25×, chapter 23 1.33×)"
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
        assert p.name == f"csts_ab_{SP._kind(rec)}.json"
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
        "With seeds 0, 1 and 2 on both sides (chapter 22 at `467c50a` and at `fedcba9`), the difference of the two "
        "sides' mean test Spearman lies within 2 pooled seed standard deviations in 1 of 1 configurations (a "
        "tolerance on the difference of 3 seed means a side, not an equivalence test); the closest to its limit is "
        "bi/mse, -0.50 against 1.00"
    ) in v["ab_text"]
    # the seeds ran on fedcba9, not on the record's newer commit abcdef1: the cell names the seeds' own trees
    assert v["ab_table"].loc[("fp32 (AMD EPYC)", "bi/mse"), "newer commit"] == "abcdef1"
    assert (
        v["ab_table"].loc[("fp32 (AMD EPYC)", "bi/mse"), SP.SEED_COLUMN]
        == "-0.50 (467c50a − fedcba9; limit 1.00: within)"
    )
    # contradicting seeds: the newer side 2 points higher, -2.00 against the same limit 1.00 (outside)
    far = {
        **rec,
        "seeds": {
            **ab.seed_record(
                [0, 1, 2], {"base": {"bi/mse": [61.0, 60.0, 60.5]}, "head": {"bi/mse": [63.0, 62.0, 62.5]}}
            ),
            "head_commit": "fedcba9" + "0" * 33,
        },
    }
    path.write_text(json.dumps(far))
    v_far = SP.ab_values([path])
    assert "lies within 2 pooled seed standard deviations in 0 of 1 configurations" in v_far["ab_text"]
    assert (
        v_far["ab_table"].loc[("fp32 (AMD EPYC)", "bi/mse"), SP.SEED_COLUMN]
        == "-2.00 (467c50a − fedcba9; limit 1.00: outside)"
    )
    # a seed run on a tree with uncommitted changes is never called a commit
    rec["seeds"]["head_commit"] = "6d18c86" + "0" * 33 + "+dirty"
    path.write_text(json.dumps(rec))
    text = SP.ab_values([path])["ab_text"]
    assert "(chapter 22 at `467c50a` and at an uncommitted tree based on `6d18c86`)" in text and "`6d18c86`)" in text
    cell = SP.ab_values([path])["ab_table"].loc[("fp32 (AMD EPYC)", "bi/mse"), SP.SEED_COLUMN]
    assert cell == "-0.50 (467c50a − uncommitted tree on 6d18c86; limit 1.00: within)"
    # a record that names the precision its chapters trained in is filed by it, not by the CPU's flags
    assert (
        SP._kind({"precision": "fp32 (bf16 measured 0.55× fp32 here)", "machine": {"cpu_flags": {"avx512_bf16": True}}})
        == "fp32"
    )


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
    col = SP.ab_values([tmp_path / "a.json", tmp_path / "b.json"])["ab_table"][SP.SEED_COLUMN]
    # no head_commit in the seeds: they ran on the record's own trees, 467c50a and abcdef1
    assert col.to_list() == [
        "not run",
        "+0.00 (467c50a − abcdef1; limit 1.41: within)",
    ]  # std sqrt(0.5) each: 2 x 0.707


def test_part_two_rows_of_the_machines_table(tmp_path):
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "csts_precision.json").write_text(
        json.dumps(
            {
                "train_rows": 6806,
                "machine": {"cpu_model": "AMD EPYC", "cpu_family": "26", "cpu_flags": ["avx2", "avx512_bf16"]},
                "utilisation": {
                    "gemm_shape": [1024, 384, 1536],
                    "fp32_gemm_gflop_per_s": 210.6,
                    "bf16_gemm_gflop_per_s": 827.9,
                    "torch_threads": 2,
                    "measured": "2026-11-29T01:16:27Z",
                    "configs": {"a": {"bf16_over_fp32": 1.667}, "b": {"bf16_over_fp32": 1.556}},
                },
            }
        )
    )
    (bench / "csts_ab_fp32.json").write_text(json.dumps({**_record({}, {"avx2": True}), "started": "2026-11-27"}))
    bench_row, ab_row = SP.precision_rows(tmp_path)
    # by hand: 827.9 / 210.6 = 3.93
    assert bench_row["CPU"] == "AMD Zen 5 (AMD EPYC)" and bench_row["bf16 / fp32"] == "3.93×"
    assert bench_row["training bf16 / fp32"] == "1.56–1.67× (examples/s, 2 configurations, 6,806 training rows)"
    assert ab_row["CPU"] == "AMD EPYC (family not recorded)" and ab_row["bf16 GFLOP/s"] == "not timed"
    assert ab_row["auto trains in"] == "fp32 (the flag rule of that build: no avx512_bf16)"


def test_the_settings_gap_names_the_differences_and_its_record(tmp_path):
    import pandas as pd

    summary = pd.DataFrame({"config": ["bi/mse"], "test_spearman_mean": [61.9]})
    v = SP.settings_gap_values(summary, root=tmp_path)
    # 6,806 rows: 213 updates of 8 x 4 = 32 rows (6,806 / 32 = 212.7, rounded up), 426 of 16 (425.4)
    assert "213 optimiser updates of 32 rows at the authors' settings and 426 of 16" in v["gap_text"]
    assert "pooling [CLS] against mean; learning rate 1e-05 against 0.0003" in v["gap_text"]
    assert "hypotheses, untested" in v["gap_text"] and v["gap_table"] is None
    assert "in this run." in v["gap_text"]
    runs = pd.DataFrame({"config": ["bi/mse"], "n_train_rows": [2000]})
    assert (
        "61.9 in this run, trained on 2,000 rows, not the 6,806 the authors' settings were run on, so these two "
        "scores are not comparable"
    ) in SP.settings_gap_values(summary, runs=runs, root=tmp_path)["gap_text"]
    assert (
        "in this run."
        in SP.settings_gap_values(summary, runs=runs.assign(n_train_rows=6806), root=tmp_path)["gap_text"]
    )
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "csts_settings_gap.json").write_text(
        json.dumps(
            {
                "train_rows": 6806,
                "started": "2026-12-07",
                "arms": {
                    "official": {"test_spearman": 16.9, "ci": [14.0, 19.8]},
                    "mean pooling": {
                        "test_spearman": 40.0,
                        "ci": [37.0, 43.0],
                        "minus_official": {"mean": 23.1, "ci": [20.0, 26.0]},
                    },
                },
            }
        )
    )
    v = SP.settings_gap_values(summary, root=tmp_path)
    assert "hypotheses" not in v["gap_text"] and "Setting one or two of them" in v["gap_text"]
    assert v["gap_table"].loc["mean pooling", "minus official [95 %]"] == "+23.10 [20.0, 26.0]"
    assert "not stated" in SP.settings_gap_values(summary.assign(config="x"), root=tmp_path)["gap_text"]


def test_the_settings_gap_findings_follow_the_record():
    """Each arm's words follow its paired interval; the cpu preset's score is placed against the
    arm with the most settings changed, and only a score outside its interval leaves a rest."""
    arms = {
        "official": {"changes": {}, "test_spearman": 16.6, "ci": [13.6, 19.7]},
        "mean pooling": {
            "changes": {"pooling": "mean"},
            "test_spearman": 34.0,
            "ci": [31.1, 36.9],
            "minus_official": {"mean": 17.4, "ci": [14.5, 20.3]},
        },
        "lr 3e-4": {
            "changes": {"lr": 3e-4},
            "test_spearman": 16.0,
            "ci": [13.0, 19.0],
            "minus_official": {"mean": -0.6, "ci": [-2.0, 0.8]},
        },
        "mean pooling, lr 3e-4": {
            "changes": {"pooling": "mean", "lr": 3e-4},
            "test_spearman": 10.0,
            "ci": [7.0, 13.0],
            "minus_official": {"mean": -6.6, "ci": [-9.0, -4.0]},
        },
    }
    text = SP._gap_findings(arms, 11, 62.0)
    assert text.startswith("On the same test pairs, mean pooling raised the score by 17.4 points [14.5, 20.3]; ")
    assert "lr 3e-4 changed it by -0.6 points [-2.0, 0.8], no evidence of a change; " in text
    assert "mean pooling and lr 3e-4 lowered it by 6.6 points [-9.0, -4.0]" in text
    # the arm with two changes is the one placed against the cpu preset, whatever its score
    assert "With mean pooling and lr 3e-4 together the authors' settings score 10.0 [7.0, 13.0]" in text
    # without the arm's predictions no paired difference exists: 62.0 is not compared with the marginal interval
    assert text.endswith(
        "the record keeps no test predictions of that arm, so the `cpu` preset's 62.0 in this run is not compared "
        "with it (two runs scored on the same pairs are compared by their paired difference, which needs the "
        "predictions of both)"
    )
    assert "interval" not in text.split("score 10.0 [7.0, 13.0]")[1].split("(")[0]
    # the paired difference decides: above, below, or no evidence of a difference
    up = SP._gap_findings(arms, 11, 62.0, {"difference": 52.0, "low": 49.0, "high": 55.0})
    assert up.endswith(
        "on the same test pairs the `cpu` preset's 62.0 in this run lies 52.0 points above that arm [49.0, 55.0] "
        "(paired 95 % interval), and the other 9 settings in which the presets differ were not varied one at a "
        "time, so which of them accounts for the difference is not measured"
    )
    down = SP._gap_findings(arms, 11, 5.0, {"difference": -5.0, "low": -8.0, "high": -2.0})
    assert "lies 5.0 points below that arm [-8.0, -2.0] (paired 95 % interval), and the other 9" in down
    # contradicting data: 62.0 far above the arm's marginal interval [7.0, 13.0], but a paired interval
    # reaching zero -> no evidence of a difference, and no rest to account for
    none = SP._gap_findings(arms, 11, 62.0, {"difference": 2.0, "low": -1.0, "high": 5.0})
    assert none.endswith(
        "differs from that arm by +2.0 points [-1.0, 5.0] (paired 95 % interval): no evidence of a difference"
    )
    # another run's rows: no comparison with this run's score
    assert "cpu" not in SP._gap_findings(arms, 11, None)
    assert SP._gap_findings({"official": arms["official"]}, 11, 62.0) == (
        "The record holds no arm beside the authors' setting"
    )


def test_chapter_22s_precision_values_quote_the_probes_rule(tmp_path):
    """The margin the pages quote is the one choose_precision applies; the sentence names this
    build's machine and what its probe measured (made-up probe: 100 against 55 GFLOP/s)."""
    from compsem import device as D

    (tmp_path / "benchmarks").mkdir()
    here = {
        "machine": {"cpu_model": "Some CPU", "cpu_flags": "avx2", "cores": 2, "torch_threads": 2},
        "rates": {"fp32": 100.0, "bf16": 55.0},
        "choice": "fp32",
        "why": "bf16 measured 0.55× fp32 here",
        "steps": 3,
        "shape": [384, 384, 1536],
    }
    v = SP.precision_values(here, root=tmp_path)
    assert v["prec_min_gain"] == D.MIN_GAIN
    assert D.choose_precision({"fp32": 100.0, "bf16": 100.0 * v["prec_min_gain"]})[0] == "bf16"
    assert D.choose_precision({"fp32": 100.0, "bf16": 100.0 * v["prec_min_gain"] - 0.5})[0] == "fp32"
    assert "measured 100 GFLOP/s in fp32 and 55 in bf16" in v["prec_here_text"]
    assert list(v["prec_machines"].index.get_level_values("record")) == ["this build (probe)"]


def test_the_step_profile_in_words_and_as_a_table(tmp_path):
    """Made-up profile: fp32 spends 0.6 of a step in matrix products, bf16 0.3 (its softmax 0.4)."""
    prof = {
        "config": "bi/quad+mse",
        "measured": "2026-12-07T10:00:00Z",
        "cpu_model": "AMD EPYC",
        "cpu_family": "25",
        "cpu_flags": ["avx2", "avx512f"],
        "load_average": [1.5, 1.0, 1.0],
        "fp32": {
            "steps": 8,
            "kinds": {
                "matrix products": {"ms_per_step": 60.0, "share": 0.6},
                "softmax": {"ms_per_step": 25.0, "share": 0.25},
                "optimiser": {"ms_per_step": 15.0, "share": 0.15},
            },
        },
        "bf16": {
            "steps": 8,
            "kinds": {
                "softmax": {"ms_per_step": 40.0, "share": 0.4},
                "matrix products": {"ms_per_step": 30.0, "share": 0.3},
                "casts and copies": {"ms_per_step": 30.0, "share": 0.3},
            },
        },
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"studies": {"csts": {"profile": prof}}}))
    v = SP.profile_values(path)
    assert v["prof_text"] == (
        "Profiled by `make bench` on AMD Zen 4 (AMD EPYC) (2026-12-07T10:00:00Z, load average 1.5), 8 training "
        "steps of bi/quad+mse: in fp32 the matrix products took 60 % of a step's own CPU time and softmax, the "
        "largest other kind, 25 %; in bf16 the matrix products took 30 % of a step's own CPU time and softmax, "
        "the largest other kind, 40 %"
    )
    t = v["prof_table"]
    assert list(t.index) == ["matrix products", "softmax", "optimiser", "casts and copies"]
    assert t.loc["optimiser", "bf16 ms per step"] == "0" and t.loc["casts and copies", "fp32 share"] == "0 %"
    assert t.loc["softmax", "bf16 share"] == "40 %" and t.loc["matrix products", "fp32 ms per step"] == "60.0"
    path.write_text(json.dumps({"studies": {"csts": {}}}))
    assert SP.profile_values(path)["prof_table"] is None and "No training step" in SP.profile_values(path)["prof_text"]
    path.write_text(json.dumps({"studies": {"csts": {"profile": {"fp32": {"kinds": 3}}}}}))
    with pytest.raises(DataError, match="profile cannot be read"):
        SP.profile_values(path)


def test_the_cpu_preset_is_paired_with_an_arm_on_the_same_test_pairs(tmp_path):
    """The paired interval against a slow oracle: the same pair draws (seed 0) for both runs,
    scipy's Spearman on each drawn set of rows, the percentile interval of the differences."""
    import numpy as np
    import pandas as pd
    from scipy.stats import spearmanr

    from compsem.csts.metrics import pair_bootstrap_replicates

    rng = np.random.default_rng(3)
    n = 30
    rows = pd.DataFrame(
        {
            "row": np.arange(2 * n) + 100,
            "pair_id": np.repeat([f"p{i:02d}" for i in range(n)], 2),
            "label": rng.integers(1, 6, 2 * n).astype(float),
        }
    )
    gold = rows["label"].to_numpy()
    cpu = gold + rng.normal(0, 1.0, 2 * n)
    arm = gold + rng.normal(0, 3.0, 2 * n)
    # the record's predictions file, its rows in another order than the run's
    pd.DataFrame({"row": rows["row"], "pair_id": rows["pair_id"], "label": gold, "arm": arm}).iloc[::-1].to_csv(
        tmp_path / "p.csv", index=False
    )
    reps = pair_bootstrap_replicates(cpu, gold, rows["pair_id"], n_boot=200, seed=0)
    cpu_score = 100 * spearmanr(cpu, gold).statistic
    got = SP.cpu_against_arm(tmp_path / "p.csv", "arm", rows, reps, cpu_score)
    draw = np.random.default_rng(0).integers(0, n, size=(200, n))
    members = [np.flatnonzero(rows["pair_id"].to_numpy() == f"p{j:02d}") for j in range(n)]
    diffs = []
    for b in range(200):
        idx = np.concatenate([members[j] for j in draw[b]])
        diffs.append(100 * (spearmanr(cpu[idx], gold[idx]).statistic - spearmanr(arm[idx], gold[idx]).statistic))
    assert got["arm_spearman"] == pytest.approx(100 * spearmanr(arm, gold).statistic)
    assert got["difference"] == pytest.approx(cpu_score - got["arm_spearman"])
    assert (got["low"], got["high"]) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))
    # no paired difference without the arm's column, one of the run's rows, or the file
    assert SP.cpu_against_arm(tmp_path / "p.csv", "other", rows, reps, cpu_score) is None
    extra = pd.concat([rows, rows.iloc[:1].assign(row=999)])
    assert SP.cpu_against_arm(tmp_path / "p.csv", "arm", extra, reps, cpu_score) is None
    assert SP.cpu_against_arm(tmp_path / "absent.csv", "arm", rows, reps, cpu_score) is None
