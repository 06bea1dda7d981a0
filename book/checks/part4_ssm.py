"""book/part4_ssm.md: the Part's plan and the paper's design."""

NOT_CLAIMS = {
    "runs the closest public checkpoints": "the mapping in data/reference/paper_models/ssm.csv",
}
