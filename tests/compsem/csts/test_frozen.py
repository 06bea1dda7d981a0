"""The frozen-layer store: memory and disk, one folder per setting, a broken chunk skipped."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from compsem.csts import frozen as F


def test_round_trip_through_disk(tmp_path):
    s = F.FrozenStore(tmp_path / "f")
    a, b = torch.arange(6.0).reshape(3, 2), torch.ones(1, 2)
    s.add([("x", None), ("y", "c")], [a, b])
    assert ("x", None) in s and s.missing([("x", None), ("z", None), ("z", None)]) == [("z", None)]
    back = F.FrozenStore(tmp_path / "f")  # a later run
    assert len(back) == 2 and back.n_read == 2
    assert torch.equal(back.get(("x", None)), a) and torch.equal(back.get(("y", "c")), b)


def test_float16_on_disk_for_bf16_states(tmp_path):
    s = F.FrozenStore(tmp_path / "h", disk_dtype="float16")
    s.add([("x", None)], [torch.tensor([[1.0, 1.0 / 3.0]])])
    arr = np.load(next((tmp_path / "h").glob("*.npy")))
    assert arr.dtype == np.float16
    got = F.FrozenStore(tmp_path / "h").get(("x", None))
    assert got[0, 0].item() == 1.0 and got[0, 1].item() == pytest.approx(1 / 3, abs=1e-3)
    # the run that computed the states sees the same rounded numbers as a later run reading them
    assert torch.equal(s.get(("x", None)), got)


def test_a_truncated_chunk_is_named_and_skipped(tmp_path):
    s = F.FrozenStore(tmp_path / "b")
    s.add([("x", None)], [torch.ones(2, 2)])
    npy = next((tmp_path / "b").glob("*.npy"))
    npy.write_bytes(npy.read_bytes()[:20])
    with pytest.warns(UserWarning, match=npy.stem):
        back = F.FrozenStore(tmp_path / "b")
        assert back.missing([("x", None)]) == [("x", None)]


def test_one_folder_per_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    a = F.store_folder("m@1", 64, 4, "fp32")
    assert a == F.store_folder("m@1", 64, 4, "fp32")
    assert (
        len(
            {
                a,
                F.store_folder("m@2", 64, 4, "fp32"),
                F.store_folder("m@1", 32, 4, "fp32"),
                F.store_folder("m@1", 64, 3, "fp32"),
                F.store_folder("m@1", 64, 4, "bfloat16"),
            }
        )
        == 5
    )


def _lower_reference(m, key):
    """Oracle: the states after the frozen layers for one input alone (no padding at all),
    from transformers' own hidden_states output."""
    enc = m.tokenizer(
        [key[0]], None if key[1] is None else [key[1]], truncation=True, max_length=m.max_length, return_tensors="pt"
    )
    with torch.no_grad():
        out = m.backbone.eval()(**enc, output_hidden_states=True)
    return out.hidden_states[m._n_frozen][0]


@pytest.mark.parametrize("pairs", [False, True])
def test_sorted_fill_gives_the_states_of_the_unsorted_fill(word_bert, pairs):
    """Token-sorted, character-sorted and unsorted fills store the same states: identical when
    the batch holds all inputs (only the order changes), and otherwise equal to float rounding
    — a batch's padded length changes how the sums inside the layers are blocked — each equal
    to the input's own unpadded pass."""
    from compsem.csts import models as cm

    s1 = ["a man runs", "a woman sits on the blue car in the park", "two dog", "the cat"]
    s2 = ["a dog sits in the street", "the cat", "one red ball on the street in the park", "a man"]
    c = ["the colour", "the number of people in the park", "kind of animal", "the colour"]
    stores = {}
    for order in F.FILL_ORDERS:
        for bs, budget in ((1, None), (2, None), (256, None), (256, 24)):
            m = cm.build_model(word_bert, encoding="bi" if pairs else "tri", seed=0, max_length=32)
            m.freeze_lower(1)
            store = {}
            m.use_frozen_cache(store)
            assert m.fill_frozen_cache(s1, s2, c, batch_size=bs, order=order, max_tokens=budget) == len(store) > 0
            stores[order, bs if budget is None else f"tokens<={budget}"] = store
    base = stores["none", 256]
    for (order, bs), store in stores.items():
        assert store.keys() == base.keys()
        for k in base:
            if bs == 256:
                assert torch.equal(store[k], base[k]), (order, k)
            assert torch.allclose(store[k], _lower_reference(m, k), atol=1e-5, rtol=0), (order, bs, k)


