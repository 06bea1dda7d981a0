"""compsem/setcomp/fusion.py: one batch of fusions (the prompt, retries, the budget, the
checkpoint), with a scripted generator; the pipeline around it is in test_pipeline.py."""

import hashlib
import json

from compsem.setcomp import fusion as F


class Scripted:
    """A generator that answers each call from a script: a list of answers, or an exception."""

    name = "gen:scripted"

    def __init__(self, *script):
        self.script, self.prompts = list(script), []

    def __call__(self, prompts):
        self.prompts.append(prompts)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step


def test_the_prompt_asks_for_half_the_words_as_python_prints_the_float():
    msgs = F.fusion_messages("A b c.", "D e f g.")
    assert F.max_words("A b c.", "D e f g.") == 3.5
    assert msgs == [
        {"role": "system", "content": "You are a paraphraser."},
        {"role": "user", "content": "Fuse the following two sentences in 3.5 words: A b c.\nD e f g."},
    ]
    assert "in 2.0 words" in F.fusion_messages("a b", "c d")[1]["content"]
    assert F.clean_fusion("\n  first line \nsecond") == "first line" and F.clean_fusion(None) == ""


def test_the_key_is_the_generator_and_both_sources():
    assert F.fusion_key("g", "a", "b") == hashlib.sha256(b"g\x00a\x00b").hexdigest()[:32]
    assert F.fusion_key("g", "a", "b") != F.fusion_key("g", "b", "a") != F.fusion_key("h", "a", "b")


def test_an_empty_answer_and_an_error_are_retried_then_recorded_as_failures():
    gen = Scripted(["A fused.", "  \n"], RuntimeError("busy"), [""])
    waits = []
    res = F.fuse_batch(gen, [("a", "b"), ("c", "d")], max_retries=2, retry_wait=1.0, sleep=waits.append)
    assert res.fusions == {F.fusion_key(gen.name, "a", "b"): ("a", "b", "A fused.")}
    assert res.failures == {F.fusion_key(gen.name, "c", "d"): ("c", "d", "empty answer")}
    assert [len(p) for p in gen.prompts] == [2, 1, 1] and waits == [1.0, 2.0]  # only what is missing, doubling
    assert (res.n_requests, res.n_calls, res.budget_exhausted) == (4, 3, False)


def test_the_budget_cuts_a_batch_and_stops_when_nothing_is_left():
    gen = Scripted(["one"])
    res = F.fuse_batch(gen, [("a", "b"), ("c", "d")], budget=1, max_retries=0)
    assert len(res.fusions) == 1 and res.n_requests == 1 and not res.failures
    res = F.fuse_batch(Scripted(), [("a", "b")], budget=0)
    assert res.budget_exhausted and res.n_calls == 0


def test_the_checkpoint_keeps_every_complete_line_and_counts_a_torn_one(tmp_path):
    path = tmp_path / "f.jsonl"
    ck = F.FusionCheckpoint(path)
    res = F.BatchResult(fusions={"k1": ("a", "b", "ab")}, failures={"k2": ("c", "d", "busy")})
    ck.record(res, "scripted")
    with open(path, "a") as f:
        f.write('{"key": "k3", "fus')  # a crash mid-write
    again = F.FusionCheckpoint(path)
    assert again.done == {"k1": "ab"} and again.n_corrupt == 1
    fails = [json.loads(x) for x in ck.failures_path.read_text().splitlines()]
    assert [(r["key"], r["error"], r["backend"]) for r in fails] == [("k2", "busy", "scripted")]
