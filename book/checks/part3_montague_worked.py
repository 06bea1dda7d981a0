"""Checks of book/part3_montague_worked.md (run by ``make check-book`` and the appendix;
:mod:`compsem.book.checks.claimcheck`): the words the page uses for its toy's distances, recomputed
from the toy embedding in the page's table."""

import numpy as np

from compsem import claims

PAGE = "book/part3_montague_worked.md"
TOY = {
    "dog": (1, 0),
    "law": (-1, 0),
    "red dog": (4, 3),
    "red law": (-4, 3),
    "counterfeit dog": (-7, -24),
    "counterfeit law": (7, -24),
}


def d(x, y):
    """The page's distance, 1 - cos."""
    a, b = np.asarray(TOY[x], float), np.asarray(TOY[y], float)
    return 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def check(executed=None):
    red, nouns, fake = d("red dog", "red law"), d("dog", "law"), d("counterfeit dog", "counterfeit law")
    claims.check(
        "so they stay far apart, though closer together than dog and law (1.28 against 2)",
        page=PAGE,
        holds=claims.as_far_apart(red, nouns) == "closer together than"
        and red > fake
        and round(red, 2) == 1.28
        and round(nouns, 2) == 2,
        numbers={
            "d(red dog, red law)": round(red, 4),
            "d(dog, law)": round(nouns, 4),
            "d(counterfeit dog, counterfeit law)": round(fake, 4),
        },
        rule="'closer together than' by compsem.claims.as_far_apart; 'far apart' is further than the "
        "counterfeit phrases",
    )


NOT_CLAIMS = {
    "Before the chapters run the three tests on": "the page's plan",
    "this page runs them on four words and four phrases": "the page's plan",
    "compares a two-adjective phrase differently": "what the authors' code does",
    "the two give the same answers": "worked by hand on the page (no tied distances)",
    "The four adjective classes": "the page's plan",
    "the four compass directions": "the toy's design",
    "All three tests use": "the definition of the tests",
    "the two words are to each other": "the definition of test 1",
    "Averaged over the two nouns": "the toy's design",
    "On these two tests the toy behaves exactly as the theory wants": "worked by hand on the page",
    "compares the two red phrases with the two counterfeit phrases": "the definition of test 2",
    "gives the same two distances": "worked by hand on the page",
    "The two mirror cells add up to 1": "a consequence of the definition, when no distances tie",
}
