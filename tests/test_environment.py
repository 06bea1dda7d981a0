"""environment.yml, pyproject.toml and requirements-lock.txt pin the same versions."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pins(lines):
    out = {}
    for line in lines:
        line = line.strip().strip('"').strip("'")
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_environment_yml_matches_pyproject():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pyproject = _pins(deps)
    assert len(pyproject) == len(deps), "every dependency in pyproject.toml is pinned with =="
    text = (ROOT / "environment.yml").read_text()
    pip_block = text.split("- pip:", 1)[1]
    env = _pins(l.strip().lstrip("-").strip() for l in pip_block.splitlines())
    assert env == pyproject
    assert re.search(r"^\s*-\s*python=3\.11\s*$", text, re.M)


def test_lock_agrees_with_pyproject():
    deps = _pins(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    lock = _pins((ROOT / "requirements-lock.txt").read_text().splitlines())
    for name, version in deps.items():
        assert lock.get(name) == version, f"{name}: pyproject {version}, lock {lock.get(name)}"
    assert lock["torch"] == "2.13.0"
