"""A model of the wrong kind is refused before the kernel starts, in every chapter with a
``models`` parameter, and leaves no run folder (issue 36: chapters 00, 90 and 91 used to fail
inside the kernel, leaving a run folder in state "failed")."""

from pathlib import Path

import pytest

from compsem.book.running.plan import check_models, model_slot, notebook_parameters
from compsem.book.running.runner import run_notebook
from compsem.encoders.kinds import ModelKindError
from tests.helpers import ROOT

#: A spec of another kind than each slot takes (a Part IV scorer takes every kind: none is wrong).
WRONG = {"encoder": "gen:hf:gpt2", "finetune": "gen:hf:gpt2", "generator": "sbert-mini"}

CHAPTERS = [nb for nb in sorted((ROOT / "notebooks").glob("*.ipynb")) if "models" in notebook_parameters(nb)]


def test_every_chapter_with_models_has_a_slot():
    assert CHAPTERS
    for nb in CHAPTERS:
        assert model_slot(nb) is not None, nb.name


@pytest.mark.parametrize("nb", [nb for nb in CHAPTERS if model_slot(nb).kind in WRONG], ids=lambda p: p.stem)
def test_a_wrong_kind_is_refused_before_the_kernel_and_leaves_no_folder(nb, tmp_path, monkeypatch):
    wrong = WRONG[model_slot(nb).kind]
    with pytest.raises(ModelKindError, match="gen:hf:gpt2|sbert-mini"):
        check_models(nb, {**notebook_parameters(nb), "models": [wrong]})
    monkeypatch.setenv("COMPSEM_ROOT", str(tmp_path / "root"))  # a default runs/ folder would land here
    out = tmp_path / "out"
    for target in (out, None):
        with pytest.raises(ModelKindError):
            run_notebook(nb, {"models": [wrong]}, out=target, progress=False)
    assert not out.exists() and not (tmp_path / "root").exists()
    assert not list(Path(tmp_path).rglob("compsem-run.json"))
