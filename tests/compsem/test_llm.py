"""The one generator interface: spec grammar, OpenAI-compatible requests, HF seq2seq and causal."""

import io
import json

import pytest

from compsem.errors import UnknownModelError
from compsem.llm import HFGenerator, OpenAIChatGenerator, RateLimiter, as_messages, make_generator


def test_spec_grammar_and_errors():
    with pytest.raises(UnknownModelError, match=r"gen:hf:<.*gen:openai:<"):
        make_generator("hf:gpt2")  # encoders own 'hf:'; generators are 'gen:hf:'
    with pytest.raises(UnknownModelError):
        make_generator("gen:vllm:x")
    with pytest.raises(UnknownModelError):
        make_generator("gen:hf:")
    fake = lambda prompts: ["x"] * len(prompts)  # noqa: E731 - callables pass through
    assert make_generator(fake) is fake


def test_messages():
    assert as_messages("hi") == [{"role": "user", "content": "hi"}]
    with pytest.raises(TypeError, match="message 1"):
        as_messages([{"role": "user", "content": "a"}, {"content": "b"}])


class _Resp(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_openai_requests_one_per_prompt_with_system_turn():
    seen = []

    def opener(req, timeout):
        seen.append((req.full_url, json.loads(req.data), dict(req.header_items())))
        return _Resp(json.dumps({"choices": [{"message": {"content": f" answer {len(seen)} "}}]}).encode())

    g = make_generator(
        "gen:openai:m1", base_url="http://127.0.0.1:9/v1/", api_key="k", max_new_tokens=7, batch_size=4, opener=opener
    )
    assert isinstance(g, OpenAIChatGenerator)
    out = g(["q1", [{"role": "system", "content": "S"}, {"role": "user", "content": "q2"}]])
    assert out == ["answer 1", "answer 2"]
    url, body, headers = seen[1]
    assert url == "http://127.0.0.1:9/v1/chat/completions"
    assert body == {
        "model": "m1",
        "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "q2"}],
        "temperature": 0.0,
        "max_tokens": 7,
    }
    assert headers["Authorization"] == "Bearer k"


def test_openai_bad_payload_is_named():
    g = OpenAIChatGenerator(
        "m", base_url="http://localhost", api_key="", opener=lambda req, timeout: _Resp(b'{"error": "nope"}')
    )
    with pytest.raises(RuntimeError, match="unexpected response from http://localhost"):
        g(["a"])


def test_rate_limiter_spaces_calls():
    t = [0.0]
    slept = []
    lim = RateLimiter(2.0, clock=lambda: t[0], sleep=lambda s: (slept.append(s), t.__setitem__(0, t[0] + s)))
    for _ in range(3):
        lim.wait()
    assert slept == [0.5, 0.5]
    with pytest.raises(ValueError):
        RateLimiter(-1)


def test_hf_causal_returns_only_new_tokens_capped(tiny_gpt2_lm):
    g = make_generator(f"gen:hf:{tiny_gpt2_lm}", max_new_tokens=3, batch_size=2)
    assert isinstance(g, HFGenerator) and not g.seq2seq
    prompts = ["a man runs", "the dog", "red car is big"]
    out = g(prompts)
    assert len(out) == 3
    # the tokenizer is word-level: each answer is at most three words, none repeats the prompt
    tok = g.tokenizer
    for p, o in zip(prompts, out):
        assert len(tok(o, add_special_tokens=False)["input_ids"]) <= 3
    # greedy decoding is deterministic and batching does not change answers (left padding)
    assert g(prompts[::-1]) == out[::-1]
    assert [g([p])[0] for p in prompts] == out
    # the answers are the greedy continuation, worked out token by token with the model itself
    assert out == [_greedy_by_hand(tiny_gpt2_lm, p, 3) for p in prompts]


def _greedy_by_hand(path, prompt: str, n: int) -> str:
    """The obvious greedy loop: append the arg-max next token n times (stop at end of text)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(path), AutoModelForCausalLM.from_pretrained(path).eval()
    ids, new = tok(prompt, return_tensors="pt")["input_ids"], []
    with torch.no_grad():
        for _ in range(n):
            nxt = int(model(ids).logits[0, -1].argmax())
            if nxt == tok.eos_token_id:
                break
            new.append(nxt)
            ids = torch.cat([ids, torch.tensor([[nxt]])], dim=1)
    return tok.decode(new, skip_special_tokens=True).strip()


def test_hf_seq2seq(tiny_t5):
    g = HFGenerator(str(tiny_t5), max_new_tokens=4)
    out = g(["a man runs", "the dog"])
    assert g.seq2seq and len(out) == 2
    assert all(len(g.tokenizer(o, add_special_tokens=False)["input_ids"]) <= 4 for o in out)


def test_hf_chat_messages_without_template_are_joined(tiny_gpt2_lm):
    g = HFGenerator(str(tiny_gpt2_lm), max_new_tokens=1)
    text = g.render([{"role": "system", "content": "a man"}, {"role": "user", "content": "runs"}])
    assert text == "a man\n\nruns\n"


@pytest.mark.parametrize(
    "options",
    [{}, {"do_sample": True, "temperature": 0.5, "seed": 3, "max_new_tokens": 7}, {"batch_size": 2, "device": "cpu"}],
)
def test_generator_name_is_the_loaded_generators_without_loading_it(tiny_gpt2_lm, monkeypatch, options):
    from compsem.llm import generator_name

    assert (
        generator_name(f"gen:hf:{tiny_gpt2_lm}", **options) == make_generator(f"gen:hf:{tiny_gpt2_lm}", **options).name
    )
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert generator_name("gen:openai:m", **options) == make_generator("gen:openai:m", **options).name
    assert generator_name("gen:openai:m", **options).startswith("gen:openai:m@http://127.0.0.1:9/v1|")
    with pytest.raises(UnknownModelError):
        generator_name("gen:vllm:m")
