"""compsem.paths: the environment variables move each folder; the root is the working directory's clone,
else the package's."""

from pathlib import Path

from compsem import paths


def test_environment_variables_move_each_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPSEM_ROOT", str(tmp_path))
    for var in ("COMPSEM_DATA", "COMPSEM_CACHE", "COMPSEM_RESULTS"):
        monkeypatch.delenv(var, raising=False)
    assert paths.repo_root() == tmp_path.resolve()
    assert paths.data_dir("ssm") == tmp_path.resolve() / "data" / "ssm"
    assert paths.notebooks_dir() == tmp_path.resolve() / "notebooks"
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "elsewhere"))
    out = paths.results_dir("setcomp")
    assert out == (tmp_path / "elsewhere" / "setcomp").resolve() and out.is_dir()  # created on demand
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "c"))
    assert paths.cache_dir("x").is_dir() and not (tmp_path / "data").exists()  # data_dir creates nothing


def test_the_root_is_the_checkout_that_holds_the_package(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPSEM_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)  # a working directory outside any clone
    root = paths.repo_root()
    assert (root / "pyproject.toml").is_file() and (root / "src" / "compsem" / "paths.py").is_file()
    assert Path(paths.__file__).resolve().is_relative_to(root)


def test_the_working_directorys_clone_comes_before_the_packages(monkeypatch, tmp_path):
    """A student running a shared environment (installed from the lecturer's clone) from their own
    clone works in their own clone, from any folder inside it."""
    monkeypatch.delenv("COMPSEM_ROOT", raising=False)
    clone = tmp_path / "student"
    (clone / "src" / "compsem").mkdir(parents=True)
    (clone / "notebooks").mkdir()
    (clone / "pyproject.toml").write_text("[project]\nname = 'compsem'\n")
    monkeypatch.chdir(clone / "notebooks")
    assert paths.repo_root() == clone.resolve()
    assert paths.notebooks_dir() == clone.resolve() / "notebooks"
    assert not Path(paths.__file__).resolve().is_relative_to(clone.resolve())
