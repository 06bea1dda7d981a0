"""compsem.store: atomic writes, broken files named."""

import json

import numpy as np
import pytest

from compsem import store
from compsem.errors import CompsemError


def test_write_json_round_trip_and_no_temp_left(tmp_path):
    p = store.write_json(tmp_path / "sub" / "run.json", {"a": 1, "b": [1.5, 2]})
    assert store.read_json(p) == {"a": 1, "b": [1.5, 2]}
    assert sorted(x.name for x in p.parent.iterdir()) == ["run.json"]


def test_truncated_json_names_the_file(tmp_path):
    p = tmp_path / "run.json"
    p.write_text(json.dumps({"a": 1, "b": 2})[:7])
    with pytest.raises(store.BrokenStoreError, match="run.json"):
        store.read_json(p)


def test_read_record_gives_an_object_or_the_callers_error_naming_the_file(tmp_path):
    class Faulty(CompsemError):
        pass

    p = tmp_path / "choice.json"
    p.write_text('{"backend": "torch"}')
    assert store.read_record(p, "the stored choice", Faulty) == {"backend": "torch"}
    p.write_text("[1, 2]")
    with pytest.raises(Faulty, match=r"^the stored choice .*choice.json holds list, not an object$"):
        store.read_record(p, "the stored choice", Faulty)
    p.write_bytes(b"\x80\x04K\x01.")  # a pickle: never unpickled
    with pytest.raises(Faulty, match=r"^the stored choice .*choice.json is broken \(not valid JSON"):
        store.read_record(p, "the stored choice", Faulty)
    with pytest.raises(FileNotFoundError):
        store.read_record(tmp_path / "none.json", "the stored choice", Faulty)


def test_failed_write_keeps_the_old_file(tmp_path):
    p = store.write_json(tmp_path / "run.json", {"v": 1})

    def boom(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        store.write_atomic(p, boom)
    assert store.read_json(p) == {"v": 1}
    assert [x.name for x in tmp_path.iterdir()] == ["run.json"]


def test_npy_round_trip_and_truncation(tmp_path):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    p = store.save_npy(tmp_path / "m.npy", a)
    np.testing.assert_array_equal(store.load_npy(p), a)
    p.write_bytes(p.read_bytes()[:60])
    with pytest.raises(store.BrokenStoreError, match="m.npy"):
        store.load_npy(p)
    with pytest.raises(FileNotFoundError):
        store.load_npy(tmp_path / "none.npy")
