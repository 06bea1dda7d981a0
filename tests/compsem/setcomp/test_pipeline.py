"""The fusion pipeline with fake generators: windows, batching, resume after a crash, budget, failures."""

import io
import json

import pandas as pd
import pytest

from compsem.errors import DataError
from compsem.llm import make_generator
from compsem.setcomp import pipeline as pl
from compsem.setcomp import study

# doc1: 5 sentences, all long enough -> windows at 0 and 2 (stride 2); doc2: 3 sentences -> one window
DOCS = {
    "doc1": "The council met on Monday night. It approved a new budget for roads. Residents protested outside the hall. "
    "The mayor promised a second vote in May. Officials will publish the minutes on Friday.",
    "doc2": "A storm hit the coast last week. Trees fell across the main road. Power returned after two days.",
}
S1 = [
    "The council met on Monday night.",
    "It approved a new budget for roads.",
    "Residents protested outside the hall.",
    "The mayor promised a second vote in May.",
    "Officials will publish the minutes on Friday.",
]


class FakeGenerator:
    """Deterministic: answers each prompt with a fusion built from its two sources, after a blank line
    and followed by a second line (which the pipeline must drop)."""

    name = "fake-v1"

    def __init__(self, crash_after_calls=None, fail_on=None, fail_times=10**9, empty_on=None):
        self.calls, self.crash_after, self.fail_on, self.fail_times, self.empty_on = (
            [],
            crash_after_calls,
            fail_on,
            fail_times,
            empty_on,
        )
        self.failures = 0

    def __call__(self, prompts):
        if self.crash_after is not None and len(self.calls) >= self.crash_after:
            raise KeyboardInterrupt("simulated crash")
        pairs = [tuple(p[1]["content"].split(": ", 1)[1].split("\n")) for p in prompts]
        self.calls.append(pairs)
        if self.fail_on and any(self.fail_on in a for a, _ in pairs) and self.failures < self.fail_times:
            self.failures += 1
            raise ConnectionError("HTTP 429 rate limited")
        return [
            "" if self.empty_on and self.empty_on in a else f"\n  FUSED[{a.split()[0]}|{b.split()[0]}]  \nextra line"
            for a, b in pairs
        ]


def no_sleep(_):
    pass


def run(docs=DOCS, gen=None, ck=None, tmp_path=None, **kw):
    kw.setdefault("max_requests_per_second", None)
    kw.setdefault("sleep", no_sleep)
    return pl.build_quintuples(docs, gen or FakeGenerator(), ck or tmp_path / "ck.jsonl", **kw)


def test_split_sentences():
    assert pl.split_sentences("One two three four. Five six seven eight! Nine ten eleven twelve?") == [
        "One two three four.",
        "Five six seven eight!",
        "Nine ten eleven twelve?",
    ]


def test_windows_are_consecutive_and_share_no_fusion():
    rep = pl.WindowReport()
    w = pl.sentence_windows(DOCS, report=rep)
    assert [(x["doc_id"], x["index"]) for x in w] == [("doc1", 0), ("doc1", 2), ("doc2", 0)]
    assert (w[0]["s_prev"], w[0]["s_curr"], w[0]["s_next"]) == tuple(S1[0:3])
    assert (w[1]["s_prev"], w[1]["s_curr"], w[1]["s_next"]) == tuple(S1[2:5])
    assert (rep.n_documents, rep.n_sentences, rep.n_short, rep.n_windows) == (2, 8, 0, 3)
    fusions = [p for x in w for p in ((x["s_prev"], x["s_curr"]), (x["s_curr"], x["s_next"]))]
    assert len(fusions) == len(set(fusions)) == 6
    assert [x["index"] for x in pl.sentence_windows(DOCS, stride=3)] == [0, 0]  # 0-1-2 in each document
    assert len(pl.sentence_windows(DOCS, max_documents=1)) == 2
    with pytest.raises(ValueError, match="share a fusion"):
        pl.sentence_windows(DOCS, stride=1)


def test_a_short_sentence_breaks_the_run_instead_of_being_joined_over():
    doc = (
        "Alpha beta gamma delta. Epsilon zeta eta theta. Too short. Iota kappa lambda mu. Nu xi omicron pi. "
        "Rho sigma tau upsilon. Phi chi psi omega."
    )
    rep = pl.WindowReport()
    w = pl.sentence_windows({"d": doc}, report=rep)
    # sentences 0-1 form a run of two (no window); 3-6 a run of four: one window at 3 (stride 2 needs 5..7 for the next)
    assert [(x["index"], x["s_prev"]) for x in w] == [(3, "Iota kappa lambda mu.")]
    assert (rep.n_sentences, rep.n_short, rep.n_windows) == (7, 1, 1)
    assert all("Too short." not in x.values() for x in w)


