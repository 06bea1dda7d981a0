"""Finding 5 (Part IV's share): the score-matrix store is written atomically, and a damaged
entry is named in a warning and recomputed instead of failing or being trusted."""

import numpy as np
import pytest

from compsem.ssm.scorers import LexicalCoverage
from compsem.ssm.study import score_matrix

TEXTS = ["the red cat sleeps", "a cat sleeps", "a dog barks"]


class Counting(LexicalCoverage):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def score(self, texts, **kw):
        self.calls += 1
        return super().score(texts, **kw)


@pytest.mark.parametrize("damage", ["npy", "json"])
def test_a_truncated_entry_is_named_and_recomputed(tmp_path, damage):
    first = score_matrix(Counting(), TEXTS, cache_dir=tmp_path, progress=False)
    path = next(tmp_path.glob(f"*.{damage}"))
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])  # a half-written file
    again = Counting()
    with pytest.warns(UserWarning, match=rf"{path} is broken .*; the score matrix is recomputed"):
        R = score_matrix(again, TEXTS, cache_dir=tmp_path, progress=False)
    assert again.calls == 1 and np.array_equal(R, first)
    third = Counting()
    score_matrix(third, TEXTS, cache_dir=tmp_path, progress=False)  # repaired: a hit
    assert third.calls == 0


def test_nothing_but_the_two_files_is_left_behind(tmp_path):
    score_matrix(Counting(), TEXTS, cache_dir=tmp_path, progress=False)
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".npy"]  # no temporary file


def test_an_unwritable_store_still_returns_the_matrix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.warns(UserWarning, match="could not store the score matrix"):
        R = score_matrix(Counting(), TEXTS, cache_dir=blocker / "sub", progress=False)
    assert R.shape == (3, 3)
