"""The fusion pipeline with fake backends: dedup, resume after a crash, rate limit, budget, failures."""

import io
import json

import pytest

from compsem.setcomp import pipeline as pl

DOCS = {
    "doc1": "The council met on Monday night. It approved a new budget for roads. Residents protested outside the hall. "
            "The mayor promised a second vote in May.",
    "doc2": "A storm hit the coast last week. Trees fell across the main road. Power returned after two days.",
}


class CountingBackend:
    name = "fake-v1"

    def __init__(self, crash_after=None, fail_on=None, fail_times=10**9):
        self.calls, self.crash_after, self.fail_on, self.fail_times = [], crash_after, fail_on, fail_times
        self.failures = 0

    def fuse(self, a, b):
        if self.crash_after is not None and len(self.calls) >= self.crash_after:
            raise KeyboardInterrupt("simulated crash")
        self.calls.append((a, b))
        if self.fail_on and self.fail_on in a and self.failures < self.fail_times:
            self.failures += 1
            raise ConnectionError("HTTP 429 rate limited")
        return f"FUSED[{a[:12]}|{b[:12]}]"


def no_sleep(_):
    pass


def test_split_and_triples():
    assert pl.split_sentences("One two three four. Five six seven eight! Nine ten eleven twelve?") == [
        "One two three four.", "Five six seven eight!", "Nine ten eleven twelve?"]
    tr = list(pl.consecutive_triples(DOCS))
    assert len(tr) == 2 + 1          # 4 sentences -> 2 windows, 3 sentences -> 1 window
    assert tr[0]["s_prev"].startswith("The council") and tr[1]["s_next"].startswith("The mayor")
    assert len(list(pl.consecutive_triples(DOCS, max_documents=1))) == 2


def test_prompt_is_the_papers():
    msgs = pl.fusion_messages("a b c", "d e f g")
    assert msgs[0] == {"role": "system", "content": "You are a paraphraser."}
    assert msgs[1]["content"] == "Fuse the following two sentences in 3.5 words: a b c\nd e f g"
    assert pl.TEMPERATURE == 0.5


def test_build_quintuples_dedups_shared_fusions(tmp_path):
    be = CountingBackend()
    q, rep = pl.build_quintuples(DOCS, be, tmp_path / "ck.jsonl", max_requests_per_second=None, sleep=no_sleep)
    assert len(q) == 3 and rep.n_quintuples == 3
    # doc1: 4 sentences -> 3 distinct adjacent pairs; doc2: 3 sentences -> 2 pairs
    assert len(be.calls) == 5 and len(set(be.calls)) == 5
    assert q.loc[0, "s2"] == q.loc[1, "s1"]          # fuse(curr, next) of one window = fuse(prev, curr) of the next
    assert list(q.columns) == ["id", "doc_id", "index", "s_prev", "s_curr", "s_next", "s1", "s2"]


def test_resume_after_crash_loses_no_finished_fusion(tmp_path):
    ck = tmp_path / "ck.jsonl"
    with pytest.raises(KeyboardInterrupt):
        pl.build_quintuples(DOCS, CountingBackend(crash_after=3), ck, max_requests_per_second=None, sleep=no_sleep)
    lines = ck.read_text().splitlines()
    assert len(lines) == 3                           # every fusion finished before the crash is on disk
    be2 = CountingBackend()
    q, rep = pl.build_quintuples(DOCS, be2, ck, max_requests_per_second=None, sleep=no_sleep)
    assert len(be2.calls) == 2                       # only the missing fusions are requested
    clean, _ = pl.build_quintuples(DOCS, CountingBackend(), tmp_path / "clean.jsonl", max_requests_per_second=None,
                                   sleep=no_sleep)
    assert q.equals(clean)


def test_truncated_checkpoint_line_is_ignored(tmp_path):
    ck = tmp_path / "ck.jsonl"
    pl.build_quintuples(DOCS, CountingBackend(), ck, max_requests_per_second=None, sleep=no_sleep)
    ck.write_text(ck.read_text() + '{"key": "abc", "fus')    # a crash in the middle of a write
    c = pl.FusionCheckpoint(ck)
    assert c.n_corrupt == 1 and len(c.done) == 5


def test_failures_are_retried_logged_and_skipped(tmp_path, caplog):
    ck = tmp_path / "ck.jsonl"
    waits = []
    be = CountingBackend(fail_on="Trees fell")
    q, rep = pl.build_quintuples(DOCS, be, ck, max_requests_per_second=None, max_retries=2, retry_wait=1.0,
                                 sleep=waits.append)
    assert waits == [1.0, 2.0]
    assert rep.n_failed_fusions == 1 and rep.n_skipped_triples == 1 and len(q) == 2
    fail = [json.loads(x) for x in (tmp_path / "ck.jsonl.failures.jsonl").read_text().splitlines()]
    assert len(fail) == 1 and "429" in fail[0]["error"]
    assert any("given up" in r.message for r in caplog.records)
    # a transient failure: succeeds on the retry, nothing is recorded as failed
    be2 = CountingBackend(fail_on="Trees fell", fail_times=1)
    q2, rep2 = pl.build_quintuples(DOCS, be2, tmp_path / "ck2.jsonl", max_requests_per_second=None,
                                   sleep=no_sleep)
    assert rep2.n_failed_fusions == 0 and len(q2) == 3


