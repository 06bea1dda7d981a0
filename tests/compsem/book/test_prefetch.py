"""python -m compsem prefetch: a chapter's units run here or on a local Ray instance (2 CPUs),
the driver stores them, the chapter's own calls then find everything; failures by unit."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compsem import work
from compsem.book import cli
from compsem.book.running.prefetch import Outcome, commit_unit, planned_work, run_units, unit_done
from compsem.cache import EmbeddingCache, embed, last_stats, text_key
from tests.helpers import ROOT
from tests.helpers.tiny import tiny_bert_classifier

NB = ROOT / "notebooks"


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    from compsem.book.running.prefetch import start_ray

    start_ray(None, num_cpus=2)
    yield ray
    ray.shutdown()


@pytest.fixture
def one_thread():
    """torch on one thread here, hence in the Ray tasks too (they run on the driver's threads):
    the tests' local oracle and the tasks round alike."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """Each test its own cache folder (embeddings, SSM matrices, C-STS runs)."""
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _vectors(path, spec, texts):
    store = EmbeddingCache(path)
    (model,) = [
        m for m, s in store._with_retry(lambda c: c.execute("SELECT model, spec FROM models").fetchall()) if s == spec
    ]
    got = store.get_many(model, [text_key(t) for t in texts], 16)
    return np.stack([got[text_key(t)] for t in texts])


def _phrase_units(spec, chunk=None):
    return planned_work(NB / "31_montague_single.ipynb", {"models": [spec], "phrase_sets": ["AN"]}, chunk=chunk)


def test_the_chapter_finds_every_vector_after_a_local_prefetch(tiny_bert, fresh_cache):
    from compsem.montague.data import build_phrases, load_vocabulary
    from compsem.montague.study import _texts

    spec = f"hf:{tiny_bert}"
    study, units = _phrase_units(spec)
    assert study == "montague" and {u.kind for u in units} == {"embed"}
    out = run_units(units, progress=False)
    assert out.failed == {} and len(out.computed) == len(units) and out.stored_before == 0
    texts = _texts(build_phrases(load_vocabulary()), ("AN",))  # what the chapter embeds
    X = embed(texts, spec)
    assert last_stats().n_encoded == 0 and last_stats().n_cached == len(set(texts))
    again = run_units(units, progress=False)
    assert again.computed == [] and again.stored_before == len(units)
    # the chapter's own call on a fresh cache gives the same bits
    np.testing.assert_array_equal(X, embed(texts, spec, cache=EmbeddingCache(fresh_cache / "other.sqlite")))


def test_ray_vectors_equal_local_ones_bit_for_bit(tiny_bert, tmp_path, monkeypatch, ray_local, one_thread):
    spec = f"hf:{tiny_bert}"
    _, units = _phrase_units(spec, chunk=300)
    assert len(units) > 2
    texts = [t for u in units for t in u.payload["texts"]]
    for engine in ("local", "ray"):
        monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / engine))
        out = run_units(units, engine=engine, progress=False)
        assert out.failed == {} and len(out.computed) == len(units)
    local = _vectors(tmp_path / "local" / "embeddings" / "embeddings.sqlite", spec, texts)
    remote = _vectors(tmp_path / "ray" / "embeddings" / "embeddings.sqlite", spec, texts)
    np.testing.assert_array_equal(remote, local)


def test_a_killed_worker_loses_only_its_unit_and_the_rerun_does_the_rest(tiny_bert, tmp_path, monkeypatch, ray_local):
    from tests.helpers.ray_tasks import die_once

    spec = f"hf:{tiny_bert}"
    _, units = _phrase_units(spec, chunk=300)
    texts = [t for u in units for t in u.payload["texts"]]
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "whole"))
    run_units(units, progress=False)

    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "killed"))
    marker = tmp_path / "die"
    marker.touch()
    units[1].payload["die_marker"] = str(marker)
    out = run_units(units, engine="ray", retries=0, execute=die_once, progress=False)
    assert list(out.failed) == [units[1].name] and len(out.computed) == len(units) - 1
    assert [unit_done(u) for u in units] == [k != 1 for k in range(len(units))]
    rerun = run_units(units, engine="ray", execute=die_once, progress=False)
    assert rerun.computed == [units[1].name] and rerun.stored_before == len(units) - 1 and not rerun.failed
    np.testing.assert_array_equal(
        _vectors(tmp_path / "killed" / "embeddings" / "embeddings.sqlite", spec, texts),
        _vectors(tmp_path / "whole" / "embeddings" / "embeddings.sqlite", spec, texts),
    )

    # with a retry, the lost worker's unit is run again in the same sweep
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "retried"))
    marker.touch()
    out = run_units(units, engine="ray", retries=1, execute=die_once, progress=False)
    assert not out.failed and len(out.computed) == len(units) and not marker.exists()


