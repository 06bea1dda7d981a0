"""compsem.encoders.base: text checks, package versions and the weights digest, by hand."""

import hashlib
from importlib import metadata

import pytest

from compsem.encoders import base
from compsem.errors import EmptyTextError, ModelNotInstalledError


def test_validate_texts_names_the_position():
    assert base.validate_texts(("a", "b")) == ["a", "b"]
    with pytest.raises(EmptyTextError, match="row 1: empty text"):
        base.validate_texts(["a", "  "])
    with pytest.raises(TypeError, match="position 0 is int"):
        base.validate_texts([3])
    with pytest.raises(TypeError, match="wrap a single text"):
        base.validate_texts("a")


def test_package_versions_and_the_install_hint():
    assert base.package_version("numpy") == metadata.version("numpy")
    assert base.package_version("no-such-dist-xyz") is None
    with pytest.raises(ModelNotInstalledError, match="pip install no-such-dist-xyz"):
        base.require_package("no-such-dist-xyz", "nosuchmodule", "m")


def test_weights_digest_by_hand(tmp_path):
    """SHA-256 over (relative name, SHA-256 of the file) of every regular file of the folder (code,
    notes, a README, hidden files and the files of a symlinked subfolder included), in name
    order; only git's own ``.git/`` does not count (issue 37: ``README_x.py``, hidden files and
    symlinked subfolders were skipped)."""
    (tmp_path / "sub").mkdir()
    elsewhere = tmp_path.parent / f"{tmp_path.name}-linked"
    elsewhere.mkdir()
    (elsewhere / "extra.safetensors").write_bytes(b"\x02")
    (tmp_path / "linked").symlink_to(elsewhere, target_is_directory=True)
    files = {
        "config.json": b"{}",
        "modeling_x.py": b"def f(): pass\n",
        "notes.rst": b"n",
        "sub/model.safetensors": b"\x00\x01",
        "vocab.txt": b"a\nb\n",
        "README.md": b"notes",
        "README_modeling.py": b"import os\n",
        ".gitattributes": b"*",
        ".hidden/code.py": b"x = 1\n",
        "linked/extra.safetensors": b"\x02",
    }
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        if not name.startswith("linked/"):
            (tmp_path / name).write_bytes(data)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("git's own store: not counted")
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode())
        h.update(hashlib.sha256(files[name]).hexdigest().encode())
    assert base.weights_digest(tmp_path) == h.hexdigest()[:16]
    for name in ("README_modeling.py", ".hidden/code.py", "linked/extra.safetensors"):
        before = base.weights_digest(tmp_path)
        (tmp_path / name).write_bytes(b"changed " + name.encode())
        assert base.weights_digest(tmp_path) != before, f"{name} does not count"
