"""book/part3_montague.md: how closely the official reading reproduces the paper's printed
decimals is glued (compsem.montague.reproduce.printing_sentence, from results/montague); the rest
is the Part's design."""

NOT_CLAIMS = {
    "shows the reproduced table": "what each chapter shows",
    "because it is what produced the paper's tables": "why the default reading is the authors' code",
}
