"""The registry drives everything (issues 28 and 38): in a copy of the repository, ``new-study``
writes a throwaway study and its stubs are filled with a few lines (``tests/helpers/newstudy.py``);
then the contract and registry tests, ``plan`` and ``run`` of its chapter as the scaffold wrote
it, the synthesis and try-it chapters (``bow``, offline), chapter 98 and the appendix all find
it, while ``git status`` shows no file outside the study's own places but the scaffold's edits of
``_toc.yml``, the registry (with ``studies.mk``) and ``references.bib``."""

import json
import sys

import pandas as pd
import pytest

from compsem.book.authoring.scaffold import ROMAN
from compsem.studies import STUDIES
from tests.helpers.newstudy import SHARED, allowed, changed, copy_repository, environment, fill, run, scaffold

NAME = "negsim"  # a name no other code uses as a word
PART = max(s.part for s in STUDIES) + 1
CHAPTER = f"{PART}1_{NAME}_main"


def _outputs(nb_path) -> str:
    """Every text and HTML output of an executed notebook, glued values too, joined."""
    parts = []
    for cell in json.loads(nb_path.read_text())["cells"]:
        for o in cell.get("outputs", []):
            for key in (
                "text/markdown",
                "text/plain",
                "text/html",
                "application/papermill.record/text/markdown",
                "application/papermill.record/text/plain",
            ):
                v = o.get("data", {}).get(key)
                parts.append("".join(v) if isinstance(v, list) else (v or ""))
            parts.append("".join(o.get("text", "")) if isinstance(o.get("text"), list) else o.get("text", ""))
    return "\n".join(parts)


@pytest.mark.slow
def test_a_new_study_is_its_package_plus_one_line(tmp_path):
    repo = copy_repository(tmp_path / "repo")
    env = environment(repo, tmp_path)
    py = [sys.executable, "-W", "ignore", "-m"]
    scaffold(repo, NAME, PART, env)
    lines = fill(repo, NAME)
    print(f"lines the newcomer wrote: {lines}")
    assert lines["faces"] + lines["tests"] < 100, lines

    contract = run(
        [
            *py,
            "pytest",
            "-v",
            "-p",
            "no:cacheprovider",
            "-m",
            "not slow",
            "tests/compsem/test_contract.py",
            "tests/compsem/test_studies.py",
            f"tests/compsem/{NAME}",
        ],
        repo,
        env,
    ).stdout
    assert "FAILED" not in contract
    assert f"test_the_repository_holds_what_the_study_needs[{NAME}] PASSED" in contract
    assert f"test_every_face_is_written_and_answers_a_tiny_input[{NAME}] PASSED" in contract
    assert "test_no_code_outside_a_study_names_it PASSED" in contract
    plan = run([*py, "compsem", "plan", f"notebooks/{CHAPTER}.ipynb", "-p", "models", '["bow"]'], repo, env).stdout
    assert "bow" in plan
    out = tmp_path / "runs"
    run(
        [
            *py,
            "compsem",
            "run",
            f"notebooks/{CHAPTER}.ipynb",
            "-p",
            "models",
            '["bow", "random"]',
            "--out",
            str(out / "chapter"),
            "--quiet",
        ],
        repo,
        env,
    )
    table = pd.read_csv(out / "chapter" / "results" / NAME / "main.csv")
    assert list(table.model) == ["bow", "random"] and (table.cosine.iloc[:1] < 1).all()
    shown = _outputs(out / "chapter" / f"{CHAPTER}.ipynb")
    assert "has the highest mean cosine" in shown or "clear of" in shown or "indistinguishable" in shown

    run(
        [
            *py,
            "compsem",
            "run",
            "notebooks/90_synthesis.ipynb",
            "-p",
            "models",
            '["bow"]',
            "-p",
            "controls",
            "[]",
            "-p",
            "n_boot",
            "50",
            "--out",
            str(out / "synthesis"),
            "--quiet",
        ],
        repo,
        env,
    )
    profile = pd.read_csv(out / "synthesis" / "results" / "synthesis" / "profile.csv")
    assert NAME.upper() in set(profile.astype(str).stack()), "the synthesis profile has no row of the new study"
    synthesis = _outputs(out / "synthesis" / "90_synthesis.ipynb")
    roman = f"Part {ROMAN[PART]}"
    assert "*Negation, small.*" in synthesis  # the study's paragraph of findings
    assert "an encoder moves a sentence away from its negation" in synthesis  # chapter 90's introduction
    assert roman in synthesis
    run(
        [
            *py,
            "compsem",
            "run",
            "notebooks/91_try_it.ipynb",
            "-p",
            "models",
            '["bow"]',
            "--out",
            str(out / "tryit"),
            "--quiet",
        ],
        repo,
        env,
    )
    tryit = _outputs(out / "tryit" / "91_try_it.ipynb")
    assert "negation, small.**" in tryit and "cosine with its negation" in tryit
    run([*py, "compsem", "run", "notebooks/98_cluster_scale.ipynb", "--out", str(out / "scale"), "--quiet"], repo, env)
    assert "no paper panel" in _outputs(out / "scale" / "98_cluster_scale.ipynb")
    run(
        [*py, "compsem", "run", "notebooks/99_reproducibility.ipynb", "--out", str(out / "appendix"), "--quiet"],
        repo,
        env,
    )
    assert f"{NAME}/pairs.csv" in _outputs(out / "appendix" / "99_reproducibility.ipynb")

    paths = changed(repo)
    outside = [p for p in paths if p not in SHARED and not p.startswith(allowed(NAME, PART))]
    assert not outside, f"adding a study touched files outside it: {outside}"
    assert {p for p in paths if p in SHARED} == SHARED