def test_a_unit_that_cannot_load_is_reported_by_name_and_the_others_are_stored(
    tiny_bert, fresh_cache, ray_local, capsys
):
    good, bad = f"hf:{tiny_bert}", f"hf:{fresh_cache / 'no-such-model'}"
    units = work.embed_units("montague", {bad: ["a dog", "the car"], good: ["a dog", "the car", "red"]})
    out = run_units(units, engine="ray", retries=1, progress=False)
    assert list(out.failed) == [units[0].name] and "no-such-model" in units[0].name + out.failed[units[0].name]
    assert out.computed == [units[1].name] and unit_done(units[1])
    assert f"FAILED {units[0].name}: " in out.summary()

    code = cli.main(
        [
            "prefetch",
            str(NB / "31_montague_single.ipynb"),
            "-p",
            "models",
            f'["{bad}", "{good}"]',
            "-p",
            "phrase_sets",
            '["AN"]',
            "--quiet",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 1 and "1 failed" in printed and f"FAILED embed {bad}" in printed


def _write_pool(folder):
    rows = [
        ("c1_p", 1, "premise", "a dog runs fast"),
        ("c1_s1", 1, "synonymous", "the dog runs fast"),
        ("c1_i1", 1, "inferential", "a dog runs"),
        ("c2_p", 2, "premise", "the man plays guitar"),
        ("c2_s1", 2, "synonymous", "a man plays guitar"),
        ("c2_i1", 2, "inferential", "the man plays"),
    ]
    with (folder / "pool.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("sentence_id", "cluster", "role", "text"), *rows])
    judg = [
        (p, h, c, 1)
        for p, h, c in [
            ("c1_p", "c1_s1", "synonymous"),
            ("c1_p", "c1_i1", "inferential"),
            ("c2_p", "c2_s1", "synonymous"),
            ("c2_p", "c2_i1", "inferential"),
        ]
    ]
    with (folder / "judgements.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("premise_id", "hypothesis_id", "category", "score"), *judg])
    return folder / "pool.csv"


def test_nli_blocks_from_ray_equal_local_and_the_chapter_reads_the_matrix(tmp_path, monkeypatch, ray_local, one_thread):
    from compsem.ssm import nli as nli_scorer
    from compsem.ssm.data import load_study
    from compsem.ssm.study import score_matrix

    monkeypatch.setattr(nli_scorer, "GROUP_ROWS", 2)  # here and, through the units, on the workers
    pool = _write_pool(tmp_path)
    nli = tiny_bert_classifier(
        tmp_path / "nli",
        "a the dog man runs fast plays guitar".split(),
        {0: "contradiction", 1: "entailment", 2: "neutral"},
        initializer_range=0.5,
    )
    spec = f"nli:{nli}"
    _, units = planned_work(
        NB / "41_ssm_matrices.ipynb", {"models": ["lexical", spec], "pool_source": str(pool)}, chunk=2
    )
    assert [u.kind for u in units] == ["score"] * 4 and [u.count for u in units] == [36, 12, 12, 12]
    matrices = {}
    for engine in ("local", "ray"):
        monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / engine))
        assert not run_units(units, engine=engine, progress=False).failed
        texts = load_study(str(pool))[0].texts
        matrices[engine] = {s: score_matrix(s, texts, progress=False) for s in ("lexical", spec)}
        files = sorted(p.name for p in (tmp_path / engine / "ssm_scores").glob("*.npy"))
        assert len(files) == 2  # read back, not recomputed
    for s in ("lexical", spec):
        np.testing.assert_array_equal(matrices["ray"][s], matrices["local"][s])
    direct = score_matrix(spec, texts, cache=False, progress=False)  # all pairs in one pass
    np.testing.assert_array_equal(matrices["local"][spec], direct)
    np.testing.assert_array_equal(matrices["ray"][spec], direct)


@pytest.mark.slow
def test_chapter_41_after_a_ray_prefetch_writes_the_csvs_of_a_plain_run(tmp_path, monkeypatch, ray_local):
    """The shipped pool with a tiny NLI model: the chapter run on the prefetched blocks writes the
    plain run's result files byte for byte. Two one-CPU workers, each running torch on as many
    threads as this process (the default of ``threads_per_task``): on one thread the
    probabilities differ by about 1e-6 on this CPU."""
    import re

    from compsem.book.running.runner import run_notebook
    from compsem.ssm.data import load_study

    texts = load_study(None)[0].texts
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    nli = tiny_bert_classifier(
        tmp_path / "nli",
        words,
        {0: "contradiction", 1: "entailment", 2: "neutral"},
        lowercase=True,
        initializer_range=0.5,
    )
    params = {"models": ["lexical", f"nli:{nli}"]}
    nb = NB / "41_ssm_matrices.ipynb"
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "plain"))
    run_notebook(nb, params, out=tmp_path / "plain_out", progress=False)
    monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / "ray"))
    _, units = planned_work(nb, params, chunk=64)
    assert [u.count for u in units if u.spec != "lexical"] == [64 * 251] * 3 + [59 * 251]
    assert not run_units(units, engine="ray", progress=False).failed
    stored = {p: p.stat().st_mtime_ns for p in (tmp_path / "ray" / "ssm_scores").glob("*.npy")}
    run_notebook(nb, params, out=tmp_path / "ray_out", progress=False)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "ray" / "ssm_scores").glob("*.npy")} == stored
    plain = sorted((tmp_path / "plain_out" / "results").rglob("*.*"))
    assert plain and [p.relative_to(tmp_path / "plain_out") for p in plain] == [
        p.relative_to(tmp_path / "ray_out") for p in sorted((tmp_path / "ray_out" / "results").rglob("*.*"))
    ]
    for p in plain:
        assert p.read_bytes() == (tmp_path / "ray_out" / p.relative_to(tmp_path / "plain_out")).read_bytes(), p.name


