"""The chapter runner and the command line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compsem.book.running.runner import parameters_of, parse_value, run_notebook
from tests.helpers import ROOT


TOOLKIT = ROOT / "notebooks" / "00_toolkit.ipynb"


def test_parse_value():
    assert parse_value('["sbert-mini", "use"]') == ["sbert-mini", "use"]
    assert parse_value("3") == 3 and parse_value("0.5") == 0.5 and parse_value("true") is True
    assert parse_value("sbert-mini") == "sbert-mini"
    assert parse_value('"42"') == "42"


def test_every_notebook_has_a_parameters_cell_and_no_outputs():
    for nb_path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert code and "parameters" in code[0].get("metadata", {}).get("tags", []), nb_path.name
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), nb_path.name


def test_unknown_parameter_is_rejected_with_the_list():
    assert "models" in parameters_of(TOOLKIT)
    with pytest.raises(ValueError, match="no parameter.*modles.*models"):
        run_notebook(TOOLKIT, {"modles": ["bow"]}, out="/tmp/never")


@pytest.mark.slow
def test_toolkit_runs_with_small_parameters_and_leaves_the_book_alone(tmp_path, monkeypatch):
    book_results = tmp_path / "book-results"
    monkeypatch.setenv("COMPSEM_RESULTS", str(book_results))
    out = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "compsem",
            "run",
            str(TOOLKIT),
            "-p",
            "models",
            '["bow", "glove-50d"]',
            "-p",
            "sentence_c",
            "The council approved the budget.",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    executed = json.loads((out / "00_toolkit.ipynb").read_text())
    errors = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    measures = (out / "results" / "toolkit" / "measures.csv").read_text()
    assert "glove-50d" in measures and "sbert-mini" not in measures
    assert not book_results.exists()  # the rerun wrote only into its own folder


def test_cli_models_lists_the_panel():
    proc = subprocess.run([sys.executable, "-m", "compsem", "models"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    for spec in ("sbert-mini", "use", "glove-50d", "bow", "sbert-l"):
        assert spec in proc.stdout


def test_cli_reports_errors_in_one_line():
    proc = subprocess.run(
        [sys.executable, "-m", "compsem", "run", "notebooks/nope.ipynb"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 2
    assert "no notebook notebooks/nope.ipynb; available: 00_toolkit.ipynb" in proc.stderr


def test_a_book_run_turns_progress_bars_off_in_the_kernel_and_restores_the_environment(tmp_path, monkeypatch):
    import papermill

    seen = {}

    def fake_execute(src, dst, **kw):
        seen["TQDM_DISABLE"] = os.environ.get("TQDM_DISABLE")
        seen["HF"] = os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS")
        Path(dst).write_text("{}")

    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS", raising=False)
    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    run_notebook(ROOT / "notebooks" / "00_toolkit.ipynb", out=tmp_path / "book", book=True)
    assert seen["TQDM_DISABLE"] == "1" and "TQDM_DISABLE" not in os.environ
    assert seen["HF"] == "1" and "HF_HUB_DISABLE_PROGRESS_BARS" not in os.environ
    run_notebook(ROOT / "notebooks" / "00_toolkit.ipynb", out=tmp_path / "rerun", book=False)
    assert seen["TQDM_DISABLE"] is None and seen["HF"] is None  # an interactive rerun keeps its bars