def test_fill_batches_pad_as_the_tokenizer_does(word_bert):
    """Each batch equals the tokenizer's own padded encoding of the same inputs; batches follow
    the token count, and every key comes exactly once."""
    from compsem.csts.models import load_backbone

    _, tok = load_backbone(word_bert)
    keys = [("a man runs in the park", "the colour"), ("two dog", "kind"), ("the cat sits", "the number of people")]
    got = list(F.fill_batches(tok, keys, max_length=32, batch_size=2))
    assert [len(p) for p, _ in got] == [2, 1]
    assert [k for p, _ in got for k in p] == [keys[1], keys[2], keys[0]]  # 6, 10, 11 tokens
    for part, batch in got:
        ref = tok(
            [k[0] for k in part],
            [k[1] for k in part],
            padding=True,
            truncation=True,
            max_length=32,
            return_tensors="pt",
        )
        assert batch.keys() == ref.keys()
        for name in ref:
            assert torch.equal(batch[name], ref[name]), name
    assert [p for p, _ in F.fill_batches(tok, keys, max_length=32, order="none")] == [keys]
    # a budget of padded tokens (rows × longest): 6 + 10 tokens pad to 2 × 10 = 20 > 17, so each
    # input stands alone; with 20 the first two share a batch and the 11-token one (3 × 11 = 33) does not
    budget = lambda n: [[k for k in p] for p, _ in F.fill_batches(tok, keys, max_length=32, max_tokens=n)]
    assert budget(17) == [[keys[1]], [keys[2]], [keys[0]]]
    assert budget(20) == [[keys[1], keys[2]], [keys[0]]]
    assert budget(32) == [[keys[1], keys[2]], [keys[0]]]
    assert budget(33) == [[keys[1], keys[2], keys[0]]]
    assert budget(1) == [[keys[1]], [keys[2]], [keys[0]]]  # an input longer than the budget: alone
    # unsorted (11, 6, 10 tokens): the running longest counts, 11 + 6 pad to 2 × 11 = 22 > 20
    assert [len(p) for p, _ in F.fill_batches(tok, keys, max_length=32, order="none", max_tokens=20)] == [1, 2]
    assert [len(p) for p, _ in F.fill_batches(tok, keys, max_length=32, order="none", max_tokens=22)] == [2, 1]
    with pytest.raises(ValueError, match="max_tokens must be"):
        list(F.fill_batches(tok, keys, max_length=32, max_tokens=0))
    with pytest.raises(ValueError, match="order must be one of"):
        list(F.fill_batches(tok, keys, max_length=32, order="random"))
    with pytest.raises(ValueError, match="all keys with a text pair"):
        list(F.fill_batches(tok, [("a", None), ("b", "c")], max_length=32))


def test_a_later_run_reads_only_the_chunks_it_needs(tmp_path):
    s = F.FrozenStore(tmp_path / "l")
    s.add([("a", None), ("b", None)], [torch.ones(2, 2), torch.zeros(1, 2)])  # chunk 1: two entries
    s.add([("c", "x")], [torch.full((3, 2), 2.0)])  # chunk 2: one entry
    back = F.FrozenStore(tmp_path / "l")
    assert back.missing([("c", "x"), ("new", None)]) == [("new", None)] and back.n_read == 1  # chunk 2 only
    assert torch.equal(back.get(("b", None)), torch.zeros(1, 2)) and back.n_read == 3
    assert len(back) == 3 and back.n_read == 3
