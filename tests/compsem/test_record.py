"""compsem.record: a run record's provenance and the per-model bootstrap table, checked by hand."""

import numpy as np
import pytest

from compsem.record import RunRecord, bootstrap_table
from compsem.stats import bootstrap


def test_the_table_has_one_row_per_model_with_its_mean_and_interval():
    scores = {"a": [1.0, 1.0, 0.0, 1.0], "b": [0.0, 0.0, 0.0, 0.0]}
    t = bootstrap_table(scores, measure="share", scale=100, n_boot=200, seed=3)
    assert list(t.columns) == ["model", "share", "low", "high", "n"] and list(t.model) == ["a", "b"]
    assert t.share.tolist() == [75.0, 0.0] and t.n.tolist() == [4, 4]
    r = bootstrap(np.array(scores["a"]), n_boot=200, seed=3, warn=False)  # the same draws, by the one bootstrap
    assert (t.low[0], t.high[0]) == pytest.approx((100 * r.low, 100 * r.high))
    assert (t.low[1], t.high[1]) == (0.0, 0.0)
    nan = bootstrap_table({"c": [float("nan"), 2.0, 4.0]}, n_boot=50)
    assert nan.value[0] == 3.0 and nan.n[0] == 2  # NaN dropped and not counted


def test_a_record_says_its_models_identities_data_and_parameters(tmp_path):
    f = tmp_path / "pairs.csv"
    f.write_text("a,b\n")
    rec = RunRecord.of(["bow", "random"], {"bow": [0.5, 1.0], "random": [0.1, 0.2]}, files=[f], params={"margin": 0})
    p = rec.provenance(n_boot=10)
    assert p["models"] == ["bow", "random"] and p["parameters"] == {"margin": 0} and p["n_boot"] == 10
    # sha256 of the 4 bytes "a,b\n" (sha256sum of the file)
    assert p["data_checksums"] == {"pairs.csv": "5be08c9684a1d25efcee09318204824278b08bbfb4aef973ffefd0b9d7478313"}
    assert p["identities"]["bow"].startswith("bow|sklearn==") and set(p["identities"]) == {"bow", "random"}
    assert rec.scores["bow"].dtype == float
    with pytest.raises(ValueError, match="one shape"):
        RunRecord.of(["bow", "random"], {"bow": [0.5], "random": [0.1, 0.2]})
    with pytest.raises(TypeError):
        RunRecord.of(["bow"], {"bow": [1.0]}, trust_remote_code="yes")
