"""A new study as a newcomer writes it, in a copy of the repository: the copy, ``new-study``, and
the few lines that fill its stubs (``tests/compsem/book/test_new_study_fast.py`` and the slow
``test_new_study_end_to_end.py`` share them). The study: the cosine between a sentence and its
negation, on four hand-written pairs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

#: The body of every stub ``new-study`` writes (``raise NotWrittenYet(...)``), keyed by
#: ``<module>.<function>``: what the newcomer writes into the faces (``NEWNAME``: the study).
BODIES = {
    "data.load": """return read_table(data_dir("NEWNAME", "pairs.csv"), required=["sentence", "negated"],
                  text_columns=["sentence", "negated"])""",
    "metrics.score": """X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
return (X * Y).sum(1) / (np.linalg.norm(X, axis=1) * np.linalg.norm(Y, axis=1))""",
    "study.planned_texts": """rows = data.load()
texts = list(dict.fromkeys([*rows.sentence, *rows.negated]))
return {m: texts for m in resolve_specs(params.get("models", "panel"), study=STUDY)}""",
    "study.run": """rows = data.load()
scores = {m: metrics.score(embed(list(rows.sentence), m, trust_remote_code=trust_remote_code),
                           embed(list(rows.negated), m, trust_remote_code=trust_remote_code)) for m in models}
return RunRecord.of(models, scores, files=[data_dir(STUDY, "pairs.csv")], trust_remote_code=trust_remote_code)""",
    "report.try_it": """other = "It is not true that " + text
return pd.DataFrame([{"model": m, "cosine with its negation": float(metrics.score(
    embed([text], m, trust_remote_code=trust_remote_code), embed([other], m, trust_remote_code=trust_remote_code))[0])}
    for m in models])""",
}

#: Other lines the newcomer changes: the headline's words, the finding's question (old -> new).
EDITS = {
    "tables.py": [('MEASURE = "score"', 'MEASURE = "cosine"')],
    "report.py": [('"what the mean score says"', '"the mean cosine of a sentence and its negation"')],
    "finding.py": [
        ('"an encoder does what this Part measures"', '"an encoder moves a sentence away from its negation"')
    ],
}

PAIRS = (
    "sentence,negated\nThe cat sleeps.,The cat does not sleep.\nA boy runs home.,No boy runs home.\n"
    "The shop is open.,The shop is not open.\nWe saw the film.,We never saw the film.\n"
)


def copy_repository(dest: Path) -> Path:
    """A git repository at ``dest`` holding this checkout's tracked and unignored files, committed."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-qm", "copy"], cwd=dest, check=True)
    return dest


def environment(repo: Path, tmp: Path) -> dict[str, str]:
    """The environment of a process that runs the copy (its own src/, caches and results)."""
    return {
        **os.environ,
        "PYTHONPATH": str(repo / "src"),
        "COMPSEM_ROOT": str(repo),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "COMPSEM_CACHE": str(tmp / "cache"),
        "COMPSEM_RESULTS": str(tmp / "results"),
        "COMPSEM_CACHE_OVERLAY": str(tmp / "overlay"),
        "TQDM_DISABLE": "1",
    }


def run(cmd: list[str], cwd: Path, env: dict, *, check: bool = True, timeout: int = 900) -> subprocess.CompletedProcess:
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert out.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{out.stdout[-4000:]}\n{out.stderr[-3000:]}"
    return out


def scaffold(repo: Path, name: str, part: int, env: dict, *extra: str) -> None:
    """``python -m compsem new-study`` in the copy, as a newcomer runs it."""
    run(
        [
            sys.executable,
            "-W",
            "ignore",
            "-m",
            "compsem",
            "new-study",
            name,
            "--part",
            str(part),
            "--title",
            "Negation, small",
            "--citation",
            f"{name}2030",
            *extra,
        ],
        repo,
        env,
    )


def fill(repo: Path, name: str) -> dict[str, int]:
    """Write the study's stubs, data and tests as a newcomer would; return the lines written per
    kind (``faces``: the stubs' bodies and edited lines, ``data``, ``tests``)."""
    pkg = repo / "src" / "compsem" / name
    written = {"faces": 0, "data": 0, "tests": 0}
    for where, body in BODIES.items():
        module, function = where.split(".")
        path = pkg / f"{module}.py"
        stub = f"    raise NotWrittenYet({f'compsem.{name}.{where} is not written yet'!r})\n"
        text = path.read_text()
        assert stub in text, f"new-study wrote no stub for {where}"
        lines = body.replace("NEWNAME", name).splitlines()
        path.write_text(text.replace(stub, "".join(f"    {line}\n" for line in lines)))
        written["faces"] += len(lines)
    for module, edits in EDITS.items():
        path = pkg / module
        text = path.read_text()
        for old, new in edits:
            assert old in text, (module, old)
            text = text.replace(old, new)
            written["faces"] += 1
        path.write_text(text)
    (repo / "data" / name / "pairs.csv").write_text(PAIRS)
    written["data"] += len(PAIRS.splitlines())
    tests = {
        "data": "def test_four_pairs():\n    assert len(data.load()) == 4\n",
        "metrics": "def test_cosine_by_hand():\n    assert metrics.score([[1, 0]], [[1, 1]])[0] == pytest.approx(0.5 ** 0.5)\n",
        "study": "def test_plans_every_text():\n    assert len(study.planned_texts({'models': ['bow']})['bow']) == 8\n",
        "tables": "def test_one_row_per_model():\n    assert list(tables.main_table(study.run(['bow']), n_boot=20).model) == ['bow']\n",
        "report": "def test_try_it():\n    assert len(report.try_it('A dog barks.', ['bow'])) == 1\n",
        "finding": "def test_a_sentence():\n    assert finding.FINDING.question.startswith('an encoder')\n",
    }
    for face, body in tests.items():
        text = f"import pytest\n\nfrom compsem.{name} import {face}{', study' if face == 'tables' else ''}\n\n\n{body}"
        (repo / "tests" / "compsem" / name / f"test_{face}.py").write_text(text)
        written["tests"] += len(text.splitlines())
    return written


def changed(repo: Path) -> list[str]:
    """The paths ``git status`` shows as changed or new in the copy."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    return [line[3:] for line in out]


def allowed(name: str, part: int) -> tuple[str, ...]:
    """Where a study may write: its own places."""
    return (
        f"src/compsem/{name}/",
        f"notebooks/{part}",
        f"book/part{part}_{name}",
        f"tests/compsem/{name}/",
        f"data/{name}/",
        f"data/reference/{name}_",
        f"data/reference/paper_models/{name}.csv",
    )


#: The shared files the scaffold edits, and nothing else outside the study.
SHARED = {"_toc.yml", "src/compsem/studies.py", "studies.mk", "references.bib"}
