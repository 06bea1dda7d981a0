"""Result tables with provenance, and the headline rows of the synthesis."""

import json

import numpy as np
import pandas as pd
import pytest

from compsem import results


def test_save_and_load_round_trip_with_provenance(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path))
    df = pd.DataFrame({"model": ["a", "b"], "value": [0.25, np.nan]})
    path = results.save_table(df, "demo", "t1", models=["a", "b"], seed=7)
    assert path == tmp_path / "demo" / "t1.csv"
    back = results.load_table("demo", "t1")
    pd.testing.assert_frame_equal(back, df)
    prov = json.loads((tmp_path / "demo" / "t1.json").read_text())
    assert prov["models"] == ["a", "b"] and prov["seed"] == 7 and "numpy" in prov["packages"]


def test_missing_table_says_which_chapters_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="run the demo chapters first"):
        results.load_table("demo", "nope")


def test_headline_rows():
    h = results.Headline("K", "I", "label", "%", 50.0, "samples", "meaning")
    row = results.bootstrap_headline(h, "m", [1.0, 0.0, 1.0, 1.0, np.nan], n_boot=100, seed=0, scale=100)
    assert row["value"] == 75.0 and row["n"] == 4 and row["low"] <= 75.0 <= row["high"]
    assert (row["model"], row["criterion"], row["part"], row["reference"]) == ("m", "K", "I", 50.0)
    assert np.isnan(row["ties"])


def test_a_grouped_headline_keeps_the_item_mean_and_resamples_whole_groups():
    h = results.Headline("K", "I", "label", "%", 50.0, "quintuples", "meaning")
    # groups a: (1, NaN), b: (0, 0, 1): the mean over the 4 defined items is 2/4 = 50 %, while the
    # mean of the two groups' means would be (1 + 1/3) / 2 = 66.7 %
    values, groups = [1.0, np.nan, 0.0, 0.0, 1.0], ["a", "a", "b", "b", "b"]
    row = results.bootstrap_headline(h, "m", values, n_boot=200, seed=0, scale=100, groups=groups)
    assert row["value"] == 50.0 and row["n"] == 2
    # a replicate draws two groups: a twice (its one defined item: 100 %), b twice (1/3) or one
    # of each (the 4 defined items again: 50 %)
    assert set(np.round(row["replicates"], 6)) <= {100.0, round(100 / 3, 6), 50.0}
