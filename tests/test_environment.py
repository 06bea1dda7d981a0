"""environment.yml, pyproject.toml and requirements-lock.txt pin the same versions."""

import re
import subprocess
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


def test_make_test_lints_and_checks_the_formatting_before_pytest():
    out = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    lines = [line for line in out.splitlines() if "ruff" in line or "pytest" in line]
    assert [("ruff check" in line, "ruff format --check" in line, "pytest" in line) for line in lines][-3:] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["line-length"] == 120
