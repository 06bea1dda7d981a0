"""book/cluster.md: how the book runs on a cluster; its counts are the setup, not results."""

NOT_CLAIMS = {
    "sixteen encoders, six of them": "the paper's panel (data/reference/paper_models/)",
    "Workers never write to the cache": "the design of compsem.book.running.prefetch",
    "on one thread and on two": "the setting compared",
    "two one-CPU workers": "the setup described",
}
