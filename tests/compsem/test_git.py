"""compsem/git.py: the checkout's commit, marked dirty when a tracked file differs from it."""

import subprocess

from compsem.git import commit_of

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def test_commit_of_a_clean_and_a_dirty_checkout_and_of_no_checkout(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("1")
    subprocess.run([*GIT, "-C", str(repo), "add", "a.txt"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "one"], check=True)
    sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert commit_of(repo) == sha and len(sha) == 40
    (repo / "new.txt").write_text("untracked files do not count")
    assert commit_of(repo) == sha
    (repo / "a.txt").write_text("2")
    assert commit_of(repo) == sha + "+dirty"
    (tmp_path / "plain").mkdir()
    assert commit_of(tmp_path / "plain") is None
