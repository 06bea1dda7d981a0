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
    assert wanted(None, 1001) and not wanted(None, 1000)  # the default threshold: more than 1,000
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
    embed(
        [f"text {i}" for i in range(40)], HashEncoder(), cache=EmbeddingCache(tmp_path / "e.sqlite"), show_progress=True
    )
    err = capsys.readouterr().err
    assert ("embed hash" in err) is shown


# -- the widget class: tqdm.auto picks it wherever ipywidgets is installed (the teaching extras) --


def _widget_class(monkeypatch):
    """Make ``tqdm.auto.tqdm`` the notebook widget class, as in a kernel with ipywidgets."""
    notebook = pytest.importorskip("tqdm.notebook")
    pytest.importorskip("ipywidgets")
    import tqdm.auto

    monkeypatch.setattr(tqdm.auto, "tqdm", notebook.tqdm)
    return notebook.tqdm


def test_the_widget_class_ignores_the_variable_when_disable_is_missing(monkeypatch):
    # the cause of bars in CI's book: this is what a bare tqdm.auto call did there
    cls = _widget_class(monkeypatch)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    b = cls(range(3))
    assert b.disable is False
    b.close()


@pytest.mark.parametrize(
    "env, show, off",
    [("1", True, True), ("1", None, True), (None, True, False), (None, False, True), (None, None, True)],
)
def test_bar_sets_disable_even_for_the_widget_class(monkeypatch, env, show, off):
    from compsem.progress import bar

    cls = _widget_class(monkeypatch)
    if env is None:
        monkeypatch.delenv("TQDM_DISABLE", raising=False)
    else:
        monkeypatch.setenv("TQDM_DISABLE", env)
    b = bar(range(3), show=show)  # show=None: three items are under the 1,000 threshold
    assert isinstance(b, cls) and b.disable is off
    b.close()


def test_bar_refuses_disable():
    from compsem.progress import bar

    with pytest.raises(TypeError, match="show="):
        bar(range(3), disable=False)


def test_no_module_but_progress_makes_a_tqdm_bar():
    # every bar must come from compsem.progress.bar, which always passes disable
    import ast
    from pathlib import Path
    import compsem

    src = Path(compsem.__file__).parent
    offenders = []
    for path in src.rglob("*.py"):
        if path.name == "progress.py" and path.parent == src:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            offenders += [f"{path.relative_to(src)}:{node.lineno}" for n in names if n.split(".")[0] == "tqdm"]
    assert offenders == []