def test_a_training_run_from_ray_equals_the_local_one_and_the_chapter_reuses_it(
    tiny_bert, tmp_path, monkeypatch, ray_local, one_thread
):
    from compsem.csts import study as S

    # precision="auto" times each process afresh (its measured ratio, and under load its choice, can
    # differ between the two engines): forced here, and the forced precision travels in the unit to
    # the Ray worker, which does not share the test's environment
    monkeypatch.setenv("COMPSEM_PRECISION", "fp32")
    params = {
        "models": [f"hf:{tiny_bert}"],
        "configs": ["cross/mse"],
        "train_pairs": 8,
        "eval_pairs": 4,
        "overrides": {"epochs": 1, "max_length": 32, "train_layers": 1},
    }
    _, units = planned_work(NB / "22_csts_finetune.ipynb", params)
    (unit,) = units
    rows = {}
    for engine in ("local", "ray"):
        monkeypatch.setenv("COMPSEM_CACHE", str(tmp_path / engine))
        assert not run_units(units, engine=engine, progress=False).failed
        p = unit.payload
        rows[engine] = S.train_and_evaluate(unit.spec, p["train"], p["evals"], p["cfg"], seed=p["seed"])
        assert rows[engine].pop("reused") is True
    timing = {"train_seconds", "fill_seconds", "examples_per_s"}  # wall clock
    assert {k: v for k, v in rows["ray"].items() if k not in timing} == {
        k: v for k, v in rows["local"].items() if k not in timing
    }


@pytest.fixture(scope="module")
def fusion_lm(tmp_path_factory):
    from tests.compsem.setcomp.test_generate import WORDS
    from tests.helpers.tiny import tiny_gpt2_lm

    return tiny_gpt2_lm(tmp_path_factory.mktemp("fusion_lm") / "lm", words=WORDS, seed=4)


