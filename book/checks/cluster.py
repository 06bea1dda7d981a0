"""book/cluster.md: how the book runs on a cluster; its counts are the setup, not results."""

NOT_CLAIMS = {
}
