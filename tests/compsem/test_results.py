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