def _fusion_params(tmp_path, folder, generator):
    from tests.compsem.setcomp.test_generate import DOCS, chapter_params

    docs = tmp_path / "docs.csv"
    pd.DataFrame({"doc": list(DOCS), "text": list(DOCS.values())}).to_csv(docs, index=False)
    return chapter_params(docs, generator, tmp_path / folder)


def test_fusions_from_ray_equal_a_plain_build_and_a_lost_worker_leaves_only_its_batch(
    fusion_lm, tmp_path, ray_local, one_thread
):
    """Sampling at the pipeline's temperature with its seed: the same batch, the same answers
    (torch on one thread here, as in the one-CPU tasks)."""
    from compsem.setcomp.fusion import FusionCheckpoint
    from tests.compsem.setcomp.test_generate import build
    from tests.helpers.ray_tasks import die_once

    nb = NB / "10_setcomp_data.ipynb"
    plain = build(_fusion_params(tmp_path, "plain", f"gen:hf:{fusion_lm}"))
    params = _fusion_params(tmp_path, "ray", f"gen:hf:{fusion_lm}")
    _, units = planned_work(nb, params)
    assert [u.kind for u in units] == ["generate"] * 3
    marker = tmp_path / "die"
    marker.touch()
    units[1].payload["die_marker"] = str(marker)
    out = run_units(units, engine="ray", retries=0, execute=die_once, progress=False)
    assert list(out.failed) == [units[1].name] and len(out.computed) == 2
    _, rest = planned_work(nb, params)
    assert [u.key for u in rest] == [units[1].key]  # the rerun plans only the lost batch
    again = run_units(rest, engine="ray", progress=False)
    assert again.computed == [units[1].name] and not again.failed
    after = build(params)
    assert after["report"].n_requests == 0
    pd.testing.assert_frame_equal(after["quintuples"], plain["quintuples"])
    assert (
        FusionCheckpoint(tmp_path / "ray" / "fusions.jsonl").done
        == FusionCheckpoint(tmp_path / "plain" / "fusions.jsonl").done
    )


def test_a_generator_that_cannot_load_is_reported_by_unit_and_the_exit_status_says_so(tmp_path, capsys):
    params = _fusion_params(tmp_path, "build", f"gen:hf:{tmp_path / 'no-such-model'}")
    code = cli.main(
        [
            "prefetch",
            str(NB / "10_setcomp_data.ipynb"),
            "--quiet",
            "--retries",
            "0",
            *[x for k, v in params.items() for x in ("-p", k, json.dumps(v))],
        ]
    )
    printed = capsys.readouterr().out
    assert code == 3 and "3 failed" in printed and printed.count(f"FAILED generate gen:hf:{tmp_path}") == 3
    assert not (tmp_path / "build" / "fusions.jsonl").exists()


def test_the_book_and_compsem_run_never_import_ray():
    code = (
        "import sys, compsem.book.cli, compsem.book.running.runner, compsem.book.running.prefetch\n"
        "import compsem.setcomp.study, compsem.csts.study, compsem.montague.study, compsem.ssm.study\n"
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ})


def test_outcome_summary_counts_and_names_failures():
    out = Outcome(
        planned=3,
        stored_before=1,
        computed=["embed m [a]"],
        failed={"embed m [b]": "OSError: gone"},
        seconds=2.0,
        estimate_s=120.0,
    )
    assert out.summary().splitlines() == [
        "3 units planned (plan: ~2 min on one worker): 1 already stored, 1 computed and stored, 1 failed; 2.0 s",
        "FAILED embed m [b]: OSError: gone",
    ]


def test_a_parameter_the_chapter_does_not_have_is_refused_by_name():
    with pytest.raises(ValueError, match=r"31_montague_single.ipynb has no parameter \['modles'\]"):
        planned_work(NB / "31_montague_single.ipynb", {"modles": ["sbert-mini"]})


def test_unknown_engine_and_negative_retries_are_refused():
    with pytest.raises(ValueError, match="unknown engine 'dask'"):
        run_units([], engine="dask")
    with pytest.raises(ValueError, match="retries must be at least 0"):
        run_units([], retries=-1)


