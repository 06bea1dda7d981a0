"""compsem/csts/views.py: what chapters 22-23 glue and print (csts.report re-exports it)."""

from __future__ import annotations

import pandas as pd
import pytest

from compsem.csts import views as V
from compsem.csts.training import TrainConfig


def test_finetune_values_against_the_prior():
    summary = pd.DataFrame(
        {
            "config": ["bi/mse", "cross/mse", "bi/quad+mse"],
            "test_spearman_mean": [50.0, 30.0, 45.5],
            "test_spearman_std": [1.0, 2.0, 0.5],
            "test_pair_accuracy_mean": [70.0, 60.0, 65.0],
        }
    )
    runs = pd.DataFrame(
        {
            "config": ["bi/mse", "cross/mse", "bi/quad+mse"],
            "loss_first_quarter": [1.0, 1.0, 0.8],
            "loss_last_quarter": [0.5, 1.2, 0.7],
            "test_n": [600] * 3,
            "test_n_pairs": [300] * 3,
            "n_train_rows": [1000] * 3,
            "n_train_pairs": [499, 499, 498],
            "train_seconds": [30.0, 90.0, 60.0],
            "examples_per_s": [30.0, 10.0, 20.0],
            "precision_used": ["bf16 autocast (bf16 measured 1.90× fp32 here)"] * 3,
        }
    )
    base = pd.DataFrame([{"split": "test", "spearman": 40.0, "pearson": 38.0, "share_conditions_seen_%": 70.0}])
    v = V.finetune_values(summary, runs, base)
    assert v["ft_best_config"] == "bi/mse" and v["ft_best_minus_prior"] == 10.0 and v["ft_bi_minus_prior"] == 10.0
    assert v["ft_bi_vs_prior_text"] == "10.0 points above" and v["ft_best_vs_prior_text"] == "10.0 points above"
    assert V._vs_prior(-0.44) == "0.4 points below" and V._vs_prior(float("nan")) == "undefined"
    # only the encodings the run has: no "nan (tri)"
    assert v["ft_encodings_text"] == "30.0 (cross) and 50.0 (bi)"
    # loss fell from the first to the last quarter of steps in 2 of 3 runs; 180 s of training = 3 minutes
    assert v["ft_loss_fell_pct"] == pytest.approx(200 / 3) and v["ft_train_minutes"] == 3.0
    assert (
        v["ft_max_std_text"] == "2.0 points (largest standard deviation over seeds)" and v["ft_examples_per_s"] == 20.0
    )
    # the headline (bi/quad+mse): 45.5 against the prior's 40.0, on that run's 498 training pairs
    assert (v["ft_headline_test"], v["ft_headline_vs_prior_text"], v["ft_headline_n_pairs"]) == (
        45.5,
        "5.5 points above",
        498,
    )
    # trained in this build (no run read back): the probe's "here" is this build's
    assert v["ft_precision"] == "bf16 autocast (bf16 measured 1.90× fp32 by this build's probe)"
    assert v["ft_n_test_pairs"] == 300
    # contradicting data: every run read back from the run cache: "here" is the machine that trained them
    cached = V.finetune_values(summary, runs.assign(reused=True), base)["ft_precision"]
    assert cached == "bf16 autocast (bf16 measured 1.90× fp32 on the machine that trained them)"
    mixed = V.precision_where(runs.assign(reused=[True, False, False]))
    assert mixed == (
        "bf16 autocast (bf16 measured 1.90× fp32 by this build's probe); bf16 autocast (bf16 measured 1.90× fp32 "
        "on the machine that trained them) for the runs read back from the run cache"
    )


def test_official_text_is_read_from_the_preset():
    t = V.official_text()
    assert "8 rows per step × 4 accumulation steps (32 rows per update)" in t and "without the" in t
    assert "learning rate 1e-05" in t and "3 epochs" in t and "the full network" in t


def test_setup_text_follows_the_config():
    assert V.setup_text(TrainConfig.preset("official"), [0, 1, 2]).startswith("all layers of the encoder trained for 3")
    assert "top 2 layers" in V.setup_text(TrainConfig(), [0]) and "1 seed" in V.setup_text(TrainConfig(), [0])


