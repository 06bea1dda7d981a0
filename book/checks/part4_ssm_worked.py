"""book/part4_ssm_worked.md: a toy worked by hand (tests/teaching/test_ssm.py checks its numbers)."""

NOT_CLAIMS = {
    "agrees with the reference's": "a definition of what the paper's Table 2 counts",
    "builds one over three": "the page's plan",
    "Two clusters": "the toy's design",
    "The three sentences of the example": "the toy's design",
    "averages the two directions": "a definition",
    "For the three unordered pairs": "the toy's design",
    'a sentence is never "one-way related" to itself': "a consequence of the definition",
    "Smaller means sparser": "how to read the metric",
    "Two things to notice": "the page's plan",
    "for the book's pool of 251 sentences only 1/251": "arithmetic on the pool's size (1/N)",
    "The scorer is denser than the reference in the relatedness space": "worked by hand on the page",
    "but sparser in the discrepancy space": "worked by hand on the page",
    "is weaker than the reference's (1)": "worked by hand on the page",
    "> 0.5? agree": "a column of the worked table",
    "differ from the reference by up to 0.3": "worked by hand on the page",
    "The three kinds of metric": "the paper's design",
}
