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
