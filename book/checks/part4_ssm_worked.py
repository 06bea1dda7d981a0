"""book/part4_ssm_worked.md: a toy worked by hand (tests/teaching/test_ssm.py checks its numbers)."""

NOT_CLAIMS = {
    'a sentence is never "one-way related" to itself': "a consequence of the definition",
    "The scorer is denser than the reference in the relatedness space": "worked by hand on the page",
    "but sparser in the discrepancy space": "worked by hand on the page",
    "is weaker than the reference's (1)": "worked by hand on the page",
}
