"""compsem.work: units of planned work, embedding chunks encoded like compsem.embed, stored by the driver."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from compsem import work
from compsem.cache import EmbeddingCache, embed, last_stats
from compsem.work import WorkUnit


def test_a_unit_of_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown unit kind 'download'"):
        WorkUnit("download", "sbert-mini", "k", "setcomp")
    assert WorkUnit("embed", "sbert-mini", "0123456789abc", "setcomp").name == "embed sbert-mini [0123456789]"


def test_chunk_size_is_a_whole_number_of_embed_calls_lasting_about_a_minute():
    # 100 texts/s for 60 s = 6,000 texts, the nearest multiple of 1,024 is 6 x 1,024
    assert work.chunk_size_for(100.0) == 6 * 1024
    assert work.chunk_size_for(1.0) == 1024  # 60 texts: at least one call
    assert work.chunk_size_for(None) == 1024
    assert work.chunk_size_for(50.0, seconds=10, step=100) == 500


def test_embed_units_sort_longest_first_chunk_and_skip_what_is_never_cached():
    texts = ["bb", "a", "ccc", "a", "dd"]
    units = work.embed_units("setcomp", {"m": texts, "bow": texts, "lexical": texts}, chunk=2, rates={"m": 4.0})
    assert [u.payload["texts"] for u in units] == [["ccc", "bb"], ["dd", "a"]]  # ties: first seen first
    assert [u.count for u in units] == [2, 2] and [u.cost_s for u in units] == [0.5, 0.5]
    assert len({u.key for u in units}) == 2 and all(u.kind == "embed" and u.spec == "m" for u in units)
    again = work.embed_units("setcomp", {"m": texts + ["bb", "ccc"]}, chunk=2)
    assert [u.key for u in again] == [u.key for u in units]  # the key is the chunk's texts


def test_groups_are_sorted_and_chunked_one_by_one():
    units = work.embed_units("montague", {"m": ["a", "bb", "ccc", "dddd"]}, chunk=10, groups={"m": [2, 0, 2]})
    assert [u.payload["texts"] for u in units] == [["bb", "a"], ["dddd", "ccc"]]
    with pytest.raises(ValueError, match="groups of 3 texts for 4 distinct texts"):
        work.embed_units("montague", {"m": ["a", "bb", "ccc", "dddd"]}, groups={"m": [3]})


def test_total_cost_sums_the_known_estimates():
    units = [WorkUnit("embed", "m", str(k), "s", cost_s=c) for k, c in enumerate([1.5, None, 2.0])]
    assert work.total_cost(units) == 3.5
    assert work.total_cost(units[1:2]) is None


def _texts(n):
    words = ["a", "the", "red", "blue", "car", "dog", "man", "plays", "guitar", "runs", "fast", "slow"]
    out = []
    for k in itertools.count(1):
        out += [" ".join(p) for p in itertools.product(words, repeat=k)]
        if len(out) >= n:
            return out[:n]


def test_a_chunk_encodes_like_embed_and_the_driver_stores_it(tiny_bert, tmp_path):
    spec = f"hf:{tiny_bert}"
    texts = _texts(1100)  # more than one 1,024-text encoder call
    reference = embed(texts, spec, cache=EmbeddingCache(tmp_path / "ref.sqlite"))
    (unit,) = work.embed_units("setcomp", {spec: texts}, chunk=2048)
    result = work.encode_chunk(spec, unit.payload["texts"])
    pos = {t: i for i, t in enumerate(texts)}
    np.testing.assert_array_equal(result["vectors"], reference[[pos[t] for t in unit.payload["texts"]]])

    store = EmbeddingCache(tmp_path / "driver.sqlite")
    assert not work.embed_done(unit, store)
    assert work.store_vectors(result, unit.payload["texts"], store) == 1100
    assert work.embed_done(unit, store) and store.count_cached(spec, ["x-not-a-key"]) == 0
    again = embed(texts, spec, cache=store)
    assert last_stats().n_encoded == 0
    np.testing.assert_array_equal(again, reference)


def test_store_vectors_refuses_a_result_of_the_wrong_shape(tmp_path):
    bad = {"spec": "m", "identity": "m|1", "dim": 3, "vectors": np.zeros((2, 3), dtype=np.float32)}
    with pytest.raises(ValueError, match="m: \\(2, 3\\) vectors for 1 texts"):
        work.store_vectors(bad, ["only one"], EmbeddingCache(tmp_path / "c.sqlite"))
