"""The registry drives everything (issue 28): in a copy of the repository, ``new-study`` writes a
throwaway study, its faces are filled with a tiny metric, and then the contract test, ``plan``
and ``run`` of its chapter, the synthesis and try-it chapters (``bow``, offline), chapter 98 and
the appendix all find it, while no file outside the study's own places, ``_toc.yml``, the
registry (with ``studies.mk``) and its citation in ``references.bib`` is edited."""

import json
import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from compsem.studies import STUDIES
from tests.helpers import ROOT

NAME = "negsim"   # a name no other code uses as a word
PART = max(s.part for s in STUDIES) + 1
CHAPTER = f"{PART}1_{NAME}_main"

#: The faces filled in as a contributor would: the cosine between a sentence and its negation.
FILLED = {
    "data.py": '''"""The new study's data: sentences and their negations."""
from __future__ import annotations

import pandas as pd

from ..data import read_table
from ..paths import data_dir

__all__ = ["load"]


def load() -> pd.DataFrame:
    """The study's ``pairs.csv``: sentence, negated."""
    return read_table(data_dir("NEWNAME", "pairs.csv"), required=["sentence", "negated"], text_columns=["sentence", "negated"])
''',
    "metrics.py": '''"""The new study's maths."""
from __future__ import annotations

import numpy as np

__all__ = ["score"]


def score(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Row-wise cosine of ``X`` and ``Y`` (``(n, d)`` each) -> ``(n,)``."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    return (X * Y).sum(1) / (np.linalg.norm(X, axis=1) * np.linalg.norm(Y, axis=1))
''',
    "study.py": '''"""The new study: resolve, plan, embed and run."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..cache import embed
from ..encoders import check_available
from ..encoders import resolve_models as resolve_specs
from ..faces import PaperRun
from ..work import WorkUnit, embed_units
from .data import load
from .metrics import score

__all__ = ["STUDY", "PAPER_RUN", "resolve_models", "planned_texts", "planned_work", "run", "Run"]

STUDY = "NEWNAME"
PAPER_RUN: PaperRun | None = PaperRun("CHAPTER.ipynb", {"models": "paper"})


@dataclass
class Run:
    models: list[str]
    scores: dict = field(default_factory=dict)

    def provenance(self) -> dict:
        return {"models": list(self.models), "pairs": len(load())}


def resolve_models(models, *, trust_remote_code: bool = False) -> list[str]:
    specs = resolve_specs(models, study=STUDY, trust_remote_code=trust_remote_code)
    check_available(specs, trust_remote_code=trust_remote_code, study=STUDY)
    return specs


def planned_texts(params: dict) -> dict[str, list[str]]:
    pairs = load()
    texts = list(dict.fromkeys([*pairs.sentence, *pairs.negated]))
    return {m: texts for m in resolve_specs(params["models"], study=STUDY)}


def planned_work(params: dict, *, rates=None, chunk=None) -> list[WorkUnit]:
    return embed_units(STUDY, planned_texts(params), chunk=chunk, rates=rates)


def run(models: list[str], *, trust_remote_code: bool = False) -> Run:
    pairs = load()
    out = Run(list(models))
    for m in models:
        out.scores[m] = score(embed(list(pairs.sentence), m, trust_remote_code=trust_remote_code),
                              embed(list(pairs.negated), m, trust_remote_code=trust_remote_code))
    return out
''',
    "tables.py": '''"""The new study's table."""
from __future__ import annotations

import pandas as pd

from ..stats import bootstrap
from .study import Run

__all__ = ["main_table"]


def main_table(run: Run, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    rows = []
    for m, s in run.scores.items():
        r = bootstrap(s, n_boot=n_boot, seed=seed, warn=False)
        rows.append({"model": m, "cosine": r.estimate, "low": r.low, "high": r.high})
    return pd.DataFrame(rows)
''',
    "report.py": '''"""The new study's report."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .. import reference
from ..results import Headline, bootstrap_headline
from . import study
from .tryit import TRY_IT

__all__ = ["TRY_IT", "HEADLINES", "values", "paper_table", "headlines", "try_it"]

HEADLINES: tuple[Headline, ...] = (
    Headline(key="NEWKEY", part="ROMAN", label="negation moves the sentence", unit="%", reference=0.0,
             resampled="sentence pairs", meaning="share of pairs whose cosine is below 0.99"),
)


def paper_table(name: str) -> pd.DataFrame:
    return reference.paper_table("NEWNAME", name)


def values(view: str, *args, **kwargs) -> dict[str, object]:
    table, = args
    return {"n_models": len(table)}


def headlines(models: Sequence[str], *, trust_remote_code: bool = False, n_boot: int = 1000,
              seed: int = 0) -> list[dict]:
    r = study.run(list(models), trust_remote_code=trust_remote_code)
    return [bootstrap_headline(HEADLINES[0], m, s < 0.99, n_boot=n_boot, seed=seed, scale=100)
            for m, s in r.scores.items()]


def try_it(text: str, models: Sequence[str], *, trust_remote_code: bool = False) -> pd.DataFrame:
    from ..cache import embed
    from .metrics import score
    negated = "It is not true that " + text
    return pd.DataFrame([{"model": m, "cosine with its negation": float(score(
        embed([text], m, trust_remote_code=trust_remote_code), embed([negated], m, trust_remote_code=trust_remote_code))[0])}
        for m in models])
''',
}
PAIRS = "sentence,negated\nThe cat sleeps.,The cat does not sleep.\nA boy runs home.,No boy runs home.\n" \
        "The shop is open.,The shop is not open.\nWe saw the film.,We never saw the film.\n"

