"""Part II's tables: the pair bootstrap against a slow oracle, summaries over seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from compsem.csts import metrics as M
from compsem.csts import tables as TB


def test_pair_bootstrap_ci_brackets_the_estimate_and_matches_a_slow_replicate():
    rng = np.random.default_rng(0)
    gold = np.repeat([5.0, 1.0], 30) + rng.normal(0, 0.1, 60)
    pred = gold + rng.normal(0, 1.0, 60)
    pairs = np.concatenate([np.arange(30), np.arange(30)])
    lo, hi = TB.pair_bootstrap_ci(pred, gold, pairs, n_boot=500, seed=1)
    est = M.correlations(pred, gold)["spearman"]
    assert lo < est < hi and hi - lo < 40
    draw = np.random.default_rng(1).integers(0, 30, size=(500, 30))[0]
    uniq = np.unique(pairs.astype(str))
    rows = np.concatenate([np.flatnonzero(pairs.astype(str) == uniq[j]) for j in draw])
    reps = TB.pair_bootstrap_replicates(pred, gold, pairs, n_boot=500, seed=1)
    assert reps[0] == pytest.approx(100 * spearmanr(pred[rows], gold[rows]).statistic, abs=1e-9)


def test_summarise_and_mean_pm_std_by_hand():
    runs = pd.DataFrame({"config": ["a", "a", "b"], "test_spearman": [10.0, 20.0, 5.0]})
    s = TB.summarise(runs, splits=("test",))
    assert s["test_spearman_mean"].tolist() == [15.0, 5.0]
    assert s["test_spearman_std"].iloc[0] == pytest.approx(np.sqrt(50))  # sample std of 10, 20
    assert TB.mean_pm_std(s, "test_spearman") == ["15.0 ± 7.1", "5.0"]


def test_with_baseline_subtracts_the_prior():
    runs = pd.DataFrame(
        {
            "config": ["bi/mse"] * 2,
            "test_spearman": [50.0, 54.0],
            "test_pearson": [40.0, 42.0],
            "test_pair_accuracy": [70.0, 72.0],
            "test_pair_accuracy_with_ties": [65.0, 66.0],
        }
    )
    base = pd.DataFrame(
        [{"split": "test", "spearman": 41.0, "pearson": 39.0, "pair_accuracy": 60.0, "pair_accuracy_with_ties": 58.0}]
    )
    t = TB.with_baseline(TB.summarise(runs, splits=("test",)), base)
    assert t.loc["bi/mse", "minus condition prior"] == pytest.approx(11.0)
    assert t.index[-1] == "condition prior (baseline)"


def test_pair_bootstrap_with_a_single_row_matches_a_slow_replicate():
    rng = np.random.default_rng(3)
    pairs = np.array([0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 5])  # pair 2 is a single row
    gold = rng.integers(1, 6, size=len(pairs)).astype(float)
    pred = gold + rng.normal(0, 1, size=len(pairs))
    reps = TB.pair_bootstrap_replicates(pred, gold, pairs, n_boot=20, seed=4)
    draw = np.random.default_rng(4).integers(0, 6, size=(20, 6))[5]
    rows = np.concatenate([np.flatnonzero(pairs == j) for j in draw])
    assert reps[5] == pytest.approx(100 * spearmanr(pred[rows], gold[rows]).statistic, nan_ok=True)
