"""Part I's claims file read against made-up result files: C4 is read against random vectors on
the same samples at ε = 0, and C5 has no threshold of the paper's to test (expected verdicts by
hand from compsem.verdicts' rules)."""

import pandas as pd

from compsem.setcomp.paperclaims import CLAIMS


def _c4(tmp_path, model, random):
    folder = tmp_path / "results"
    (folder / "setcomp").mkdir(parents=True)
    rows = [
        {"model": m, "measure": "cos", "mode": "fixed", "pct": v[0], "low": v[1], "high": v[2], "subset": "filtered"}
        for m, v in (("sbert-mini", model), ("random", random))
    ]
    pd.DataFrame(rows).to_csv(folder / "setcomp" / "c4_controls.csv", index=False)
    return {v.claim: v for v in CLAIMS.evaluate(results=folder, strict=False)}


def test_c4_is_read_against_random_vectors(tmp_path):
    # the book's numbers: C4 holds for every sample, with random vectors too -> no higher than them
    got = _c4(tmp_path / "a", (100.0, 100.0, 100.0), (100.0, 100.0, 100.0))
    assert got["I-6"].verdict == "not reproduced"
    assert got["I-6"].compared_with.endswith(": 100.0 % [100.0, 100.0]")
    # contradicting data: the model's interval wholly above the random control's -> reproduced
    got = _c4(tmp_path / "b", (80.0, 75.0, 85.0), (40.0, 35.0, 45.0))
    assert got["I-6"].verdict == "reproduced"
    assert got["I-7"].verdict == "not testable here" and "no threshold" in got["I-7"].why


def _paired(tmp_path, tt_minus_ff, minus_control):
    """Made-up c1_cells and c2_geometry: the model's (T,T) row with its paired TT − FF, and its
    'between' row with its paired difference from the shuffled-O control."""
    folder = tmp_path / "results"
    (folder / "setcomp").mkdir(parents=True)
    d, lo, hi = tt_minus_ff
    cells = [
        {"model": "sbert-mini", "measure": "cos", "mode": "pooled", "cell": c, "pct": p, "low": p - 5, "high": p + 5}
        | ({"tt_minus_ff": d, "tt_minus_ff_low": lo, "tt_minus_ff_high": hi} if c == "TT" else {})
        for c, p in (("TT", 30.0), ("FF", 20.0))
    ]
    pd.DataFrame(cells).to_csv(folder / "setcomp" / "c1_cells.csv", index=False)
    d, lo, hi = minus_control
    geo = [
        {"model": "sbert-mini", "region": "between", "pct": 90.0, "low": 85.0, "high": 95.0}
        | {"minus_control": d, "minus_control_low": lo, "minus_control_high": hi},
        {"model": "sbert-mini (shuffled O)", "region": "between", "pct": 80.0, "low": 70.0, "high": 90.0},
    ]
    pd.DataFrame(geo).to_csv(folder / "setcomp" / "c2_geometry.csv", index=False)
    return {v.claim: v for v in CLAIMS.evaluate(results=folder, strict=False)}


def test_the_model_against_a_control_on_the_same_samples_is_decided_by_the_paired_difference(tmp_path):
    # the marginal intervals overlap (TT [25, 35] against FF [15, 25] touch; 90 [85, 95] against 80 [70, 90]),
    # but the paired differences lie wholly above zero: reproduced by the paired rule
    got = _paired(tmp_path / "a", (10.0, 4.0, 16.0), (10.0, 2.0, 18.0))
    assert got["I-2"].verdict == "reproduced" and got["I-4"].verdict == "reproduced"
    assert got["I-2"].ours == "10.0 points [4.0, 16.0]"
    # I-4: ours is the share (the paper's kind of number), the control's share and the paired difference beside it
    assert got["I-4"].ours == "90.0 % [85.0, 95.0]"
    assert got["I-4"].compared_with.endswith(
        ": 80.0 % [70.0, 90.0] (paired difference 10.0 points [2.0, 18.0], against 0.0 points)"
    )
    # contradicting data: the paired interval reaches below zero -> partly; the difference below zero -> not
    got = _paired(tmp_path / "b", (10.0, -1.0, 21.0), (-3.0, -8.0, 2.0))
    assert got["I-2"].verdict == "partly" and got["I-4"].verdict == "not reproduced"
