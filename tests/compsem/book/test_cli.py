"""compsem/book/cli.py: the verbs' wiring and the one-line error (each verb's own behaviour is
tested beside the module it runs: test_plan.py::test_cli_plan, test_runner.py::test_cli_*,
test_cache.py, test_checkbook.py, test_scaffold.py)."""

import pytest

from compsem.book.cli import main
from compsem.studies import STUDIES


def test_models_lists_the_specs_and_where_the_papers_models_are(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "bow" in out and "data/reference/paper_models/ lists the papers' models." in out


def test_an_error_is_one_readable_line_and_exit_status_2(capsys, monkeypatch):
    monkeypatch.delenv("COMPSEM_DEBUG", raising=False)
    assert main(["run", "notebooks/nothere.ipynb"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "error: FileNotFoundError: no notebook notebooks/nothere.ipynb; available: "
    )
    assert main(["new-study", STUDIES[0].name, "--part", "7", "--title", "x", "--citation", "k"]) == 2
    assert f"error: CompsemError: the registry has '{STUDIES[0].name}'" in capsys.readouterr().err


def test_every_verb_is_offered(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for verb in ("run", "plan", "prefetch", "models", "cache", "bench", "models-extra", "stage", "new-study"):
        assert verb in out, verb
