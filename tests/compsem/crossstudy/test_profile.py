"""``python -m compsem profile``: the files it writes, their schema, their agreement with the
synthesis, the cache, and its refusals.

The fast tests profile ``glove-50d`` and ``bow`` (quick, offline, no weights to load) on the
studies whose headlines can cut their data, with few bootstrap draws; the slow one runs the
command the book shows, as it shows it, on every study. The expected numbers come from
:func:`compsem.crossstudy.synthesis.profile` called on all the models at once (not through the
files), the folder names from the encoders' identities hashed here, and the paired words from
the replicates' differences worked out here."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shlex
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from compsem.book.checks.shown import collect
from compsem.book.cli import main
from compsem.crossstudy import profile as profiling, synthesis
from compsem.encoders import get_encoder
from compsem.studies import STUDIES
from tests.helpers import ROOT

MODELS = ["glove-50d", "bow"]
#: the studies that can cut their data (the fast tests' studies), from the registry
CUTTABLE = [s.name for s in STUDIES if synthesis.takes_limit(s.name)]
SCHEMA = {k: json.loads((ROOT / "data" / "profile" / f"{k}.schema.json").read_text()) for k in ("study", "summary")}


def _folder(spec: str) -> str:
    """``spec/<hub revision or file digest>``, where the identity names weights, else
    ``spec/<first 12 hex digits of the identity's SHA-256>`` (the panel's specs need no escaping)."""
    identity = get_encoder(spec).identity
    parts = dict(p.split("=", 1) for p in identity.split("|") if "=" in p)
    return f"{spec}/{parts.get('weights') or hashlib.sha256(identity.encode()).hexdigest()[:12]}"


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    rc = main(["profile", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _validate_all(out: Path) -> int:
    n = 0
    for p in sorted(out.rglob("*.json")):
        kind = "summary" if p.name == "profile.json" else "study"
        jsonschema.Draft202012Validator(SCHEMA[kind]).validate(json.loads(p.read_text()))
        n += 1
    return n


def _agrees_with_synthesis(out: Path, runs: list[str], studies: list[str], *, n_boot: int, limit: int) -> None:
    got = profiling.read(out, runs, studies=studies)
    want = synthesis.profile(runs, n_boot=n_boot, seed=0, studies=studies, limit=limit)
    pd.testing.assert_frame_equal(got.drop(columns="replicates"), want.drop(columns="replicates"))
    for a, b in zip(got.replicates, want.replicates):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)


@pytest.fixture(scope="module")
def fast(tmp_path_factory):
    """One quick profile, and a second identical run with the embedding log on."""
    if not CUTTABLE:
        pytest.skip("no study of the registry can cut its data")
    out = tmp_path_factory.mktemp("prof") / "out"
    args = [*MODELS, "--studies", *CUTTABLE, "--limit", "20", "--n-boot", "60", "--device", "cpu", "--out", str(out)]
    mp = pytest.MonkeyPatch()
    log = out.parent / "embed.log"
    try:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc1 = main(["profile", *args])
        first = _files(out)
        mp.setenv("COMPSEM_EMBED_LOG", str(log))
        with contextlib.redirect_stdout(io.StringIO()):
            rc2 = main(["profile", *args])
    finally:
        mp.undo()
    return {"out": out, "rc": (rc1, rc2), "printed": buf.getvalue(), "first": first, "second": _files(out), "log": log}


def test_profile_writes_one_file_per_model_and_study_and_the_summary(fast):
    assert fast["rc"] == (0, 0)
    runs = MODELS + ["random"]  # the synthesis chapter's controls are bow and random
    assert profiling.panel_controls() == ["bow", "random"]
    expected = {f"{_folder(m)}/{s}.json" for m in runs for s in CUTTABLE} | {"profile.json", "profile.md"}
    assert set(fast["first"]) == expected


def test_every_file_fits_the_schema(fast):
    assert _validate_all(fast["out"]) == len(fast["first"]) - 1  # every file but profile.md


def test_the_files_agree_with_the_synthesis(fast):
    _agrees_with_synthesis(fast["out"], MODELS + ["random"], CUTTABLE, n_boot=60, limit=20)


def test_a_study_file_says_what_it_is(fast):
    first_headline = {s.name: s.module("report").HEADLINES[0].key for s in STUDIES}
    for s in CUTTABLE:
        doc = json.loads(fast["first"][f"{_folder('glove-50d')}/{s}.json"])
        assert doc["study"] == s and doc["role"] == "model" and doc["limit"] == 20 and doc["limited"] is True
        assert doc["model"]["identity"] == get_encoder("glove-50d").identity and doc["seed"] == 0
        assert doc["n_boot"] == 60 and doc["controls"] == ["bow", "random"] and doc["device"] == "cpu"
        assert doc["precision"] == "float32"  # no dtype= in the identity: the encoders' default
        assert doc["main_criterion"] == first_headline[s]
        assert doc["main_score"] == doc["findings"][0]["value"]
        # the shipped data's checksum, worked out here
        shipped = sorted(p for p in (ROOT / "data" / s).rglob("*") if p.is_file())
        for p in shipped:
            assert doc["data"][p.relative_to(ROOT / "data").as_posix()] == hashlib.sha256(p.read_bytes()).hexdigest()
        assert json.loads(fast["first"][f"{_folder('bow')}/{s}.json"])["role"] == "control"


def test_the_words_are_the_paired_tests(fast):
    """Each comparison's word from the percentile interval of the replicates' differences,
    worked out here; a bound within one unit of zero is left out (interpolation may move it)."""
    words = {"higher": "above", "lower": "below", "no evidence of a difference": "no evidence of a difference from"}
    checked = 0
    for s in CUTTABLE:
        doc = json.loads(fast["first"][f"{_folder('glove-50d')}/{s}.json"])
        ctrl = {}
        for c in ["bow", "random"]:
            for f in json.loads(fast["first"][f"{_folder(c)}/{s}.json"])["findings"]:
                ctrl[c, f["criterion"]] = f
        for f in doc["own_controls"]:
            ctrl[f["model"], f["criterion"]] = f
        for f in doc["findings"]:
            for c in f["comparisons"]:
                k = ctrl[c["control"], f["criterion"]]
                if f["replicates"] is None or k["replicates"] is None:
                    assert c["outcome"] == "undefined"
                    continue
                d = np.array(f["replicates"], dtype=float) - np.array(k["replicates"], dtype=float)
                lo, hi = np.nanpercentile(d, [2.5, 97.5])
                if min(abs(lo), abs(hi)) < 1:
                    continue
                outcome = "higher" if lo > 0 else "lower" if hi < 0 else "no evidence of a difference"
                assert c["outcome"] == outcome
                assert f"{words[outcome]} `{c['control']}`" in f["verdict"]
                checked += 1
    assert checked > 0


def test_the_table_is_printed_and_written(fast):
    md = fast["first"]["profile.md"].decode()
    assert md in fast["printed"]
    summary = json.loads(fast["first"]["profile.json"])
    headlines = [h for s in STUDIES if s.name in CUTTABLE for h in s.module("report").HEADLINES]
    assert len(summary["rows"]) == 3 * len(headlines) == md.count("\n") - 2
    assert [r["role"] for r in summary["rows"][:3]] == ["model", "control", "control"]
    assert summary["models"] == ["glove-50d"] and summary["failed"] == [] and summary["limited"] is True


def test_a_second_run_embeds_nothing_and_changes_only_the_date(fast):
    assert not fast["log"].exists() or fast["log"].read_text().strip() == ""
    assert set(fast["first"]) == set(fast["second"])
    changed = [k for k in fast["first"] if fast["first"][k] != fast["second"][k]]
    assert changed in ([], ["profile.json"])
    a, b = (json.loads(x["profile.json"]) for x in (fast["first"], fast["second"]))
    assert {**a, "date": None} == {**b, "date": None}


def test_an_unknown_spec_is_refused_and_nothing_is_written(tmp_path, capsys):
    rc, _, err = _run(["glove-50d", "no-such-model", "--out", str(tmp_path / "o")], capsys)
    assert rc != 0 and "no-such-model" in err and "Available: sbert-mini" in err
    assert not (tmp_path / "o").exists()


def test_an_unknown_study_is_refused(tmp_path, capsys):
    rc, _, err = _run(["bow", "--studies", "nostudy", "--out", str(tmp_path / "o")], capsys)
    assert rc != 0 and all(s.name in err for s in STUDIES)
    assert not (tmp_path / "o").exists()


def test_a_folder_others_may_write_is_refused(tmp_path, capsys):
    out = tmp_path / "shared"
    out.mkdir()
    os.chmod(out, 0o777)
    rc, _, err = _run(["bow", "--studies", STUDIES[0].name, "--n-boot", "0", "--out", str(out)], capsys)
    assert rc != 0 and "others may write" in err and list(out.iterdir()) == []


def test_a_failing_study_is_named_and_the_exit_is_not_zero(tmp_path, capsys, monkeypatch):
    study = STUDIES[-1]
    report = study.module("report")

    def broken(models, **kw):
        raise RuntimeError("made to fail")

    monkeypatch.setattr(report, "headlines", broken)
    rc, _, err = _run(["bow", "--studies", study.name, "--n-boot", "0", "--out", str(tmp_path / "o")], capsys)
    assert rc == 1
    assert f"study {study.name} failed for model bow: RuntimeError: made to fail" in err
    summary = json.loads((tmp_path / "o" / "profile.json").read_text())
    assert {(f["model"], f["study"]) for f in summary["failed"]} == {("bow", study.name), ("random", study.name)}


def test_check_loads_embeds_and_validates_without_running_a_study(fast, capsys, monkeypatch):
    def no_study(*a, **kw):
        raise AssertionError("--check ran a study")

    monkeypatch.setattr(synthesis, "profile", no_study)
    rc, printed, _ = _run([*MODELS, "--check", "--out", str(fast["out"])], capsys)
    assert rc == 0
    assert f"glove-50d: loads, embeds 6 of the book's sentences into 50 dimensions ({_folder('glove-50d')})" in printed
    assert f"{len(fast['first']) - 1} files fit the schema" in printed


def test_check_names_a_file_that_does_not_fit(fast, tmp_path, capsys):
    bad = tmp_path / "bad"
    name = f"{_folder('glove-50d')}/{CUTTABLE[0]}.json"
    doc = json.loads(fast["first"][name]) | {"seed": "zero"}
    (bad / name).parent.mkdir(parents=True)
    (bad / name).write_text(json.dumps(doc))
    rc, _, err = _run(["bow", "--check", "--out", str(bad)], capsys)
    assert rc != 0 and "does not fit its schema at seed" in err


# ---- the command the book shows --------------------------------------------------------------
def _shown_profile_commands() -> list[list[str]]:
    return [shlex.split(s.command)[3:] for s in collect(ROOT) if s.command.startswith("python -m compsem profile ")]


def test_the_pages_show_one_profile_command():
    shown = _shown_profile_commands()
    assert shown, "no page shows the profile command"
    assert all(a == shown[0] for a in shown)
    assert shown[0][:1] == ["profile"] and "--out" in shown[0]


@pytest.mark.slow
def test_the_shown_command_runs_and_agrees_with_the_synthesis(tmp_path, capsys, monkeypatch):
    """The book's command as shown (its --out moved into a temporary folder): exit 0, the
    table printed, every file valid and equal to the synthesis' own numbers; run again, it
    embeds nothing and changes only the summary's date."""
    args = _shown_profile_commands()[0][1:]
    at = args.index("--out")
    args[at + 1] = str(tmp_path / args[at + 1])
    out = Path(args[at + 1])
    rc, printed, _ = _run(args, capsys)
    assert rc == 0 and (out / "profile.md").read_text() in printed
    specs = args[: next(i for i, a in enumerate(args) if a.startswith("--"))]
    runs = list(dict.fromkeys(specs + profiling.panel_controls()))
    assert _validate_all(out) == len(runs) * len(STUDIES) + 1
    limit = int(args[args.index("--limit") + 1])
    _agrees_with_synthesis(out, runs, [s.name for s in STUDIES], n_boot=1000, limit=limit)
    first = _files(out)
    monkeypatch.setenv("COMPSEM_EMBED_LOG", str(tmp_path / "embed.log"))
    rc, _, _ = _run(args, capsys)
    assert rc == 0 and not (tmp_path / "embed.log").exists()
    second = _files(out)
    assert [k for k in first if first[k] != second[k]] in ([], ["profile.json"])