def test_retry_waits_grow_exponentially(tmp_path):
    waits = []
    pl.build_quintuples({"d": "Alpha beta gamma delta. Trees fell on every road. Epsilon zeta eta theta."},
                        CountingBackend(fail_on="Trees fell"), tmp_path / "ck.jsonl", max_requests_per_second=None,
                        max_retries=3, retry_wait=0.5, sleep=waits.append)
    assert waits == [0.5, 1.0, 2.0]


def test_request_budget_stops_early_and_resumes(tmp_path):
    ck = tmp_path / "ck.jsonl"
    q, rep = pl.build_quintuples(DOCS, CountingBackend(), ck, max_requests=2, max_requests_per_second=None,
                                 sleep=no_sleep)
    assert rep.stopped_early and rep.n_requests == 2 and len(q) == 1
    be = CountingBackend()
    q2, rep2 = pl.build_quintuples(DOCS, be, ck, max_requests_per_second=None, sleep=no_sleep)
    assert len(q2) == 3 and len(be.calls) == 3 and rep2.n_from_checkpoint >= 2


def test_rate_limiter_spaces_requests():
    now = [0.0]
    slept = []

    def sleep(s):
        slept.append(s)
        now[0] += s

    rl = pl.RateLimiter(2.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(5):
        rl.wait()
    assert slept == pytest.approx([0.5] * 4)
    with pytest.raises(ValueError):
        pl.RateLimiter(-1)


def test_openai_backend_request_and_response():
    seen = {}

    class Resp(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    def opener(req, timeout):
        seen["url"], seen["body"], seen["auth"] = req.full_url, json.loads(req.data), req.headers.get("Authorization")
        return Resp(json.dumps({"choices": [{"message": {"content": "  A fused sentence.  "}}]}).encode())

    be = pl.OpenAIChatBackend("gpt-3.5-turbo", base_url="http://localhost:9/v1/", api_key="k", opener=opener)
    assert be.fuse("one two", "three four") == "A fused sentence."
    assert seen["url"] == "http://localhost:9/v1/chat/completions"
    assert seen["body"]["temperature"] == 0.5 and seen["body"]["messages"][0]["content"] == "You are a paraphraser."
    assert seen["auth"] == "Bearer k"

    def bad(req, timeout):
        return Resp(b'{"error": "quota"}')

    with pytest.raises(RuntimeError, match="unexpected response"):
        pl.OpenAIChatBackend(base_url="http://x", api_key="", opener=bad).fuse("a", "b")


def test_hf_generation_backend_on_a_tiny_model(tmp_path):
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = ["[UNK]", "[EOS]", "you", "are", "a", "paraphraser.", "fuse", "the", "following", "two", "sentences",
             "in", "words:", "cat", "sat", "dog", "ran"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", eos_token="[EOS]", pad_token="[EOS]")
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(words), n_positions=128, n_embd=16, n_layer=1, n_head=2))
    fast.save_pretrained(tmp_path)
    model.save_pretrained(tmp_path)
    be = pl.HFGenerationBackend(str(tmp_path), max_new_tokens=4, seed=0, device="cpu")
    out = be.fuse("cat sat", "dog ran")
    assert isinstance(out, str)
    assert "paraphraser" in be.prompt("cat sat", "dog ran")


def test_build_dataset_end_to_end_and_reload(tmp_path):
    import numpy as np

    from compsem.setcomp import dataset as ds

    def orthogonal_embed(texts, spec):   # every distinct text its own axis: all cosines 0, every quintuple passes
        return np.eye(len(texts))

    out = pl.build_dataset(DOCS, CountingBackend(), tmp_path / "work", filter_encoders="fake", embed_fn=orthogonal_embed,
                           max_requests_per_second=None, sleep=no_sleep)
    assert out["filter"].n_pass == 3
    assert {k: len(v) for k, v in out["tables"].items()} == {"overlap": 3, "difference": 18, "union": 6}
    q = ds.load_quintuples(tmp_path / "work" / "quintuples.jsonl")
    assert len(q) == 3 and q["id"].tolist() == out["quintuples"]["id"].tolist()
    d = ds.load_operator_table(tmp_path / "work" / "difference.jsonl", "difference")
    assert len(d) == 18


def test_build_dataset_without_usable_documents_is_a_clear_error(tmp_path):
    from compsem.errors import DataError

    with pytest.raises(DataError, match="no quintuple"):
        pl.build_dataset({"d": "Too short. Also short."}, CountingBackend(), tmp_path, embed_fn=lambda t, s: None,
                         max_requests_per_second=None)


def test_documents_from_table(tmp_path):
    import pandas as pd

    from compsem.errors import DataError

    p = tmp_path / "docs.csv"
    pd.DataFrame({"doc": ["a", "b"], "text": list(DOCS.values())}).to_csv(p, index=False)
    docs = pl.documents_from_table(p, id_column="doc")
    assert list(docs) == ["a", "b"]
    with pytest.raises(DataError, match="'body'"):
        pl.documents_from_table(p, text_column="body")
