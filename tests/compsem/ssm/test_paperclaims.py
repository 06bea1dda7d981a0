"""Part IV's claims file read against made-up result files: the RSA claim is read against the
bag-of-words control on the same pool, and every row that names the human space treats the
project reference alike (expected verdicts by hand from compsem.verdicts' rules)."""

import pandas as pd

from compsem.ssm.paperclaims import CLAIMS


def _metrics(tmp_path, model, bow):
    folder = tmp_path / "results"
    (folder / "ssm").mkdir(parents=True)
    rows = [
        {"scorer": s, "space": "rel", "rsa": v[0], "rsa_low": v[1], "rsa_high": v[2]}
        for s, v in (("sbert-mini", model), ("bow", bow))
    ]
    pd.DataFrame(rows).to_csv(folder / "ssm" / "ssm_metrics.csv", index=False)
    return {v.claim: v for v in CLAIMS.evaluate(results=folder, strict=False)}


def test_rsa_is_read_against_the_bag_of_words_control(tmp_path):
    # the book's numbers: 0.426 [0.406, 0.453] below bow's 0.545 [0.523, 0.569] -> not reproduced
    got = _metrics(tmp_path / "a", (0.426, 0.406, 0.453), (0.545, 0.523, 0.569))
    assert got["IV-5"].verdict == "not reproduced"
    assert got["IV-5"].compared_with == "the bag-of-words control on the same pool: 0.545 [0.523, 0.569]"
    # contradicting data: the model's whole interval above the control's -> reproduced
    got = _metrics(tmp_path / "b", (0.70, 0.66, 0.74), (0.50, 0.47, 0.53))
    assert got["IV-5"].verdict == "reproduced"


def test_one_rule_for_the_human_space():
    table = CLAIMS.table().set_index("claim")
    # no row is untestable because the reference is not human data; every row says it stands in
    assert not table["why"].str.contains("not human-subject data").any()
    named = table[table["claim_text"].str.contains("human")]
    assert named["differs"].str.contains("stands in for the human space").all()
