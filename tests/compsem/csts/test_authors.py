"""compsem/csts/authors.py (make authors-check): the authors' code beside the
``official`` preset. The fast tests check each piece on small inputs worked out by hand; the
slow test runs the whole comparison when the authors' code is given (CSTS_AUTHORS_CODE)."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from compsem.csts import authors as A
from compsem.csts.config import PRESETS
from compsem.errors import DataError


def _driver():
    return A


def _fake_code(folder):
    """A folder shaped like the authors' code, with the lines the edits change (written here)."""
    (folder / "utils" / "sts").mkdir(parents=True)
    (folder / "run_sts.py").write_text(
        "cfg = load(\n    name,\n    use_auth_token=True if x else None,\n)\n"
        "tok = load(\n    use_auth_token=True if x else None,\n    y=1,\n)\n"
        "t = Trainer(\n        model=m,\n        tokenizer=tokenizer,\n    )\n"
    )
    (folder / "utils" / "sts" / "modeling_encoders.py").write_text("b = m(\n  revision=r,\n  use_auth_token=None,\n)\n")
    return folder


def test_patched_copy_edits_the_copy_only(tmp_path):
    code = _fake_code(tmp_path / "code")
    before = (code / "run_sts.py").read_text()
    counts = A.patched_copy(code, tmp_path / "copy")
    assert counts == {
        "run_sts.py: drop use_auth_token=": 2,
        "utils/sts/modeling_encoders.py: drop use_auth_token=": 1,
        "run_sts.py: Trainer(tokenizer=) -> Trainer(processing_class=)": 1,
    }
    text = (tmp_path / "copy" / "run_sts.py").read_text()
    assert "use_auth_token" not in text and "        processing_class=tokenizer,\n" in text and "y=1," in text
    assert (code / "run_sts.py").read_text() == before  # the given folder is never edited
    assert "use_auth_token" not in (tmp_path / "copy" / "utils" / "sts" / "modeling_encoders.py").read_text()


def test_patched_copy_refuses_other_code(tmp_path):
    with pytest.raises(DataError, match="no run_sts.py"):
        A.patched_copy(tmp_path, tmp_path / "copy")
    code = _fake_code(tmp_path / "code")
    (code / "run_sts.py").write_text("print('another commit')\n")
    with pytest.raises(DataError, match="matches nothing"):
        A.patched_copy(code, tmp_path / "copy")


def test_write_split_in_the_authors_columns_and_order(tmp_path):
    df = pd.DataFrame(
        {
            "sentence1": ["a", "b"],
            "sentence2": ["c", "d"],
            "condition": ["x", "y"],
            "label": [1.0, 5.0],
            "pair_id": ["p", "q"],
        }
    )
    files = A.write_split({"train": df, "validation": df.iloc[:1], "test": df.iloc[::-1]}, tmp_path)
    back = pd.read_csv(files["test"])
    assert list(back.columns) == ["sentence1", "sentence2", "condition", "label"]
    assert back["sentence1"].tolist() == ["b", "a"] and files["train"].name == "csts_train.csv"
    with pytest.raises(DataError, match="label"):
        A.write_split({"train": df.drop(columns="label"), "validation": df, "test": df}, tmp_path / "x")


def test_authors_arguments_follow_the_official_preset():
    args = A.authors_args({"train": "t", "validation": "v", "test": "s"}, "m", "o", seed=42)
    val = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
    off = PRESETS["official"]
    assert int(val["--per_device_train_batch_size"]) == off["batch_size"] == 8
    assert int(val["--gradient_accumulation_steps"]) == off["grad_accum"] == 4
    assert float(val["--learning_rate"]) == off["lr"] and float(val["--weight_decay"]) == off["weight_decay"]
    assert int(val["--max_seq_length"]) == off["max_length"] and val["--pooler_type"] == off["pooling"]
    assert float(val["--warmup_steps"]) == off["warmup_ratio"] and val["--fp16"] == "False"
    assert val["--num_train_epochs"] == str(A.SETTINGS["overrides"]["epochs"]) and val["--seed"] == "42"


