"""Issue 27, finding 7: a launch is pinned for real. The commit must be a full 40-hex SHA (a
branch or tag name can move); a reused ``compsem-study`` clone must be clean even when it is
already at that commit; the repository URL is written without credentials, with a warning."""

import json
import shlex
import subprocess
import sys

import pytest

from compsem.book.teaching import launch
from tests.helpers import ROOT
from tests.helpers.launchrepo import head_of as _head, run_setup_cell as _run_cell, tiny_origin as _origin


@pytest.fixture()
def chapter(tmp_path):
    copy = tmp_path / "00_toolkit.ipynb"  # a copy: a refused run must not rewrite it
    copy.write_bytes((ROOT / "notebooks" / "00_toolkit.ipynb").read_bytes())
    return copy


def _launch(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "compsem.book.teaching.launch", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize("commit", ["main", "v1.0", "18706a7", "HEAD", "18706A7" + "0" * 33])
def test_a_commit_that_is_not_a_full_sha_is_refused(chapter, commit):
    before = chapter.read_bytes()
    r = _launch("--repo", "https://example.org/r.git", "--commit", commit, chapter)
    assert r.returncode == 2
    assert f"--commit (LAUNCH_COMMIT) {commit!r} is not a full 40-hex commit id" in r.stderr
    assert chapter.read_bytes() == before


def test_a_clean_clone_at_the_commit_is_used_but_one_with_edits_is_refused(tmp_path):
    origin, first = _origin(tmp_path)
    (tmp_path / "work").mkdir()
    clone = tmp_path / "work" / "compsem-study"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--detach", first], check=True)
    (clone / "tinystudy" / "__init__.py").write_text("EDITED = True\n")  # at the commit, with an edit
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode == 1 and "with local changes, not a clean clone at" in r.stderr
    assert not (tmp_path / "site").exists()  # nothing installed
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--", "."], check=True)
    (clone / "tinystudy" / "extra.py").write_text("x = 1\n")  # an untracked file counts too
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode == 1 and "with local changes" in r.stderr
    (clone / "tinystudy" / "extra.py").unlink()
    r = _run_cell(tmp_path, origin, first)
    assert r.returncode == 0, r.stderr
    assert _head(clone) == first and (tmp_path / "site" / "tinystudy").is_dir()


def test_a_cell_naming_a_branch_refuses_to_install(tmp_path):
    origin, _ = _origin(tmp_path)
    (tmp_path / "work").mkdir()
    r = _run_cell(tmp_path, origin, "master")
    assert r.returncode == 1 and "not a full 40-hex commit" in r.stderr
    assert not (tmp_path / "site").exists()


def test_credentials_in_the_repository_url_never_reach_a_notebook(chapter, tmp_path):
    sha = "0123456789abcdef0123456789abcdef01234567"
    r = _launch("--repo", "https://student:ghp_SECRET@example.org/r.git?token=SECRET2", "--commit", sha, chapter)
    assert r.returncode == 0, r.stderr
    assert (
        "warning: removed a password or token and the query from the repository URL: the cells name "
        "https://example.org/r.git" in r.stderr
    )
    text = chapter.read_text()
    assert "SECRET" not in text and "student" not in text
    assert "COMPSEM_REPO = 'https://example.org/r.git'" in "".join(
        "".join(c["source"]) for c in json.loads(text)["cells"]
    )
    # no --repo: the origin remote's URL, cleaned, with a warning
    repo = tmp_path / "checkout"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "https://x-access-token:TKN@example.org/o.git"], check=True
    )
    r = _launch("--commit", sha, chapter, cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "no --repo (LAUNCH_REPO) given: the cells name the origin remote's URL https://example.org/o.git" in r.stderr
    assert "TKN" not in chapter.read_text() and "x-access-token" not in chapter.read_text()


def test_make_launch_cell_with_a_branch_name_is_refused(chapter, capsys, monkeypatch):
    """``make launch-cell LAUNCH_COMMIT=main``: the command make would run (read with ``make -n``;
    the repository URL is not in it, so a token in origin's URL is never echoed) is refused."""
    made = subprocess.run(
        ["make", "-n", "launch-cell", "LAUNCH_COMMIT=main", f"LAUNCH_NOTEBOOKS={chapter}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    line = next(ln for ln in made.splitlines() if "launch" in ln and str(chapter) in ln)
    assert '--commit "main"' in line and "--repo" not in line  # LAUNCH_REPO goes by the environment

    args = shlex.split(line)
    args = args[next(i for i, a in enumerate(args) if a.endswith(("launch.py", "compsem.book.teaching.launch"))) + 1 :]
    before = chapter.read_bytes()
    # make passes LAUNCH_REPO by the environment; a clone's origin may be a local path, which is refused on its own
    monkeypatch.setenv("LAUNCH_REPO", "https://example.org/r.git")
    with pytest.raises(SystemExit) as exc:
        launch.main(args)
    assert exc.value.code == 2 and "'main' is not a full 40-hex commit id" in capsys.readouterr().err
    assert chapter.read_bytes() == before