def test_commit_dispatches_by_kind(tmp_path, fresh_cache):
    unit = work.WorkUnit("embed", "m", "k", "montague", {"texts": ["x"]})
    commit_unit(unit, {"spec": "m", "identity": "m|v1", "dim": 2, "vectors": np.ones((1, 2), np.float32)})
    assert EmbeddingCache().count_cached("m", [text_key("x")]) == 1 and unit_done(unit)


def test_the_cluster_extra_and_its_dependencies_are_pinned_in_the_lock_file():
    import importlib.metadata as md
    import re
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["cluster"]
    lock = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)$", (ROOT / "requirements-lock.txt").read_text(), re.M))
    lock = {k.lower().replace("_", "-"): v for k, v in lock.items()}
    assert extra == [f"ray=={lock['ray']}"]
    pytest.importorskip("ray")
    assert md.version("ray") == lock["ray"]
    for req in md.requires("ray") or []:
        if "extra ==" in req:
            continue
        name = re.match(r"[A-Za-z0-9_.\-]+", req).group(0).lower().replace("_", "-")
        assert name in lock, f"ray needs {name}, not in requirements-lock.txt"


def _torch_threads(unit):
    import torch

    return torch.get_num_threads()


def test_a_ray_task_runs_torch_on_the_drivers_threads_unless_told(ray_local):
    import torch

    units = [work.WorkUnit("embed", "m", f"k{i}", "ssm") for i in range(2)]
    for asked, want in ((None, torch.get_num_threads()), (1, 1)):
        seen = []
        out = run_units(
            units,
            engine="ray",
            threads_per_task=asked,
            progress=False,
            execute=_torch_threads,
            commit=lambda unit, threads, seen=seen: seen.append(threads),
            done=lambda unit: False,
        )
        assert not out.failed and seen == [want, want]
    with pytest.raises(ValueError, match="threads_per_task"):
        run_units(units, engine="ray", threads_per_task=0, progress=False)


def test_prefetch_warns_when_a_chapter_plans_nothing_or_the_cache_is_not_writable(tmp_path, monkeypatch):
    """Issue 48: the synthesis' prefetch planned 0 units in silence, and a lecturer's prefetch into
    a read-only class cache said "computed and stored" while it all went to the overlay."""
    from compsem.book.running import prefetch as pf

    cache = tmp_path / "class-cache"
    (cache / "embeddings").mkdir(parents=True)
    (cache / "embeddings" / "embeddings.sqlite").write_bytes(b"")
    monkeypatch.setenv("COMPSEM_CACHE", str(cache))
    monkeypatch.setenv("COMPSEM_CACHE_OVERLAY", str(tmp_path / "overlay"))
    assert pf.prefetch_warnings("11_setcomp_overlap.ipynb", 3) == []  # units to do, a cache this user writes
    [nothing] = pf.prefetch_warnings("90_synthesis.ipynb", 0)
    assert (
        nothing.startswith("90_synthesis.ipynb: nothing to prefetch")
        and "compsem run notebooks/90_synthesis" in nothing
    )
    # a read-only file in the cache (as the guide's chmod -R a-w leaves it; root writes anyway,
    # so which path is read-only is set here, and store.can_write is the check's own test)
    locked = cache / "embeddings" / "embeddings.sqlite"
    monkeypatch.setattr(pf, "can_write", lambda p: Path(p) != locked)
    [ro] = pf.prefetch_warnings("11_setcomp_overlap.ipynb", 3)
    assert f"the cache {cache} cannot be written by you ({locked} is read-only)" in ro
    assert f"lands in your private overlay {tmp_path / 'overlay'}" in ro and f"chmod -R u+w {cache}" in ro
    # prefetch passes them on before it runs: the synthesis plans no unit, so nothing runs
    said = []
    monkeypatch.setattr(pf, "can_write", lambda p: True)
    out = pf.prefetch(ROOT / "notebooks" / "90_synthesis.ipynb", warn=said.append)
    assert out.planned == 0 and len(said) == 1 and said[0].startswith("90_synthesis.ipynb: nothing to prefetch")