def test_read_predictions(tmp_path):
    p = tmp_path / "test_predictions.json"
    p.write_text(json.dumps({"1": 0.5, "0": 0.25}))
    assert A.read_predictions(p, 2).tolist() == [0.25, 0.5]
    with pytest.raises(DataError, match="rows 0..2"):
        A.read_predictions(p, 3)
    p.write_text(json.dumps({"0": float("nan")}))
    with pytest.raises(DataError, match="not finite"):
        A.read_predictions(p, 1)


def test_compare_against_the_pooled_seed_spread():
    # sd of [16, 17] = 0.7071, of [16.2, 16.8] = 0.4243; pooled sqrt((0.5 + 0.18) / 2) = 0.5831
    c = A.compare([16.0, 17.0], [16.2, 16.8])
    assert c["pooled_std"] == pytest.approx(0.34**0.5) and c["difference"] == pytest.approx(0.0) and c["agree"]
    far = A.compare([16.0, 17.0], [17.5, 18.1])  # 16.5 - 17.8 = -1.3, beyond 2 x 0.5831
    assert far["difference"] == pytest.approx(-1.3) and not far["agree"]
    with pytest.raises(ValueError, match="two seeds"):
        A.compare([16.0], [16.0, 17.0])


def test_paired_difference_of_equal_sides_is_zero():
    rng = np.random.default_rng(0)
    gold = rng.uniform(1, 5, 40)
    pred = gold + rng.normal(0, 1, 40)
    ids = np.repeat(np.arange(20), 2)
    d = A.paired_difference([pred], [pred], gold, ids, n_boot=50)
    assert (d["mean"], d["ci_low"], d["ci_high"]) == (0.0, 0.0, 0.0)
    worse = A.paired_difference([pred], [gold + rng.normal(0, 3, 40)], gold, ids, n_boot=200)
    assert worse["mean"] > 0 and worse["ci_low"] <= worse["mean"] <= worse["ci_high"]


def test_a_record_in_words(tmp_path):
    # the committed record's layout with numbers set by hand, so the words do not follow a rerun of the check
    rec = A.load_record()
    rec["seeds"] = [42, 43, 44, 45]
    rec["comparison"].update(authors_mean=16.834, authors_std=0.386, book_mean=16.876, book_std=0.421)
    rec["sides"]["authors"].update(spearman_mean=16.834, spearman_std=0.386)
    rec["sides"]["book"].update(spearman_mean=16.876, spearman_std=0.421)
    rec["paired_difference"].update(mean=-0.05, ci_low=-0.271, ci_high=0.164)
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    v = A.authors_values(61.3, "bi/mse", path=path)
    assert "16.83 ± 0.39" in v["auth_text"] and "16.88 ± 0.42" in v["auth_text"] and "[-0.27, 0.16]" in v["auth_text"]
    assert v["auth_about"] == 17 and "against 61.3 for the `cpu` preset's bi/mse" in v["auth_ft_text"]
    assert "3bacafa" in v["auth_cell_plain"] and "4 seeds" in v["auth_cell_plain"] and "`" not in v["auth_cell_plain"]
    # the committed record itself is read and states its own comparison
    c = A.load_record()["comparison"]
    words = A.authors_values(61.3, "bi/mse")["auth_text"]
    assert f"{c['authors_mean']:.2f} ± {c['authors_std']:.2f}" in words and f"{c['book_mean']:.2f}" in words
    none = A.authors_values(61.3, "bi/mse", path=tmp_path / "absent.json")
    assert "has not been run" in none["auth_ft_text"]
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(DataError, match="not a comparison record"):
        A.load_record(tmp_path / "bad.json")


def test_the_check_says_why_it_cannot_run(tmp_path):
    d = _driver()
    assert "CSTS_AUTHORS_CODE is not set" in d.missing_reason(None, "python")
    assert "no run_sts.py" in d.missing_reason(str(tmp_path), "python")


