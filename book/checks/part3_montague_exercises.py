"""book/part3_montague_exercises.md: questions and answers worked by hand on the toy
(tests/teaching/test_montague.py checks their numbers)."""

NOT_CLAIMS = {
    "What are the two cells": "a question",
    "The two distances tie": "worked by hand on the page",
    "they add up to 2 = 1 + the tie rate": "worked by hand on the page",
    "Give two reasons": "an instruction",
    "passes as often as": "a hypothetical outcome, for the argument",
    "larger than the spread between adjectives": "what evidence would look like",
    "clearly more often than privative ones": "what evidence would look like",
    "which of the two cells": "a question",
    "exactly one of the two holds": "a consequence of the definition",
    "half of its entries hold": "a consequence of the definition",
    "share one word of two": "what bow's phrases are made of",
    "Only one of the two mirror cells": "a consequence of the definition",
    "Unless the two distances are equal": "a consequence of the definition",
}
