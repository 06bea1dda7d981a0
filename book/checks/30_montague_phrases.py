"""Chapter 30: the paper's design and the grammar of the phrases."""

NOT_CLAIMS = {
    "skill is always skill at something": "the linguistic definition of subsective adjectives",
    "the one that reproduces the paper's numbers": "what the strings option is for; the chapters check the cells (book/checks/part3_montague.py)",
}
