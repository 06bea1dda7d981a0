"""compsem/book/teaching/colab.py: what the set-up cell runs outside a checkout (the end-to-end
cases, a clone refused or installed, are the pinned-launch tests in tests/compsem/security/)."""

import subprocess

import pytest

from compsem.book.teaching import colab, launch
from tests.helpers.launchrepo import tiny_origin


def test_a_clean_clone_has_nothing_unclean_or_foreign(tmp_path):
    origin, _ = tiny_origin(tmp_path)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    assert colab.unclean(clone) == [] and colab.foreign(clone) == []
    (clone / "new.txt").write_text("x")  # untracked
    (clone / "pyproject.toml").write_text("# edited\n")  # changed
    assert sorted(colab.unclean(clone)) == [" M pyproject.toml", "?? new.txt"]
    (clone / ".git" / "info" / "exclude").write_text("cache/\n")
    (clone / "cache").mkdir()
    (clone / "cache" / "v.bin").write_text("v")
    (clone / "cache" / "v.bin").chmod(0o666)  # ignored, but others may write it
    assert colab.foreign(clone) == [str(clone / "cache" / "v.bin")]


def test_setup_refuses_a_commit_that_is_not_a_full_sha_or_a_folder_that_is_no_clone(tmp_path):
    with pytest.raises(RuntimeError, match="'main', not a full 40-hex commit"):
        colab.setup("https://example.org/r.git", "main", root=tmp_path)
    with pytest.raises(RuntimeError, match="is not a clone of the study"):
        colab.setup("https://example.org/r.git", "0" * 40, root=tmp_path)


@pytest.mark.parametrize("repo", ["", "https://example.org/r.git"])
def test_the_cell_is_at_most_ten_lines(repo):
    assert len(launch.setup_source(repo, "0" * 40 if repo else "").splitlines()) <= 10