#: Where a study may write: its own places, plus the three shared files a study is listed in.
ALLOWED = (f"src/compsem/{NAME}/", f"notebooks/{PART}", f"book/part{PART}_{NAME}", f"tests/compsem/{NAME}/",
           f"data/{NAME}/", f"data/reference/{NAME}_", f"data/reference/paper_models/{NAME}.csv")
SHARED = {"_toc.yml", "src/compsem/studies.py", "studies.mk", "references.bib"}


def _run(cmd, cwd, env, timeout=900):
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def _outputs(nb_path) -> str:
    """Every text and HTML output of an executed notebook, joined."""
    parts = []
    for cell in json.loads(nb_path.read_text())["cells"]:
        for o in cell.get("outputs", []):
            for key in ("text/markdown", "text/plain", "text/html"):
                v = o.get("data", {}).get(key)
                parts.append("".join(v) if isinstance(v, list) else (v or ""))
            parts.append("".join(o.get("text", "")) if isinstance(o.get("text"), list) else o.get("text", ""))
    return "\n".join(parts)


@pytest.mark.slow
def test_a_new_study_is_its_package_plus_one_line(tmp_path):
    repo = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, repo / rel)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "copy"], cwd=repo, check=True)
    env = {**os.environ, "PYTHONPATH": str(repo / "src"), "COMPSEM_ROOT": str(repo), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "COMPSEM_CACHE": str(tmp_path / "cache"),
           "COMPSEM_RESULTS": str(tmp_path / "results"), "TQDM_DISABLE": "1"}
    py = [sys.executable, "-W", "ignore", "-m"]

    _run([*py, "compsem", "new-study", NAME, "--part", str(PART), "--title", "Negation, small",
          "--citation", "tiny2030"], repo, env)
    pkg = repo / "src" / "compsem" / NAME
    for face, text in FILLED.items():
        (pkg / face).write_text(text.replace("CHAPTER", CHAPTER).replace("ROMAN", "V").replace("NEWNAME", NAME)
                                 .replace("NEWKEY", NAME.upper()))
    (repo / "data" / NAME / "pairs.csv").write_text(PAIRS)
    for face in ("data", "metrics", "study", "tables", "report"):   # the tests, written
        (repo / "tests" / "compsem" / NAME / f"test_{face}.py").write_text(
            f"from compsem.{NAME} import {face}\n\n\ndef test_imports():\n    assert {face}.__all__\n")

    contract = _run([*py, "pytest", "-v", "-p", "no:cacheprovider", "tests/compsem/test_contract.py",
                     "tests/compsem/test_studies.py", f"tests/compsem/{NAME}"], repo, env)
    assert "FAILED" not in contract
    assert f"test_the_repository_holds_what_the_study_needs[{NAME}] PASSED" in contract
    assert "test_no_code_outside_a_study_names_it PASSED" in contract
    plan = _run([*py, "compsem", "plan", f"notebooks/{CHAPTER}.ipynb", "-p", "models", '["bow"]'], repo, env)
    assert "bow" in plan
    out = tmp_path / "runs"
    _run([*py, "compsem", "run", f"notebooks/{CHAPTER}.ipynb", "-p", "models", '["bow"]', "--out",
          str(out / "chapter"), "--quiet"], repo, env)
    table = pd.read_csv(out / "chapter" / "results" / NAME / "main.csv")
    assert list(table.model) == ["bow"] and (table.cosine < 1).all()

    _run([*py, "compsem", "run", "notebooks/90_synthesis.ipynb", "-p", "models", '["bow"]', "-p", "controls", "[]",
          "-p", "n_boot", "50", "--out", str(out / "synthesis"), "--quiet"], repo, env)
    profile = pd.read_csv(out / "synthesis" / "results" / "synthesis" / "profile.csv")
    assert NAME.upper() in set(profile.astype(str).stack()), "the synthesis profile has no row of the new study"
    _run([*py, "compsem", "run", "notebooks/91_try_it.ipynb", "-p", "models", '["bow"]', "--out",
          str(out / "tryit"), "--quiet"], repo, env)
    tryit = _outputs(out / "tryit" / "91_try_it.ipynb")
    assert "**Part V: negation, small.**" in tryit and "cosine with its negation" in tryit
    _run([*py, "compsem", "run", "notebooks/98_cluster_scale.ipynb", "--out", str(out / "scale"), "--quiet"],
         repo, env)
    assert "no paper panel" in _outputs(out / "scale" / "98_cluster_scale.ipynb")
    _run([*py, "compsem", "run", "notebooks/99_reproducibility.ipynb", "--out", str(out / "appendix"), "--quiet"],
         repo, env)
    assert f"{NAME}/pairs.csv" in _outputs(out / "appendix" / "99_reproducibility.ipynb")

    changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                             capture_output=True, text=True, check=True).stdout.splitlines()
    paths = [line[3:] for line in changed]
    outside = [p for p in paths if p not in SHARED and not p.startswith(ALLOWED)]
    assert not outside, f"adding a study touched files outside it: {outside}"
    assert {p for p in paths if p in SHARED} == SHARED
