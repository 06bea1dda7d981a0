"""Checks of chapter 43's sentence on the pool's size (run by ``make check-book`` and the
appendix); the rest is MDS and the map's design."""

import importlib.util
from pathlib import Path

PAGE = "43_ssm_space"


def check(executed=None):
    spec = importlib.util.spec_from_file_location("_pool_size", Path(__file__).with_name("pool_size.py"))
    pool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pool)
    pool.few_hundred_sentences(executed, "a few hundred points", PAGE)


NOT_CLAIMS = {
    "in three numbers": "the metrics' number",
    "close it is to three basis sentences": "the paper's design (its Figure 1)",
    "distances match D as closely as possible": "the definition of MDS",
    "from three different clusters": "the map's design",
    "close to none of them is black": "the colour rule",
    "close to all three is white": "the colour rule",
    "most pairs of unrelated sentences are at the same distance of about 1, which no planar map reproduces": "geometry: a plane cannot hold many points at equal distances",
    "depend on the two seeds": "the parameters' definitions",
    "picks the three basis sentences": "the parameter's definition",
}
