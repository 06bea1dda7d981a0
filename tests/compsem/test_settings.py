"""compsem/settings.py: every COMPSEM_* variable read through one checked function."""

from __future__ import annotations

from pathlib import Path

import pytest

from compsem.errors import CompsemError
from compsem.settings import SETTINGS, redact_url, setting


def test_unset_or_empty_gives_the_default():
    for name, s in SETTINGS.items():
        assert setting(name, {}) == s.default
        assert setting(name, {name: "  "}) == s.default


def test_numbers_and_whole_numbers_within_their_bounds():
    assert setting("COMPSEM_CACHE_TIMEOUT", {"COMPSEM_CACHE_TIMEOUT": "12.5"}) == 12.5
    assert setting("COMPSEM_OA_BATCH", {"COMPSEM_OA_BATCH": " 64 "}) == 64
    for name, raw in (
        ("COMPSEM_CACHE_TIMEOUT", "abc"),
        ("COMPSEM_CACHE_TIMEOUT", "-1"),
        ("COMPSEM_CACHE_TIMEOUT", "nan"),
        ("COMPSEM_OA_BATCH", "1.5"),
        ("COMPSEM_OA_BATCH", "0"),
    ):
        with pytest.raises(CompsemError, match=f"{name}=.*is not valid.*it takes a"):
            setting(name, {name: raw})


def test_flags_and_choices():
    assert setting("COMPSEM_OA_ALLOW_HTTP", {"COMPSEM_OA_ALLOW_HTTP": "yes"}) is True
    assert setting("COMPSEM_DEBUG", {"COMPSEM_DEBUG": "0"}) is False
    with pytest.raises(CompsemError, match="COMPSEM_DEBUG='maybe' is not valid: it takes 1 or 0"):
        setting("COMPSEM_DEBUG", {"COMPSEM_DEBUG": "maybe"})
    assert setting("COMPSEM_PRECISION", {"COMPSEM_PRECISION": " fp32 "}) == "fp32"
    assert setting("COMPSEM_ENCODE_BACKEND", {"COMPSEM_ENCODE_BACKEND": "onnx-int8"}) == "onnx-int8"
    with pytest.raises(CompsemError, match="it takes one of auto, fp32, bf16"):
        setting("COMPSEM_PRECISION", {"COMPSEM_PRECISION": "FP32"})
    with pytest.raises(CompsemError, match="it takes one of auto, torch, onnx, onnx-int8"):
        setting("COMPSEM_ENCODE_BACKEND", {"COMPSEM_ENCODE_BACKEND": "fast"})


def test_paths_folders_files_and_urls(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x")
    assert setting("COMPSEM_CACHE", {"COMPSEM_CACHE": str(tmp_path)}) == tmp_path
    assert setting("COMPSEM_CACHE", {"COMPSEM_CACHE": str(tmp_path / "new")}) == tmp_path / "new"  # made later
    with pytest.raises(CompsemError, match="it is a file"):
        setting("COMPSEM_CACHE", {"COMPSEM_CACHE": str(f)})
    with pytest.raises(CompsemError, match="it is a folder"):
        setting("COMPSEM_EMBED_LOG", {"COMPSEM_EMBED_LOG": str(tmp_path)})
    with pytest.raises(CompsemError, match="5,000 characters"):
        setting("COMPSEM_DATA", {"COMPSEM_DATA": "x" * 5000})
    assert setting("COMPSEM_DATA", {"COMPSEM_DATA": "~/d"}) == Path("~/d").expanduser()
    with pytest.raises(CompsemError, match="an http\\(s\\) URL"):
        setting("COMPSEM_OA_BASE_URL", {"COMPSEM_OA_BASE_URL": "ftp://host/v1"})


def test_a_bad_url_is_shown_without_its_secret():
    raw = "ftp://user:s3cret@host/v1?api-key=k3y"
    with pytest.raises(CompsemError) as err:
        setting("COMPSEM_OA_BASE_URL", {"COMPSEM_OA_BASE_URL": raw})
    assert "s3cret" not in str(err.value) and "k3y" not in str(err.value)
    assert "s3cret" not in redact_url(raw) and "k3y" not in redact_url(raw)


def test_environment_sets_removes_and_restores_also_on_an_error(monkeypatch):
    import os
    from compsem.settings import environment

    monkeypatch.setenv("COMPSEM_T_KEEP", "old")
    monkeypatch.setenv("COMPSEM_T_GONE", "there")
    monkeypatch.delenv("COMPSEM_T_NEW", raising=False)
    with pytest.raises(RuntimeError):
        with environment({"COMPSEM_T_KEEP": "new", "COMPSEM_T_GONE": None, "COMPSEM_T_NEW": "x"}):
            assert os.environ["COMPSEM_T_KEEP"] == "new" and os.environ["COMPSEM_T_NEW"] == "x"
            assert "COMPSEM_T_GONE" not in os.environ
            raise RuntimeError("inside")
    assert os.environ["COMPSEM_T_KEEP"] == "old" and os.environ["COMPSEM_T_GONE"] == "there"
    assert "COMPSEM_T_NEW" not in os.environ
