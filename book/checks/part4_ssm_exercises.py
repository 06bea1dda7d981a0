"""book/part4_ssm_exercises.md: Exercise 4's answer, checked on chapter 42's table; the rest is
worked by hand on the worked example's toy (tests/teaching/test_ssm.py checks it)."""

from compsem import claims
from compsem.results import load_table


def check(executed=None):
    rel = load_table("ssm", "ssm_metrics").query("space == 'rel'").set_index("scorer")["sparsity"]
    claims.check(
        "expect its sparsity_rel to be larger than sbert-mini's: glove-50d has the denser relatedness space",
        page="book/part4_ssm_exercises.md",
        holds=rel["glove-50d"] > rel["sbert-mini"],
        numbers={f"{m} relatedness sparsity": round(float(rel[m]), 3) for m in ("glove-50d", "sbert-mini")},
        rule="a larger sparsity value is a denser space",
    )


NOT_CLAIMS = {
    "higher than before (0.982)": "worked by hand on the page (tests/teaching/test_ssm.py)",
    "it is still the closest one": "worked by hand on the toy of three sentences",
    "because s_1 and s_2 now look more related": "worked by hand on the toy",
    "which is why the tables print": "why the tables print '/' (the design)",
    "RSA ignores the size of the distances": "the definition of RSA",
}
