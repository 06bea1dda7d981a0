"""compsem/csts/runcache.py: the key and the file of one fine-tuning run (the key's parts are
checked on a real run in test_study.py::test_run_key_*)."""

import pytest

from compsem.csts import data as cd
from compsem.csts import runcache as rc
from compsem.csts.config import TrainConfig


def test_data_hash_changes_with_a_label(rows):
    a = cd.assign_pairs(rows(2))
    b = a.copy()
    b.loc[0, "label"] = 3.0
    assert rc.data_hash(a) != rc.data_hash(b) and rc.data_hash(a) == rc.data_hash(a.copy())
    assert rc.data_hash(a, b) != rc.data_hash(b, a)  # the order of the frames counts
    extra = a.assign(other="ignored")
    assert rc.data_hash(extra) == rc.data_hash(a)  # only texts and labels count


def test_the_key_follows_seed_encoder_data_and_version(rows, monkeypatch):
    train = cd.assign_pairs(rows(2))
    cfg = TrainConfig(encoding="bi", objective="mse")
    key = rc.run_key("bow-backbone", train, {"test": train}, cfg, seed=0)
    assert len(key) == 20 and key == rc.run_key("bow-backbone", train.copy(), {"test": train}, cfg, seed=0)
    assert key != rc.run_key("bow-backbone", train, {"test": train}, cfg, seed=1)
    assert key != rc.run_key("other-backbone", train, {"test": train}, cfg, seed=0)
    assert key != rc.run_key("bow-backbone", train, {"validation": train}, cfg, seed=0)
    monkeypatch.setattr(rc, "CODE_VERSION", rc.CODE_VERSION + "-next")
    assert key != rc.run_key("bow-backbone", train, {"test": train}, cfg, seed=0)


def test_a_run_record_is_read_back_and_a_broken_one_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    path = rc.run_path("abc")
    assert path == tmp_path / "csts_runs" / "abc.json" and rc._read_run(path) is None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"test_spearman": 0.5}')
    assert rc._read_run(path) == {"test_spearman": 0.5}
    path.write_text('{"test_spearman": ')
    with pytest.warns(UserWarning, match="recomputing that run"):
        assert rc._read_run(path) is None
