"""Progress bars: TQDM_DISABLE wins over an explicit request (the book build sets it)."""

import pytest

from compsem.cache import EmbeddingCache, embed
from compsem.progress import disabled, wanted
from tests.helpers.fake_encoders import HashEncoder


@pytest.mark.parametrize("value, off", [("1", True), ("true", True), ("0", False), ("", False), ("False", False)])
def test_disabled_reads_the_variable_at_call_time(monkeypatch, value, off):
    monkeypatch.setenv("TQDM_DISABLE", value)
    assert disabled() is off


def test_wanted(monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    assert wanted(True) and not wanted(False)
    assert wanted(None, 1001) and not wanted(None, 1000)          # the default threshold: more than 1,000
    assert wanted(None, 11, threshold=10)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert not wanted(True) and not wanted(None, 10**6)


@pytest.mark.parametrize("env, shown", [("1", False), (None, True)])
def test_embed_draws_its_bar_only_when_the_environment_allows(tmp_path, monkeypatch, capsys, env, shown):
    # tqdm itself would ignore TQDM_DISABLE here: the library passes disable=False explicitly
    if env is None:
        monkeypatch.delenv("TQDM_DISABLE", raising=False)
    else:
        monkeypatch.setenv("TQDM_DISABLE", env)
    embed([f"text {i}" for i in range(40)], HashEncoder(), cache=EmbeddingCache(tmp_path / "e.sqlite"),
          show_progress=True)
    err = capsys.readouterr().err
    assert ("embed hash" in err) is shown
