"""Chapter 43: the pool's size, checked on chapter 40's count; the rest is MDS and the map's design."""

from compsem.book.checks.claimcheck import sibling


def check(executed=None):
    sibling(__file__, "pool_size").few_hundred_sentences(executed, "a few hundred points", "43_ssm_space")


NOT_CLAIMS = {
    "most pairs of unrelated sentences are at the same distance of about 1, which no planar map reproduces": "geometry: a plane cannot hold many points at equal distances",
}
