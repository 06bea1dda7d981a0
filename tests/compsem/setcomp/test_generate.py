"""Part I's fusions as "generate" units (``python -m compsem prefetch`` of chapter 10 with
``documents`` and ``generator``): planned from the documents and the checkpoint without loading
the model, run here on a tiny local causal LM (``gen:hf:<folder>``, sampling as the pipeline
does), stored in the checkpoint; the pipeline afterwards sends no prompt and builds the same
quintuples as a plain run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from compsem.book.running.prefetch import planned_work, run_units, unit_done
from compsem.setcomp import pipeline as pl
from compsem.setcomp import study
from tests.helpers import ROOT
from tests.helpers.tiny import tiny_gpt2_lm

NB10 = ROOT / "notebooks" / "10_setcomp_data.ipynb"

# doc "a": five sentences -> windows at 0 and 2 (four fusions); doc "b": three -> one window (two)
DOCS = {
    "a": "The cat sat on the mat. The dog ran far. A cat ran to the dog. The dog sat on a mat. A cat sat far.",
    "b": "The dog ran to the cat. A cat sat on the mat. The mat ran far.",
}
WORDS = [
    "you",
    "are",
    "a",
    "paraphraser.",
    "fuse",
    "the",
    "following",
    "two",
    "sentences",
    "in",
    "words:",
    "cat",
    "sat",
    "dog",
    "ran",
    "on",
    "mat",
    "far",
    "to",
    "The",
    "A",
]
OPTIONS = {"max_new_tokens": 4, "batch_size": 2, "min_words": 1, "max_requests_per_second": None, "device": "cpu"}


def orthogonal_embed(texts, spec):
    """Every distinct text its own axis: all cosines 0, every quintuple passes the filter."""
    return np.eye(len(texts))


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return tiny_gpt2_lm(tmp_path_factory.mktemp("fusion_lm") / "lm", words=WORDS, seed=4)


@pytest.fixture
def docs_csv(tmp_path):
    path = tmp_path / "docs.csv"
    pd.DataFrame({"doc": list(DOCS), "text": list(DOCS.values())}).to_csv(path, index=False)
    return path


def chapter_params(docs_csv, generator, build_dir, **options):
    return {
        "documents": str(docs_csv),
        "generator": generator,
        "build_dir": str(build_dir),
        "build_options": {"id_column": "doc", **OPTIONS, **options},
    }


def build(params):
    """Chapter 10's build with these parameters (the filter on made-up orthogonal vectors)."""
    return study.build_set(
        params["documents"],
        params["generator"],
        params["build_dir"],
        build_options=params["build_options"],
        embed_fn=orthogonal_embed,
    )