def test_the_panel_of_the_books_files_is_shown_beside(tmp_path, capsys, monkeypatch):
    """A panel model the book's results/profile holds (written here by the book's own call, as
    chapter 90 makes it) stands beside the run's model in the summary, with its own words."""
    monkeypatch.setenv("COMPSEM_RESULTS", str(tmp_path / "results"))
    few = ["--studies", *CUTTABLE, "--limit", "10", "--n-boot", "20"]
    book = profiling.run(["sbert-mini"], studies=CUTTABLE, limit=10, n_boot=20, panel=False)
    assert (tmp_path / "results" / "profile" / _folder("sbert-mini")).is_dir() and book.failed == []
    rc, printed, _ = _run(["glove-50d", *few, "--out", str(tmp_path / "o")], capsys)
    summary = json.loads((tmp_path / "o" / "profile.json").read_text())
    assert rc == 0 and summary["panel"] == ["sbert-mini"]
    mine = {(r["model"], r["criterion"]): r for r in summary["rows"]}
    for f in book.rows:
        if f["model"] == "sbert-mini":
            r = mine["sbert-mini", f["criterion"]]
            assert r["role"] == "panel" and r["value"] == f["value"] and r["verdict"] == f["verdict"]
    assert "| `sbert-mini` | panel (limited) |" in printed
    # the panel's files are read, not rewritten: the run's folder holds only its own models
    assert not (tmp_path / "o" / "sbert-mini").exists()


@pytest.mark.parametrize(
    "spec, folder",
    [("st:org/name", "st_org__name"), ("hf:a/b#pool=cls", "hf_a__b_pool=cls"), ("../x", "__x"), ("bow", "bow")],
)
def test_a_spec_becomes_one_folder_name(spec, folder):
    """As the format page says: "/" is "__", any other character outside letters, digits and
    ._=+- is "_", and no name starts with a dot (worked out by hand)."""
    assert profiling._safe(spec) == folder