def test_the_top_configuration_is_named_only_as_far_as_the_intervals_allow():
    summary = pd.DataFrame(
        {
            "config": ["bi/mse", "bi/quad+mse", "cross/mse"],
            "test_spearman_mean": [61.8, 56.4, 46.5],
            "test_spearman_ci_low_mean": [57.0, 51.5, 41.0],
            "test_spearman_ci_high_mean": [66.0, 61.0, 51.9],
        }
    )
    # 57.0 <= 61.0: bi/quad+mse overlaps the leader; cross/mse (high 51.9 < 57.0) does not
    assert V.ranking_sentence(summary) == (
        "`bi/mse` has the highest test Spearman (61.8 [57.0, 66.0]), but its interval overlaps that of "
        "`bi/quad+mse`: no evidence of a difference from these unpaired intervals (2 comparisons with the leader)."
    )
    # runs recorded before the intervals existed: no interval, no separation
    old = summary.drop(columns=["test_spearman_ci_low_mean", "test_spearman_ci_high_mean"])
    assert V.ranking_sentence(old).startswith(
        "`bi/mse` has the highest test Spearman (61.8), but its interval "
        "overlaps those of `bi/quad+mse` and `cross/mse`"
    )


def test_a_run_cached_under_the_flag_rule_is_not_reported_as_measured():
    assert V.precision_words("bf16 autocast (bf16 measured 1.90× fp32 here)") == (
        "bf16 autocast (bf16 measured 1.90× fp32 here)"
    )
    assert V.precision_words("fp32 (asked for)") == "fp32 (asked for)"
    for old, name in (
        ("bf16 autocast (CPU with native bf16)", "bf16 autocast"),
        ("fp32 (this CPU has no native bf16)", "fp32"),
        ("fp32 (GPU: faster than bf16 autocast for this model)", "fp32"),
    ):
        said = V.precision_words(old)
        assert said.startswith(f"{name} (a cached run") and "native" not in said and "faster" not in said


def test_the_top_configuration_and_the_top_bi_encoder_are_said_once_when_they_are_one():
    def sentence(spearman):
        summary = pd.DataFrame(
            {
                "config": ["bi/mse", "cross/mse", "bi/quad+mse"],
                "test_spearman_mean": spearman,
                "test_spearman_std": [0.0] * 3,
                "test_pair_accuracy_mean": [70.0] * 3,
            }
        )
        runs = pd.DataFrame(
            {
                "config": ["bi/mse", "cross/mse", "bi/quad+mse"],
                "test_n": [600] * 3,
                "test_n_pairs": [300] * 3,
                "n_train_rows": [1000] * 3,
                "n_train_pairs": [499] * 3,
                "train_seconds": [30.0] * 3,
                "examples_per_s": [30.0] * 3,
            }
        )
        base = pd.DataFrame([{"split": "test", "spearman": 40.0, "pearson": 38.0, "share_conditions_seen_%": 70.0}])
        return str(V.finetune_values(summary, runs, base)["ft_vs_prior_sentence"])

    # the top configuration is the top bi-encoder (50 - 40 = 10): one clause, no "and the top bi-encoder"
    assert sentence([50.0, 30.0, 45.5]) == (
        "the top configuration (`bi/mse`, a bi-encoder) is 10.0 points above a predictor that reads no sentence"
    )
    # contradicting data: the cross-encoder on top (55 - 40 = 15), the best bi-encoder bi/quad+mse (45.5 - 40 = 5.5)
    assert sentence([44.0, 55.0, 45.5]) == (
        "the top configuration (`cross/mse`) is 15.0 points above a predictor that reads no sentence, and the top "
        "bi-encoder (`bi/quad+mse`) 5.5 points above it"
    )
    assert V.vs_prior_sentence("cross/mse", 2.0, None, float("nan")).endswith("(this run trained no bi-encoder)")