def test_prompt_is_the_papers():
    msgs = pl.fusion_messages("a b c", "d e f g")
    assert msgs[0] == {"role": "system", "content": "You are a paraphraser."}
    assert msgs[1]["content"] == "Fuse the following two sentences in 3.5 words: a b c\nd e f g"
    assert pl.TEMPERATURE == 0.5
    assert pl.clean_fusion("\n  first line \nsecond") == "first line" and pl.clean_fusion("  \n ") == ""


def test_build_quintuples_batches_prompts_and_parses_answers(tmp_path):
    gen = FakeGenerator()
    q, rep = run(gen=gen, tmp_path=tmp_path, batch_size=4)
    assert [len(c) for c in gen.calls] == [4, 2]  # six distinct fusions, four per call
    assert (rep.n_triples, rep.n_fusions, rep.n_requests, rep.n_calls, rep.n_quintuples) == (3, 6, 6, 2, 3)
    assert list(q.columns) == ["id", "doc_id", "index", "s_prev", "s_curr", "s_next", "s1", "s2"]
    assert q["id"].tolist() == ["doc1-0000", "doc1-0002", "doc2-0000"]
    assert q.loc[0, "s1"] == "FUSED[The|It]" and q.loc[0, "s2"] == "FUSED[It|Residents]"
    assert q.loc[1, "s1"] == "FUSED[Residents|The]" and q.loc[2, "s2"] == "FUSED[Trees|Power]"
    assert len(set(q["s1"]) | set(q["s2"])) == 6  # no fusion reused across windows


def test_resume_after_crash_loses_no_finished_fusion(tmp_path):
    ck = tmp_path / "ck.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run(gen=FakeGenerator(crash_after_calls=2), ck=ck, batch_size=2)
    assert len(ck.read_text().splitlines()) == 4  # two finished batches of two are on disk
    gen2 = FakeGenerator()
    q, rep = run(gen=gen2, ck=ck, batch_size=2)
    assert sum(len(c) for c in gen2.calls) == 2 and rep.n_from_checkpoint == 4
    clean, _ = run(ck=tmp_path / "clean.jsonl")
    assert q.equals(clean)


def test_truncated_checkpoint_line_is_ignored(tmp_path):
    ck = tmp_path / "ck.jsonl"
    run(ck=ck)
    ck.write_text(ck.read_text() + '{"key": "abc", "fus')  # a crash in the middle of a write
    c = pl.FusionCheckpoint(ck)
    assert c.n_corrupt == 1 and len(c.done) == 6


def test_failures_are_retried_logged_and_skipped(tmp_path, caplog):
    waits = []
    q, rep = run(
        gen=FakeGenerator(fail_on="Trees fell"),
        tmp_path=tmp_path,
        batch_size=1,
        max_retries=2,
        retry_wait=1.0,
        sleep=waits.append,
    )
    assert waits == [1.0, 2.0]
    assert rep.n_failed_fusions == 1 and rep.n_skipped_triples == 1 and len(q) == 2
    fail = [json.loads(x) for x in (tmp_path / "ck.jsonl.failures.jsonl").read_text().splitlines()]
    assert len(fail) == 1 and "429" in fail[0]["error"] and fail[0]["a"] == "Trees fell across the main road."
    assert any("given up" in r.message for r in caplog.records)
    q2, rep2 = run(gen=FakeGenerator(fail_on="Trees fell", fail_times=1), ck=tmp_path / "ck2.jsonl", batch_size=1)
    assert rep2.n_failed_fusions == 0 and len(q2) == 3


def test_empty_answers_are_retried_only_for_the_missing_prompts(tmp_path):
    gen = FakeGenerator(empty_on="Trees fell")
    q, rep = run(gen=gen, tmp_path=tmp_path, batch_size=8, max_retries=1)
    assert [len(c) for c in gen.calls] == [6, 1]  # the retry asks for the one empty answer only
    assert rep.n_failed_fusions == 1 and len(q) == 2


def test_request_budget_stops_early_and_resumes(tmp_path):
    ck = tmp_path / "ck.jsonl"
    q, rep = run(ck=ck, max_requests=3, batch_size=2)
    assert rep.stopped_early and rep.n_requests == 3 and len(q) == 1
    gen = FakeGenerator()
    q2, rep2 = run(gen=gen, ck=ck)
    assert len(q2) == 3 and sum(len(c) for c in gen.calls) == 3 and rep2.n_from_checkpoint == 3


def test_rate_limit_spaces_prompts(tmp_path):
    now, slept = [0.0], []

    def sleep(s):
        slept.append(s)
        now[0] += s

    run(tmp_path=tmp_path, max_requests_per_second=2.0, batch_size=3, sleep=sleep, clock=lambda: now[0])
    assert sum(slept) == pytest.approx(0.5 * 5)  # six prompts, 0.5 s apart


