"""book/part1_setcomp_exercises.md: instructions and the worked example's vectors."""

NOT_CLAIMS = {
    "Stronger evidence compares": "how to argue, not a result",
}
