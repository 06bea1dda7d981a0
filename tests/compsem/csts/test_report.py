"""Part II's report: glue values against counts computed here, figures, reference tables."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from compsem.csts import report as R
from compsem.csts import study as S
from compsem.csts.training import TrainConfig
from compsem.errors import DataError


def test_data_values_on_the_embedded_set():
    parts, rep = S.book_data("embedded")
    v = R.data_values(rep, parts)
    df = pd.concat(parts.values())
    assert v["csts_n_pairs"] == 165 and v["csts_n_rows"] == 330 and v["csts_n_ties"] == 0
    assert v["csts_n_test"] == len(parts["test"]) and v["csts_n_test_pairs"] == len(parts["test"]) // 2
    extremes = df["label"].isin([1.0, 5.0]).mean() * 100
    assert v["csts_label_extreme_pct"] == pytest.approx(extremes)
    assert isinstance(R.label_figure(df), matplotlib.figure.Figure)


def test_finetune_values_against_the_prior():
    summary = pd.DataFrame({"config": ["bi/mse", "cross/mse", "bi/quad+mse"], "test_spearman_mean": [50.0, 30.0, 45.5],
                            "test_spearman_std": [1.0, 2.0, 0.5], "test_pair_accuracy_mean": [70.0, 60.0, 65.0]})
    runs = pd.DataFrame({"config": ["bi/mse", "cross/mse", "bi/quad+mse"], "loss_first_quarter": [1.0, 1.0, 0.8],
                         "loss_last_quarter": [0.5, 1.2, 0.7], "test_n": [600] * 3, "test_n_pairs": [300] * 3,
                         "n_train_rows": [1000] * 3, "n_train_pairs": [499, 499, 498],
                         "train_seconds": [30.0, 90.0, 60.0], "examples_per_s": [30.0, 10.0, 20.0],
                         "precision_used": ["bf16 autocast (CPU with native bf16)"] * 3})
    base = pd.DataFrame([{"split": "test", "spearman": 40.0, "pearson": 38.0, "share_conditions_seen_%": 70.0}])
    v = R.finetune_values(summary, runs, base)
    assert v["ft_best_config"] == "bi/mse" and v["ft_best_minus_prior"] == 10.0 and v["ft_bi_minus_prior"] == 10.0
    assert v["ft_bi_vs_prior_text"] == "10.0 points above" and v["ft_best_vs_prior_text"] == "10.0 points above"
    assert R._vs_prior(-0.44) == "0.4 points below" and R._vs_prior(float("nan")) == "undefined"
    # loss fell from the first to the last quarter of steps in 2 of 3 runs; 180 s of training = 3 minutes
    assert v["ft_loss_fell_pct"] == pytest.approx(200 / 3) and v["ft_train_minutes"] == 3.0
    assert v["ft_max_std_text"] == "2.0 points" and v["ft_examples_per_s"] == 20.0
    # the headline (bi/quad+mse): 45.5 against the prior's 40.0, on that run's 498 training pairs
    assert (v["ft_headline_test"], v["ft_headline_vs_prior_text"], v["ft_headline_n_pairs"]) == (
        45.5, "5.5 points above", 498)
    assert v["ft_precision"] == "bf16 autocast (CPU with native bf16)" and v["ft_n_test_pairs"] == 300


def test_official_text_is_read_from_the_preset():
    t = R.official_text()
    assert "4 rows per step × 8 accumulation steps (32 rows per update)" in t and "without the" in t
    assert "learning rate 1e-05" in t and "3 epochs" in t and "the full network" in t


def test_setup_text_follows_the_config():
    assert R.setup_text(TrainConfig.preset("official"), [0, 1, 2]).startswith("all layers of the encoder trained for 3")
    assert "top 2 layers" in R.setup_text(TrainConfig(), [0]) and "1 seed" in R.setup_text(TrainConfig(), [0])


def test_reference_tables_load():
    t3 = R.paper_table("table3_finetune")
    assert t3.query("encoding == 'bi' and model == 'SimCSE-large'")["spearman_mean"].item() == 47.5
    with pytest.raises(DataError, match="available"):
        R.paper_table("nope")


def test_table8_transcription():
    t8 = R.paper_table("table8_best_settings")
    assert len(t8) == 15 and set(t8.encoding) == {"cross", "bi", "tri"}
    row = t8.query("model == 'SimCSE-large' and encoding == 'bi'").iloc[0]
    assert (row["lr"], row["weight_decay"], bool(row["transform"]), row["objective"], row["spearman"]) == (
        1e-5, 0.1, False, "mse", 47.70)


def test_values_dispatches_to_the_chapter_view():
    parsed = {"official": {"invalid_rate": 10.0, "out_of_range_rate": 0.0}}
    t11 = pd.DataFrame({"model": ["A", "B", "A"], "instruction": ["none", "short", "none"], "k": [0, 0, 2],
                        "invalid_pct": [60.0, 4.0, 1.0]})
    t4 = pd.DataFrame({"model": ["GPT-4", "GPT-4", "SimCSE-large"], "spearman": [40.0, 43.6, 47.5]})
    v = R.values("prompting", parsed, t11, t4)
    # by hand: k = 0 without an instruction: 60 %, with one: 4 %; the worst cell is A (60 %)
    assert (v["pr_none0_invalid_mean"], v["pr_instr0_invalid_mean"], v["pr_max_invalid_model"]) == (60.0, 4.0, "A")
    assert v["pr_gpt4_best"] == 43.6 and v["pr_simcse"] == 47.5 and v["pr_demo_invalid_official"] == 10.0
    with pytest.raises(ValueError, match="view must be one of"):
        R.values("nope")


def test_zero_shot_ranking_by_hand():
    # four untied sentence pairs, C-High row first
    df = pd.DataFrame({"pair_id": np.repeat([0, 1, 2, 3], 2), "role": ["high", "low"] * 4, "label": [4.0, 2.0] * 4,
                       "tied": False})
    up, down = [0.9, 0.1], [0.1, 0.9]
    scores = {("a", "attached"): np.array(up * 4),                      # every pair right: 100 % [100, 100]
              ("b", "attached"): np.array(up * 2 + down * 2),           # 2 of 4 right: 50 %
              ("c", "attached"): np.array(up * 3 + down)}               # 3 of 4 right: 75 %
    # b: a resample of four outcomes is all wrong with chance 1/16 > 2.5 %, all right with 1/16: [0, 100];
    # c: at most one right with chance 0.4 % + 4.7 % = 5.1 %, all right with 32 %: [25, 100]. They overlap;
    # a is constant (every pair gives 100) and is left out, not ranked.
    zs = pd.DataFrame({"model": ["m1", "m2"], "condition": ["attached", "attached"], "spearman": [-30.0, 10.0],
                       "spearman_ci_low": [-40.0, -5.0], "spearman_ci_high": [-20.0, 15.0]})
    out = R.zero_shot_ranking(zs, scores, df, ["a", "b", "c"], n_boot=2000, seed=0)
    assert out["zs_low_pairacc_sentence"] == (
        "`b` has the lowest pair accuracy with the condition attached (50.0 % [0.0, 100.0]), but its interval overlaps "
        "that of `c`: the two are indistinguishable at this sample size. `a` is left out of the ranking: every item "
        "gives exactly 100.")
    # |ρ|: m1's interval [-40, -20] folds to [20, 40]; m2's [-5, 15] contains 0 and folds to [0, 15]: separated
    assert out["zs_abs_sentence"] == ("`m1 (condition attached)` has the highest absolute Spearman (30.0 [20.0, 40.0]), "
                                      "its interval clear of every other model's.")


def test_the_top_configuration_is_named_only_as_far_as_the_intervals_allow():
    summary = pd.DataFrame({"config": ["bi/mse", "bi/quad+mse", "cross/mse"],
                            "test_spearman_mean": [61.8, 56.4, 46.5],
                            "test_spearman_ci_low_mean": [57.0, 51.5, 41.0],
                            "test_spearman_ci_high_mean": [66.0, 61.0, 51.9]})
    # 57.0 <= 61.0: bi/quad+mse overlaps the leader; cross/mse (high 51.9 < 57.0) does not
    assert R.ranking_sentence(summary) == (
        "`bi/mse` has the highest test Spearman (61.8 [57.0, 66.0]), but its interval overlaps that of "
        "`bi/quad+mse`: the two are indistinguishable at this sample size.")
    # runs recorded before the intervals existed: no interval, no separation
    old = summary.drop(columns=["test_spearman_ci_low_mean", "test_spearman_ci_high_mean"])
    assert R.ranking_sentence(old).startswith("`bi/mse` has the highest test Spearman (61.8), but its interval "
                                              "overlaps those of `bi/quad+mse` and `cross/mse`")


def test_a_run_records_a_pair_bootstrap_interval_of_its_spearman():
    # predictions that order every row as its label does: every resample gives Spearman 100
    df = pd.DataFrame({"pair_id": ["p1", "p1", "p2", "p2", "p3", "p3"], "label": [1.0, 2.0, 3.0, 4.0, 5.0, 4.5],
                       "sentence1": list("abcdef"), "sentence2": list("ghijkl"), "condition": list("mnopqr"),
                       "role": ["low", "high", "low", "high", "high", "low"]})
    row = S.score_row(df["label"].to_numpy() * 2, df, prefix="test_", ci=True)
    assert row["test_spearman"] == pytest.approx(100) and row["test_spearman_ci_low"] == pytest.approx(100)
    assert row["test_spearman_ci_high"] == pytest.approx(100)
    assert "test_spearman_ci_low" not in S.score_row(df["label"].to_numpy(), df, prefix="test_")


def test_the_ablation_values_put_each_mode_beside_the_papers_table_10():
    summary = pd.DataFrame({"input_mode": ["full", "condition_only"], "test_spearman_mean": [46.5, 44.2]})
    runs = pd.DataFrame({"n_train_rows": [6806], "n_train_pairs": [3403]})
    v = R.values("ablation", summary, pd.DataFrame({"spearman": [40.8]}), runs, ["full", "condition_only"])
    assert v["abl_full"] == 46.5 and v["abl_condition_only"] == 44.2
    assert v["abl_full_minus_cond"] == pytest.approx(2.3)
    assert v["abl_p_full"] == 40.11   # Table 10, full input and v["abl_prior"] == 40.8 and v["abl_n_train_pairs"] == 3403


def test_precision_comparison_reads_the_bench_file(tmp_path):
    """Per configuration fp32 and bf16 Spearman, the largest difference (by hand: |−0.30| > |+0.12|)
    and whether the ranking holds, from a file written as make bench writes it; no file: said so."""
    import json

    from compsem.csts.views import precision_comparison

    rec = {"train_rows": 6806, "machine": {"cpu_model": "Test CPU", "cpu_count": 2, "cpu_flags": ["avx2", "avx512_bf16"]},
           "configs": {"bi/mse": {"fp32_test_spearman": 50.0, "bf16_test_spearman": 50.12, "bf16_minus_fp32": 0.12},
                       "tri/quad+mse": {"fp32_test_spearman": 49.9, "bf16_test_spearman": 49.6, "bf16_minus_fp32": -0.3}}}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(rec))
    v = precision_comparison(path)
    assert v["ft_prec_max_diff"] == pytest.approx(0.3)
    text = v["ft_prec_text"]
    assert "bi/mse 50.00 in fp32, 50.12 in bf16 (+0.12)" in text and "tri/quad+mse 49.90 in fp32, 49.60 in bf16 (-0.30)" in text
    assert "largest difference is 0.30 points (tri/quad+mse)" in text and "ranking of the configurations is the same" in text
    assert "6,806 training rows" in text and "Test CPU, 2 cores, flags avx2, avx512_bf16" in text
    rec["configs"]["tri/quad+mse"]["bf16_test_spearman"] = 50.5
    path.write_text(json.dumps(rec))
    assert "is not the same" in precision_comparison(path)["ft_prec_text"]
    assert "not measured" in precision_comparison(tmp_path / "absent.json")["ft_prec_text"]