def test_openai_generator_drives_the_pipeline(tmp_path):
    seen = []

    class Resp(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    def opener(req, timeout):
        body = json.loads(req.data)
        seen.append((req.full_url, body))
        a, b = body["messages"][1]["content"].split(": ", 1)[1].split("\n")
        return Resp(json.dumps({"choices": [{"message": {"content": f"{a} and {b}"}}]}).encode())

    gen = pl.fusion_generator(
        make_generator("gen:openai:gpt-3.5-turbo", temperature=0.5, opener=opener, base_url="http://127.0.0.1:9/v1")
    )
    q, rep = run({"d": DOCS["doc2"]}, gen=gen, tmp_path=tmp_path)
    assert seen[0][0] == "http://127.0.0.1:9/v1/chat/completions"
    assert seen[0][1]["temperature"] == 0.5 and seen[0][1]["messages"][0]["content"] == "You are a paraphraser."
    assert q.loc[0, "s1"] == "A storm hit the coast last week. and Trees fell across the main road."


def test_hf_generator_on_a_tiny_model_gives_the_models_own_greedy_answer(tmp_path):
    pytest.importorskip("transformers")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.helpers.tiny import tiny_gpt2_lm

    words = [
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
    ]
    folder = tiny_gpt2_lm(tmp_path / "lm", words=words, seed=4)  # a seed whose greedy answers are not empty
    gen = make_generator(f"gen:hf:{folder}", max_new_tokens=4, batch_size=2, device="cpu")  # greedy
    docs = {"d": "The cat sat on the mat. The dog ran far. The cat ran far."}
    q, rep = run(docs, gen=gen, ck=tmp_path / "ck.jsonl", min_words=1)
    assert rep.n_calls == 1 and rep.n_requests == 2
    # independently: the tokenizer and model by hand, greedy, on the prompt as the generator renders it
    tok, model = AutoTokenizer.from_pretrained(folder), AutoModelForCausalLM.from_pretrained(folder).eval()
    for col, (a, b) in (
        ("s1", ("The cat sat on the mat.", "The dog ran far.")),
        ("s2", ("The dog ran far.", "The cat ran far.")),
    ):
        msgs = pl.fusion_messages(a, b)
        ids = tok(msgs[0]["content"] + "\n\n" + msgs[1]["content"] + "\n", return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(**ids, max_new_tokens=4, do_sample=False, pad_token_id=tok.eos_token_id)
        expected = pl.clean_fusion(tok.decode(out[0, ids["input_ids"].shape[1] :], skip_special_tokens=True))
        assert expected and q.loc[0, col] == expected


def test_build_dataset_end_to_end_and_reload(tmp_path):
    import numpy as np

    from compsem.setcomp import data as ds

    def orthogonal_embed(texts, spec):  # every distinct text its own axis: all cosines 0, every quintuple passes
        return np.eye(len(texts))

    out = study.build_dataset(
        DOCS,
        FakeGenerator(),
        tmp_path / "work",
        filter_encoders="fake",
        embed_fn=orthogonal_embed,
        max_requests_per_second=None,
        sleep=no_sleep,
    )
    assert out["filter"].n_pass == 3
    assert {k: len(v) for k, v in out["tables"].items()} == {"overlap": 3, "difference": 18, "union": 6}
    q = ds.load_quintuples(tmp_path / "work" / "quintuples.jsonl")
    assert len(q) == 3 and q["id"].tolist() == out["quintuples"]["id"].tolist()
    assert len(ds.load_operator_table(tmp_path / "work" / "difference.jsonl", "difference")) == 18


def test_build_dataset_without_usable_documents_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match="no quintuple"):
        study.build_dataset(
            {"d": "Too short. Also short."},
            FakeGenerator(),
            tmp_path,
            embed_fn=lambda t, s: None,
            max_requests_per_second=None,
        )


def test_documents_from_table(tmp_path):
    p = tmp_path / "docs.csv"
    pd.DataFrame({"doc": ["a", "b"], "text": list(DOCS.values())}).to_csv(p, index=False)
    docs = pl.documents_from_table(p, id_column="doc")
    assert list(docs) == ["a", "b"]
    with pytest.raises(DataError, match="'body'"):
        pl.documents_from_table(p, text_column="body")


def test_an_eight_sentence_document_gives_only_distinct_samples(tmp_path):
    """The issue's example: sliding windows over 8 sentences gave 36 difference rows (22 distinct) and
    12 union rows (7 distinct). Windows two apart: 3 windows, 18 + 6 rows, all distinct."""
    from compsem.setcomp import data as ds

    doc = " ".join(
        f"{w} says something new today." for w in ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight")
    )
    q, rep = run({"d": doc}, tmp_path=tmp_path)
    assert q["index"].tolist() == [0, 2, 4] and rep.n_fusions == 6
    t = ds.build_operator_tables(q)
    for op, n in (("difference", 18), ("union", 6), ("overlap", 3)):
        rows = t[op].drop(columns=["qid", "variant"]).drop_duplicates()
        assert len(t[op]) == len(rows) == n, op


def test_paper_fusion_model_is_gpt35_at_temperature_half(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    gen = pl.fusion_generator("paper")
    assert gen.model == "gpt-3.5-turbo" and gen.temperature == 0.5
    assert gen.request_body(pl.fusion_messages("a b", "c d"))["messages"][0]["content"] == "You are a paraphraser."