def test_the_module_probe_passes_a_complete_python_and_names_what_is_missing(tmp_path, monkeypatch):
    import sys

    d = _driver()
    (tmp_path / "run_sts.py").write_text("")
    monkeypatch.setattr(d, "NEEDS", ("json", "csv"))
    assert d.missing_reason(str(tmp_path), sys.executable) is None  # all there: nothing to say
    monkeypatch.setattr(d, "NEEDS", ("json", "no_such_module_xyz", "also_missing_abc"))
    reason = d.missing_reason(str(tmp_path), sys.executable)
    assert "lacks no_such_module_xyz, also_missing_abc" in reason


@pytest.mark.slow
def test_the_authors_code_agrees_with_the_official_preset(tmp_path):
    """Both sides, two seeds each (minutes per run): the means within twice the pooled seed spread."""
    d = _driver()
    code, python = os.environ.get("CSTS_AUTHORS_CODE"), os.environ.get("CSTS_AUTHORS_PYTHON", "python")
    reason = d.missing_reason(code, python)
    if reason:
        pytest.skip(reason)
    rec = d.run_check(code, seeds=(42, 43), python=python, log=lambda *_: None)
    assert len(rec["book_commit"].split("+")[0]) == 40  # the book's commit the record was measured at
    assert len(rec["sides"]["authors"]["spearman_per_seed"]) == 2
    assert rec["comparison"]["agree"], rec["comparison"]


def test_chapter_22_states_the_record_against_its_own_bi_mse(monkeypatch, tmp_path):
    from compsem.csts import study as S
    from compsem.csts import tables as TB
    from compsem.csts import views as V
    from tests.compsem.csts.test_study import _FakeTraining

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    _FakeTraining().install(monkeypatch)
    res = S.run(["sbert-mini"], configs=["cross/mse", "bi/mse"], data="embedded")
    summary = TB.summarise(res.runs, by=("model", "config"), splits=res.eval_splits)
    v = V.finetune_chapter_values(res, summary)
    bi = float(summary.set_index("config").loc["bi/mse", "test_spearman_mean"])
    assert f"against {bi:.1f} for the `cpu` preset's bi/mse in this run" in v["auth_ft_text"]


def test_the_speed_of_each_side_on_the_same_rows(tmp_path):
    """Rates worked out by hand from made-up seconds on the committed record's 6,806 rows."""
    rec = A.load_record()
    rec["sides"]["authors"] = {**rec["sides"]["authors"], "train_seconds": 800.0}
    rec["sides"]["authors"].pop("loop_seconds", None)
    rec["sides"]["authors"].pop("seconds_cover", None)
    rec["sides"]["book"] = {**rec["sides"]["book"], "train_seconds": 400.0}
    rec["sides"]["book"].pop("loop_seconds", None)
    rec.pop("cpu_preset", None)
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    v = A.speed_values(path)
    # 6,806 / 800 = 8.5 rows/s (the whole script: an upper bound), 6,806 / 400 = 17.0, 2.00x
    assert (
        "at 8.5 rows/s in the authors' `run_sts.py` and 17.0 in the book's `official` preset, 2.00× the authors' rate (an upper bound"
        in v["auth_speed_text"]
    )
    assert "the `cpu` preset was not run when this record was written" in v["auth_speed_text"]
    assert v["auth_speed_table"].loc["the authors' training script", "seconds cover"].startswith("whole run_sts.py")
    # the book's seconds are fit's training loop (a record that does not say so is read that way), so the
    # ratio is an upper bound because the authors' seconds cover more
    assert (
        v["auth_speed_table"].loc["the book's official preset", "seconds cover"].startswith("the training loop of fit")
    )
    assert (
        "(an upper bound of the book's lead: the authors' seconds also cover loading and scoring, the book's only"
        in (v["auth_speed_text"])
    )
    # a record with the authors' training loop read and the cpu preset beside: 6,806 / 680.6 = 10.0, / 100 = 68.1
    rec["sides"]["authors"]["loop_seconds"] = 680.6
    rec["cpu_preset"] = {"train_seconds": 100.0, "seconds_cover": "loop", "loop_seconds": 100.0}
    path.write_text(json.dumps(rec))
    v = A.speed_values(path)
    assert (
        "at 10.0 rows/s in the authors' `run_sts.py` and 17.0 in the book's `official` preset, 1.70× the authors' rate;"
        in v["auth_speed_text"]
    )
    assert (
        "the book's `cpu` preset trained the same rows at 68.1 rows/s there, 6.81× the authors' rate"
        in v["auth_speed_text"]
    )
    assert "upper bound" not in v["auth_speed_text"]
    assert v["auth_speed_table"]["seconds cover"].str.startswith(("the Trainer's", "the training loop of fit")).all()
    assert v["auth_speed_table"]["training rows per second"].tolist() == ["10.0", "17.0", "68.1"]
    assert "has not been run" in A.speed_values(tmp_path / "absent.json")["auth_speed_text"]
    # a record whose book side says its seconds cover something unknown is a clear error
    rec["sides"]["book"]["seconds_cover"] = "script"
    path.write_text(json.dumps(rec))
    with pytest.raises(DataError, match="book side's seconds cover 'script'"):
        A.speed_values(path)


