"""book/part1_setcomp_exercises.md: instructions and the worked example's vectors."""

NOT_CLAIMS = {
    "The first two exercises": "the page's plan",
    "over the three coordinates": "a definition (the toy vectors have three coordinates)",
    "make the conclusion stronger": "an instruction",
    "most of its length points elsewhere": "what a projection can hide (the residual 0.5774 is worked on the page)",
    "Stronger evidence compares": "how to argue, not a result",
    "the two executed notebooks": "an instruction",
    "Which of the three readings": "a question",
    "compare the two runs": "an instruction",
    "the two runs": "an instruction",
}
