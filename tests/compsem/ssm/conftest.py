"""A small three-cluster pool with its judgements, written to a temporary folder (Part IV tests)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

CLUSTERS = [
    (
        "a dog runs in the park .",
        ["the dog runs in a park .", "in the park a dog runs ."],
        ["a dog runs .", "an animal moves outside .", "a dog is in the park ."],
    ),
    (
        "cats sleep on mats today .",
        ["today cats sleep on mats .", "on mats cats sleep today ."],
        ["cats sleep .", "an animal is on mats .", "cats sleep today ."],
    ),
    (
        "it is raining in the park today .",
        ["today it is raining in the park .", "in the park it is raining today ."],
        ["it is raining .", "the park is wet .", "it is raining today ."],
    ),
]


def write_pool(folder: Path) -> Path:
    """pool.csv (18 sentences, 3 clusters) and judgements.csv beside it; returns the pool path."""
    pool_rows, judg = [], []
    for c, (prem, syns, infs) in enumerate(CLUSTERS, start=1):
        pid = f"c{c}_p"
        pool_rows.append((pid, c, "premise", prem))
        for role, hyps in (("synonymous", syns), ("inferential", infs)):
            for k, h in enumerate(hyps, start=1):
                hid = f"c{c}_{role[0]}{k}"
                pool_rows.append((hid, c, role, h))
                judg.append((pid, hid, role, 1))
                judg.append((hid, pid, f"{role}_reversed", 1 if role == "synonymous" else 0))
    with (folder / "pool.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("sentence_id", "cluster", "role", "text"), *pool_rows])
    with (folder / "judgements.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("premise_id", "hypothesis_id", "category", "score"), *judg])
    return folder / "pool.csv"


@pytest.fixture
def small_pool(tmp_path) -> Path:
    return write_pool(tmp_path)