def test_the_authors_training_loop_seconds_from_their_trainer(tmp_path):
    assert A.train_runtime(tmp_path) is None  # no train_results.json
    (tmp_path / "train_results.json").write_text(json.dumps({"train_runtime": 412.5, "epoch": 1.0}))
    assert A.train_runtime(tmp_path) == 412.5
    for bad in ("NaN", "-1", '"x"', "true", "[]"):
        (tmp_path / "train_results.json").write_text('{"train_runtime": ' + bad + "}")
        assert A.train_runtime(tmp_path) is None, bad
    (tmp_path / "train_results.json").write_text("not json")
    assert A.train_runtime(tmp_path) is None


def test_a_run_read_back_from_the_run_cache_is_never_timed():
    """A cached run carries the seconds of the run that filled the cache (issue 46: a loaded
    machine's 1,939 s came back in 1.9 s); the timed sides refuse it and keep fresh seconds."""
    fresh = pd.DataFrame({"seed": [42, 43], "train_seconds": [10.0, 12.5], "reused": [False, False]})
    assert A.trained_seconds(fresh).to_dict() == {42: 10.0, 43: 12.5}
    mixed = fresh.assign(reused=[False, True])
    with pytest.raises(RuntimeError, match="1 of 2 book runs came from the run cache"):
        A.trained_seconds(mixed)


def test_reuse_false_trains_although_the_run_cache_holds_the_run(monkeypatch, tmp_path):
    from compsem.csts import study as S

    from .test_study import _FakeTraining

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path))
    fake = _FakeTraining().install(monkeypatch)
    S.run(["sbert-mini"], configs=["bi/mse"], data="embedded")
    assert S.run(["sbert-mini"], configs=["bi/mse"], data="embedded").runs["reused"].all() and fake.fits == 1
    again = S.run(["sbert-mini"], configs=["bi/mse"], data="embedded", reuse=False)
    assert fake.fits == 2 and not again.runs["reused"].any()
    assert A.trained_seconds(again.runs).tolist() == [2.0]


def test_make_bench_runs_the_check_only_where_the_code_is_given(monkeypatch, capsys):
    monkeypatch.delenv("CSTS_AUTHORS_CODE", raising=False)
    assert A.main(["--if-available"]) == 0  # make bench: the committed record stays, no failure
    assert A.main([]) == 2  # make authors-check: asked for, so its absence fails
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("authors-check not run: CSTS_AUTHORS_CODE is not set" in e for e in err)