def test_units_are_the_pipelines_batches_of_what_the_checkpoint_lacks(docs_csv, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # planned without any request
    params = chapter_params(docs_csv, "gen:openai:fuser", tmp_path / "build")
    _, units = planned_work(NB10, params)
    pairs = pl.fusion_pairs(pl.sentence_windows(DOCS, min_words=1))
    assert len(pairs) == 6 and [u.kind for u in units] == ["generate"] * 3
    assert [u.payload["pairs"] for u in units] == [pairs[0:2], pairs[2:4], pairs[4:6]]
    assert [u.count for u in units] == [2, 2, 2] and {u.spec for u in units} == {"gen:openai:fuser"}
    name = "gen:openai:fuser@http://127.0.0.1:9/v1|T=0.5|max_tokens=4"
    assert units[0].payload["keys"] == [pl.fusion_key(name, *p) for p in pairs[0:2]]
    assert not any(unit_done(u) for u in units)
    # the first batch answered: it is done, and a new plan holds only the other two, same keys
    first = pl.BatchResult(
        {k: (a, b, f"F{i}") for i, (k, (a, b)) in enumerate(zip(units[0].payload["keys"], pairs[0:2]))}
    )
    study.store_unit(units[0], first)
    assert [unit_done(u) for u in units] == [True, False, False]
    assert [u.key for u in planned_work(NB10, params)[1]] == [u.key for u in units[1:]]
    # fusions per unit rounded up to whole batches; max_requests caps the fusions planned
    assert [u.count for u in planned_work(NB10, params, chunk=3)[1]] == [4]
    capped = chapter_params(docs_csv, "gen:openai:fuser", tmp_path / "other", max_requests=3)
    assert [u.count for u in planned_work(NB10, capped)[1]] == [2, 1]


def test_the_embedded_set_plans_no_generation_and_bad_build_parameters_are_named(docs_csv, tmp_path):
    _, units = planned_work(NB10, {"models": ["sbert-mini"]})
    assert units and {u.kind for u in units} == {"embed"}
    with pytest.raises(ValueError, match="generator is empty"):
        planned_work(NB10, {"documents": str(docs_csv)})
    with pytest.raises(ValueError, match=r"build_options has no option \['max_docs'\]"):
        planned_work(NB10, chapter_params(docs_csv, "gen:hf:x", tmp_path, max_docs=3))


def test_a_local_prefetch_fills_the_checkpoint_and_the_build_then_sends_no_prompt(lm, docs_csv, tmp_path):
    plain = build(chapter_params(docs_csv, f"gen:hf:{lm}", tmp_path / "plain"))
    rep = plain["report"]
    assert (rep.n_fusions, rep.n_requests, rep.n_failed_fusions, rep.n_quintuples) == (6, 6, 0, 3)

    params = chapter_params(docs_csv, f"gen:hf:{lm}", tmp_path / "prefetched")
    _, units = planned_work(NB10, params)
    out = run_units(units, progress=False)
    assert not out.failed and len(out.computed) == 3
    lines = (tmp_path / "prefetched" / "fusions.jsonl").read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(x)["fusion"] for x in lines)
    assert planned_work(NB10, params)[1] == []  # nothing left to plan
    after = build(params)
    assert after["report"].n_requests == 0 and after["report"].n_from_checkpoint == 6
    # the same batches, the same sampling seed: the quintuples of a plain run
    pd.testing.assert_frame_equal(after["quintuples"], plain["quintuples"])
    assert "0 prompts sent, 6 of 6 fusions read from the checkpoint" in after["summary"]
    assert f"-p dataset_source '\"{tmp_path / 'prefetched' / 'quintuples.jsonl'}\"'" in after["summary"]
    # once built, the set's own texts are what a prefetch embeds (before, none was known)
    _, embeds = planned_work(NB10, {**params, "models": ["sbert-mini"]})
    built = after["quintuples"]
    expected = set(built[["s_prev", "s_curr", "s_next", "s1", "s2"]].to_numpy().ravel())
    assert {u.kind for u in embeds} == {"embed"} and {t for u in embeds for t in u.payload["texts"]} == expected


def test_a_unit_whose_generator_is_not_the_planned_one_fails_instead_of_misfiling(lm, docs_csv, tmp_path):
    _, units = planned_work(NB10, chapter_params(docs_csv, f"gen:hf:{lm}", tmp_path / "b"))
    units[0].payload["name"] += "|other"
    with pytest.raises(RuntimeError, match="planned as"):
        study.run_unit(units[0])


def test_units_of_one_process_share_the_pipelines_rate_limit(docs_csv, tmp_path, monkeypatch):
    """Three units of two prompts at 2 prompts per second, one after another in this process:
    the prompts are spaced as the pipeline spaces them (five gaps of 0.5 s), not per unit."""
    from tests.compsem.setcomp.test_pipeline import FakeGenerator

    now, slept = [0.0], []

    def sleep(s):
        slept.append(s)
        now[0] += s

    class FakeClockLimiter(pl.RateLimiter):
        def __init__(self, per_second):
            super().__init__(per_second, clock=lambda: now[0], sleep=sleep)

    monkeypatch.setattr(pl, "RateLimiter", FakeClockLimiter)
    monkeypatch.setattr(pl, "_LIMITERS", {})
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    params = chapter_params(docs_csv, "gen:openai:fuser", tmp_path / "build", max_requests_per_second=2.0)
    _, units = planned_work(NB10, params)
    fake = FakeGenerator()
    fake.name = units[0].payload["name"]  # the planned identity, answered offline
    monkeypatch.setattr(pl, "_generator", lambda *a: fake)
    assert not run_units(units, progress=False).failed and len(units) == 3
    assert sum(len(c) for c in fake.calls) == 6 and slept == [0.5] * 5
