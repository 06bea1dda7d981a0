"""book/part3_montague_exercises.md: questions and answers worked by hand on the toy
(tests/teaching/test_montague.py checks their numbers)."""

NOT_CLAIMS = {
    "clearly more often than privative ones": "what evidence would look like",
}
