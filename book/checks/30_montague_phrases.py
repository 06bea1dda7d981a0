"""Chapter 30: the paper's design and the grammar of the phrases."""

NOT_CLAIMS = {
    "The three tests follow in": "the Part's plan",
    "skill is always skill at something": "the linguistic definition of subsective adjectives",
    "The three tests of this Part": "the paper's design",
    "the three tests worked through by hand on a two-dimensional toy": "the worked example's design",
    "a class of three adjectives": "the class's size (data/montague)",
    '"one or two adjectives, then a noun" with two different adjectives': "the grammar's definition",
    "the one that reproduces the paper's numbers": "what the strings option is for; the chapters check the cells (book/checks/part3_montague.py)",
    "count them as undefined, never as failures": "the tests' rule",
    "while the two words lie": "names the glued distance",
}