def test_training_time_keeps_cached_runs_apart_from_this_build():
    note = "bf16 autocast (bf16 measured 1.99× fp32 here)"
    runs = pd.DataFrame(
        {
            "train_seconds": [60.0, 120.0, 30.0, 90.0],
            "examples_per_s": [100.0, 200.0, 150.0, 50.0],
            "precision_used": [note] * 4,
            "reused": [True, True, False, False],
            "machine": ["AMD Zen 4 (AMD EPYC)", None, None, None],
        }
    )
    text = V.training_time_text(runs)
    # trained here: 30 + 90 s = 2.0 minutes, median of 150 and 50 = 100 examples/s; the probe's "here" is this build's
    assert text.startswith(
        "2 runs of 4 trained in this build: 2.0 minutes of training (100 examples per second, median over runs, in "
        "bf16 autocast (bf16 measured 1.99× fp32 by this build's probe));"
    )
    # read back: 60 + 120 s = 3.0 minutes, median 150; their "here" is the machine that trained them, which one
    # record names and one does not
    assert text.endswith(
        "2 runs of 4 were read back from the run cache, not trained in this build: their records hold 3.0 minutes of "
        "training (150 examples per second, median over runs, in bf16 autocast (bf16 measured 1.99× fp32 on the "
        "machine that trained them)), trained on AMD Zen 4 (AMD EPYC) and a machine not named by 1 record"
    )
    # every run read back, none trained: nothing is said of this build's training
    cached = V.training_time_text(runs.assign(reused=True, machine="AMD Zen 4 (AMD EPYC)"))
    assert "runs of 4 trained in this build" not in cached and "by this build's probe" not in cached
    assert cached.startswith("4 runs of 4 were read back from the run cache") and "; " not in cached
    assert V.training_time_text(runs.assign(reused=False)).startswith("4 runs of 4 trained in this build: 5.0 minutes")


def test_paired_runs_table_pairs_the_runs_on_the_same_test_pairs():
    import numpy as np

    from compsem.csts.metrics import pair_bootstrap_replicates
    from compsem.stats import paired_interval

    # 6 sentence pairs (12 rows); mode x orders the rows as the labels do, y reverses them
    df = pd.DataFrame(
        {"pair_id": np.repeat(np.arange(6), 2), "label": np.tile([4.0, 2.0], 6) + np.repeat(np.arange(6), 2) * 0.1}
    )
    x, y = df["label"].to_numpy(), -df["label"].to_numpy()
    runs = pd.DataFrame(
        {"input_mode": ["x", "y"], "test_spearman": [100.0, -100.0], "test_predictions": [list(x), list(y)]}
    )
    t = V.paired_runs_table(runs, df, "input_mode", n_boot=200, seed=0)
    assert t[["a", "b"]].values.tolist() == [["x", "y"], ["y", "x"]]
    # every resample gives x 100 and y -100, so the difference is 200 with the interval [200, 200]
    row = t.iloc[0]
    assert (row.difference, row.low, row.high) == (200.0, pytest.approx(200.0), pytest.approx(200.0))
    # against a slow oracle: the replicates of each mode on the same seed, their paired percentile interval
    z = x.copy()
    z[[0, 1]] = z[[1, 0]]  # one pair reversed
    runs = pd.DataFrame(
        {"input_mode": ["x", "z"], "test_spearman": [100.0, 80.0], "test_predictions": [list(x), list(z)]}
    )
    t = V.paired_runs_table(runs, df, "input_mode", n_boot=300, seed=3)
    lo, hi = paired_interval(
        pair_bootstrap_replicates(x, df.label, df.pair_id, n_boot=300, seed=3),
        pair_bootstrap_replicates(z, df.label, df.pair_id, n_boot=300, seed=3),
    )
    assert (t.iloc[0].difference, t.iloc[0].low, t.iloc[0].high) == (20.0, lo, hi) and lo < hi
    # runs without predictions: an empty table with its columns
    assert V.paired_runs_table(runs.drop(columns="test_predictions"), df, "input_mode").empty


def test_the_scaling_curves_shape_follows_its_declared_rule():
    # by hand: 21.4 -> 37.7 -> 43.6 -> 56.8 rises at each of the 3 steps
    up = pd.Series([37.7, 21.4, 56.8, 43.6], index=[500, 100, 3403, 1000])  # unsorted: read by size
    assert V.curve_shape(up, 1) == (
        "our curve rises at each of its 3 steps from one size to the next, by the point estimates "
        "(1 seed each; no step is tested on its own): monotone increasing by this rule"
    )
    # contradicting data: a fall from 500 to 1,000 pairs and a level step -> not monotone, the steps named
    bent = pd.Series([21.4, 37.7, 30.6, 30.6], index=[100, 500, 1000, 3403])
    text = V.curve_shape(bent, 3)
    assert text.startswith(
        "our curve rises at 1 of its 3 steps from one size to the next, falls at 1 (500 to 1,000 pairs)"
    )
    assert "stays level at 1 (1,000 to 3,403 pairs), by the point estimates (3 seeds each;" in text
    assert text.endswith("not monotone increasing by this rule")
    assert "no step" in V.curve_shape(pd.Series([5.0], index=[100]), 1)
