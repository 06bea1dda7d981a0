"""Timed lab runs (compsem.book.teaching.labtime): run as the guide prints them, from empty caches."""

import json
import os
from pathlib import Path

import pytest

from compsem.book.running import runner
from compsem.book.teaching import courseguide as cg
from compsem.book.teaching import labtime
from compsem.faces import LabStep
from compsem.studies import STUDIES
from tests.helpers import ROOT

STUDY = STUDIES[0]


def test_the_key_depends_on_the_parameters_not_their_order():
    a = LabStep("x", "22_csts_finetune.ipynb", {"configs": ["bi/mse"], "train_pairs": 300})
    b = LabStep("y", "22_csts_finetune.ipynb", {"train_pairs": 300, "configs": ["bi/mse"]})
    c = LabStep("x", "22_csts_finetune.ipynb", {"configs": ["bi/mse"], "train_pairs": 301})
    assert labtime.lab_key(a) == labtime.lab_key(b) != labtime.lab_key(c)
    assert (
        labtime.lab_key(a).startswith("22_csts_finetune_") and len(labtime.lab_key(a)) == len("22_csts_finetune_") + 8
    )
    assert labtime.glue_name(a) == "labtime_min_" + labtime.lab_key(a)


def test_a_timed_run_uses_fresh_private_caches_and_restores_the_environment(tmp_path, monkeypatch):
    seen = []

    def fake_run(nb, params, *, out, progress):
        cache = Path(os.environ["COMPSEM_CACHE"])
        seen.append(
            {
                "nb": Path(nb).name,
                "params": params,
                "cache": cache,
                "overlay": os.environ["COMPSEM_CACHE_OVERLAY"],
                "exists": cache.parent.is_dir(),
                "mode": cache.parent.stat().st_mode & 0o777,
                "empty": not any(cache.parent.iterdir()),
            }
        )
        Path(out).mkdir(parents=True)
        (Path(out) / f"{Path(nb).stem}.runtime.json").write_text(json.dumps({"seconds": 90.0}))

    monkeypatch.setattr(runner, "run_notebook", fake_run)
    monkeypatch.setenv("COMPSEM_CACHE", "/srv/class/cache")
    monkeypatch.delenv("COMPSEM_CACHE_OVERLAY", raising=False)
    step = LabStep("a lab", "11_setcomp_overlap.ipynb", {"models": ["bow"]}, timed=True)
    rows = labtime.run_timed(tmp_path, [(STUDY, step)], log=lambda *_: None)
    assert seen[0]["nb"] == "11_setcomp_overlap.ipynb" and seen[0]["params"] == {"models": ["bow"]}
    assert seen[0]["cache"] != Path("/srv/class/cache") and seen[0]["exists"] and seen[0]["empty"]
    assert seen[0]["mode"] == 0o700
    assert not seen[0]["cache"].parent.exists()  # removed afterwards
    assert os.environ["COMPSEM_CACHE"] == "/srv/class/cache" and "COMPSEM_CACHE_OVERLAY" not in os.environ
    assert rows == [
        {
            "key": labtime.lab_key(step),
            "study": STUDY.name,
            "notebook": "11_setcomp_overlap.ipynb",
            "parameters": {"models": ["bow"]},
            "seconds": 90.0,
        }
    ]
    assert labtime.records(tmp_path) == rows
    assert labtime.time_values(tmp_path) == {labtime.glue_name(step): 1.5}
    t = labtime.table(tmp_path)
    assert list(t["chapter"]) == ["11_setcomp_overlap.ipynb"] and list(t["minutes"]) == [
        "1.5"
    ]  # formatted (fmt.number)
    assert list(t["parameters"]) == ["models bow"]  # words, not a Python list


def test_a_failed_run_restores_the_environment_and_writes_no_record(tmp_path, monkeypatch):
    def boom(nb, params, *, out, progress):
        raise RuntimeError("kernel died")

    monkeypatch.setattr(runner, "run_notebook", boom)
    monkeypatch.delenv("COMPSEM_CACHE", raising=False)
    with pytest.raises(RuntimeError, match="kernel died"):
        labtime.run_timed(
            tmp_path,
            [(STUDY, LabStep("a", "11_setcomp_overlap.ipynb", {"models": ["bow"]}, True))],
            log=lambda *_: None,
        )
    assert "COMPSEM_CACHE" not in os.environ and not (tmp_path / labtime.RECORD).exists()


def test_a_timed_step_without_parameters_is_refused(tmp_path):
    with pytest.raises(ValueError, match="needs parameters"):
        labtime.run_timed(tmp_path, [(STUDY, LabStep("a", "00_toolkit.ipynb", None, True))], log=lambda *_: None)


def test_no_record_means_no_values(tmp_path):
    assert labtime.records(tmp_path) == [] and labtime.time_values(tmp_path / "none") == {}
    assert len(labtime.table(tmp_path)) == 0


def test_the_guide_states_each_timed_run_with_its_command():
    steps = labtime.timed_steps()
    assert steps, "a lesson has a timed lab (Part II's fine-tuning at lab size)"
    guide = cg.page_text(ROOT / "book" / "course_guide.md", ROOT)
    for _, step in steps:
        line = f"99_reproducibility.ipynb::{labtime.glue_name(step)}:.1f` min"
        assert line in guide
        after = guide[guide.index(line) :]
        assert after.index(f"`{cg.command('run', step)}`") < after.index("\n* ")  # its command, on its line
        assert f"`{cg.command('prefetch', step)}`" in guide
